"""The match service: load -> decide -> append, the one path every write takes.

The API (a client's move) and the workers (scoring a round, a bot's turn) both call
`MatchService.submit`, so every event is validated by the domain, appended atomically with its
idempotency record and its follow-up jobs, and never written twice (event_store.py). Every
Redis access goes through the EventStore.

The hot path is one round trip: a move is decided on the in-process cached state, and the
append script's version (and nonce) check is what proves that state fresh; only a conflict
(another process appended) or a refusal reloads from Redis and decides again. Seat-token
hashes, the variant and the players of a match never change, so they are read once.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from domain import bots
from domain.errors import InvalidOptions, RulesError
from domain.events import Event
from domain.replay import fold
from domain.variants import NAMES, State, Variant, get_variant
from domain.variants import move_from_json as as_move
from store import codec, idempotency, snapshots, tokens
from store.codec import StoredEvent
from store.connection import same_server
from store.durability import Durability
from store.errors import IdempotencyKeyReused, Unauthorized, UnknownMatch, VersionConflict
from store.event_store import AppendRequest, Conflict, EventStore, IdemTaken, meta_key, snap_key
from store.jobs import JobSpec, Queues, followups

__all__ = ["Appended", "Created", "Loaded", "MatchService", "StoredEvent"]

SUBMIT_ATTEMPTS = 32
CACHE_SIZE = 512


@dataclass(frozen=True)
class Loaded:
    """A match as loaded: its game, the folded state and the number of events."""

    variant: Variant
    state: State
    version: int


@dataclass(frozen=True)
class Created:
    match_id: str
    version: int
    state: State
    variant: Variant
    tokens: list[str | None]  # per seat; None for bot seats; shown once, stored only as hashes
    replayed: bool = False  # True when an idempotent repeat of a create returned the same match


@dataclass(frozen=True)
class Appended:
    """What a move appended (or, `replayed`, what its first request appended): the state
    before it, its events and the state after, enough to render the response once."""

    version: int
    events: list[StoredEvent]
    before: State
    state: Any
    variant: Variant
    replayed: bool
    response: dict[str, Any] | None = None  # the body of a record written by older code


@dataclass(frozen=True)
class _Cached:
    version: int
    state: State
    tx: str  # nonce of the entry at `version` ("" when unknown: loaded from a snapshot)


@dataclass(frozen=True)
class _Meta:
    """The fields of `match:{id}:meta` that never change after the create."""

    variant: str
    players: list[dict[str, Any]]
    token_hashes: dict[int, str]


class MatchService:
    """Matches on one event store (a Redis or a RedisCluster), jobs on `queue_redis`
    (default: the same server)."""

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
    ) -> None:
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
        self.snapshot_every = max(1, snapshot_every)
        self.keep_every = max(1, keep_every)
        self.clock: Callable[[], float] = time.time  # the lobby's deadlines (store/lobby.py)
        self._lock = threading.Lock()
        self._states: OrderedDict[str, _Cached] = OrderedDict()
        self._metas: OrderedDict[str, _Meta] = OrderedDict()

    @property
    def redis(self) -> Any:
        """The event store's client (for tests and tools; the service itself goes through
        `self.store`)."""
        return self.store.redis

    # --- creating -----------------------------------------------------------------------

    def create_match(
        self,
        variant: str,
        players: list[dict[str, Any]],
        options: dict[str, Any],
        seed: int | None,
        idempotency_key: str | None = None,
        fingerprint: str | None = None,
    ) -> Created:
        """Validate (InvalidOptions), deal, and append the opening events atomically."""
        if idempotency_key is not None:
            match_id = idempotency.match_id_for_key(self.pepper, idempotency_key)
            raw = self.store.get(idempotency.record_key(match_id, idempotency_key))
            if raw is not None:
                return self._replay_create(match_id, idempotency_key, fingerprint or "", raw)
        else:
            match_id = "m_" + secrets.token_urlsafe(16)
        game = get_variant(variant)
        _check_bots(variant, players)
        full = game.validate_options(options)
        secret = secrets.token_hex(32)  # the deal key, or a seeded match's salt key (shuffle.py)
        events = tuple(map(codec.as_stored, game.create(players, full, seed, secret)))
        state = fold(game, events)
        seat_tokens = [None if p.get("bot") else tokens.new_token(s) for s, p in enumerate(players)]
        request = self._create_request(
            match_id, game, events, state, seat_tokens, idempotency_key, fingerprint or ""
        )
        try:
            _, tx = self.store.append(request)
        except IdemTaken as taken:
            assert idempotency_key is not None
            return self._replay_create(match_id, idempotency_key, fingerprint or "", taken.raw)
        except Conflict:
            raise IdempotencyKeyReused(
                "this Idempotency-Key already created a match (more than 24 h ago)"
            ) from None
        self._forget(match_id)
        self._remember(match_id, _Cached(len(events), state, tx))
        return Created(match_id, len(events), state, game, seat_tokens)

    def _create_request(
        self,
        match_id: str,
        game: Variant,
        events: Sequence[Event],
        state: State,
        seat_tokens: list[str | None],
        idempotency_key: str | None,
        fingerprint: str,
    ) -> AppendRequest:
        version = len(events)
        players = game.public_seats(state)
        meta = {
            "variant": game.name,
            "created_at": codec.now(),
            "players": json.dumps(players),
            "finished": "1" if game.is_finished(state) else "0",
        }
        for seat, token in enumerate(seat_tokens):
            if token is not None:
                meta[f"token:{seat}"] = tokens.token_hash(self.pepper, match_id, seat, token)
        idem_key = record = None
        if idempotency_key is not None:
            idem_key = idempotency.record_key(match_id, idempotency_key)
            sealed = idempotency.seal(self.pepper, match_id, idempotency_key, seat_tokens)
            record = idempotency.Record(fingerprint, None, version, 1, None, sealed).dumps()
        return AppendRequest(
            match_id,
            0,
            events,
            idem_key=idem_key,
            idem_record=record,
            meta=meta,
            **self._snapshot(0, version, state),
            jobs=followups(game, state, match_id, version),
        )

    def _settled_record(
        self, match_id: str, raw: bytes | str, fingerprint: str, seat: int | None
    ) -> idempotency.Record:
        """The idempotency record a replayed answer is rendered from, once it is checked
        against this request (IdempotencyKeyReused) and, under `replica` durability, held by
        a replica (NotReplicated): a replay acknowledges what the first request wrote."""
        record = idempotency.Record.loads(raw)
        record.check(fingerprint, seat)
        self.store.confirm_replicated(match_id)
        return record

    def _replay_create(
        self, match_id: str, key: str, fingerprint: str, raw: bytes | str
    ) -> Created:
        record = self._settled_record(match_id, raw, fingerprint, None)
        loaded = self.load(match_id, at=record.version)
        seat_tokens = idempotency.unseal(self.pepper, match_id, key, record.sealed_tokens)
        return Created(
            match_id, loaded.version, loaded.state, loaded.variant, seat_tokens, replayed=True
        )

    # --- reading ------------------------------------------------------------------------

    def _meta(self, match_id: str) -> _Meta:
        """The match's fixed metadata, read once (UnknownMatch when there is no such match)."""
        with self._lock:
            meta = self._metas.get(match_id)
        if meta is None:
            fields = {
                codec.text(k): codec.text(v)
                for k, v in self.store.hgetall(meta_key(match_id)).items()
            }
            if "variant" not in fields and self._restored(match_id):
                fields = {
                    codec.text(k): codec.text(v)
                    for k, v in self.store.hgetall(meta_key(match_id)).items()
                }
            if "variant" not in fields:
                raise UnknownMatch(f"match {match_id!r} does not exist")
            meta = _Meta(fields["variant"], _players(fields), _token_hashes(fields))
            if fields.get("open") == "1":  # a match waiting for players: seats still change
                return meta
            with self._lock:
                self._metas[match_id] = meta
                _trim(self._metas)
        return meta

    def _restored(self, match_id: str) -> bool:
        """A match retired from Redis is written back from its archive (store/archive.py)."""
        if self.archive is None:
            return False
        from store.archive import restore

        return restore(self.store, self.archive, match_id)

    def variant_name(self, match_id: str) -> str:
        """The match's game; UnknownMatch when there is no such match."""
        return self._meta(match_id).variant

    def variant(self, state: State) -> Variant:
        """The game a folded state belongs to (by the state's type)."""
        game = _variants_by_state_type().get(type(state))
        if game is None:
            raise TypeError(f"{type(state).__name__} is not the state of a known variant")
        return game

    def load(self, match_id: str, at: int | None = None) -> Loaded:
        """The match now, from the cache (checked against the stream) or the snapshot plus
        the events after it; `at` = right after event `at` (clamped). UnknownMatch if none.

        The stream is append-only, so a cached state is always a prefix of the match:
        loading reads from the cached entry on, checks that entry is still the one cached
        (same append nonce), and folds only the newer events."""
        game = get_variant(self.variant_name(match_id))
        if at is not None:
            return self._load_at(match_id, game, max(0, at))
        cached = self._fresh(match_id, game)
        return Loaded(game, cached.state, cached.version)

    def _fresh(self, match_id: str, game: Variant) -> _Cached:
        """The current state, read from Redis (only the entries newer than the cache)."""
        with self._lock:
            cached = self._states.get(match_id)
        tail = None
        if cached is not None and cached.version > 0 and cached.tx:
            tail = self.store.newer(match_id, cached.version, cached.tx, variant=game.name)
        if tail is None:  # no usable cache (or the stream was replaced: a test flush)
            self._forget(match_id)
            game = get_variant(self.variant_name(match_id))
            version, state = self._from_snapshot(match_id) or (0, game.initial_state())
            cached = _Cached(version, state, "")
            tail = self.store.entries(match_id, after=version, variant=game.name)
        assert cached is not None
        if tail:
            state = fold(game, (item.event for item, _ in tail), cached.state)
            cached = _Cached(tail[-1][0].seq, state, tail[-1][1])
        self._remember(match_id, cached)
        return cached

    def _cached(self, match_id: str, game: Variant) -> _Cached:
        """The cached state without asking Redis (the append's check proves it fresh)."""
        with self._lock:
            cached = self._states.get(match_id)
        return cached if cached is not None else self._fresh(match_id, game)

    def _load_at(self, match_id: str, game: Variant, at: int) -> Loaded:
        """The match right after event `at`: from the kept snapshot (or the latest) at or
        before it plus the events up to `at`, so at most about `keep_every` events are folded
        wherever `at` is (issue 28 item 5). A fold longer than that (a match older than the
        kept snapshots, or kept ones written by other rules code) keeps the snapshots it
        passes, so the next read of that stretch is short."""
        latest_raw, kept_raw = self.store.snapshots_at(match_id, at)
        starts: list[tuple[int, Any]] = [(0, game.initial_state())]
        use_kept = self._nearer(kept_raw, latest_raw, at)
        kept = snapshots.decode_state(kept_raw) if use_kept else None
        if kept is not None and kept[0] > at:
            kept = None
        latest = snapshots.decode_state(latest_raw) if kept is None else None  # one decode
        for snap in (kept, latest):
            if snap is not None and snap[0] <= at:
                starts.append(snap)
        version, state = max(starts, key=lambda s: s[0])
        tail = self.store.read(match_id, after=version, upto=at, variant=game.name)
        passed: dict[str, int] = {}
        for item in tail:
            state = game.evolve(state, item.event)
            if len(tail) > self.keep_every and item.seq % self.keep_every == 0:
                passed.update(self._encoded(item.seq, state))
        foreign = use_kept and kept_raw is not None and kept is None
        if passed or foreign:
            self.store.keep_snapshots(match_id, passed, drop_upto=at if foreign else None)
        return Loaded(game, state, tail[-1].seq if tail else version)

    @staticmethod
    def _nearer(kept_raw: Any, latest_raw: Any, at: int) -> bool:
        """True when the kept snapshot is the one to start from: the latest is absent, past
        `at`, or not later than the kept one (versions read without decoding, so one
        snapshot is decoded, not two)."""
        latest = snapshots.version_of(latest_raw)
        if latest is None or latest > at:
            return True
        kept = snapshots.version_of(kept_raw)
        return kept is not None and kept >= latest

    @staticmethod
    def _encoded(version: int, state: State) -> dict[str, int]:
        try:
            return {snapshots.encode_state(version, state): version}
        except snapshots.SnapshotError:
            return {}

    def _from_snapshot(self, match_id: str) -> tuple[int, Any] | None:
        return snapshots.decode_state(self.store.get(snap_key(match_id)))

    def _remember(self, match_id: str, cached: _Cached) -> None:
        with self._lock:
            current = self._states.get(match_id)
            if current is None or current.version <= cached.version:
                self._states[match_id] = cached
                self._states.move_to_end(match_id)
            _trim(self._states)

    def _forget(self, match_id: str) -> None:
        with self._lock:
            self._states.pop(match_id, None)
            self._metas.pop(match_id, None)

    def forget_cache(self) -> None:
        """Drop the in-process caches (states and metadata are then read from Redis)."""
        with self._lock:
            self._states.clear()
            self._metas.clear()

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
        game = get_variant(self.variant_name(match_id))
        state = self._load_at(match_id, game, after).state if after else game.initial_state()
        for item in self.store.read(match_id, after=after, upto=upto, variant=game.name):
            yield state, item
            state = game.evolve(state, item.event)

    def ping(self) -> bool:
        return self.store.ping()

    # --- seats --------------------------------------------------------------------------

    def authenticate(self, match_id: str, token: str) -> int:
        """The seat `token` holds in this match; Unauthorized otherwise. The hashes are
        cached; a refusal reads them again once (the match may have been made anew)."""
        try:
            return tokens.verify(self.pepper, match_id, token, self._meta(match_id).token_hashes)
        except Unauthorized:  # only the metadata is read again: a bad token costs no state
            with self._lock:
                self._metas.pop(match_id, None)
            return tokens.verify(self.pepper, match_id, token, self._meta(match_id).token_hashes)

    def players(self, match_id: str) -> list[dict[str, Any]]:
        """The seats as recorded at creation: [{seat, name, bot, ...}]."""
        return [dict(p) for p in self._meta(match_id).players]

    # --- writing ------------------------------------------------------------------------

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
        try:
            return self._submit(
                match_id, seat, move, expected_version, idempotency_key, fingerprint
            )
        except _Replayed as replayed:
            return replayed.appended

    def _submit(
        self,
        match_id: str,
        seat: int,
        move: Mapping[str, Any],
        expected_version: int | None,
        idempotency_key: str | None,
        fingerprint: str,
    ) -> Appended:
        game = get_variant(self.variant_name(match_id))
        idem_key = idempotency.record_key(match_id, idempotency_key) if idempotency_key else None
        refuse = _Refusal(self, match_id, idem_key, fingerprint, seat)
        fresh = False
        for attempt in range(SUBMIT_ATTEMPTS):
            current = self._fresh(match_id, game) if fresh else self._cached(match_id, game)
            if expected_version is not None and expected_version != current.version:
                if not fresh:
                    fresh = True
                    continue
                refuse.check()
                raise _conflict(match_id, expected_version, current.version)
            try:
                events = tuple(
                    map(codec.as_stored, game.decide(current.state, seat, as_move(move)))
                )
            except RulesError:
                if not fresh:
                    fresh = True
                    continue
                refuse.check()
                raise
            request, new_state = self._move_request(match_id, game, current, events, refuse)
            try:
                _, tx = self.store.append(request)
            except IdemTaken as taken:
                return self._replay(match_id, taken.raw, fingerprint, seat)
            except Conflict as conflict:
                if fresh:
                    _backoff(attempt)
                fresh = True
                if expected_version is not None and conflict.actual != expected_version:
                    refuse.check()
                    raise _conflict(match_id, expected_version, conflict.actual) from None
                continue
            version = request.expected + len(events)
            self._remember(match_id, _Cached(version, new_state, tx))
            stored = [
                StoredEvent(current.version + i + 1, e, request.at) for i, e in enumerate(events)
            ]
            return Appended(version, stored, current.state, new_state, game, False)
        raise VersionConflict(
            f"match {match_id!r} kept moving: {SUBMIT_ATTEMPTS} attempts lost the race"
        )

    def _move_request(
        self,
        match_id: str,
        game: Variant,
        current: _Cached,
        events: tuple[Event, ...],
        refuse: _Refusal,
    ) -> tuple[AppendRequest, Any]:
        new_state = fold(game, events, current.state)
        version, new_version = current.version, current.version + len(events)
        record = None
        if refuse.idem_key is not None:
            record = idempotency.Record(refuse.fingerprint, refuse.seat, new_version, version + 1)
        request = AppendRequest(
            match_id,
            version,
            events,
            idem_key=refuse.idem_key,
            idem_record=record.dumps() if record is not None else None,
            meta={"finished": "1"} if game.is_finished(new_state) else {},
            **self._snapshot(version, new_version, new_state),
            jobs=followups(game, new_state, match_id, new_version),
            check_tx=current.tx,
        )
        return request, new_state

    def _replay(self, match_id: str, raw: bytes | str, fingerprint: str, seat: int) -> Appended:
        """What the first request with this key appended, from its record (the response is
        rendered from the states at its version, exactly as the first time)."""
        record = self._settled_record(match_id, raw, fingerprint, seat)
        game = get_variant(self.variant_name(match_id))
        events = self.store.read(
            match_id, after=record.first - 1, upto=record.version, variant=game.name
        )
        before = self._load_at(match_id, game, record.first - 1).state
        after = self._load_at(match_id, game, record.version)
        return Appended(after.version, events, before, after.state, game, True, record.body)

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

    def followups(self, match_id: str) -> list[JobSpec]:
        """The jobs the match's current state needs (for the reconciler)."""
        loaded = self.load(match_id)
        return followups(loaded.variant, loaded.state, match_id, loaded.version)

    def is_finished(self, match_id: str) -> bool:
        """The finished flag written with the last event (cheap: no load)."""
        raw = self.store.hget(meta_key(match_id), "finished")
        return raw is not None and codec.text(raw) == "1"


