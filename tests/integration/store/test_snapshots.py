"""Snapshots (issue 4): a long match loads in constant time; load-with-snapshot equals a full
replay; an incompatible snapshot is ignored; the snapshot form cannot run code."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
import redis

from domain.replay import replay
from store import snapshots
from store.event_store import snap_key
from store.service import MatchService
from tests.support import store_play


@pytest.mark.parametrize("variant", [store_play.GIN, store_play.MANIP])
def test_load_with_snapshot_equals_a_full_replay(redis_client: redis.Redis, variant: str) -> None:
    """After every move, a fresh service (snapshot + tail) loads exactly the state that a full
    replay of the log folds to, and every stored snapshot decodes to the replayed state."""
    service = MatchService(redis_client, pepper=b"test-pepper", snapshot_every=5)
    match_id = store_play.create(service, variant).match_id
    rng = random.Random(1)
    checked_snapshots = set()
    for _ in range(40 if variant == store_play.GIN else 16):
        if not store_play.step(service, match_id, rng):
            break
        fresh = MatchService(redis_client, pepper=b"test-pepper", snapshot_every=5)
        _loaded = fresh.load(match_id)
        state, version = _loaded.state, _loaded.version
        log = [e.event for e in service.events(match_id, limit=10_000)]
        assert version == len(log)
        assert state == replay(log)
        snap = snapshots.decode_state(redis_client.get(snap_key(match_id)))
        if version < 5:
            continue
        assert snap is not None, f"no snapshot at version {version}"
        assert version - snap[0] < 5 + 3, "the snapshot lags more than one append"
        assert snap[1] == replay(log[: snap[0]])
        checked_snapshots.add(snap[0])
    assert len(checked_snapshots) >= 3


def test_snapshots_are_written_every_n_events(redis_client: redis.Redis) -> None:
    service = MatchService(redis_client, pepper=b"test-pepper", snapshot_every=4)
    match_id = store_play.create(service, store_play.GIN).match_id
    previous = 0
    for _ in range(20):
        _loaded = service.load(match_id)
        _, before = _loaded.state, _loaded.version
        store_play.play(service, match_id, 1)
        _loaded = service.load(match_id)
        _, after = _loaded.state, _loaded.version
        snap = snapshots.decode_state(redis_client.get(snap_key(match_id)))
        version = snap[0] if snap else 0
        if after // 4 > before // 4:
            assert version == after
        else:
            assert version == previous
        previous = version


def test_the_snapshot_is_used_and_a_foreign_one_is_ignored(redis_client: redis.Redis) -> None:
    """Prove the load reads the snapshot (a doctored one with the right code tag shows up), and
    that one with another code tag is ignored in favour of the events."""
    service = MatchService(redis_client, pepper=b"test-pepper", snapshot_every=4)
    match_id = store_play.create(service, store_play.GIN).match_id
    store_play.play(service, match_id, 6)
    _loaded = service.load(match_id)
    truth, version = _loaded.state, _loaded.version
    payload = json.loads(redis_client.get(snap_key(match_id)) or b"")
    doctored = json.loads(json.dumps(payload).replace('"p1"', '"mallory"'))
    redis_client.set(snap_key(match_id), json.dumps(doctored))
    fresh = MatchService(redis_client, pepper=b"test-pepper")
    _loaded = fresh.load(match_id)
    state, _ = _loaded.state, _loaded.version
    assert state != truth and "mallory" in repr(state)
    doctored["code"] = "another-build"
    redis_client.set(snap_key(match_id), json.dumps(doctored))
    fresh = MatchService(redis_client, pepper=b"test-pepper")
    reloaded = fresh.load(match_id)
    assert (reloaded.state, reloaded.version) == (truth, version)


def test_the_snapshot_form_refuses_classes_outside_the_domain() -> None:
    """Not pickle: only domain dataclasses and enums are ever built from a snapshot."""
    for name in ("os:system", "subprocess:Popen", "builtins:eval", "domain.cards:codes"):
        with pytest.raises(snapshots.SnapshotError):
            snapshots.decode_value({"c": name, "f": {}})
    bad = json.dumps({"code": snapshots.code_tag(), "version": 1, "state": {"c": "os:system"}})
    assert snapshots.decode_state(bad) is None


def test_states_round_trip_through_the_snapshot_form(service: MatchService) -> None:
    for variant in (store_play.GIN, store_play.MANIP):
        match_id = store_play.create(service, variant).match_id
        store_play.play(service, match_id, 8)
        _loaded = service.load(match_id)
        state, version = _loaded.state, _loaded.version
        assert snapshots.decode_state(snapshots.encode_state(version, state)) == (version, state)


def test_a_long_match_loads_from_the_snapshot_plus_a_short_tail(
    redis_client: redis.Redis,
) -> None:
    """Constant-time load, counted rather than timed: a fresh service folds fewer than
    `snapshot_every` + one move's events, however long the match."""
    service = MatchService(redis_client, pepper=b"test-pepper", snapshot_every=8)
    match_id = store_play.create(service, store_play.GIN).match_id
    store_play.play(service, match_id, 60)
    _loaded = service.load(match_id)
    _, version = _loaded.state, _loaded.version
    assert version > 30
    fresh = MatchService(redis_client, pepper=b"test-pepper", snapshot_every=8)
    folded: list[int] = []
    entries = fresh.store.entries

    def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        rows = entries(*args, **kwargs)
        folded.append(len(rows))
        return rows

    fresh.store.entries = counting  # type: ignore[method-assign]
    fresh.load(match_id)
    assert sum(folded) < 8 + 3


