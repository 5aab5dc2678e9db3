"""Load and the state cache: a match's folded state, now or right after any event.

The stream is append-only, so a cached state is always a prefix of the match: loading reads
from the cached entry on, checks that entry is still the one cached (same append nonce), and
folds only the newer events. The move path decides on the cached state without asking Redis
at all: the append script's version and nonce check is what proves it fresh (submit.py).
A state as it was (`at`) starts from the nearest kept snapshot, so at most about `keep_every`
events are folded wherever `at` is.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from domain.events import Event
from domain.replay import fold
from domain.variants import NAMES, State, Variant, get_variant
from store import snapshots
from store.clock import Turn
from store.event_store import EventStore, snap_key
from store.metadata import Metadata

CACHE_SIZE = 512


@dataclass(frozen=True)
class Loaded:
    """A match as loaded: its game, the folded state and the number of events."""

    variant: Variant
    state: State
    version: int
    turn: Turn | None = None  # a clocked match's clock, loaded now (store/clock.py)


@dataclass(frozen=True)
class Cached:
    version: int
    state: State
    tx: str  # nonce of the entry at `version` ("" when unknown: loaded from a snapshot)
    turn: Turn | None = None  # a clocked match's clock after `version` (store/clock.py)


class States:
    """The folded states of matches: a per-process cache checked against the stream."""

    def __init__(self, store: EventStore, metadata: Metadata, keep_every: int) -> None:
        self.store = store
        self.metadata = metadata
        self.keep_every = max(1, keep_every)
        self._lock = threading.Lock()
        self.cache: OrderedDict[str, Cached] = OrderedDict()

    def game(self, match_id: str) -> Variant:
        """The match's game (UnknownMatch when there is no such match)."""
        return get_variant(self.metadata.get(match_id).variant)

    def fresh(self, match_id: str, game: Variant) -> Cached:
        """The current state, read from Redis (only the entries newer than the cache)."""
        with self._lock:
            cached = self.cache.get(match_id)
        tail = None
        if cached is not None and cached.version > 0 and cached.tx:
            tail = self.store.newer(match_id, cached.version, cached.tx, variant=game.name)
        if tail is None:  # no usable cache (or the stream was replaced: a test flush)
            self.forget(match_id)
            game = self.game(match_id)
            version, state = self._from_snapshot(match_id) or (0, game.initial_state())
            cached = Cached(version, state, "")
            tail = self.store.entries(match_id, after=version, variant=game.name)
        assert cached is not None
        if tail:
            state = fold(game, (item.event for item, _ in tail), cached.state)
            cached = Cached(tail[-1][0].seq, state, tail[-1][1], Turn.decode(tail[-1][0].clk))
        elif cached.turn is None and cached.version and self.metadata.get(match_id).clock:
            cached = replace(cached, turn=self._last_turn(match_id, cached.version))
        self.remember(match_id, cached)
        return cached

    def cached(self, match_id: str, game: Variant) -> Cached:
        """The cached state without asking Redis (the append's check proves it fresh)."""
        with self._lock:
            cached = self.cache.get(match_id)
        return cached if cached is not None else self.fresh(match_id, game)

    def at(self, match_id: str, game: Variant, at: int) -> Loaded:
        """The match right after event `at`: from the kept snapshot (or the latest) at or
        before it plus the events up to `at`, so at most about `keep_every` events are folded
        wherever `at` is (issue 28 item 5). A fold longer than that (a match older than the
        kept snapshots, or kept ones written by other rules code) keeps the snapshots it
        passes, so the next read of that stretch is short."""
        latest_raw, kept_raw = self.store.snapshots_at(match_id, at)
        starts: list[tuple[int, Any]] = [(0, game.initial_state())]
        use_kept = _nearer(kept_raw, latest_raw, at)
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
                passed.update(_encoded(item.seq, state))
        foreign = use_kept and kept_raw is not None and kept is None
        if passed or foreign:
            self.store.keep_snapshots(match_id, passed, drop_upto=at if foreign else None)
        return Loaded(game, state, tail[-1].seq if tail else version)

    def _last_turn(self, match_id: str, version: int) -> Turn | None:
        """The clock written beside the entry at `version` (a load from a snapshot)."""
        rows = self.store.read(match_id, after=version - 1, upto=version)
        return Turn.decode(rows[-1].clk) if rows else None

    def _from_snapshot(self, match_id: str) -> tuple[int, Any] | None:
        return snapshots.decode_state(self.store.get(snap_key(match_id)))

    def remember(self, match_id: str, cached: Cached) -> None:
        with self._lock:
            current = self.cache.get(match_id)
            if current is None or current.version <= cached.version:
                self.cache[match_id] = cached
                self.cache.move_to_end(match_id)
            while len(self.cache) > CACHE_SIZE:
                self.cache.popitem(last=False)

    def forget(self, match_id: str) -> None:
        """Drop the match's cached state and metadata (both are read again from Redis)."""
        with self._lock:
            self.cache.pop(match_id, None)
        self.metadata.forget(match_id)

    def clear(self) -> None:
        with self._lock:
            self.cache.clear()
        self.metadata.clear()


def _nearer(kept_raw: Any, latest_raw: Any, at: int) -> bool:
    """True when the kept snapshot is the one to start from: the latest is absent, past
    `at`, or not later than the kept one (versions read without decoding, so one snapshot is
    decoded, not two)."""
    latest = snapshots.version_of(latest_raw)
    if latest is None or latest > at:
        return True
    kept = snapshots.version_of(kept_raw)
    return kept is not None and kept >= latest


def _encoded(version: int, state: State) -> dict[str, int]:
    try:
        return {snapshots.encode_state(version, state): version}
    except snapshots.SnapshotError:
        return {}


def fold_along(game: Variant, state: State, events: Iterable[Event]) -> tuple[list[State], State]:
    """The state each event is applied to, and the state after the last: one fold that
    keeps what an event's redaction needs (api/common.py renders from it)."""
    befores = []
    for event in events:
        befores.append(state)
        state = game.evolve(state, event)
    return befores, state


_BY_STATE_TYPE: dict[type, Variant] = {}


def variant_of_state(state: State) -> Variant:
    """The game a folded state belongs to (by the state's type)."""
    if not _BY_STATE_TYPE or not set(NAMES) <= {g.name for g in _BY_STATE_TYPE.values()}:
        for name in NAMES:
            try:
                game = get_variant(name)
            except ImportError:  # an engine that is not installed owns no state
                continue
            _BY_STATE_TYPE[type(game.initial_state())] = game
    found = _BY_STATE_TYPE.get(type(state))
    if found is None:
        raise TypeError(f"{type(state).__name__} is not the state of a known variant")
    return found
