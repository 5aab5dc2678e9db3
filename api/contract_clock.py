"""The OpenAPI schemas of clocks (issue 31), written from their declarations in
domain/clock_shapes.py: the `clock` of a create (`ClockOptions`, every member optional, with
the ranges domain/clock.py checks) and the `clock` a view of a clocked match carries
(`Clock`, `SeatClock`). tests/unit/test_declarations.py checks them field by field."""

from __future__ import annotations

from typing import Any

from api.contract_views import BOOL, INT, STRING, closed, nullable, ref
from domain.bots import BOTS
from domain.clock import LIMIT_S, MODES, ON_TIMEOUT, ClockOptions

_DESCRIPTIONS = {
    "mode": "per_move: each move may take move_s; fischer: a bank of initial_s, +increment_s "
    "a move, capped at initial_s",
    "move_s": "per_move: the time of each move (s)",
    "initial_s": "fischer: the bank at the start, and its cap (s)",
    "increment_s": "fischer: added after each move (s)",
    "on_timeout": "autoplay: the autoplay bot makes the move; forfeit (two seats): the seat loses",
    "autoplay_bot": "the bot that makes a timed-out seat's move (a name from GET /v1/bots)",
    "max_timeouts": "after this many timeouts the bot plays the seat for the rest of the match",
    "first_move_s": "the abort window: a seat's first move missing it aborts the match (0: none)",
    "claim_after_s": "how long the seat to act must be absent before another seat may claim",
}
_LOW = {"move_s": 1, "initial_s": 1, "max_timeouts": 1}


def _member(name: str, default: Any, bots: bool = True) -> dict[str, Any]:
    described = {"description": _DESCRIPTIONS[name], "default": default}
    if name == "mode":
        return {"type": "string", "enum": list(MODES), **described}
    if name == "on_timeout":
        return {"type": "string", "enum": list(ON_TIMEOUT), **described}
    if name == "autoplay_bot" and bots:
        return {"type": "string", "enum": _common_bots(), **described}
    if isinstance(default, str):
        return {**STRING, **described}
    return {**INT, "minimum": _LOW.get(name, 0), "maximum": LIMIT_S, **described}


def _common_bots() -> list[str]:
    """The bots every game has (a clock's bot must play whatever the variant)."""
    names = [set(BOTS[variant]) for variant in BOTS]
    return sorted(set.intersection(*names))


def components() -> dict[str, dict[str, Any]]:
    defaults = ClockOptions().to_json()
    options = {name: _member(name, value) for name, value in defaults.items()}
    full = {name: _member(name, value, bots=False) for name, value in defaults.items()}
    seat = closed(
        {
            "seat": INT,
            "left_ms": {**INT, "description": "what the seat has left now (ms)"},
            "running": {**BOOL, "description": "true for the seat to act"},
            "timeouts": INT,
            "present": {
                **nullable(BOOL),
                "description": "seen within claim_after_s (ephemeral); null in a move's answer",
            },
        }
    )
    clock = closed(
        {
            "options": ref("ClockOptionsFull"),
            "seats": {"type": "array", "items": ref("SeatClock")},
            "turn_seat": {**nullable(INT), "description": "the seat whose clock runs"},
            "deadline": {**nullable(STRING), "description": "RFC 3339 UTC: the turn's end"},
            "deadline_ms": {**nullable(INT), "description": "the same, Unix milliseconds"},
            "abortable": {**BOOL, "description": "POST .../abort is open (a seat has not moved)"},
            "stalled": {**nullable(STRING), "description": "a system job that used its retries"},
        }
    )
    return {
        "ClockOptions": closed({}, options),
        "ClockOptionsFull": closed(full),
        "SeatClock": seat,
        "Clock": clock,
    }
