"""Examples of the seek operations and a keyed join (issue 32), merged into api/examples.py's
RESPONSES and REQUESTS (which check them against their schemas)."""

from __future__ import annotations

from typing import Any

from api.examples_lobby import JOINED
from domain.gin.options import validate_options as gin_options

JSON = "application/json"
PROBLEM = "application/problem+json"

CLOCK: Any = {"mode": "per_move", "move_s": 60}
CLOCK_FULL: Any = {
    "mode": "per_move",
    "move_s": 60,
    "initial_s": 300,
    "increment_s": 5,
    "on_timeout": "autoplay",
    "autoplay_bot": "basic",
    "max_timeouts": 3,
    "first_move_s": 0,
    "claim_after_s": 60,
}
OPTIONS: Any = {k: v for k, v in gin_options({}).items() if k != "rated"}
OPEN_SEEK: Any = {
    "id": "s_3vQm9ZkP0aTqWc1x",
    "account": "ana",
    "bot": True,
    "variant": "three-hand-gin",
    "rated": True,
    "clock": CLOCK_FULL,
    "seats": 3,
    "options": OPTIONS,
    "status": "open",
    "created": "2026-12-06T06:30:00.000Z",
    "expires": "2026-12-06T06:40:00.000Z",
}
SEEK: Any = {**OPEN_SEEK, "match": None}
PAIRED: Any = {
    **OPEN_SEEK,
    "status": "paired",
    "match": {
        "id": "m_Pq0rW8sLx3Yt6Uv1Zb5Nc2",
        "seat": 1,
        "join": "/v1/matches/m_Pq0rW8sLx3Yt6Uv1Zb5Nc2/join",
    },
}
SEEK_OPEN: Any = {
    "type": "https://deadwood.example/problems/seek_open",
    "title": "The account has an open seek",
    "status": 409,
    "detail": "the account has an open seek, s_3vQm9ZkP0aTqWc1x: cancel it or wait for it",
    "code": "seek_open",
}
SEEK_PAIRED: Any = {
    "type": "https://deadwood.example/problems/seek_paired",
    "title": "The seek is paired",
    "status": 409,
    "detail": "seek s_3vQm9ZkP0aTqWc1x is paired: join match m_Pq0rW8sLx3Yt6Uv1Zb5Nc2 (seat 1)",
    "code": "seek_paired",
}
RATED_SEAT: Any = {
    "type": "https://deadwood.example/problems/rated_seat_needs_key",
    "title": "A rated match's seat needs an account key that plays rated",
    "status": 403,
    "detail": "a seat of a rated match is joined with an account key (Deadwood-Key) that has "
    "the play_rated scope",
    "code": "rated_seat_needs_key",
}
ACCOUNT_SEAT: Any = {
    "seat": 1,
    "name": "ana",
    "bot": None,
    "hand_size": 0,
    "open": False,
    "account": "ana",
    "account_bot": True,
}
KEYED_JOIN: Any = {
    **JOINED,
    "match": {
        **JOINED["match"],
        "seats": [JOINED["match"]["seats"][0], ACCOUNT_SEAT, JOINED["match"]["seats"][2]],
    },
}

RESPONSES: dict[tuple[str, str, str], dict[str, tuple[str, Any]]] = {
    ("create_seek", "201", JSON): {"open": ("an open seek, waiting to be paired", SEEK)},
    ("create_seek", "409", PROBLEM): {"seek_open": ("the account has one open", SEEK_OPEN)},
    ("list_seeks", "200", JSON): {"one": ("one account waits", {"seeks": [OPEN_SEEK]})},
    ("get_seek", "200", JSON): {
        "paired": ("paired: join seat 1 of the match with your key", PAIRED),
        "open": ("still waiting", SEEK),
    },
    ("cancel_seek", "200", JSON): {"cancelled": ("cancelled", {**SEEK, "status": "cancelled"})},
    ("cancel_seek", "409", PROBLEM): {"paired": ("the pairing won", SEEK_PAIRED)},
    ("join_match", "201", JSON): {"keyed": ("joined with a Deadwood-Key: ana's seat", KEYED_JOIN)},
    ("join_match", "403", PROBLEM): {"rated_seat": ("no key that plays rated", RATED_SEAT)},
}

REQUESTS: dict[str, dict[str, tuple[str, Any]]] = {
    "create_seek": {
        "rated_gin": (
            "a rated three-hand gin match, a minute a move",
            {"variant": "three-hand-gin", "rated": True, "clock": CLOCK},
        )
    },
}
