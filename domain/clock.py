"""Match clocks as pure arithmetic (issue 31): the options, and what one move does to a bank.

The domain never reads a clock. A clock is a recorded option (`clock` in MatchCreated's data,
pinned like the rule options, so a log replays the same); the store measures the time a move
took and asks this module what the seat has left and when its next move is due. Everything is
in whole milliseconds, so the arithmetic is exact:

    per_move  every move may take `move_s`; nothing carries over
    fischer   a bank of `initial_s`; a move spends its time and earns `increment_s`, and the
              bank never grows past `initial_s` (the cap)

Only the seat that must act (`to_act`) has a running clock; SYSTEM moves and gin's advice are
never timed. `first_move_s` is the abort window (a seat's first move; missing it aborts the
match); `claim_after_s` is how long the seat to act must be absent before another may claim.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import cast

from domain.clock_shapes import ClockJSON, Mode, OnTimeout
from domain.errors import InvalidOptions
from domain.events import Event
from domain.shapes import JSON, JSONObject

MODES = ("per_move", "fischer")
ON_TIMEOUT = ("autoplay", "forfeit")
LIMIT_S = 86_400
"""The longest time any clock option may name (a day)."""


@dataclass(frozen=True, slots=True)
class ClockOptions:
    """A match's clock, as recorded in MatchCreated (`clock`)."""

    mode: Mode = "per_move"
    move_s: int = 60
    initial_s: int = 300
    increment_s: int = 5
    on_timeout: OnTimeout = (
        "autoplay"  # forfeit: two seats, the match is lost; more, a bot plays on
    )
    autoplay_bot: str = "basic"
    max_timeouts: int = 3
    first_move_s: int = 0  # 0: no abort window deadline of its own
    claim_after_s: int = 60

    def to_json(self) -> ClockJSON:
        return {
            "mode": self.mode,
            "move_s": self.move_s,
            "initial_s": self.initial_s,
            "increment_s": self.increment_s,
            "on_timeout": self.on_timeout,
            "autoplay_bot": self.autoplay_bot,
            "max_timeouts": self.max_timeouts,
            "first_move_s": self.first_move_s,
            "claim_after_s": self.claim_after_s,
        }


_INTS = ("move_s", "initial_s", "increment_s", "max_timeouts", "first_move_s", "claim_after_s")
_LOW = {"move_s": 1, "initial_s": 1, "max_timeouts": 1}


def validate_clock(raw: Mapping[str, JSON] | None, seats: int) -> ClockOptions | None:
    """The clock a create asks for (None: no clock); InvalidOptions names the bad key."""
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise InvalidOptions("clock must be an object such as {'mode': 'per_move', 'move_s': 30}")
    unknown = set(raw) - set(ClockOptions.__slots__)
    if unknown:
        raise InvalidOptions(f"clock option {sorted(unknown)[0]!r} is unknown")
    mode, on_timeout = raw.get("mode", "per_move"), raw.get("on_timeout", "autoplay")
    if mode not in MODES:
        raise InvalidOptions(f"clock mode must be one of {', '.join(MODES)}, not {mode!r}")
    if on_timeout not in ON_TIMEOUT:
        raise InvalidOptions(f"on_timeout must be autoplay or forfeit, not {on_timeout!r}")
    ints = {key: _int(key, raw[key]) for key in _INTS if key in raw}
    bot = raw.get("autoplay_bot", "basic")
    if not isinstance(bot, str):
        raise InvalidOptions(f"autoplay_bot must be a bot name, not {bot!r:.40}")
    return ClockOptions(
        mode=cast(Mode, mode), on_timeout=cast(OnTimeout, on_timeout), autoplay_bot=bot, **ints
    )


def _int(key: str, value: JSON) -> int:
    low = _LOW.get(key, 0)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= LIMIT_S:
        raise InvalidOptions(f"clock option {key!r} must be an integer {low}..{LIMIT_S}")
    return value


def clock_of(created: Mapping[str, JSON]) -> ClockOptions | None:
    """The clock recorded in MatchCreated's data (None: the match has none)."""
    raw = created.get("clock")
    if not isinstance(raw, Mapping):
        return None
    fields = {k: v for k, v in raw.items() if k in ClockOptions.__slots__}
    return ClockOptions(**fields)  # type: ignore[arg-type]  # recorded, already valid


def with_clock(created: Event, clock: ClockOptions | None) -> Event:
    """MatchCreated with its clock pinned (unchanged when there is no clock)."""
    if clock is None:
        return created
    pinned: JSON = cast("JSONObject", clock.to_json())
    return Event(created.type, {**created.data, "clock": pinned}, created.v)


def initial_bank_ms(clock: ClockOptions) -> int:
    """What each seat has before its first move."""
    return clock.move_s * 1000 if clock.mode == "per_move" else clock.initial_s * 1000


def allowance_ms(clock: ClockOptions, bank_ms: int, first_move: bool) -> int:
    """How long the seat's next move may take: its bank, or the abort window for a first
    move when `first_move_s` is set."""
    if first_move and clock.first_move_s:
        return clock.first_move_s * 1000
    return bank_ms


def after_move_ms(clock: ClockOptions, bank_ms: int, spent_ms: int) -> int:
    """The bank after a move that took `spent_ms` (never below 0; capped at the initial)."""
    if clock.mode == "per_move":
        return clock.move_s * 1000
    left = max(0, bank_ms - max(0, spent_ms))
    return min(clock.initial_s * 1000, left + clock.increment_s * 1000)


def after_timeout_ms(clock: ClockOptions) -> int:
    """The bank of a seat whose time ran out (a fischer bank starts again from its increment,
    so an auto-played seat keeps a short clock; per move: the next move's whole time)."""
    if clock.mode == "per_move":
        return clock.move_s * 1000
    return max(1000, clock.increment_s * 1000)
