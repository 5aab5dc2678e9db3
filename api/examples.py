"""Examples of the OpenAPI document: a request and a response for every operation, taken
from one real session (a seeded three-hand-gin match, seed 42, played through the API; a
manipulation-rummy match, seed 7; a replay of the first events of another gin match's log).

tests/integration/api/test_openapi.py checks each example against its schema, and sends the
replay example to the app; `apply` puts them into the document by operation id.
"""

from __future__ import annotations

import json
from typing import Any

from api import examples_accounts, examples_seeks
from api.examples_analysis import ANALYSIS
from api.examples_lobby import LOBBY_RESPONSES
from api.examples_replay import REPLAY_LOG, REPLAY_RESULT, gin_seats
from domain.bots import catalogue
from domain.gin.options import validate_options as gin_options
from domain.manipulation.options import validate_options as manipulation_options

GIN_OPTIONS: Any = gin_options({"gin_bonus": 25})
MANIPULATION_OPTIONS: Any = manipulation_options({"target_score": 150})

CREATE: Any = {
    "variant": "three-hand-gin",
    "players": [{"name": "ana"}, {"name": "ben"}, {"name": "cy"}],
    "seed": 42,
    "options": {"gin_bonus": 25},
}
CREATE_MANIPULATION: Any = {
    "variant": "manipulation-rummy",
    "players": [{"name": "dee"}, {"name": "eve"}],
    "seed": 7,
    "options": {"target_score": 150},
}

CREATED: Any = {
    "id": "m_QKwja5Au3Q2CO5A3sQV7tg",
    "variant": "three-hand-gin",
    "version": 3,
    "seeded": True,
    "options": GIN_OPTIONS,
    "seats": [
        {
            "seat": 0,
            "name": "ana",
            "bot": None,
            "token": "0.6byfVNz-nppwoEJAm-PXz9DFVdDLLY4BEO-zXrQScEQ",
            "open": False,
        },
        {
            "seat": 1,
            "name": "ben",
            "bot": None,
            "token": "1.0p4rZ2eQcXa6lQ_3UsXHGlvZVTgYL-pcLYDxXAfAFxg",
            "open": False,
        },
        {
            "seat": 2,
            "name": "cy",
            "bot": None,
            "token": "2.Qs3Y9mVIi-b9iark4TVkApAK_oLTrpsdhu5aoHG2aZw",
            "open": False,
        },
    ],
    "lobby": None,
}

GIN_VIEW: Any = {
    "id": "m_QKwja5Au3Q2CO5A3sQV7tg",
    "variant": "three-hand-gin",
    "version": 3,
    "seeded": True,
    "status": "active",
    "options": GIN_OPTIONS,
    "round": 1,
    "phase": "upcard_offer",
    "turn": 2,
    "seats": gin_seats("advisor", "box", "captain"),
    "scores": [0, 0, 0],
    "winners": [],
    "stock_size": 31,
    "rounds": [],
    "deal_commitment": "bdc45203de6247766ba5c61a4e9b8873aa982369542f32ae5ab42a7fc041982f",
    "roles": {"box": 1, "captain": 2, "advisor": 0},
    "discard_top": "KC",
    "discard_size": 1,
    "discard_pile": ["KC"],
    "picked": [[], [], []],
    "knock": None,
    "you": {
        "seat": 2,
        "role": "captain",
        "hand": ["2C", "3C", "8H", "KD", "JH", "TD", "QS", "2S", "9D", "5H"],
        "legal_moves": [{"type": "take_upcard"}, {"type": "pass_upcard"}],
    },
}

LEGAL_MOVES: Any = {
    "version": 3,
    "seat": 2,
    "moves": [{"type": "take_upcard"}, {"type": "pass_upcard"}],
}

MOVE_RESULT: Any = {
    "version": 4,
    "events": [
        {
            "seq": 4,
            "type": "UpcardPassed",
            "v": 1,
            "at": "2026-12-06T01:05:06.910Z",
            "data": {"card": "KC", "seat": 2},
        }
    ],
    "match": {
        "id": "m_QKwja5Au3Q2CO5A3sQV7tg",
        "variant": "three-hand-gin",
        "version": 4,
        "seeded": True,
        "status": "active",
        "options": GIN_OPTIONS,
        "round": 1,
        "phase": "upcard_offer",
        "turn": 1,
        "seats": gin_seats("advisor", "box", "captain"),
        "scores": [0, 0, 0],
        "winners": [],
        "stock_size": 31,
        "rounds": [],
        "deal_commitment": "bdc45203de6247766ba5c61a4e9b8873aa982369542f32ae5ab42a7fc041982f",
        "roles": {"box": 1, "captain": 2, "advisor": 0},
        "discard_top": "KC",
        "discard_size": 1,
        "discard_pile": ["KC"],
        "picked": [[], [], []],
        "knock": None,
        "you": {
            "seat": 2,
            "role": "captain",
            "hand": ["2C", "3C", "8H", "KD", "JH", "TD", "QS", "2S", "9D", "5H"],
            "legal_moves": [],
        },
    },
}