@dataclass(frozen=True)
class _Refusal:
    """Before refusing a keyed request: a twin with the same key may have appended between
    our decide and our answer; then its record is the answer (raised as _Replayed)."""

    service: MatchService
    match_id: str
    idem_key: str | None
    fingerprint: str
    seat: int

    def check(self) -> None:
        if self.idem_key is None:
            return
        raw = self.service.store.get(self.idem_key)
        if raw is not None:
            replay = self.service._replay(self.match_id, raw, self.fingerprint, self.seat)
            raise _Replayed(replay)


class _Replayed(Exception):
    """Carries the replay of a twin request out of the submit loop."""

    def __init__(self, appended: Appended) -> None:
        super().__init__("replayed")
        self.appended = appended


def _conflict(match_id: str, expected: int, actual: int) -> VersionConflict:
    return VersionConflict(
        f"match {match_id!r} is at version {actual}, not the expected {expected}",
        expected=expected,
        actual=actual,
    )


def _check_bots(variant: str, players: Sequence[Mapping[str, Any]]) -> None:
    """Every bot seat names a built-in bot of this variant (InvalidOptions otherwise)."""
    if not isinstance(players, Sequence) or isinstance(players, str):
        raise InvalidOptions("players must be a list of {name, bot} objects")
    for seat, player in enumerate(players):
        if not isinstance(player, Mapping):
            raise InvalidOptions(f"player {seat} must be an object with a name")
        bot = player.get("bot")
        if bot is not None:
            if not isinstance(bot, str):
                raise InvalidOptions(f"player {seat}: bot must be a bot name or null")
            bots.get_bot(variant, bot)


