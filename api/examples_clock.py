"""Examples of the clock operations (issue 31): abort, resign and claim, and their refusals
(api/examples.py puts them into the document with the others)."""

from __future__ import annotations

from typing import Any

from api.examples import MOVE_RESULT, _problem

PROBLEM = "application/problem+json"
JSON = "application/json"
AT = "2026-12-06T01:05:09.120Z"


def _result(events: list[dict[str, Any]], status: str, winners: list[int]) -> Any:
    version = 3 + len(events)
    match = {**MOVE_RESULT["match"], "version": version, "status": status, "winners": winners}
    if status == "finished":
        match = {**match, "phase": "finished", "turn": None}
    return {"version": version, "events": events, "match": match}


def _event(seq: int, kind: str, data: dict[str, Any]) -> dict[str, Any]:
    return {"seq": seq, "type": kind, "v": 1, "at": AT, "data": data}


ABORTED = _result(
    [_event(4, "MatchAborted", {"by": 2, "reason": "aborted", "ends": True, "winners": []})],
    "finished",
    [],
)
RESIGNED = _result(
    [
        _event(4, "SeatResigned", {"seat": 2, "ends": False, "winners": []}),
        _event(5, "SeatReplacedByBot", {"seat": 2, "bot": "basic", "reason": "resigned"}),
    ],
    "active",
    [],
)
CLAIMED = _result(
    [
        _event(4, "VictoryClaimed", {"seat": 1, "against": 2, "ends": False, "winners": []}),
        _event(5, "SeatReplacedByBot", {"seat": 2, "bot": "basic", "reason": "claimed"}),
    ],
    "active",
    [],
)
CLAIM_EARLY = {
    **_problem(
        409,
        "claim_not_available",
        "The claim is not available yet",
        "seat 2 may be claimed against in 41.5 s (after 60 s of absence)",
    ),
    "seconds_left": 41.5,
}
ABORT_LATE = _problem(
    409,
    "abort_not_available",
    "The match can no longer be aborted",
    "every seat has moved: the match can no longer be aborted (resign instead)",
)
TIMED_OUT = _problem(
    409,
    "turn_timed_out",
    "The seat's time ran out before this move",
    "seat 2's time in match 'm_QKwja5Au3Q2CO5A3sQV7tg' ran out before this move: the timeout "
    "was applied (see the match's log)",
)

RESPONSES: dict[tuple[str, str, str], dict[str, tuple[str, Any]]] = {
    ("abort_match", "200", JSON): {"aborted": ("seat 2 aborted before any move", ABORTED)},
    ("abort_match", "409", PROBLEM): {"too_late": ("every seat has moved", ABORT_LATE)},
    ("resign_seat", "200", JSON): {"resigned": ("three seats: a bot plays on", RESIGNED)},
    ("claim_victory", "200", JSON): {"claimed": ("three seats: a bot takes the seat", CLAIMED)},
    ("claim_victory", "409", PROBLEM): {"early": ("with the seconds left", CLAIM_EARLY)},
    ("make_move", "409", PROBLEM): {"turn_timed_out": ("the deadline passed", TIMED_OUT)},
}
