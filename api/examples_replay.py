"""The examples of POST /v1/replays in the API reference (api/examples.py serves them): the
first events of a real finished match's log and what replaying them answers."""

from __future__ import annotations

from typing import Any

from domain.gin.options import recorded_options as gin_recorded


def gin_seats(*roles: str) -> list[dict[str, Any]]:
    """Three people's seats (ana, ben, cy) in a gin view after the deal, with their roles: the
    advisor holds no hand."""
    names = ("ana", "ben", "cy")
    return [
        {
            "seat": seat,
            "name": name,
            "bot": None,
            "hand_size": 0 if role == "advisor" else 10,
            "open": False,
            "account": None,
            "account_bot": False,
            "role": role,
        }
        for seat, (name, role) in enumerate(zip(names, roles, strict=True))
    ]


STOCK = [
    "6H",
    "7H",
    "QD",
    "TS",
    "4S",
    "2C",
    "5D",
    "QH",
    "JH",
    "5C",
    "AS",
    "3C",
    "6D",
    "JD",
    "9C",
    "2D",
    "7C",
    "3H",
    "7D",
    "6S",
    "4H",
    "TC",
    "AD",
    "QS",
    "7S",
    "KH",
    "KC",
    "AH",
    "KD",
    "9S",
    "8D",
]
"""The stock of the replayed deal, from the top."""

REPLAY_LOG: Any = [
    {
        "seq": 1,
        "type": "MatchCreated",
        "v": 1,
        "at": "2026-12-06T00:59:48.877Z",
        "data": {
            "deal_key": "15eb6a9bd2aa833add5a82d77af3f87db94062b1ef81a4f0f499f87e4ace0436",
            "options": {
                "advice_enabled": True,
                "advice_window": "always",
                "advisor_sees_captain_hand": True,
                "big_gin_bonus": 0,
                "box_bonus_per_hand": 0,
                "game_bonus": 0,
                "gin_bonus": 25,
                "gin_scores_opponent_deadwood": True,
                "knock_limit": 10,
                "knocker_arrangement": "player_choice_among_minimal",
                "layoff_chain": True,
                "no_discard_of_taken_card": True,
                "opponent_layoffs": "auto_optimal",
                "role_draw_tiebreak": "redraw",
                "shutout_rule": "none",
                "target_score": 25,
                "team_scoring": "individual",
                "undercut_bonus": 10,
                "undercut_on_tie": True,
            },
            "players": [
                {"bot": None, "name": "ana"},
                {"bot": None, "name": "ben"},
                {"bot": None, "name": "cy"},
            ],
            "salt_key": "4285a4c4e14e5b50e763e2c6dbca9d9a0e8ed7c9a321f4e64a4fbfbef2cde675",
            "seed": 3,
            "seeded": True,
            "variant": "three-hand-gin",
        },
    },
    {
        "seq": 2,
        "type": "RolesDrawn",
        "v": 1,
        "at": "2026-12-06T00:59:48.877Z",
        "data": {
            "advisor": 0,
            "box": 2,
            "captain": 1,
            "draws": [
                [{"card": "3S", "seat": 0}, {"card": "4H", "seat": 1}, {"card": "7S", "seat": 2}]
            ],
            "tiebreak": "redraw",
        },
    },
    {
        "seq": 3,
        "type": "RoundDealt",
        "v": 1,
        "at": "2026-12-06T00:59:48.877Z",
        "data": {
            "advisor": 0,
            "box": 2,
            "captain": 1,
            "commitment": "3fbcc762b8ff9d10a18435be42a7f104a7e8176b0c12143f0ec23463e1729618",
            "hands": [
                None,
                ["4D", "2H", "3S", "9H", "9D", "4C", "6C", "TD", "8C", "AC"],
                ["5S", "QC", "JC", "3D", "5H", "8H", "KS", "TH", "8S", "JS"],
            ],
            "round": 1,
            "salt": "327a6e8ff03af53ec249adb47a71ba69841b204859c39f22c83f6507473ea25f",
            "stock": STOCK,
            "upcard": "2S",
        },
    },
]

REPLAY_RESULT: Any = {
    "version": 3,
    "match": {
        "id": None,
        "variant": "three-hand-gin",
        "version": 3,
        "seeded": True,
        "status": "active",
        # a v1 MatchCreated, recorded before max_rounds: no bound (domain/upcast.py)
        "options": {**gin_recorded(REPLAY_LOG[0]["data"]["options"]), "max_rounds": None},
        "round": 1,
        "phase": "upcard_offer",
        "turn": 1,
        "seats": gin_seats("advisor", "captain", "box"),
        "scores": [0, 0, 0],
        "winners": [],
        "stock_size": 31,
        "rounds": [],
        "deal_commitment": "3fbcc762b8ff9d10a18435be42a7f104a7e8176b0c12143f0ec23463e1729618",
        "roles": {"box": 2, "captain": 1, "advisor": 0},
        "discard_top": "2S",
        "discard_size": 1,
        "discard_pile": ["2S"],
        "picked": [[], [], []],
        "knock": None,
        "you": None,
    },
    "hands": [
        None,
        ["4D", "2H", "3S", "9H", "9D", "4C", "6C", "TD", "8C", "AC"],
        ["5S", "QC", "JC", "3D", "5H", "8H", "KS", "TH", "8S", "JS"],
    ],
    "rounds": [],
}
