"""The match service's clock: timeouts, aborts, resignations, claims, presence, stalls (issue 31).

`MatchService` (store/service.py) takes these methods from `Clocks`; they go through the
same version-checked append as a move (`_move_request`), so a move and a timeout racing at
one version cannot both land. The time is `self.clock()` (injectable; Unix seconds).

    settle(match_id, game, current)   apply the running turn's overdue timeout first: every
                                      load and every move calls it, so a late move gets 409
                                      `turn_timed_out` even with no scheduler running
    apply_deadline, sweep_deadlines   the deadline job's work (store/deadlines.py, mixed in)
    abort / resign / claim            POST .../abort, .../resign, .../claim (api/clock.py)
    touch / presence                  a seat's last authenticated request (ephemeral:
                                      `match:{id}:seen`, never in the log)
    clock_view                        the `clock` member a view shows (render time)
    stall                             a system job that used its retries: MatchStalled in the
                                      log, `stalled` in the meta, the `deadwood:stalled` set
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from domain import conduct
from domain.bots.fallback import FALLBACK_BOT, fallback_move
from domain.clock import ClockOptions
from domain.clock_shapes import ClockView, SeatClockView
from domain.events import SYSTEM, Event
from domain.variants import State, Variant, get_variant
from store import codec, metrics
from store.clock import Turn, advance, opening, time_out, timeout_events, with_deadline_job
from store.deadlines import Deadlines
from store.errors import NotAvailable, TurnTimedOut
from store.event_store import AppendRequest, Conflict, meta_key
from store.jobs import JobSpec

if TYPE_CHECKING:
    from store.event_store import EventStore
    from store.metadata import Metadata
    from store.outcomes import Appended
    from store.states import Cached, States
    from store.submit import Writer

log = logging.getLogger(__name__)

STALLED_KEY = "deadwood:stalled"
TOUCH_EVERY_MS = 1000
"""A seat's presence is written at most once a second per process (a cheap hot path)."""

Decide = Callable[[Variant, State, Turn | None, int], Sequence[Event]]


def seen_key(match_id: str) -> str:
    return f"match:{{{match_id}}}:seen"