def _counting_reads(service: MatchService) -> list[int]:
    """The number of events each of the service's stream reads returns (what it folds)."""
    folded: list[int] = []
    entries = service.store.entries

    def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        rows = entries(*args, **kwargs)
        folded.append(len(rows))
        return rows

    service.store.entries = counting  # type: ignore[method-assign]
    return folded


def test_any_past_position_folds_a_bounded_number_of_events(redis_client: redis.Redis) -> None:
    """Issue 28 item 5: snapshots are kept every `keep_every` events, so loading the match
    as it was after ANY event (GET ?at=, /events?after=) folds fewer than `keep_every` + one
    move's events, and gives the state a full replay of that prefix gives. Before, a position
    below the latest snapshot folded from event 1."""
    service = MatchService(redis_client, pepper=b"test-pepper", snapshot_every=8, keep_every=16)
    match_id = store_play.create(service, store_play.GIN).match_id
    store_play.play(service, match_id, 150)
    log = [e.event for e in service.events(match_id, limit=10_000)]
    assert len(log) > 120
    fresh = MatchService(redis_client, pepper=b"test-pepper", snapshot_every=8, keep_every=16)
    folded = _counting_reads(fresh)
    for at in range(1, len(log) + 1):
        folded.clear()
        loaded = fresh.load(match_id, at=at)
        assert loaded.version == at
        assert sum(folded) < 16 + 8, f"at={at} folded {sum(folded)} events"
        if at % 7 == 0 or at == len(log):
            assert loaded.state == replay(log[:at])


def test_a_match_without_kept_snapshots_keeps_them_on_its_first_long_read(
    redis_client: redis.Redis,
) -> None:
    """A match written before snapshots were kept (or whose kept ones other rules code
    wrote) folds from the start once, keeping the snapshots it passes; then any position
    folds little. The kept snapshots stay on the match's hash slot and are never shown."""
    service = MatchService(redis_client, pepper=b"test-pepper", snapshot_every=8, keep_every=16)
    match_id = store_play.create(service, store_play.GIN).match_id
    store_play.play(service, match_id, 120)
    kept = f"match:{{{match_id}}}:snaps"
    assert redis_client.zcard(kept) > 3
    redis_client.delete(kept)
    fresh = MatchService(redis_client, pepper=b"test-pepper", snapshot_every=8, keep_every=16)
    folded = _counting_reads(fresh)
    latest = snapshots.decode_state(redis_client.get(snap_key(match_id)))
    assert latest is not None
    at = latest[0] - 1
    fresh.load(match_id, at=at)
    assert sum(folded) == at
    assert redis_client.zcard(kept) == at // 16
    scored: Any = redis_client.zrange(kept, 0, -1, withscores=True)  # raw reply (bytes)
    for version, raw in [(int(s), m) for m, s in scored]:
        assert snapshots.decode_state(raw) is not None and version % 16 == 0
    folded.clear()
    fresh.load(match_id, at=at - 3)
    assert sum(folded) < 16 + 8
    # kept ones written by other rules code are dropped and made again
    first: Any = redis_client.zrange(kept, 0, 0)  # raw reply (bytes)
    member = first[0]
    payload = json.loads(member)
    redis_client.zrem(kept, member)
    redis_client.zadd(kept, {json.dumps({**payload, "code": "another-build"}): payload["version"]})
    folded.clear()
    assert fresh.load(match_id, at=payload["version"]).state == replay(
        [e.event for e in fresh.events(match_id, limit=10_000)][: payload["version"]]
    )
    members: Any = redis_client.zrange(kept, 0, -1)  # raw reply (bytes)
    assert all(json.loads(m)["code"] == snapshots.code_tag() for m in members)


def test_a_snapshots_version_is_read_from_its_head() -> None:
    """The read picks the nearer of two snapshots by version before it decodes one."""
    from domain.variants import get_variant

    state = get_variant("three-hand-gin").initial_state()
    raw = snapshots.encode_state(4321, state)
    assert snapshots.version_of(raw) == snapshots.version_of(raw.encode()) == 4321
    for unreadable in (None, "", "{}", '{"version":3}', "not json"):
        assert snapshots.version_of(unreadable) is None
