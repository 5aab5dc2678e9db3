"""Submit and append: every write is the game's decide, one fold, one atomic append.

The API (a client's move) and the workers (scoring a round, a bot's turn) both call
`Writer.submit`, so every event is validated by the domain, appended atomically with its
idempotency record and its follow-up jobs, and never written twice (event_store.py).

The hot path is one round trip: a move is decided on the in-process cached state, and the
append script's version (and nonce) check is what proves that state fresh; only a conflict
(another process appended) or a refusal reloads from Redis and decides again. Each event is
encoded once (codec.stored_forms) and folded once (states.fold_along): the states along the
events ride in `Appended`, so the response is rendered without folding again.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

from domain.errors import RulesError
from domain.events import Event
from domain.replay import fold
from domain.variants import Move, State, Variant, get_variant
from domain.variants import move_from_json as as_move
from store import codec, idempotency, snapshots
from store.clock import Turn, checked_clock
from store.errors import IdempotencyKeyReused, VersionConflict
from store.event_store import AppendRequest, Conflict, EventStore, IdemTaken
from store.jobs import JobSpec, followups
from store.metadata import Metadata, check_bots, new_seat_tokens
from store.outcomes import Appended, Created
from store.replays import KeyedReplays
from store.states import Cached, States, fold_along

if TYPE_CHECKING:
    from domain.clock import ClockOptions

SUBMIT_ATTEMPTS = 32


class Timekeeper(Protocol):
    """What the writer asks the service's clocks (store/clock_service.py): whether a move
    comes after its seat's deadline (the timeout is applied first), the clock after an
    append at `version` and the deadline job it writes (if it must: store/clock.py
    `with_deadline_job`), and a new clocked match's first turn."""

    def late(self, match_id: str, game: Variant, current: Cached, seat: int) -> bool: ...

    def turn_after(
        self,
        match_id: str,
        game: Variant,
        current: Cached,
        state: State,
        mover: int,
        timed_out: bool,
        version: int,
    ) -> tuple[Turn | None, list[JobSpec]]: ...

    def clock_created(
        self, request: AppendRequest, clock: ClockOptions, game: Variant, state: State
    ) -> tuple[AppendRequest, Turn]: ...


class _NoClocks:
    """A writer's timekeeper until the service gives it its own: no match has a clock."""

    def late(self, match_id: str, game: Variant, current: Cached, seat: int) -> bool:
        return False

    def turn_after(
        self,
        match_id: str,
        game: Variant,
        current: Cached,
        state: State,
        mover: int,
        timed_out: bool,
        version: int,
    ) -> tuple[Turn | None, list[JobSpec]]:
        return None, []

    def clock_created(
        self, request: AppendRequest, clock: ClockOptions, game: Variant, state: State
    ) -> tuple[AppendRequest, Turn]:
        raise NotImplementedError("a writer without the service's clocks makes no clock")


NO_CLOCKS = _NoClocks()


@dataclass(frozen=True)
class _Ask:
    """One move as submitted: who, what, and the conditions it comes with."""

    match_id: str
    seat: int
    move: Move
    expected: int | None
    idem_key: str | None  # the Redis key of its idempotency record
    fingerprint: str