class Clocks(Deadlines):
    """The clock methods of MatchService (mixed in)."""

    _touch_lock = threading.Lock()

    if TYPE_CHECKING:  # what the mixin uses of MatchService (store/service.py)
        clock: Callable[[], float]
        store: EventStore
        metadata: Metadata
        states: States
        writer: Writer

        def variant_name(self, match_id: str) -> str: ...

    def now_ms(self) -> int:
        return int(self.clock() * 1000)

    def clock_options(self, match_id: str) -> ClockOptions | None:
        return self.metadata.get(match_id).clock

    # --- the hooks of create and append ---------------------------------------------------

    def clock_created(
        self, request: AppendRequest, clock: ClockOptions, game: Variant, state: State
    ) -> tuple[AppendRequest, Turn]:
        """A clocked match's first turn (a create's, or a lobby's at MatchStarted): its clock
        pinned in the meta, the first turn's deadline at the version after this append."""
        seats = len(game.bot_seats(state))
        now = self.now_ms()
        turn = advance(clock, opening(clock, seats), None, _to_act(game, state), now)
        meta = {**request.meta, "clock": json.dumps(clock.to_json())}
        version = request.expected + len(request.events)
        recorded, deadline = with_deadline_job(request.match_id, version, turn, now)
        assert recorded is not None
        jobs = [*request.jobs, *deadline]
        return replace(request, meta=meta, jobs=jobs, clk=recorded.encode()), recorded

    def clock_started(
        self,
        match_id: str,
        game: Variant,
        made: Sequence[Event],
        state: State,
        request: AppendRequest,
    ) -> tuple[AppendRequest, Turn | None]:
        """A lobby's append (store/lobby.py): at MatchStarted a clocked match's first turn
        starts in that same append, its deadline job with it, as after a plain create."""
        if not any(event.type == "MatchStarted" for event in made):
            return request, None
        clock = self.metadata.get(match_id).clock
        if clock is None:
            return request, None
        return self.clock_created(request, clock, game, state)

    def turn_after(
        self,
        match_id: str,
        game: Variant,
        current: Cached,
        new_state: State,
        mover: int,
        timed_out: bool,
        version: int,
    ) -> tuple[Turn | None, list[JobSpec]]:
        """The clock after an append that ends at `version` (None: the match has no clock),
        and the deadline job the append writes, if it must (store/clock.py
        `with_deadline_job`)."""
        if current.turn is None:
            return None, []
        clock = self.metadata.get(match_id).clock
        if clock is None:
            return None, []
        to_act, now = _to_act(game, new_state), self.now_ms()
        if timed_out:
            turn = time_out(clock, current.turn, to_act, now)
        else:
            turn = advance(clock, current.turn, mover, to_act, now)
        return with_deadline_job(match_id, version, turn, now)

    # --- timeouts -------------------------------------------------------------------------

    def settle(self, match_id: str, game: Variant, current: Cached) -> Cached:
        """The match after its running turn's overdue timeout (applied here when due)."""
        for _ in range(4):
            if current.turn is None or not current.turn.overdue(self.now_ms()):
                return current
            with contextlib.suppress(Conflict):  # a move or another timeout landed first
                self._time_out(match_id, game, current)
            current = self.states.fresh(match_id, game)
        return current

    def late(self, match_id: str, game: Variant, current: Cached, seat: int) -> bool:
        """A move after the deadline: the timeout lands first (True); the late seat gets
        409. False, at once, when no deadline has passed (or the match has no clock)."""
        if current.turn is None or not current.turn.overdue(self.now_ms()):
            return False
        late = current.turn.seat
        self.settle(match_id, game, current)
        if late == seat:
            raise TurnTimedOut(
                f"seat {seat}'s time in match {match_id!r} ran out before this move: the "
                "timeout was applied (see the match's log)"
            )
        return True

    def _time_out(self, match_id: str, game: Variant, current: Cached) -> Appended:
        clock = self.metadata.get(match_id).clock
        assert clock is not None and current.turn is not None
        salt = f"{match_id}:{current.version}"
        events = timeout_events(game, current.state, clock, current.turn, salt)
        appended = self._append_conduct(match_id, game, current, events, SYSTEM, True)
        if metrics.ENABLED:
            metrics.TIMEOUTS.labels(events[0].type).inc()
        log.info("match %s: seat %s timed out (%s)", match_id, current.turn.seat, events[0].type)
        return appended

    def _append_conduct(
        self,
        match_id: str,
        game: Variant,
        current: Cached,
        events: Sequence[Event],
        mover: int,
        timed_out: bool = False,
        meta: dict[str, str] | None = None,
    ) -> Appended:
        """Append `events` at `current.version` (Conflict when the match moved on)."""
        return self.writer.append_events(
            match_id, game, current, events, mover, timed_out=timed_out, meta=meta
        )

    # --- abort, resign, claim -------------------------------------------------------------

    def _conduct(self, match_id: str, seat: int, decide: Decide) -> Appended:
        """Decide on the match as it is now (after any overdue timeout) and append; a race
        with another append decides again."""
        game = get_variant(self.variant_name(match_id))
        for _ in range(8):
            current = self.settle(match_id, game, self.states.fresh(match_id, game))
            if game.is_finished(current.state):
                raise NotAvailable(f"match {match_id!r} is over", code="match_finished")
            events = decide(game, current.state, current.turn, current.version)
            try:
                return self._append_conduct(match_id, game, current, events, seat)
            except Conflict:
                continue
        raise NotAvailable(f"match {match_id!r} kept moving", code="version_conflict")

    def abort(self, match_id: str, seat: int) -> Appended:
        """End the match unscored while some seat has not moved yet (a clocked match)."""

        def decide(game: Variant, state: State, turn: Turn | None, version: int) -> list[Event]:
            if turn is None:
                raise NotAvailable("only a match with a clock can be aborted", code="no_clock")
            if not turn.abortable():
                raise NotAvailable(
                    "every seat has moved: the match can no longer be aborted (resign instead)",
                    code="abort_not_available",
                )
            return [conduct.match_aborted(seat)]

        return self._conduct(match_id, seat, decide)

    def resign(self, match_id: str, seat: int) -> Appended:
        """Give up: two seats, the other wins; more, the clock's bot (or `basic`) plays on."""

        def decide(game: Variant, state: State, turn: Turn | None, version: int) -> Sequence[Event]:
            seats = game.bot_seats(state)
            if seats[seat] is not None:
                raise NotAvailable(f"seat {seat} is played by a bot", code="seat_replaced")
            clock = self.metadata.get(match_id).clock
            bot = clock.autoplay_bot if clock is not None else "basic"
            return conduct.resigned(seat, len(seats), bot)

        return self._conduct(match_id, seat, decide)

    def claim(self, match_id: str, seat: int) -> Appended:
        """Claim against the seat to act, absent for `claim_after_s`: a victory with two
        seats, a bot in its place with more; refused with the seconds left when early."""
        clock = self.metadata.get(match_id).clock
        if clock is None:
            raise NotAvailable("only a match with a clock can be claimed", code="no_clock")
        seen = self.presence(match_id)

        def decide(game: Variant, state: State, turn: Turn | None, version: int) -> Sequence[Event]:
            against = turn.seat if turn is not None else None
            if against is None or against == seat:
                raise NotAvailable(
                    "a claim is against another seat that is to act", code="claim_wrong_turn"
                )
            if game.bot_seats(state)[against] is not None:
                raise NotAvailable(f"seat {against} is a bot", code="claim_not_available")
            assert turn is not None
            since = max(seen.get(against, 0), turn.started_ms)
            left = clock.claim_after_s * 1000 - (self.now_ms() - since)
            if left > 0:
                raise NotAvailable(
                    f"seat {against} may be claimed against in {left / 1000:.1f} s "
                    f"(after {clock.claim_after_s} s of absence)",
                    code="claim_not_available",
                    seconds_left=round(left / 1000, 3),
                )
            return conduct.claimed(seat, against, len(turn.banks), clock.autoplay_bot)

        return self._conduct(match_id, seat, decide)

    def check_person(self, match_id: str, seat: int) -> None:
        """A person's token may not act for a seat a bot took (409 `seat_replaced`). Read
        from this process's state of the match (no Redis read: a hot path)."""
        game = get_variant(self.variant_name(match_id))
        state = self.states.cached(match_id, game).state
        if 0 <= seat < len(bots := game.bot_seats(state)) and bots[seat] is not None:
            raise NotAvailable(
                f"seat {seat} is played by the bot {bots[seat]} now", code="seat_replaced"
            )

    # --- presence, views, stalls ----------------------------------------------------------

    def touch(self, match_id: str, seat: int) -> None:
        """Note that `seat` is present (a clocked match only; at most once a second)."""
        if self.metadata.get(match_id).clock is None:
            return
        now = self.now_ms()
        with Clocks._touch_lock:
            touched = self.__dict__.setdefault("_touched", {})
            if now - touched.get((match_id, seat), -TOUCH_EVERY_MS) < TOUCH_EVERY_MS:
                return
            touched[(match_id, seat)] = now
            if len(touched) > 4096:
                touched.clear()
        pipe = self.store.redis.pipeline(transaction=False)
        pipe.hset(seen_key(match_id), str(seat), now)
        pipe.expire(seen_key(match_id), 7 * 86_400)
        pipe.execute()

    def presence(self, match_id: str) -> dict[int, int]:
        raw: Any = self.store.redis.hgetall(seen_key(match_id))
        return {int(codec.text(k)): int(codec.text(v)) for k, v in raw.items()}

    def clock_view(self, match_id: str, turn: Turn | None, live: bool = True) -> ClockView | None:
        """The `clock` a view of the match shows now (None: no clock). `live` False (a
        move's answer, a hot path): no presence and no stall read, both shown as null."""
        meta = self.metadata.get(match_id)
        if turn is None or meta.clock is None:
            return None
        now = self.now_ms()
        seen = self.presence(match_id) if live else None
        claim_ms = meta.clock.claim_after_s * 1000
        seats: list[SeatClockView] = [
            {
                "seat": s,
                "left_ms": turn.left_ms(s, now),
                "running": s == turn.seat,
                "timeouts": turn.timeouts[s],
                "present": None if seen is None else now - seen.get(s, 0) < claim_ms,
            }
            for s in range(len(turn.banks))
        ]
        deadline = turn.deadline_ms
        return {
            "options": meta.clock.to_json(),
            "seats": seats,
            "turn_seat": turn.seat,
            "deadline": _rfc3339(deadline) if deadline is not None else None,
            "deadline_ms": deadline,
            "abortable": turn.abortable(),
            "stalled": self.stalled(match_id) if live else None,
        }

    def stalled(self, match_id: str) -> str | None:
        raw = self.store.hget(meta_key(match_id), "stalled")
        return codec.text(raw) if raw is not None else None

    def fallback(
        self, match_id: str, version: int, seat: int, bot: str, job_id: str, error: str
    ) -> Appended:
        """A bot's job failed on its last attempt: BotMoveFailed and the random bot's legal
        move in one append at `version` (Conflict when the match moved on)."""
        log.error(
            "match %s: bot %s of seat %d failed in job %s: %s", match_id, bot, seat, job_id, error
        )
        game = get_variant(self.variant_name(match_id))
        current = self.states.fresh(match_id, game)
        if current.version != version:
            raise Conflict(current.version)
        failed = conduct.bot_move_failed(seat, bot, job_id, error.split(":")[0][:80])
        after = game.evolve(current.state, failed)
        move = fallback_move(game, after, seat, FALLBACK_BOT, f"{match_id}:{version}")
        return self._append_conduct(match_id, game, current, (failed, *move), seat)

    def stall(self, match_id: str, job_id: str, error: str) -> None:
        """A system job used its retries: MatchStalled in the log (the error's class only:
        a message may name a card), the full error in the log line, marks an operator sees."""
        log.error("match %s stalled: job %s failed after its retries: %s", match_id, job_id, error)
        error = error.split(":")[0][:80]
        note = f"{job_id}: {error}"[:300]
        game = get_variant(self.variant_name(match_id))
        event = conduct.match_stalled(job_id, error)
        for _ in range(4):
            current = self.states.fresh(match_id, game)
            try:
                self._append_conduct(
                    match_id, game, current, [event], SYSTEM, meta={"stalled": note}
                )
                break
            except Conflict:
                continue
        self.store.redis.sadd(STALLED_KEY, match_id)
        if metrics.ENABLED:
            metrics.STALLS.inc()

    def stalled_count(self) -> int:
        return int(self.store.redis.scard(STALLED_KEY))


def _to_act(game: Variant, state: State) -> int | None:
    """The seat whose clock runs: nobody while a SYSTEM move is due or after the end."""
    if game.is_finished(state) or game.pending(state) is not None:
        return None
    return game.to_act(state)


def _rfc3339(ms: int) -> str:
    return (
        datetime.fromtimestamp(ms / 1000, UTC)
        .isoformat(timespec="milliseconds")
        .replace("+00:00", "Z")
    )