EVENTS_PAGE: Any = {
    "version": 6,
    "events": [
        {
            "seq": 4,
            "type": "UpcardPassed",
            "v": 1,
            "at": "2026-12-06T01:05:06.910Z",
            "data": {"card": "KC", "seat": 2},
        },
        {
            "seq": 5,
            "type": "UpcardPassed",
            "v": 1,
            "at": "2026-12-06T01:05:06.952Z",
            "data": {"card": "KC", "seat": 1},
        },
        {
            "seq": 6,
            "type": "CardDrawn",
            "v": 1,
            "at": "2026-12-06T01:05:07.016Z",
            "data": {"card": "KH", "from": "stock", "seat": 2},
        },
    ],
}

HINT: Any = {
    "move": {"type": "pass_upcard"},
    "reason": "draw from the stock: 55.7 expected beats 58.3 with KC",
    "bot": "expert",
}

MANIPULATION_LEGAL_MOVES: Any = {
    "version": 19,
    "seat": 1,
    "moves": [
        {"type": "draw"},
        {"type": "meld", "table": [["7C", "JK=7D", "7H"], ["5C", "5D", "5S"]]},
    ],
}

MANIPULATION_VIEW: Any = {
    "id": "m_7Dlf1BV7X_WKGRSLI5t8_g",
    "variant": "manipulation-rummy",
    "version": 19,
    "seeded": True,
    "status": "active",
    "options": MANIPULATION_OPTIONS,
    "round": 1,
    "phase": "meld_or_draw",
    "turn": 1,
    "seats": [
        {
            "seat": 0,
            "name": "dee",
            "bot": None,
            "hand_size": 11,
            "open": False,
            "account": None,
            "account_bot": False,
        },
        {
            "seat": 1,
            "name": "eve",
            "bot": None,
            "hand_size": 17,
            "open": False,
            "account": None,
            "account_bot": False,
        },
    ],
    "scores": [0, 0],
    "winners": [],
    "stock_size": 22,
    "rounds": [],
    "deal_commitment": "dfdbbea6c0f5e07724054a65d4d7e31eaee74272e0f637fce4a0b4950c62eb37",
    "you": {
        "seat": 1,
        "hand": [
            "2C",
            "3C",
            "5C",
            "TC",
            "KC",
            "5D",
            "6D",
            "8D",
            "9D",
            "JD",
            "KD",
            "JH",
            "AS",
            "3S",
            "5S",
            "6S",
            "9S",
        ],
        "legal_moves": [
            {"type": "draw"},
            {"type": "meld", "table": [["7C", "JK=7D", "7H"], ["5C", "5D", "5S"]]},
        ],
    },
    "dealer": 0,
    "table": [["7C", "JK=7D", "7H"]],
    "draws_this_turn": 1,
    "rounds_won": [0, 0],
    "final_turns_left": 0,
}


def _problem(status: int, code: str, title: str, detail: str) -> Any:
    kind = f"https://deadwood.example/problems/{code}"
    return {"type": kind, "title": title, "status": status, "detail": detail, "code": code}


for _view in (GIN_VIEW, MOVE_RESULT["match"], MANIPULATION_VIEW, REPLAY_RESULT["match"]):
    _view["lobby"] = None  # every seat was given at the create (issue 30)


NOT_YOUR_TURN = _problem(
    409,
    "not_your_turn",
    "Another seat is to act",
    "cannot draw: it is the turn of seat 2, not seat 1",
)
VERSION_CONFLICT = _problem(
    412,
    "version_conflict",
    "The match has moved on",
    "match 'm_QKwja5Au3Q2CO5A3sQV7tg' is at version 6, not the expected 5",
)
ILLEGAL_MOVE = _problem(
    422,
    "illegal_move",
    "The rules do not allow this move",
    "cannot knock: 69 deadwood after discarding KD, the limit is 10 (G6.2, G5.5)",
)
MATCH_IN_PROGRESS = _problem(
    403,
    "match_in_progress",
    "The match is still in progress",
    "the log is published when the match is finished",
)

STREAM = (
    "retry: 10000\n"
    ": stream of m_QKwja5Au3Q2CO5A3sQV7tg\n\n"
    + "".join(
        f"id: {e['seq']}\nevent: {e['type']}\ndata: {json.dumps(e, separators=(',', ':'))}\n\n"
        for e in EVENTS_PAGE["events"]
    )
    + ": heartbeat\n\n"
)
LOG = "".join(json.dumps(event, separators=(",", ":")) + "\n" for event in REPLAY_LOG)
"""The first lines of a finished match's log (GET .../log serves every line)."""

