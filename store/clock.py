"""A match's running clock as the store keeps it beside the log (issue 31).

The domain's clock arithmetic (domain/clock.py) is pure; this module holds the state that
time gives it: per seat the bank left, the timeouts so far and whether it has moved, and the
turn that is running (its seat, when it started, its deadline). That state after each append
is written beside the append's last stream entry (the field `clk`, like `at`: the fold never
reads it), so a load reads the clock with the events, the export shows it (Lichess's `%clk`)
and no other key has to be kept in step.

`advance` is what an append does to it, `time_out` what a timeout does; `timeout_events` are
the events a timeout appends (TurnTimedOut and the auto move, SeatReplacedByBot after
`max_timeouts`, a forfeit, or MatchAborted when a first move never came in the abort
window); `deadline_job` is the rq job that applies an overdue timeout at (match, version).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from domain import bots, conduct
from domain.bots.fallback import FALLBACK_BOT, fallback_move
from domain.clock import ClockOptions, after_move_ms, after_timeout_ms, allowance_ms, validate_clock
from domain.clock import initial_bank_ms as initial_bank_ms
from domain.clock_shapes import EventClock
from domain.events import Event
from domain.variants import State, Variant
from store.jobs import DEADLINE_FUNC, DEADLINES, JobSpec

_T = TypeVar("_T")

"""The bot whose legal move is played when the chosen bot fails (issue 31)."""


@dataclass(frozen=True, slots=True)
class Turn:
    """The clock after an append: per seat its bank (ms), timeouts and first move made, and
    the running turn (seat None: nobody's clock runs)."""

    banks: tuple[int, ...]
    timeouts: tuple[int, ...]
    moved: tuple[bool, ...]
    seat: int | None = None
    started_ms: int = 0
    deadline_ms: int | None = None

    def encode(self) -> str:
        """`encode_plain`'s JSON, formatted directly: one per clocked append (issue 31,
        bench/clock.py). Equivalence: tests/unit/test_clock.py."""
        seat = "null" if self.seat is None else int(self.seat)
        deadline = "null" if self.deadline_ms is None else int(self.deadline_ms)
        return (
            f'{{"b":[{",".join(map(str, map(int, self.banks)))}],'
            f'"t":[{",".join(map(str, map(int, self.timeouts)))}],'
            f'"m":[{",".join("1" if m else "0" for m in self.moved)}],'
            f'"s":{seat},"st":{int(self.started_ms)},"d":{deadline}}}'
        )

    def encode_plain(self) -> str:
        """The plain code `encode` stands for."""
        return json.dumps(
            {
                "b": list(self.banks),
                "t": list(self.timeouts),
                "m": [int(m) for m in self.moved],
                "s": self.seat,
                "st": self.started_ms,
                "d": self.deadline_ms,
            },
            separators=(",", ":"),
        )

    @classmethod
    def decode(cls, raw: str) -> Turn | None:
        if not raw:
            return None
        d = json.loads(raw)
        return cls(
            tuple(d["b"]), tuple(d["t"]), tuple(bool(m) for m in d["m"]), d["s"], d["st"], d["d"]
        )

    def event_clock(self) -> EventClock:
        """As shown beside the event it was written with."""
        return {
            "left_ms": list(self.banks),
            "timeouts": list(self.timeouts),
            "turn_seat": self.seat,
            "deadline_ms": self.deadline_ms,
        }

    def left_ms(self, seat: int, now_ms: int) -> int:
        """What `seat` has left now (its bank, less the running turn when it is to act)."""
        if seat == self.seat and self.deadline_ms is not None:
            return max(0, self.deadline_ms - now_ms)
        return self.banks[seat]

    def overdue(self, now_ms: int) -> bool:
        return self.deadline_ms is not None and now_ms >= self.deadline_ms

    def abortable(self) -> bool:
        """The abort window: some seat has not moved yet."""
        return not all(self.moved)


def opening(clock: ClockOptions, seats: int) -> Turn:
    """Before anyone's clock runs."""
    return Turn((initial_bank_ms(clock),) * seats, (0,) * seats, (False,) * seats)


def advance(
    clock: ClockOptions, turn: Turn, mover: int | None, to_act: int | None, now_ms: int
) -> Turn:
    """The clock after an append by `mover` (None or SYSTEM: untimed) that leaves `to_act`
    to move (None: nobody, or the match is over). The seat to act's own move is charged;
    anything else (advice, a SYSTEM move) leaves a running turn as it is."""
    if mover is not None and mover == turn.seat:
        spent = now_ms - turn.started_ms
        banks = _set(turn.banks, mover, after_move_ms(clock, turn.banks[mover], spent))
        moved = turn.moved if turn.moved[mover] else _set(turn.moved, mover, True)
        if to_act is None or to_act < 0:
            return Turn(banks, turn.timeouts, moved, None, turn.started_ms, None)
        allowed = allowance_ms(clock, banks[to_act], not moved[to_act])
        return Turn(banks, turn.timeouts, moved, to_act, now_ms, now_ms + allowed)
    return _start(clock, turn, to_act, now_ms)


def time_out(clock: ClockOptions, turn: Turn, to_act: int | None, now_ms: int) -> Turn:
    """The clock after the running turn timed out (and its auto move, if any)."""
    seat = turn.seat
    assert seat is not None
    turn = replace(
        turn,
        banks=_set(turn.banks, seat, after_timeout_ms(clock)),
        timeouts=_set(turn.timeouts, seat, turn.timeouts[seat] + 1),
        moved=_set(turn.moved, seat, True),
        seat=None,
    )
    return _start(clock, turn, to_act, now_ms)


def _start(clock: ClockOptions, turn: Turn, to_act: int | None, now_ms: int) -> Turn:
    if to_act is None or to_act < 0:
        return replace(turn, seat=None, deadline_ms=None)
    if to_act == turn.seat:
        return turn  # the same turn runs on
    allowed = allowance_ms(clock, turn.banks[to_act], not turn.moved[to_act])
    return replace(turn, seat=to_act, started_ms=now_ms, deadline_ms=now_ms + allowed)


def _set(values: tuple[_T, ...], seat: int, value: _T) -> tuple[_T, ...]:
    return (*values[:seat], value, *values[seat + 1 :])


def checked_clock(variant: str, seats: int, raw: Mapping[str, Any] | None) -> ClockOptions | None:
    """The clock a create asks for, checked (InvalidOptions; its autoplay bot must exist)."""
    clock = validate_clock(raw, seats) if raw else None
    if clock is not None:
        bots.get_bot(variant, clock.autoplay_bot)
    return clock


def deadline_job_id(match_id: str, version: int) -> str:
    return f"deadline-{match_id}-{version}"


def parse_deadline_job_id(job_id: str) -> tuple[str, int, bool] | None:
    """(match, version, whether it is the `-again` twin) of a deadline job's id, else None."""
    again = job_id.endswith("-again")
    body = job_id.removesuffix("-again")
    if not body.startswith("deadline-"):
        return None
    match_id, _, version = body.removeprefix("deadline-").rpartition("-")
    if not match_id or not version.isdigit():
        return None
    return match_id, int(version), again


def deadline_job(match_id: str, version: int, turn: Turn | None) -> list[JobSpec]:
    """The job that applies the running turn's timeout at (match, version), if one runs."""
    if turn is None or turn.deadline_ms is None:
        return []
    job_id = deadline_job_id(match_id, version)
    return [JobSpec(DEADLINES, job_id, DEADLINE_FUNC, match_id, version, at_ms=turn.deadline_ms)]


def timeout_events(
    game: Variant, state: State, clock: ClockOptions, turn: Turn, salt: str
) -> tuple[Event, ...]:
    """What the running turn's timeout appends (the caller checked it is overdue)."""
    seat = turn.seat
    assert seat is not None
    if not turn.moved[seat] and clock.first_move_s:
        return (conduct.match_aborted(None),)
    seats = len(turn.banks)
    count = turn.timeouts[seat] + 1
    forfeit = clock.on_timeout == "forfeit"
    timed_out = conduct.turn_timed_out(seat, count, seats, forfeit)
    if forfeit and seats == 2:
        return (timed_out,)
    is_bot = game.bot_seats(state)[seat] is not None
    if (forfeit or count >= clock.max_timeouts) and not is_bot:
        return (timed_out, conduct.seat_replaced(seat, clock.autoplay_bot, "timeouts"))
    after = game.evolve(state, timed_out)
    bot = FALLBACK_BOT if is_bot else clock.autoplay_bot
    return (timed_out, *fallback_move(game, after, seat, bot, salt))
