"""The match service: load -> decide -> append, the one path every write takes.

The API (a client's move) and the workers (scoring a round, a bot's turn) both call
`MatchService.submit`, so every event is validated by the domain, appended atomically with its
idempotency record and its follow-up jobs, and never written twice (event_store.py).
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

import redis

from domain import bots
from domain.errors import InvalidOptions, RulesError
from domain.events import Event
from domain.replay import fold
from domain.variants import NAMES, Variant, get_variant
from store import codec, idempotency, snapshots, tokens
from store.codec import StoredEvent
from store.connection import same_server
from store.errors import IdempotencyKeyReused, UnknownMatch, VersionConflict
from store.event_store import AppendRequest, Conflict, EventStore, IdemTaken, meta_key, snap_key
from store.jobs import JobSpec, Queues, followups

__all__ = ["Appended", "Created", "MatchService", "StoredEvent"]

Render = Callable[[list[StoredEvent], Any], dict[str, Any]]
SUBMIT_ATTEMPTS = 32
CACHE_SIZE = 512


@dataclass(frozen=True)
class Created:
    match_id: str
    version: int
    state: Any
    tokens: list[str | None]  # per seat; None for bot seats; shown once, stored only as hashes
    replayed: bool = False  # True when an idempotent repeat of a create returned the same match


@dataclass(frozen=True)
class Appended:
    version: int
    events: list[StoredEvent]
    state: Any
    replayed: bool
    response: dict[str, Any] | None


class MatchService:
    """Matches on one event-store Redis, jobs on `queue_redis` (default: the same server)."""

    def __init__(
        self,
        redis: redis.Redis,
        *,
        queue_redis: redis.Redis | None = None,
        pepper: bytes = b"dev-pepper",
        snapshot_every: int = 64,
    ) -> None:
        queue_client = queue_redis if queue_redis is not None else redis
        self.redis = redis
        self._r: Any = redis
        self.queues = Queues(queue_client)
        self.store = EventStore(
            redis, self.queues, jobs_in_transaction=same_server(redis, queue_client)
        )
        self.pepper = pepper
        self.snapshot_every = max(1, snapshot_every)
        self._lock = threading.Lock()
        self._states: OrderedDict[str, tuple[int, Any, str]] = OrderedDict()
        self._variants: OrderedDict[str, str] = OrderedDict()

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
            idem_key = idempotency.record_key(match_id, idempotency_key)
            raw = self._r.get(idem_key)
            if raw is not None:
                return self._replay_create(match_id, idempotency_key, fingerprint or "", raw)
        else:
            match_id = "m_" + secrets.token_urlsafe(16)
        game = get_variant(variant)
        _check_bots(variant, players)
        full = game.validate_options(options)
        secret = secrets.token_hex(32)  # the deal key, or a seeded match's salt key (shuffle.py)
        events = tuple(game.create(players, full, seed, secret))
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
        self._remember(match_id, variant, len(events), state, tx)
        return Created(match_id, len(events), state, seat_tokens)

    def _create_request(
        self,
        match_id: str,
        game: Variant,
        events: Sequence[Event],
        state: Any,
        seat_tokens: list[str | None],
        idempotency_key: str | None,
        fingerprint: str,
    ) -> AppendRequest:
        version = len(events)
        players = game.view(state, None).get("seats") or []
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
            snapshot=self._snapshot(0, version, state),
            jobs=followups(game, state, match_id, version),
        )

    def _replay_create(
        self, match_id: str, key: str, fingerprint: str, raw: bytes | str
    ) -> Created:
        record = idempotency.Record.loads(raw)
        record.check(fingerprint, None)
        state, version = self.load(match_id, at=record.version)
        seat_tokens = idempotency.unseal(self.pepper, match_id, key, record.sealed_tokens)
        return Created(match_id, version, state, seat_tokens, replayed=True)

    # --- reading ------------------------------------------------------------------------

    def variant_name(self, match_id: str) -> str:
        """The match's game; UnknownMatch when there is no such match."""
        with self._lock:
            name = self._variants.get(match_id)
        if name is None:
            raw = self._r.hget(meta_key(match_id), "variant")
            if raw is None:
                raise UnknownMatch(f"match {match_id!r} does not exist")
            name = codec.text(raw)
            with self._lock:
                self._variants[match_id] = name
                _trim(self._variants)
        return name

    def variant(self, state: Any) -> Variant:
        """The game a folded state belongs to."""
        for name in NAMES:
            try:
                game = get_variant(name)
            except ImportError:  # an engine that is not installed cannot own the state
                continue
            if isinstance(state, type(game.initial_state())):
                return game
        raise TypeError(f"{type(state).__name__} is not the state of a known variant")

    def load(self, match_id: str, at: int | None = None) -> tuple[Any, int]:
        """(state, version), from the snapshot plus the events after it; `at` = the state
        right after event `at` (clamped to the match's version). UnknownMatch if none.

        States are also cached in-process as (version, state, nonce of the last entry). The
        stream is append-only, so a cached state is always a prefix of the match: loading
        reads from the cached entry on, checks that entry is still the one cached (same
        append nonce), and folds only the newer events."""
        name = self.variant_name(match_id)
        game = get_variant(name)
        if at is not None:
            return self._load_at(match_id, game, max(0, at))
        version, state, tx, tail = self._cached_tail(match_id, name)
        if tail is None:
            name = self.variant_name(match_id)  # read again if the cache entry was dropped
            game = get_variant(name)
            version, state = self._from_snapshot(match_id) or (0, game.initial_state())
            tail = self.store.entries(match_id, after=version, variant=name)
        if tail:
            state = fold(game, (item.event for item, _ in tail), state)
            version, tx = tail[-1][0].seq, tail[-1][1]
        self._remember(match_id, name, version, state, tx)
        return state, version

    def _cached_tail(
        self, match_id: str, name: str
    ) -> tuple[int, Any, str, list[tuple[StoredEvent, str]] | None]:
        """The cached state and the entries after it, or a None tail when nothing usable."""
        with self._lock:
            cached = self._states.get(match_id)
        if cached is None or cached[0] == 0:
            return 0, None, "", None
        version, state, tx = cached
        rows = self.store.entries(match_id, after=version - 1, variant=name)
        if not rows or rows[0][0].seq != version or rows[0][1] != tx:
            with self._lock:  # the stream was replaced (a test flush): forget it
                self._states.pop(match_id, None)
                self._variants.pop(match_id, None)
            return 0, None, "", None
        return version, state, tx, rows[1:]

    def _load_at(self, match_id: str, game: Variant, at: int) -> tuple[Any, int]:
        starts: list[tuple[int, Any]] = [(0, game.initial_state())]
        snap = self._from_snapshot(match_id)
        if snap is not None and snap[0] <= at:
            starts.append(snap)
        version, state = max(starts, key=lambda s: s[0])
        tail = self.store.read(match_id, after=version, upto=at, variant=game.name)
        if tail:
            state = fold(game, (item.event for item in tail), state)
            version = tail[-1].seq
        return state, version

    def _from_snapshot(self, match_id: str) -> tuple[int, Any] | None:
        return snapshots.decode_state(self._r.get(snap_key(match_id)))

    def _remember(self, match_id: str, name: str, version: int, state: Any, tx: str) -> None:
        with self._lock:
            current = self._states.get(match_id)
            if current is None or current[0] <= version:
                self._states[match_id] = (version, state, tx)
                self._states.move_to_end(match_id)
            self._variants[match_id] = name
            _trim(self._states)
            _trim(self._variants)

    def forget_cache(self) -> None:
        """Drop the in-process state cache (states are then rebuilt from Redis)."""
        with self._lock:
            self._states.clear()
            self._variants.clear()

    def events(self, match_id: str, after: int = 0, limit: int = 100) -> list[StoredEvent]:
        """Up to `limit` events with seq > after."""
        name = self.variant_name(match_id)
        return self.store.read(match_id, after=after, count=max(1, limit), variant=name)

    def wait_events(self, match_id: str, after: int, block_ms: int) -> list[StoredEvent]:
        """Events with seq > after, waiting up to `block_ms` for one (XREAD BLOCK, for SSE)."""
        name = self.variant_name(match_id)
        return self.store.wait(match_id, after, block_ms, name)

    def states_along(
        self, match_id: str, upto: int | None = None, *, after: int = 0
    ) -> Iterator[tuple[Any, StoredEvent]]:
        """(state BEFORE the event, the event) for each event with after < seq <= upto."""
        name = self.variant_name(match_id)
        game = get_variant(name)
        state, _ = self._load_at(match_id, game, after) if after else (game.initial_state(), 0)
        for item in self.store.read(match_id, after=after, upto=upto, variant=name):
            yield state, item
            state = game.evolve(state, item.event)

    def ping(self) -> bool:
        try:
            return bool(self._r.ping())
        except redis.RedisError:
            return False

    # --- seats --------------------------------------------------------------------------

    def authenticate(self, match_id: str, token: str) -> int:
        """The seat `token` holds in this match; Unauthorized otherwise."""
        self.variant_name(match_id)
        hashes: dict[int, str] = {}
        for field, value in (self._r.hgetall(meta_key(match_id)) or {}).items():
            name = codec.text(field)
            if name.startswith("token:"):
                hashes[int(name[len("token:") :])] = codec.text(value)
        return tokens.verify(self.pepper, match_id, token, hashes)

    def players(self, match_id: str) -> list[dict[str, Any]]:
        """The seats as recorded at creation: [{seat, name, bot, ...}]."""
        self.variant_name(match_id)
        raw = self._r.hget(meta_key(match_id), "players")
        return list(json.loads(codec.text(raw))) if raw else []

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
        render: Render | None = None,
    ) -> Appended:
        """Load, decide (RulesError propagates, nothing written), append atomically.

        With `expected_version` a moved-on match raises VersionConflict; without it the
        load/decide/append loop is retried on a conflict. With `idempotency_key` a repeat
        returns the stored `render(...)` body (render is only called when a key is given);
        a keyed request that would be refused (rule error, conflict) first checks whether a
        twin with the same key appended meanwhile, and then replays it.
        """
        try:
            return self._submit(
                match_id, seat, move, expected_version, idempotency_key, fingerprint, render
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
        render: Render | None,
    ) -> Appended:
        name = self.variant_name(match_id)
        game = get_variant(name)
        idem_key = idempotency.record_key(match_id, idempotency_key) if idempotency_key else None
        for attempt in range(SUBMIT_ATTEMPTS):
            if idem_key is not None:
                raw = self._r.get(idem_key)
                if raw is not None:
                    return self._replay(match_id, raw, fingerprint, seat)
            state, version = self.load(match_id)
            if expected_version is not None and expected_version != version:
                self._replay_if_recorded(match_id, idem_key, fingerprint, seat)
                raise _conflict(match_id, expected_version, version)
            try:
                events = tuple(game.decide(state, seat, move))
            except RulesError:
                self._replay_if_recorded(match_id, idem_key, fingerprint, seat)
                raise
            new_state = fold(game, events, state)
            new_version = version + len(events)
            at = codec.now()
            stored = [StoredEvent(version + i + 1, e, at) for i, e in enumerate(events)]
            record = None
            if idem_key is not None:
                body = render(stored, new_state) if render is not None else None
                record = idempotency.Record(fingerprint, seat, new_version, version + 1, body)
            request = AppendRequest(
                match_id,
                version,
                events,
                idem_key=idem_key,
                idem_record=record.dumps() if record is not None else None,
                meta={"finished": "1"} if game.is_finished(new_state) else {},
                snapshot=self._snapshot(version, new_version, new_state),
                jobs=followups(game, new_state, match_id, new_version),
                at=at,
            )
            try:
                _, tx = self.store.append(request)
            except IdemTaken as taken:
                return self._replay(match_id, taken.raw, fingerprint, seat)
            except Conflict as conflict:
                if expected_version is not None:
                    self._replay_if_recorded(match_id, idem_key, fingerprint, seat)
                    raise _conflict(match_id, expected_version, conflict.actual) from None
                _backoff(attempt)
                continue
            self._remember(match_id, name, new_version, new_state, tx)
            return Appended(new_version, stored, new_state, False, None)
        raise VersionConflict(
            f"match {match_id!r} kept moving: {SUBMIT_ATTEMPTS} attempts lost the race"
        )

    def _replay_if_recorded(
        self, match_id: str, idem_key: str | None, fingerprint: str, seat: int
    ) -> None:
        """Before refusing a keyed request: a twin with the same key may have appended between
        our key check and our load; then its record is the answer (raised as _Replayed)."""
        if idem_key is None:
            return
        raw = self._r.get(idem_key)
        if raw is not None:
            raise _Replayed(self._replay(match_id, raw, fingerprint, seat))

    def _replay(self, match_id: str, raw: bytes | str, fingerprint: str, seat: int) -> Appended:
        record = idempotency.Record.loads(raw)
        record.check(fingerprint, seat)
        name = self.variant_name(match_id)
        events = self.store.read(
            match_id, after=record.first - 1, upto=record.version, variant=name
        )
        state, version = self.load(match_id, at=record.version)
        return Appended(version, events, state, True, record.body)

    def _snapshot(self, before: int, after: int, state: Any) -> str | None:
        """A snapshot when this append crosses a multiple of `snapshot_every`."""
        if after // self.snapshot_every <= before // self.snapshot_every:
            return None
        try:
            return snapshots.encode_state(after, state)
        except snapshots.SnapshotError:
            return None

    def followups(self, match_id: str) -> list[JobSpec]:
        """The jobs the match's current state needs (for the reconciler)."""
        state, version = self.load(match_id)
        return followups(self.variant(state), state, match_id, version)

    def is_finished(self, match_id: str) -> bool:
        """The finished flag written with the last event (cheap: no load)."""
        raw = self._r.hget(meta_key(match_id), "finished")
        return raw is not None and codec.text(raw) == "1"


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