BOTS: Any = [b for b in catalogue() if b["name"] == "basic"]
"""The catalogue's `basic` bots (GET /v1/bots lists every bot)."""


JSON = "application/json"
RESPONSES: dict[tuple[str, str, str], dict[str, tuple[str, Any]]] = {
    ("create_match", "201", JSON): {
        "three-hand-gin": ("the new match and its seat tokens", CREATED)
    },
    ("get_match", "200", JSON): {
        "three-hand-gin": ("seat 2 (the captain) at the upcard offer", GIN_VIEW),
        "manipulation-rummy": ("seat 1, after its first draw of the turn", MANIPULATION_VIEW),
    },
    ("get_legal_moves", "200", JSON): {
        "three-hand-gin": ("the captain at the upcard offer", LEGAL_MOVES),
        "manipulation-rummy": ("a draw, or a meld onto the table", MANIPULATION_LEGAL_MOVES),
    },
    ("make_move", "200", JSON): {"pass_upcard": ("the captain passed the upcard", MOVE_RESULT)},
    ("make_move", "409", "application/problem+json"): {"not_your_turn": ("", NOT_YOUR_TURN)},
    ("make_move", "412", "application/problem+json"): {
        "version_conflict": ("If-Match named an older version", VERSION_CONFLICT)
    },
    ("make_move", "422", "application/problem+json"): {
        "illegal_move": ("the rule, in words", ILLEGAL_MOVE)
    },
    **LOBBY_RESPONSES,
    ("get_events", "200", JSON): {"after_3": ("?after=3&limit=3, as seat 2", EVENTS_PAGE)},
    ("get_log", "403", "application/problem+json"): {"in_progress": ("", MATCH_IN_PROGRESS)},
    ("get_hint", "200", JSON): {"hint": ("the expert's pick for the captain", HINT)},
    ("replay_log", "200", JSON): {"replayed": ("the first three events, replayed", REPLAY_RESULT)},
    ("list_bots", "200", JSON): {"bots": ("the basic bots of the list", BOTS)},
    ("get_health", "200", JSON): {"ok": ("the event store answers", {"status": "ok"})},
    ("get_liveness", "200", JSON): {"live": ("the process answers", {"status": "live"})},
    ("get_readiness", "200", JSON): {
        "ready": (
            "every part answers",
            {
                "status": "ready",
                "checks": {"event_store": "ok", "queue": "ok", "workers": "ok"},
                "stalled": 0,
            },
        )
    },
    ("get_analysis", "200", JSON): {"analysed": ("a finished match, judged", ANALYSIS)},
    ("get_analysis", "202", JSON): {
        "running": (
            "the job is still running",
            {"id": "m_QKwja5Au3Q2CO5A3sQV7tg", "status": "running", "retry_after": 2},
        )
    },
}
"""(operation id, status, media type): named examples, each a summary and a value."""
RESPONSES.update(examples_accounts.RESPONSES)
for _key, _more in examples_seeks.RESPONSES.items():
    RESPONSES[_key] = {**RESPONSES.get(_key, {}), **_more}

REQUESTS: dict[str, dict[str, tuple[str, Any]]] = {
    "replay_log": {"log": ("the first three events of a finished match's log", REPLAY_LOG)},
}
"""Request bodies the blueprints do not give an example of (replay_log's is made in
api/spec.py); create_match and make_move take theirs from api/docs.py."""
REQUESTS.update(examples_accounts.REQUESTS)
REQUESTS.update(examples_seeks.REQUESTS)


def _named(examples: dict[str, tuple[str, Any]]) -> dict[str, Any]:
    return {
        name: {"summary": summary, "value": value} if summary else {"value": value}
        for name, (summary, value) in examples.items()
    }


def apply(paths: dict[str, Any]) -> None:
    """Put the examples into the operations of `paths`, found by their operation ids."""
    operations = {
        operation["operationId"]: operation
        for item in paths.values()
        for operation in item.values()
        if isinstance(operation, dict) and "operationId" in operation
    }
    from api.examples_clock import RESPONSES as CLOCK_RESPONSES

    merged = dict(RESPONSES)
    for key, more in CLOCK_RESPONSES.items():
        merged[key] = {**merged.get(key, {}), **more}
    for (name, status, media), examples in merged.items():
        content = _content(operations, name, status, media)
        if content is not None:
            content.pop("example", None)
            content["examples"] = _named(examples)
    for name, examples in REQUESTS.items():
        body = operations.get(name, {}).get("requestBody", {}).get("content", {})
        for content in body.values():
            content["examples"] = _named(examples)


def _content(operations: dict[str, Any], name: str, status: str, media: str) -> Any:
    response = operations.get(name, {}).get("responses", {}).get(status)
    return None if response is None else response.get("content", {}).get(media)