class Writer:
    """Creates matches and appends moves on one event store."""

    def __init__(
        self,
        store: EventStore,
        states: States,
        metadata: Metadata,
        replays: KeyedReplays,
        *,
        snapshot_every: int,
        keep_every: int,
    ) -> None:
        self.store = store
        self.states = states
        self.metadata = metadata
        self.replays = replays
        self.snapshot_every = max(1, snapshot_every)
        self.keep_every = max(1, keep_every)
        self.timekeeper: Timekeeper = NO_CLOCKS  # the service's clocks (store/clock_service.py)

    # --- a move ---------------------------------------------------------------------------

    def submit(
        self,
        match_id: str,
        seat: int,
        move: Mapping[str, Any],
        expected_version: int | None,
        idempotency_key: str | None,
        fingerprint: str,
    ) -> Appended:
        """Decide on the cached state and append; a conflict, a refusal or a stale
        `expected_version` first reloads from Redis and decides again (MatchService.submit
        says what each outcome means)."""
        game = self.states.game(match_id)
        idem_key = idempotency.record_key(match_id, idempotency_key) if idempotency_key else None
        ask = _Ask(match_id, seat, as_move(move), expected_version, idem_key, fingerprint)
        fresh = False
        for attempt in range(SUBMIT_ATTEMPTS):
            load = self.states.fresh if fresh else self.states.cached
            current = load(match_id, game)
            if self.timekeeper.late(match_id, game, current, seat):  # its timeout landed first
                fresh = True
                continue
            try:
                outcome = self._attempt(game, current, ask)
            except (RulesError, VersionConflict) as refused:
                if not fresh:  # decided on the cache: ask Redis before refusing
                    fresh = True
                    continue
                return self._refuse(ask, refused)
            if isinstance(outcome, Appended):
                return outcome
            if fresh:
                _backoff(attempt)
            fresh = True
            if expected_version is not None and outcome.actual != expected_version:
                return self._refuse(ask, _conflict(match_id, expected_version, outcome.actual))
        raise VersionConflict(
            f"match {match_id!r} kept moving: {SUBMIT_ATTEMPTS} attempts lost the race"
        )

    def _attempt(self, game: Variant, current: Cached, ask: _Ask) -> Appended | Conflict:
        """Decide on `current` and append: what was appended (or what the first request
        with this key appended), or the Conflict that says the stream moved on. A refusal
        is raised (RulesError, VersionConflict), and nothing was written."""
        if ask.expected is not None and ask.expected != current.version:
            raise _conflict(ask.match_id, ask.expected, current.version)
        events, texts = codec.stored_forms(game.decide(current.state, ask.seat, ask.move))
        befores, state = fold_along(game, current.state, events)
        request, turn = self._move_request(game, current, ask, events, texts, state)
        try:
            stored, tx = self.store.append(request)
        except IdemTaken as taken:
            return self.replays.move(ask.match_id, taken.raw, ask.fingerprint, ask.seat)
        except Conflict as conflict:
            return conflict
        version = current.version + len(events)
        self.states.remember(ask.match_id, Cached(version, state, tx, turn))
        return Appended(
            version, stored, current.state, state, game, False, None, tuple(befores), turn
        )

    def append_events(
        self,
        match_id: str,
        game: Variant,
        current: Cached,
        made: Sequence[Event],
        mover: int,
        *,
        timed_out: bool = False,
        meta: Mapping[str, str] | None = None,
    ) -> Appended:
        """Append events the service made (a timeout, an abort, a resignation, a claim, a
        stall) at `current.version`, as a move's are (Conflict when the match moved on).
        `meta` (a stall's) replaces the follow-up jobs: the failed job must not run again."""
        events, texts = codec.stored_forms(made)
        befores, state = fold_along(game, current.state, events)
        ask = _Ask(match_id, mover, as_move({}), None, None, "")
        request, turn = self._move_request(game, current, ask, events, texts, state, timed_out)
        if meta:
            request = replace(request, meta={**request.meta, **meta}, jobs=[])
        stored, tx = self.store.append(request)
        version = current.version + len(events)
        self.states.remember(match_id, Cached(version, state, tx, turn))
        return Appended(
            version, stored, current.state, state, game, False, None, tuple(befores), turn
        )

    def _refuse(self, ask: _Ask, refusal: Exception) -> Appended:
        """Before a keyed move is refused: the answer of a twin request with the same key
        that appended meanwhile, when there is one; else the refusal is raised."""
        twin = self.replays.twin(ask.match_id, ask.idem_key, ask.fingerprint, ask.seat)
        if twin is None:
            raise refusal
        return twin

    def _move_request(
        self,
        game: Variant,
        current: Cached,
        ask: _Ask,
        events: tuple[Event, ...],
        texts: tuple[str, ...],
        state: State,
        timed_out: bool = False,
    ) -> tuple[AppendRequest, Turn | None]:
        """The append of `events` and the clock after it (None: no clock)."""
        version, new_version = current.version, current.version + len(events)
        turn, deadline = self.timekeeper.turn_after(
            ask.match_id, game, current, state, ask.seat, timed_out, new_version
        )
        jobs = followups(game, state, ask.match_id, new_version)
        record = None
        if ask.idem_key is not None:
            record = idempotency.Record(ask.fingerprint, ask.seat, new_version, version + 1)
        request = AppendRequest(
            ask.match_id,
            version,
            events,
            idem_key=ask.idem_key,
            idem_record=record.dumps() if record is not None else None,
            meta={"finished": "1"} if game.is_finished(state) else {},
            **self._snapshot(version, new_version, state),
            jobs=[*jobs, *deadline] if deadline else jobs,
            check_tx=current.tx,
            data=texts,
            clk=turn.encode() if turn is not None else "",
        )
        return request, turn

    # --- a create -------------------------------------------------------------------------

    def create(
        self,
        variant: str,
        players: list[dict[str, Any]],
        options: dict[str, Any],
        seed: int | None,
        idempotency_key: str | None,
        fingerprint: str,
        clock_options: Mapping[str, Any] | None = None,
    ) -> Created:
        """Validate (InvalidOptions), deal, and append the opening events atomically; a
        clock is pinned in MatchCreated and its first turn's deadline scheduled."""
        if idempotency_key is not None:
            match_id = idempotency.match_id_for_key(self.metadata.pepper, idempotency_key)
            raw = self.replays.record(match_id, idempotency_key)
            if raw is not None:
                return self.replays.create(match_id, idempotency_key, fingerprint, raw)
        else:
            match_id = "m_" + secrets.token_urlsafe(16)
        game = get_variant(variant)
        check_bots(variant, players)
        full = game.validate_options(options)
        clock = checked_clock(variant, len(players), clock_options)
        secret = secrets.token_hex(32)  # the deal key, or a seeded match's salt key (shuffle.py)
        opening = game.create(players, full, seed, secret, clock)  # the clock pinned
        events, texts = codec.stored_forms(opening)
        state = fold(game, events)
        seat_tokens = new_seat_tokens(players)
        request = self._create_request(match_id, game, events, texts, state, seat_tokens)
        turn = None
        if clock is not None:
            request, turn = self.timekeeper.clock_created(request, clock, game, state)
        if idempotency_key is not None:
            request = self._keyed(request, idempotency_key, fingerprint, seat_tokens)
        try:
            _, tx = self.store.append(request)
        except IdemTaken as taken:
            assert idempotency_key is not None
            return self.replays.create(match_id, idempotency_key, fingerprint, taken.raw)
        except Conflict:
            raise IdempotencyKeyReused(
                "this Idempotency-Key already created a match (more than 24 h ago)"
            ) from None
        self.states.forget(match_id)
        self.states.remember(match_id, Cached(len(events), state, tx, turn))
        return Created(match_id, len(events), state, game, seat_tokens)

    def _create_request(
        self,
        match_id: str,
        game: Variant,
        events: tuple[Event, ...],
        texts: tuple[str, ...],
        state: State,
        seat_tokens: list[str | None],
    ) -> AppendRequest:
        version = len(events)
        return AppendRequest(
            match_id,
            0,
            events,
            meta=self.metadata.create_fields(match_id, game, state, seat_tokens),
            **self._snapshot(0, version, state),
            jobs=followups(game, state, match_id, version),
            data=texts,
        )

    def _keyed(
        self, request: AppendRequest, key: str, fingerprint: str, seat_tokens: list[str | None]
    ) -> AppendRequest:
        """The create's request with its idempotency record (the seat tokens sealed)."""
        match_id, pepper = request.match_id, self.metadata.pepper
        sealed = idempotency.seal(pepper, match_id, key, seat_tokens)
        record = idempotency.Record(fingerprint, None, len(request.events), 1, None, sealed)
        idem_key = idempotency.record_key(match_id, key)
        return replace(request, idem_key=idem_key, idem_record=record.dumps())

    def _snapshot(self, before: int, after: int, state: State) -> dict[str, Any]:
        """The snapshot fields of an append: a snapshot when it crosses a multiple of
        `snapshot_every` (the latest) or of `keep_every` (kept at intervals)."""
        latest = after // self.snapshot_every > before // self.snapshot_every
        kept = after // self.keep_every > before // self.keep_every
        if not (latest or kept):
            return {}
        try:
            encoded = snapshots.encode_state(after, state)
        except snapshots.SnapshotError:
            return {}
        return {"snapshot": encoded, "snapshot_latest": latest, "snapshot_kept": kept}


def _conflict(match_id: str, expected: int, actual: int) -> VersionConflict:
    return VersionConflict(
        f"match {match_id!r} is at version {actual}, not the expected {expected}",
        expected=expected,
        actual=actual,
    )


def _backoff(attempt: int) -> None:
    """A short random pause before trying a lost race again (spreads the contenders)."""
    ceiling_ms = min(50, 1 << attempt)
    time.sleep(secrets.randbelow(ceiling_ms + 1) / 1000)
