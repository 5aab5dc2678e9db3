"""The match service: the one object the API, the workers and the tools hold.

It wires the store's parts on one event store and answers for them (store/__init__.py maps
them): writes go to submit.py (decide, fold, append), reads to states.py (the state cache and
loads at any version), keyed repeats to replays.py, seats and fixed fields to metadata.py.
`store.config.build_service` builds it from the environment.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from domain.variants import State, Variant
from store.clock import carrier_job
from store.clock_service import Clocks
from store.codec import StoredEvent
from store.connection import same_server
from store.durability import Durability
from store.event_store import EventStore
from store.jobs import JobSpec, Queues, followups
from store.metadata import Metadata
from store.outcomes import Appended, Created
from store.replays import KeyedReplays
from store.states import Loaded, States, variant_of_state
from store.submit import Writer

__all__ = ["Appended", "Created", "Loaded", "MatchService", "StoredEvent"]


class MatchService(Clocks):
    """Matches on one event store (a Redis or a RedisCluster), jobs on `queue_redis`
    (default: the same server); `clock` is the time (Unix seconds) the service reads for
    match clocks (a test injects a fake one; store/clock_service.py)."""

    def __init__(
        self,
        redis: Any,
        *,
        queue_redis: Any = None,
        pepper: bytes = b"dev-pepper",
        snapshot_every: int = 64,
        keep_every: int = 256,
        durability: Durability | None = None,
        archive: Any = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.clock = clock
        queue_client = queue_redis if queue_redis is not None else redis
        self.queues = Queues(queue_client)
        self.store = EventStore(
            redis,
            self.queues,
            jobs_in_transaction=same_server(redis, queue_client),
            durability=durability,
        )
        self.pepper = pepper
        self.archive = archive  # store.archive.Archive: where retired matches are kept
        self.metadata = Metadata(self.store, pepper, archive)
        self.states = States(self.store, self.metadata, keep_every)
        self.replays = KeyedReplays(self.store, self.states, pepper)
        self.writer = Writer(
            self.store,
            self.states,
            self.metadata,
            self.replays,
            snapshot_every=snapshot_every,
            keep_every=keep_every,
        )
        self.writer.timekeeper = self  # late moves, the clock after an append (Clocks)

    @property
    def redis(self) -> Any:
        """The event store's client (for tests and tools; the service itself goes through
        `self.store`)."""
        return self.store.redis

    # --- writing --------------------------------------------------------------------------

    def create_match(
        self,
        variant: str,
        players: list[dict[str, Any]],
        options: dict[str, Any],
        seed: int | None,
        idempotency_key: str | None = None,
        fingerprint: str | None = None,
        clock_options: Mapping[str, Any] | None = None,
    ) -> Created:
        """Validate (InvalidOptions), deal, and append the opening events atomically;
        `clock_options`: the match's clock (domain/clock.py; None: no clock)."""
        return self.writer.create(
            variant, players, options, seed, idempotency_key, fingerprint or "", clock_options
        )

    def submit(
        self,
        match_id: str,
        seat: int,
        move: Mapping[str, Any],
        *,
        expected_version: int | None,
        idempotency_key: str | None,
        fingerprint: str,
    ) -> Appended:
        """Decide (RulesError propagates, nothing written), append atomically.

        The move is decided on the cached state; a conflict, a refusal or a stale
        `expected_version` reloads from Redis and decides again before answering. With
        `expected_version` a moved-on match raises VersionConflict; without it the loop is
        retried on a conflict. With `idempotency_key` a repeat returns what the first request
        appended (`replayed`); a keyed request that would be refused first checks whether a
        twin with the same key appended meanwhile, and then replays it.
        """
        return self.writer.submit(
            match_id, seat, move, expected_version, idempotency_key, fingerprint
        )

    def followups(self, match_id: str) -> list[JobSpec]:
        """The jobs the match's current state needs (for the reconciler): a running turn's
        deadline job is live when any of its carriers is (store/clock.py `carrier_job`)."""
        loaded = self.load(match_id)
        jobs = followups(loaded.variant, loaded.state, match_id, loaded.version)
        return [*jobs, *carrier_job(match_id, loaded.version, loaded.turn)]

    # --- reading --------------------------------------------------------------------------

    def load(self, match_id: str, at: int | None = None) -> Loaded:
        """The match now, from the cache (checked against the stream) or the snapshot plus
        the events after it; `at` = right after event `at` (clamped). UnknownMatch if none."""
        game = self.states.game(match_id)
        if at is not None:
            return self.states.at(match_id, game, max(0, at))
        cached = self.states.fresh(match_id, game)
        if cached.turn is not None and cached.turn.overdue(self.now_ms()):
            cached = self.settle(match_id, game, cached)  # every read applies it first
        return Loaded(game, cached.state, cached.version, cached.turn)

    def variant_name(self, match_id: str) -> str:
        """The match's game; UnknownMatch when there is no such match."""
        return self.metadata.get(match_id).variant

    def variant(self, state: State) -> Variant:
        """The game a folded state belongs to (by the state's type)."""
        return variant_of_state(state)

    def events(self, match_id: str, after: int = 0, limit: int = 100) -> list[StoredEvent]:
        """Up to `limit` events with seq > after."""
        name = self.variant_name(match_id)
        return self.store.read(match_id, after=after, count=max(1, limit), variant=name)

    def wait_events(
        self, match_id: str, after: int, block_ms: int, *, client: Any = None
    ) -> list[StoredEvent]:
        """Events with seq > after, waiting up to `block_ms` for one (XREAD BLOCK, for SSE),
        through `client` when given (the API's pool for blocking reads, api/streams.py)."""
        name = self.variant_name(match_id)
        return self.store.wait(match_id, after, block_ms, name, client=client)

    def states_along(
        self, match_id: str, upto: int | None = None, *, after: int = 0
    ) -> Iterator[tuple[Any, StoredEvent]]:
        """(state BEFORE the event, the event) for each event with after < seq <= upto."""
        game = self.states.game(match_id)
        state = self.states.at(match_id, game, after).state if after else game.initial_state()
        for item in self.store.read(match_id, after=after, upto=upto, variant=game.name):
            yield state, item
            state = game.evolve(state, item.event)

    def is_finished(self, match_id: str) -> bool:
        """The finished flag written with the last event (cheap: no load)."""
        return self.metadata.is_finished(match_id)

    def ping(self) -> bool:
        return self.store.ping()

    def forget_cache(self) -> None:
        """Drop the in-process caches (states and metadata are then read from Redis)."""
        self.states.clear()

    # --- seats ----------------------------------------------------------------------------

    def authenticate(self, match_id: str, token: str) -> int:
        """The seat `token` holds in this match; Unauthorized otherwise."""
        return self.metadata.authenticate(match_id, token)

    def players(self, match_id: str) -> list[dict[str, Any]]:
        """The seats as recorded at creation: [{seat, name, bot, ...}]."""
        return [dict(p) for p in self.metadata.get(match_id).players]
