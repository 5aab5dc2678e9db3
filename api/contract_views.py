"""The OpenAPI schemas of each game: the create body, the created match and the views.

One schema per variant, discriminated by `variant`: a generator sees a gin view's `roles`,
`knock` and `discard_top`, a manipulation view's `table` and `dealer`, each game's options
with their types and ranges (from the domain's own limits), and each game's player count.
A nullable member is written the OpenAPI 3.1 way, `oneOf: [{$ref}, {type: "null"}]`, so a
generator keeps its type. Views and `you` refuse unlisted members (the domain builds them,
so the document is exact); round results allow more members than listed.
"""

from __future__ import annotations

from typing import Any

from api.contract_moves import REF
from domain.bots import BOTS
from domain.bots import GIN as GIN_NAME
from domain.bots import MANIPULATION as MANIPULATION_NAME
from domain.gin import options as gin_options
from domain.gin.state import Phase as GinPhase
from domain.manipulation import options as manip_options
from domain.manipulation.state import Phase as ManipulationPhase

INT = {"type": "integer"}
STRING = {"type": "string"}
BOOL = {"type": "boolean"}
OPEN = {**BOOL, "description": "waiting for a person to join (its name is then empty)"}
INTS = {"type": "array", "items": INT}
CODES = {"type": "array", "items": STRING}
INT64 = {"type": "integer", "minimum": -(2**63), "maximum": 2**63 - 1}


def nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` or null, in the form generators keep the type of."""
    return {"oneOf": [schema, {"type": "null"}]}


def ref(name: str) -> dict[str, str]:
    return {"$ref": REF + name}


ACCOUNT = {
    "account": {
        **nullable(STRING),
        "description": "the account the seat plays for (joined with its key), or is reserved for",
    },
    "account_bot": {**BOOL, "description": "the seat's account is a bot's (kind bot)"},
}


def closed(required: dict[str, Any], optional: dict[str, Any] | None = None) -> dict[str, Any]:
    """An object with exactly these members (all of `required`, any of `optional`)."""
    return {
        "type": "object",
        "required": list(required),
        "additionalProperties": False,
        "properties": {**required, **(optional or {})},
    }


# ---------------------------------------------------------------------------- options


DERIVED = {
    "max_rounds": (
        "every match ends (issue 28): after this many rounds (hands in gin, draws too) without "
        "the target, the match ends and the standing scores decide, a tie shared (gin G8.3; "
        "manipulation M11.5: the M11.3 bonuses are paid, then the totals and `final_tie` "
        "decide); MatchFinished then has `ended_by: max_rounds`. Default: max(20, "
        "target_score // 2) in gin, max(20, target_score // 5) in manipulation. In a view, "
        "null for a match recorded before the option existed (no bound)"
    )
}
"""Options whose default follows from the others (domain/options.py `derived`)."""


def _option(
    default: Any, limits: dict[str, Any], choices: dict[str, Any], key: str, view: bool
) -> Any:
    if key in DERIVED:
        low, high = limits[key]
        bounded = {"type": "integer", "minimum": low, "maximum": high}
        return {**(nullable(bounded) if view else bounded), "description": DERIVED[key]}
    if isinstance(default, bool):
        return {"type": "boolean", "default": default}
    if isinstance(default, int):
        low, high = limits[key]
        return {"type": "integer", "minimum": low, "maximum": high, "default": default}
    return {"type": "string", "enum": list(choices[key]), "default": default}


def _options(module: Any, view: bool = True) -> dict[str, Any]:
    return {
        key: _option(default, module.LIMITS, module.CHOICES, key, view)
        for key, default in module.DEFAULTS.items()
    }


def options_components() -> dict[str, dict[str, Any]]:
    """Each game's options: in a create body any subset (defaults fill the rest), in a view
    every one."""
    gin, manipulation = _options(gin_options), _options(manip_options)
    gin_in, manipulation_in = _options(gin_options, False), _options(manip_options, False)
    return {
        "GinOptions": {**closed(gin), "description": "three-hand-gin options (rules.md 5)"},
        "ManipulationOptions": {
            **closed(manipulation),
            "description": "manipulation-rummy options (rules.md 5)",
        },
        "GinOptionsInput": {
            **closed({}, gin_in),
            "description": "any gin options; unknown refused",
        },
        "ManipulationOptionsInput": {
            **closed({}, manipulation_in),
            "description": "any manipulation-rummy options; unknown keys are refused",
        },
    }


# ----------------------------------------------------------------------------- create


NAME = {"type": "string", "minLength": 1, "maxLength": 40}
"""A player's name, unless the validating schema's own (api/schemas.py) is passed in."""


def _player(variant: str, name: dict[str, Any]) -> dict[str, Any]:
    bot = {"type": "string", "enum": sorted(BOTS[variant]), "description": "GET /v1/bots"}
    account = {
        "type": "string",
        "pattern": "^[a-z0-9][a-z0-9_-]{2,23}$",
        "description": "the caller's own account (needs its Deadwood-Key)",
    }
    return {
        **closed({"name": name}, {"bot": nullable(bot), "account": nullable(account)}),
        "description": "a seat given at the create: a person's (its token comes back) or a bot's",
    }


PLAYER = {GIN_NAME: "GinPlayer", MANIPULATION_NAME: "ManipulationPlayer"}

OPEN_SEAT = {
    **closed(
        {"open": {"type": "boolean", "const": True}},
        {
            "account": {
                "type": "string",
                "pattern": "^[a-z0-9][a-z0-9_-]{2,23}$",
                "description": "reserve the seat for this account: only its key joins it",
            }
        },
    ),
    "description": "an open seat: anyone may join it (POST .../join, issue 30), or only the "
    "account it is reserved for",
}


def _create(
    variant: str, low: int, high: int, options: str, rule: str, name: dict[str, Any]
) -> dict[str, Any]:
    players = {
        "type": "array",
        "minItems": low,
        "maxItems": high,
        "items": {"oneOf": [ref(PLAYER[variant]), ref("OpenSeat")]},
        "description": f"{low} to {high} players ({rule}); a seat with `bot` is played by it",
    }
    seed = {
        **nullable(INT64),
        "description": "makes every shuffle a pure function of it; refused (422 "
        "seeded_open_seat) with an open seat",
    }
    clock = {
        **nullable(ref("ClockOptions")),
        "description": "a clock for every move (issue 31); with open seats it is pinned at "
        "once and starts at MatchStarted (nothing runs while the match waits)",
    }
    return closed(
        {"variant": {"type": "string", "const": variant}, "players": players},
        {"seed": seed, "options": ref(options), "clock": clock} | LOBBY_INPUT,
    )


LOBBY_INPUT = {
    "listed": {
        "type": "boolean",
        "description": "list the match in GET /v1/lobby while it waits. Default: `false`.",
    },
    "lobby_ttl_s": {
        "type": "integer",
        "minimum": 1,
        "maximum": 86400,
        "description": "seconds the match waits for its open seats, then it is cancelled "
        "(MatchCancelled lobby_expired). Default: `600`.",
    },
}


def _created(variant: str, options: str, low: int, high: int) -> dict[str, Any]:
    seat = closed(
        {
            "seat": INT,
            "name": STRING,
            "bot": nullable(STRING),
            "token": {
                **nullable(STRING),
                "description": "bearer token of this seat, shown only here; null for a bot "
                "or an open seat",
            },
            "open": OPEN,
        }
    )
    seats = {"type": "array", "minItems": low, "maxItems": high, "items": seat}
    return closed(
        {
            "id": {"type": "string", "examples": ["m_7QxkV2"]},
            "variant": {"type": "string", "const": variant},
            "version": INT,
            "seeded": BOOL,
            "options": ref(options),
            "seats": seats,
            "lobby": {
                **nullable(ref("LobbyView")),
                "description": "null unless a seat is open",
            },
        }
    )


def _by_variant(gin: str, manipulation: str, description: str) -> dict[str, Any]:
    return {
        "description": description,
        "oneOf": [ref(gin), ref(manipulation)],
        "discriminator": {
            "propertyName": "variant",
            "mapping": {GIN_NAME: REF + gin, MANIPULATION_NAME: REF + manipulation},
        },
    }


def create_components(name: dict[str, Any] | None = None) -> dict[str, dict[str, Any]]:
    """The create bodies (`name`: the player name's schema as the validating schema writes
    it, so its rules are the document's) and the created matches."""
    name = name or NAME
    return {
        PLAYER[GIN_NAME]: _player(GIN_NAME, name),
        PLAYER[MANIPULATION_NAME]: _player(MANIPULATION_NAME, name),
        "OpenSeat": OPEN_SEAT,
        "CreateGinMatch": _create(GIN_NAME, 3, 3, "GinOptionsInput", "G1.1: exactly 3", name),
        "CreateManipulationMatch": _create(
            MANIPULATION_NAME, 2, 5, "ManipulationOptionsInput", "M1.1", name
        ),
        "CreateMatch": _by_variant(
            "CreateGinMatch", "CreateManipulationMatch", "a new match of one variant"
        ),
        "CreatedGinMatch": _created(GIN_NAME, "GinOptions", 3, 3),
        "CreatedManipulationMatch": _created(MANIPULATION_NAME, "ManipulationOptions", 2, 5),
        "Created": _by_variant(
            "CreatedGinMatch", "CreatedManipulationMatch", "the new match and its seat tokens"
        ),
    }


# ------------------------------------------------------------------------------ views


def _common(variant: str, phases: Any, options: str, seat: str, result: str) -> dict[str, Any]:
    return {
        "id": {**nullable(STRING), "description": "null in a replay's view"},
        "variant": {"type": "string", "const": variant},
        "version": INT,
        "seeded": BOOL,
        "status": {"type": "string", "enum": ["active", "finished"]},
        "options": ref(options),
        "round": INT,
        "phase": {"type": "string", "enum": [str(p) for p in phases]},
        "turn": {**nullable(INT), "description": "the seat to act; null: nobody (or the service)"},
        "seats": {"type": "array", "items": ref(seat)},
        "scores": INTS,
        "winners": INTS,
        "stock_size": INT,
        "rounds": {"type": "array", "items": ref(result)},
        "deal_commitment": {**nullable(STRING), "description": "see Fair deals"},
        "lobby": {
            **nullable(ref("LobbyView")),
            "description": "null for a match created with every seat given",
        },
    }


CLOCK = {"clock": {**ref("Clock"), "description": "a clocked match's clocks, now (issue 31)"}}
"""The member the API adds to the view of a clocked match (absent without a clock)."""

ROLE = {"type": "string", "enum": ["box", "captain", "advisor"]}


def _gin_view() -> dict[str, Any]:
    return closed(
        _common(GIN_NAME, GinPhase, "GinOptions", "GinSeat", "GinRoundResult")
        | {
            "roles": nullable(ref("Roles")),
            "discard_top": nullable(STRING),
            "discard_size": INT,
            "discard_pile": {
                **CODES,
                "description": "the whole discard pile, bottom to top (G1.4)",
            },
            "picked": {
                "type": "array",
                "items": CODES,
                "description": "per seat: the cards it took from the discard pile this hand "
                "and still holds, in the order taken (public, G1.4)",
            },
            "knock": nullable(ref("Knock")),
            "you": {**nullable(ref("GinYou")), "description": "null for a spectator"},
        },
        CLOCK,
    )


def _gin_result() -> dict[str, Any]:
    per_seat: dict[str, Any] = {"type": "array", "items": {}}
    return {
        "type": "object",
        "description": "a scored hand (G7); `melds` and `deadwood` per seat, null if none",
        "required": ["round", "outcome", "hands", "points", "winners", "knocker", "scores"],
        "properties": {
            "round": INT,
            "outcome": {"type": "string", "enum": ["draw", "knock", "gin", "undercut"]},
            "hands": {"type": "array", "items": nullable(CODES)},
            "points": INTS,
            "winners": INTS,
            "knocker": nullable(INT),
            "box": INT,
            "captain": INT,
            "advisor": INT,
            "melds": per_seat,
            "layoffs": CODES,
            "deadwood": per_seat,
            "scores": INTS,
        },
    }


def gin_components() -> dict[str, dict[str, Any]]:
    moves = {"type": "array", "items": ref("GinMove")}
    you = closed(
        {"seat": INT, "role": nullable(ROLE), "hand": CODES, "legal_moves": moves},
        {"team_hand": {**nullable(CODES), "description": "the advisor only: the captain's hand"}},
    )
    knock = closed(
        {"seat": INT, "melds": {"type": "array", "items": CODES}, "deadwood_cards": CODES}
        | {"count": INT, "gin": BOOL}
    )
    knock["description"] = "the knocker's spread while it is on the table (G6.3)"
    seat = closed(
        {"seat": INT, "name": STRING, "bot": nullable(STRING), "hand_size": INT}
        | {"open": OPEN, "role": nullable(ROLE)}
        | ACCOUNT
    )
    return {
        "GinView": _gin_view(),
        "GinYou": you,
        "GinSeat": seat,
        "Roles": closed({"box": INT, "captain": INT, "advisor": INT}),
        "Knock": knock,
        "GinRoundResult": _gin_result(),
    }


MANIPULATION_RESULT: dict[str, Any] = {
    "type": "object",
    "description": "a scored round (M10)",
    "required": ["round", "outcome", "hands", "points", "winners", "knocker", "hand_points"],
    "properties": {
        "round": INT,
        "outcome": STRING,
        "hands": {"type": "array", "items": CODES},
        "points": INTS,
        "winners": INTS,
        "knocker": nullable(INT),
        "hand_points": INTS,
    },
}


def manipulation_components() -> dict[str, dict[str, Any]]:
    moves = {
        "type": "array",
        "items": ref("ManipulationMove"),
        "description": (
            "draw, knock, end_turn and pass are listed exactly; meld moves are a representative "
            "set from cheap rules: each new meld from the hand alone, each one-card extension "
            "of a table meld, and each joker swap (a hand card takes a table joker's place and "
            "the freed joker extends a meld or joins two hand cards). Any other table that "
            "passes I1-I6 is accepted too; GET /hint gives the solver's best meld."
        ),
    }
    common = _common(
        MANIPULATION_NAME,
        ManipulationPhase,
        "ManipulationOptions",
        "ManipulationSeat",
        "ManipulationRoundResult",
    )
    view = closed(
        common
        | {
            "you": {**nullable(ref("ManipulationYou")), "description": "null for a spectator"},
            "dealer": nullable(INT),
            "table": {"type": "array", "items": CODES, "description": "the melds on the table"},
            "draws_this_turn": INT,
            "rounds_won": {**INTS, "description": "rounds won per seat"},
            "final_turns_left": {**INT, "description": "turns left in the last lap (M9.2)"},
        },
        CLOCK,
    )
    return {
        "ManipulationView": view,
        "ManipulationYou": closed({"seat": INT, "hand": CODES, "legal_moves": moves}),
        "ManipulationSeat": closed(
            {"seat": INT, "name": STRING, "bot": nullable(STRING), "hand_size": INT, "open": OPEN}
            | ACCOUNT
        ),
        "ManipulationRoundResult": MANIPULATION_RESULT,
    }


def lobby_components() -> dict[str, dict[str, Any]]:
    """The lobby's view member and the entries of GET /v1/lobby (domain/lobby_shapes.py)."""
    status = {"type": "string", "enum": ["waiting", "started", "cancelled"]}
    reason = {"type": "string", "enum": ["lobby_expired", "cancelled_by_creator"]}
    lobby = closed(
        {
            "status": status,
            "listed": BOOL,
            "expires_at": {**STRING, "format": "date-time"},
            "open_seats": {**INTS, "description": "the seats still open"},
            "rematch_of": {**nullable(STRING), "description": "the match this one replays"},
            "cancelled": {**nullable(reason), "description": "why it was cancelled"},
        }
    )
    lobby["description"] = "how the match waits for its players (issue 30)"
    seat = closed({"seat": INT, "name": STRING, "bot": nullable(STRING), "open": OPEN} | ACCOUNT)
    options = {"type": "object", "description": "the match's options (its variant's)"}
    entry = closed(
        {
            "id": STRING,
            "variant": {"type": "string", "enum": [GIN_NAME, MANIPULATION_NAME]},
            "options": options,
            "seats": {"type": "array", "items": ref("LobbySeat")},
            "created_at": {**STRING, "format": "date-time"},
            "expires_at": {**STRING, "format": "date-time"},
        }
    )
    return {"LobbyView": lobby, "LobbySeat": seat, "LobbyEntry": entry}


def view_components() -> dict[str, dict[str, Any]]:
    return {
        **lobby_components(),
        **gin_components(),
        **manipulation_components(),
        "View": _by_variant("GinView", "ManipulationView", "the match as one caller may see it"),
    }
