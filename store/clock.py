"""A match's running clock as the store keeps it beside the log (issue 31).

The domain's clock arithmetic (domain/clock.py) is pure; this module holds the state that
time gives it: per seat the bank left, the timeouts so far and whether it has moved, the
turn that is running (its seat, when it started, its deadline), and the newest deadline job
written for the match (its version `job_v` and fire time `job_at_ms`). That state after each
append is written beside the append's last stream entry (the field `clk`, like `at`: the fold
never reads it), so a load reads the clock with the events, the export shows it (Lichess's
`%clk`) and no other key has to be kept in step.

`advance` is what an append does to it, `time_out` what a timeout does; `timeout_events` are
the events a timeout appends (TurnTimedOut and the auto move, SeatReplacedByBot after
`max_timeouts`, a forfeit, or MatchAborted when a first move never came in the abort
window).

The deadline job `deadline-<match>-<version>` (`deadline_job`) applies an overdue timeout.
An append writes one only when it must (`with_deadline_job`): when the newest job written
(`job_v`, `job_at_ms`) fires no later than the new deadline and not within
`SKIP_MARGIN_MS` of now, that job carries the turn and none is written (with a per-move
clock nearly every move skips it: the cost of a clocked move, bench/clock.py); otherwise the
append writes job (match, its version) at the new deadline and records it. At fire time a
job (match, v) is stale (does nothing) when a later append wrote its own (`job_v > v`,
`is_stale`); otherwise it carries the running turn: an overdue turn times out at the version
read (version-checked, so a racing move makes it a no-op), and a turn not due yet (later
moves pushed the deadline) gets job (match, current version) at its deadline, the chase
(store/deadlines.py `apply_deadline`). The live carrier of a running turn is (match,
`job_v`) or (match, current version) (`carrier_job`, the reconciler's check).
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
    job_v: int | None = None  # the newest deadline job written: its version (None: none)
    job_at_ms: int | None = None  # ... and when it fires

    def encode(self) -> str:
        """`encode_plain`'s JSON, formatted directly: one per clocked append (issue 31,
        bench/clock.py). Equivalence: tests/unit/test_clock.py."""
        seat = "null" if self.seat is None else int(self.seat)
        deadline = "null" if self.deadline_ms is None else int(self.deadline_ms)
        job_v = "null" if self.job_v is None else int(self.job_v)
        job_at = "null" if self.job_at_ms is None else int(self.job_at_ms)
        return (
            f'{{"b":[{",".join(map(str, map(int, self.banks)))}],'
            f'"t":[{",".join(map(str, map(int, self.timeouts)))}],'
            f'"m":[{",".join("1" if m else "0" for m in self.moved)}],'
            f'"s":{seat},"st":{int(self.started_ms)},"d":{deadline},'
            f'"jv":{job_v},"ja":{job_at}}}'
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
                "jv": self.job_v,
                "ja": self.job_at_ms,
            },
            separators=(",", ":"),
        )

    @classmethod
    def decode(cls, raw: str) -> Turn | None:
        if not raw:
            return None
        d = json.loads(raw)
        return cls(
            tuple(d["b"]),
            tuple(d["t"]),
            tuple(bool(m) for m in d["m"]),
            d["s"],
            d["st"],
            d["d"],
            d.get("jv"),  # a clk written before the job was recorded has neither
            d.get("ja"),
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
        job_v, job_at = turn.job_v, turn.job_at_ms
        if to_act is None or to_act < 0:
            return Turn(banks, turn.timeouts, moved, None, turn.started_ms, None, job_v, job_at)
        allowed = allowance_ms(clock, banks[to_act], not moved[to_act])
        return Turn(banks, turn.timeouts, moved, to_act, now_ms, now_ms + allowed, job_v, job_at)
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


SKIP_MARGIN_MS = 1000
"""An append relies on the pending deadline job only when that job fires at least this long
after the append's clock reading: the job must read the state after the append lands (the
append's own latency, and the clocks of hosts that differ a little). An append slower than
that could land after the job read the match and left it (no chase): its turn's timeout is
then applied by the next request of the match (`settle`) or the reconciler's new job."""


def with_deadline_job(
    match_id: str, version: int, turn: Turn | None, now_ms: int
) -> tuple[Turn | None, list[JobSpec]]:
    """The clock after an append at `version` (read at `now_ms`) and the deadline job the
    append writes: none when no turn runs, or when the newest job written fires no later
    than the new deadline and not before `now_ms + SKIP_MARGIN_MS` (it carries the turn);
    else job (match, version) at the deadline, recorded in the clock."""
    if turn is None or turn.deadline_ms is None:
        return turn, []
    job_at = turn.job_at_ms
    if job_at is not None and now_ms + SKIP_MARGIN_MS < job_at <= turn.deadline_ms:
        return turn, []
    recorded = replace(turn, job_v=version, job_at_ms=turn.deadline_ms)
    return recorded, deadline_job(match_id, version, recorded)


def is_stale(turn: Turn | None, version: int, job_version: int) -> bool:
    """Whether the deadline job (match, `job_version`) has nothing to carry in a match at
    `version` with clock `turn`: a later append wrote a job of its own. (A clock written
    before the job was recorded: every append wrote one, so any older job is stale.)"""
    if turn is None or turn.job_v is None:
        return job_version != version
    return turn.job_v > job_version


def carrier_job(match_id: str, version: int, turn: Turn | None) -> list[JobSpec]:
    """The deadline job the reconciler makes when the running turn has no live carrier:
    (match, `version`) at the deadline, with the ids of the other jobs that carry the turn
    too (`alternates`: (match, `job_v`) and the `-again` twins)."""
    jobs = deadline_job(match_id, version, turn)
    if not jobs or turn is None:
        return jobs
    carriers = [deadline_job_id(match_id, version)]
    if turn.job_v is not None and turn.job_v < version:
        carriers.append(deadline_job_id(match_id, turn.job_v))
    twins = [f"{job_id}-again" for job_id in carriers]
    alternates = tuple(job_id for job_id in (*carriers, *twins) if job_id != jobs[0].job_id)
    return [replace(jobs[0], alternates=alternates)]


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
