"""Examples of the accounts, keys and ladder operations (issue 32), merged into
api/examples.py's RESPONSES and REQUESTS (which check them against their schemas)."""

from __future__ import annotations

from typing import Any

JSON = "application/json"
PROBLEM = "application/problem+json"

KEY_INFO: Any = {
    "id": "3f9c1a7e52b0",
    "scopes": ["create_matches", "join_seats", "play_rated"],
    "label": "first key",
    "created_at": "2026-12-06T03:30:00.000Z",
    "last_used": None,
}
NEW_KEY: Any = {
    **KEY_INFO,
    "key": "dwk.ana.3f9c1a7e52b0.Yk1c0q3pV9wT2mUeZr8xLh4sJ6dNfA5bQ7gC0iOtE1w",
}
ACCOUNT: Any = {
    "handle": "ana",
    "kind": "bot",
    "bot": True,
    "builtin": False,
    "created_at": "2026-12-06T03:30:00.000Z",
}
RATING: Any = {
    "mu": 27.61,
    "sigma": 2.91,
    "rating": 18.88,
    "low": 21.79,
    "high": 33.43,
    "games": 24,
    "provisional": False,
}
HISTORY: Any = {
    "match": "m_QKwja5Au3Q2CO5A3sQV7tg",
    "place": 112,
    "seat": 0,
    "rank": 1,
    "seats": 3,
    "at": "2026-12-06T04:02:11.512Z",
    **RATING,
}
ACCOUNT_VIEW: Any = {
    **ACCOUNT,
    "ratings": {"three-hand-gin": RATING, "manipulation-rummy": None},
    "history": {"three-hand-gin": [HISTORY], "manipulation-rummy": []},
}
LADDER: Any = {
    "variant": "three-hand-gin",
    "total": 3,
    "offset": 0,
    "limit": 50,
    "rows": [
        {"place": 1, "handle": "deadwood-expert", "bot": True, **RATING},
        {
            "place": 2,
            "handle": "deadwood-basic",
            "bot": True,
            "mu": 24.9,
            "sigma": 2.6,
            "rating": 17.1,
            "low": 19.7,
            "high": 30.1,
            "games": 24,
            "provisional": False,
        },
        {
            "place": 3,
            "handle": "ben",
            "bot": False,
            "mu": 25.0,
            "sigma": 8.333,
            "rating": 0.001,
            "low": 8.334,
            "high": 41.666,
            "games": 0,
            "provisional": True,
        },
    ],
}
INVALID_KEY: Any = {
    "type": "https://deadwood.example/problems/invalid_key",
    "title": "The account key is not valid",
    "status": 401,
    "detail": "the account key is not valid (unknown or revoked)",
    "code": "invalid_key",
}
RATED_SEEDED: Any = {
    "type": "https://deadwood.example/problems/rated_match_seeded",
    "title": "A rated match takes no seed",
    "status": 422,
    "detail": "a rated match deals from a secret key: leave out the seed",
    "code": "rated_match_seeded",
}
RATED_NO_CLOCK: Any = {
    "type": "https://deadwood.example/problems/rated_match_needs_clock",
    "title": "A rated match needs a clock",
    "status": 422,
    "detail": "clock is required when options.rated is true: a rated match needs a clock "
    '(e.g. "clock": {"mode": "per_move", "move_s": 60})',
    "code": "rated_match_needs_clock",
}

RESPONSES: dict[tuple[str, str, str], dict[str, tuple[str, Any]]] = {
    ("create_account", "201", JSON): {
        "bot": (
            "a bot's account and its first key, shown once",
            {"account": ACCOUNT, "key": NEW_KEY},
        )
    },
    ("get_account", "200", JSON): {"rated": ("a bot rated in three-hand gin", ACCOUNT_VIEW)},
    ("list_keys", "200", JSON): {
        "one": ("the account's one key (never the key)", {"keys": [KEY_INFO]})
    },
    ("list_keys", "401", PROBLEM): {"revoked": ("a revoked key", INVALID_KEY)},
    ("create_key", "201", JSON): {
        "rated_only": (
            "a key that plays rated matches only",
            {**NEW_KEY, "scopes": ["play_rated"], "label": "ladder bot"},
        )
    },
    ("revoke_key", "200", JSON): {
        "revoked": ("refused from now on", {"id": "3f9c1a7e52b0", "revoked": True})
    },
    ("get_ladder", "200", JSON): {"top": ("the first page", LADDER)},
    ("create_match", "422", PROBLEM): {
        "rated_seeded": ("a rated match with a seed", RATED_SEEDED),
        "rated_no_clock": ("a rated match without a clock", RATED_NO_CLOCK),
    },
}

REQUESTS: dict[str, dict[str, tuple[str, Any]]] = {
    "create_account": {"bot": ("a program's account", {"handle": "ana", "kind": "bot"})},
    "create_key": {
        "rated_only": ("a key for rated play", {"scopes": ["play_rated"], "label": "ladder bot"})
    },
}
