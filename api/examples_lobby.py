"""The lobby's examples (issue 30): a match with an open seat, a join, a leave, a cancel, a
rematch and a page of GET /v1/lobby (api/examples.py puts them into RESPONSES)."""

from __future__ import annotations

from typing import Any

from domain.manipulation.options import validate_options as manipulation_options

JSON = "application/json"


OPTIONS: Any = manipulation_options({"target_score": 150})
WAITING: Any = {
    "status": "waiting",
    "listed": True,
    "expires_at": "2026-12-06T01:15:06.910Z",
    "open_seats": [2],
    "rematch_of": None,
    "cancelled": None,
}
OPEN_VIEW: Any = {
    "id": "m_Lb7wq2xkT0mB6X4sQe9Vfa",
    "variant": "manipulation-rummy",
    "version": 2,
    "seeded": False,
    "status": "active",
    "options": OPTIONS,
    "round": 0,
    "phase": "setup",
    "turn": None,
    "seats": [
        {
            "seat": 0,
            "name": "dee",
            "bot": None,
            "hand_size": 0,
            "open": False,
            "account": None,
            "account_bot": False,
        },
        {
            "seat": 1,
            "name": "eve",
            "bot": None,
            "hand_size": 0,
            "open": False,
            "account": None,
            "account_bot": False,
        },
        {
            "seat": 2,
            "name": "",
            "bot": None,
            "hand_size": 0,
            "open": True,
            "account": None,
            "account_bot": False,
        },
    ],
    "scores": [0, 0, 0],
    "winners": [],
    "stock_size": 0,
    "rounds": [],
    "deal_commitment": None,
    "you": {"seat": 1, "hand": [], "legal_moves": []},
    "dealer": None,
    "table": [],
    "draws_this_turn": 0,
    "rounds_won": [0, 0, 0],
    "final_turns_left": 0,
    "lobby": {**WAITING, "open_seats": [2]},
}
JOINED: Any = {
    "id": "m_Lb7wq2xkT0mB6X4sQe9Vfa",
    "seat": 1,
    "token": "1.Zp1rQ2eQcXa6lQ_3UsXHGlvZVTgYL-pcLYDxXAfAFxg",
    "version": 2,
    "match": OPEN_VIEW,
}
LEFT: Any = {
    "version": 3,
    "match": {
        **OPEN_VIEW,
        "version": 3,
        "you": None,
        "seats": [
            *OPEN_VIEW["seats"][:1],
            {**OPEN_VIEW["seats"][2], "seat": 1},
            OPEN_VIEW["seats"][2],
        ],
        "lobby": {**WAITING, "open_seats": [1, 2]},
    },
}
CANCELLED: Any = {
    "version": 3,
    "match": {
        **OPEN_VIEW,
        "version": 3,
        "status": "finished",
        "phase": "finished",
        "you": {"seat": 0, "hand": [], "legal_moves": []},
        "lobby": {**WAITING, "status": "cancelled", "cancelled": "cancelled_by_creator"},
    },
}
LOBBY_PAGE: Any = {
    "matches": [
        {
            "id": "m_Lb7wq2xkT0mB6X4sQe9Vfa",
            "variant": "manipulation-rummy",
            "options": OPTIONS,
            "seats": [
                {
                    "seat": 0,
                    "name": "dee",
                    "bot": None,
                    "open": False,
                    "account": None,
                    "account_bot": False,
                },
                {
                    "seat": 1,
                    "name": "",
                    "bot": None,
                    "open": True,
                    "account": None,
                    "account_bot": False,
                },
                {
                    "seat": 2,
                    "name": "",
                    "bot": None,
                    "open": True,
                    "account": None,
                    "account_bot": False,
                },
            ],
            "created_at": "2026-12-06T01:05:06.910Z",
            "expires_at": "2026-12-06T01:15:06.910Z",
        }
    ],
    "next": "01796441706910:m_Lb7wq2xkT0mB6X4sQe9Vfa",
    "seeks": [],
}
SEAT_TAKEN: Any = {
    "type": "https://deadwood.example/problems/seat_taken",
    "title": "The seat is taken",
    "status": 409,
    "detail": "seat 1 is taken",
    "code": "seat_taken",
}
LOBBY_RESPONSES: dict[tuple[str, str, str], dict[str, tuple[str, Any]]] = {
    ("join_match", "201", JSON): {"joined": ("seat 1 taken, its token minted", JOINED)},
    ("join_match", "409", "application/problem+json"): {
        "seat_taken": ("another join won the seat", SEAT_TAKEN)
    },
    ("leave_match", "200", JSON): {"left": ("seat 1 is open again", LEFT)},
    ("cancel_match", "200", JSON): {"cancelled": ("the creator cancelled it", CANCELLED)},
    ("rematch", "201", JSON): {
        "claimed": (
            "the next match, seat 1 claimed",
            {**JOINED, "id": "m_Rm4tQx0pLk2Vb7Ws9Ae1Cd"},
        )
    },
    ("list_lobby", "200", JSON): {"page": ("one match waiting, more after it", LOBBY_PAGE)},
}
"""(operation id, status, media type): named examples, as api/examples.py RESPONSES."""
