"""Redis Cluster for real (issue 14): the store, API and worker tiers and a bot match on a local
3-primary/3-replica cluster, jobs on an ordinary Redis; the reconciler covers every primary."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import redis
from redis.cluster import RedisCluster
from rq import Queue, SimpleWorker
from rq.serializers import JSONSerializer

from api import create_app
from cli.cluster import LocalCluster
from domain.replay import replay
from domain.shapes import json_int
from store.durability import Durability
from store.event_store import events_key, kept_snaps_key, meta_key, snap_key
from store.jobs import QUEUES
from store.service import MatchService
from tests.support import cluster_play
from workers.connection import set_service
from workers.reconcile import reconcile


def _primary_of(client: RedisCluster, key: str) -> int:
    return int(client.get_node_from_key(key).port)  # type: ignore[no-untyped-call]


def test_keys_of_many_matches_land_on_all_three_primaries(
    cluster_service: MatchService, cluster_client: RedisCluster, local_cluster: LocalCluster
) -> None:
    """Each match's keys share its `{id}` slot; 30 matches spread over the 3 primaries."""
    ids = [cluster_play.new_gin(cluster_service, seed) for seed in range(30)]
    homes = Counter(_primary_of(cluster_client, events_key(m)) for m in ids)
    assert set(homes) == set(local_cluster.primaries)
    for match_id in ids:
        port = _primary_of(cluster_client, events_key(match_id))
        with redis.Redis(host="127.0.0.1", port=port) as node:
            assert node.exists(events_key(match_id), meta_key(match_id)) == 2
        assert cluster_client.keyslot(meta_key(match_id)) == cluster_client.keyslot(  # type: ignore[no-untyped-call]
            snap_key(match_id)
        )
        assert cluster_client.keyslot(meta_key(match_id)) == cluster_client.keyslot(  # type: ignore[no-untyped-call]
            kept_snaps_key(match_id)
        )