def _backoff(attempt: int) -> None:
    """A short random pause before trying a lost race again (spreads the contenders)."""
    ceiling_ms = min(50, 1 << attempt)
    time.sleep(secrets.randbelow(ceiling_ms + 1) / 1000)


def _trim(cache: OrderedDict[str, Any]) -> None:
    while len(cache) > CACHE_SIZE:
        cache.popitem(last=False)


def _players(fields: Mapping[str, str]) -> list[dict[str, Any]]:
    raw = fields.get("players")
    return list(json.loads(raw)) if raw else []


def _token_hashes(fields: Mapping[str, str]) -> dict[int, str]:
    return {
        int(name[len("token:") :]): value
        for name, value in fields.items()
        if name.startswith("token:")
    }


_BY_STATE_TYPE: dict[type, Variant] = {}


def _variants_by_state_type() -> dict[type, Variant]:
    """Each installed game keyed by the type of its state (built once)."""
    if not _BY_STATE_TYPE or not set(NAMES) <= {g.name for g in _BY_STATE_TYPE.values()}:
        for name in NAMES:
            try:
                game = get_variant(name)
            except ImportError:  # an engine that is not installed owns no state
                continue
            _BY_STATE_TYPE[type(game.initial_state())] = game
    return _BY_STATE_TYPE


def service_from_env() -> MatchService:
    """The service the environment names (REDIS_URL, QUEUE_URL, DEADWOOD_REDIS_CLUSTER,
    DEADWOOD_TOKEN_PEPPER, DEADWOOD_DURABILITY; store/connection.py)."""
    from store.archive import Archive, archive_dir_from_env
    from store.connection import pepper_from_env, queue_from_env, redis_from_env
    from store.durability import durability_from_env

    return MatchService(
        redis_from_env(),
        queue_redis=queue_from_env(),
        pepper=pepper_from_env(),
        durability=durability_from_env(),
        archive=Archive(archive_dir_from_env()),
    )