def test_snapshots_kept_at_intervals_live_on_the_match_slot(
    cluster_client: RedisCluster, redis_client: redis.Redis
) -> None:
    """Issue 28 item 5 on a cluster: the append script keeps snapshots in the match's slot
    and a past position loads from the nearest one (one pipelined read on that slot)."""
    service = MatchService(
        cluster_client, queue_redis=redis_client, pepper=b"test-pepper", keep_every=8
    )
    match_id = cluster_play.new_gin(service, 7)
    rng = random.Random(7)
    for _ in range(40):
        cluster_play.step(service, match_id, rng)
    assert cluster_client.zcard(kept_snaps_key(match_id)) >= 3
    version = service.load(match_id).version
    cold = MatchService(cluster_client, queue_redis=redis_client, pepper=b"test-pepper")
    log = [item.event for item in service.events(match_id, limit=10_000)]
    for at in (1, 9, version // 2, version - 1):
        assert cold.load(match_id, at=at).state == replay(log[:at])


def test_store_tier_moves_replays_and_a_cold_load_agree(
    cluster_service: MatchService, cluster_client: RedisCluster, redis_client: redis.Redis
) -> None:
    """Moves append in one script on the match's primary; an idempotent repeat appends
    nothing; a service with a cold cache loads the same state; snapshots are written (I3)."""
    match_id = cluster_play.new_gin(cluster_service, 5)
    rng = random.Random(5)
    for _ in range(70):
        cluster_play.step(cluster_service, match_id, rng)
    loaded = cluster_service.load(match_id)
    cold = MatchService(
        cluster_client, queue_redis=redis_client, pepper=b"test-pepper"
    )  # cold cache
    again = cold.load(match_id)
    assert (again.state, again.version) == (loaded.state, loaded.version)
    assert cluster_client.exists(snap_key(match_id)) == 1
    first = cluster_play.step(cluster_service, match_id, rng, idempotency_key="k", fingerprint="f")
    assert first is not None
    seat = json_int(first.events[0].event.data.get("seat", -1))
    record: Any = cluster_client.get(_record_key(match_id, "k"))  # raw reply (bytes)
    repeat = cluster_service.replays.move(match_id, record, "f", seat)
    assert repeat.replayed and repeat.events == first.events
    assert cluster_client.xlen(events_key(match_id)) == first.version


def _record_key(match_id: str, key: str) -> str:
    from store.idempotency import record_key

    return record_key(match_id, key)


def test_api_tier_on_the_cluster(cluster_service: MatchService) -> None:
    """Create, view and move through the HTTP API with the event store on the cluster."""
    app = create_app({"TESTING": True, "SERVICE": cluster_service})
    client = app.test_client()
    body = {"variant": "three-hand-gin", "players": [{"name": n} for n in "abc"], "seed": 3}
    created = client.post("/v1/matches", json=body).get_json()
    match_id, tokens = created["id"], [s["token"] for s in created["seats"]]
    view = client.get(f"/v1/matches/{match_id}").get_json()
    seat = view["turn"]
    mine = client.get(f"/v1/matches/{match_id}", headers=_auth(tokens[seat])).get_json()
    move = mine["you"]["legal_moves"][0]
    headers = {**_auth(tokens[seat]), "Idempotency-Key": "m1"}
    answer = client.post(f"/v1/matches/{match_id}/moves", json=move, headers=headers)
    repeat = client.post(f"/v1/matches/{match_id}/moves", json=move, headers=headers)
    assert answer.status_code == 200 and repeat.status_code == 200
    assert repeat.headers["Idempotent-Replayed"] == "true"
    assert repeat.get_json() == answer.get_json()
    events = client.get(f"/v1/matches/{match_id}/events").get_json()
    assert events["version"] == answer.get_json()["version"] == view["version"] + 1


def _auth(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


class _BurstWorker(SimpleWorker):
    """rq's SimpleWorker without the pub/sub thread a burst run in a test never needs."""

    def subscribe(self) -> None:
        pass

    def unsubscribe(self) -> None:
        pass


def _burst(service: MatchService) -> None:
    connection = service.queues.connection
    queues = [Queue(n, connection=connection, serializer=JSONSerializer) for n in QUEUES]
    set_service(service)
    try:
        _BurstWorker(queues, connection=connection, serializer=JSONSerializer).work(
            burst=True, logging_level="WARNING"
        )
    finally:
        set_service(None)


def test_a_bot_match_plays_to_the_end_through_the_workers(cluster_service: MatchService) -> None:
    """Three bot seats: every move is a job on the ordinary Redis, every event on the cluster
    (one round: G8.1 with a target of 1 point)."""
    match_id = cluster_service.create_match(
        "three-hand-gin",
        [{"name": f"b{i}", "bot": "basic"} for i in range(3)],
        {"target_score": 1},
        11,
    ).match_id
    for _ in range(20):
        _burst(cluster_service)
        if cluster_service.is_finished(match_id):
            break
    loaded = cluster_service.load(match_id)
    assert loaded.variant.is_finished(loaded.state)


def test_the_reconciler_finds_lost_jobs_on_every_primary(
    cluster_service: MatchService, cluster_client: RedisCluster, redis_client: redis.Redis
) -> None:
    """Bot turns whose jobs were lost (the queue flushed) are enqueued again, for matches on
    each of the three primaries (SCAN runs on every primary)."""
    ids: list[str] = []
    while len({_primary_of(cluster_client, events_key(m)) for m in ids}) < 3 and len(ids) < 60:
        ids.append(cluster_play.new_gin(cluster_service, len(ids), bots=3))  # ids are random
    redis_client.flushdb()
    enqueued = reconcile(cluster_service)
    assert sorted(enqueued) == sorted(f"bot-{m}-{cluster_service.load(m).version}" for m in ids)
    homes = {_primary_of(cluster_client, events_key(m)) for m in ids}
    assert len(homes) == 3
    assert reconcile(cluster_service) == []


def test_replica_durability_acknowledges_moves_and_their_replays(
    cluster_client: RedisCluster, redis_client: redis.Redis
) -> None:
    """DEADWOOD_DURABILITY=replica with a replica per primary: a create, a move and the replay
    of each (same Idempotency-Key) are all acknowledged, a replica having confirmed them."""
    service = MatchService(
        cluster_client,
        queue_redis=redis_client,
        pepper=b"t",
        durability=Durability("replica", 5000),
    )
    match_id = cluster_play.new_gin(service, 3, idempotency_key="create")
    assert cluster_play.new_gin(service, 3, idempotency_key="create") == match_id
    rng = random.Random(3)
    first = cluster_play.step(service, match_id, rng, idempotency_key="k", fingerprint="f")
    assert first is not None and not first.replayed
    seat = json_int(first.events[0].event.data.get("seat", -1))
    record: Any = cluster_client.get(_record_key(match_id, "k"))  # raw reply (bytes)
    repeat = service.replays.move(match_id, record, "f", seat)
    assert repeat.replayed and repeat.events == first.events


def test_the_active_index_on_a_cluster(
    cluster_service: MatchService, cluster_client: RedisCluster, redis_client: redis.Redis
) -> None:
    """The index lives in a slot of its own, kept by separate commands around the append
    script: matches on every primary are indexed at create, and an index pass (the index is
    built) finds their lost jobs without a SCAN."""
    from store.event_store import ACTIVE_KEY

    cluster_service.store.mark_index_built()
    ids: list[str] = []
    while len({_primary_of(cluster_client, events_key(m)) for m in ids}) < 3 and len(ids) < 60:
        ids.append(cluster_play.new_gin(cluster_service, len(ids), bots=3))
    members: Any = cluster_client.zrange(ACTIVE_KEY, 0, -1)  # raw reply (bytes)
    indexed = {raw.decode() for raw in members}
    assert set(ids) <= indexed
    redis_client.flushdb()
    enqueued = reconcile(cluster_service)
    assert sorted(enqueued) == sorted(f"bot-{m}-{cluster_service.load(m).version}" for m in ids)
