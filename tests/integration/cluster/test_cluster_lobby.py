"""The lobby on a Redis Cluster (issue 30): joins and leaves are single-slot appends on the
match's own slot, the lobby index lives in slots of its own, a reader skips (and drops) the
stale entries a cluster can leave, and the reconciler puts a missing one back."""

from __future__ import annotations

from collections import Counter
from typing import Any, cast

from redis.cluster import RedisCluster

from api import create_app
from store import codec
from store.event_store import events_key
from store.lobby_index import INDEX, index_keys
from store.service import MatchService
from tests.support.lobby_helpers import create_open, event_types, race
from workers.reconcile import reconcile


def test_joins_race_and_the_lobby_lists_on_a_cluster(
    cluster_service: MatchService, cluster_client: RedisCluster
) -> None:
    app = create_app({"TESTING": True, "SERVICE": cluster_service})
    client = app.test_client()
    ids = [create_open(client, named=1, open_seats=2, listed=True)[0] for _ in range(6)]
    slots = {cluster_client.keyslot(events_key(m)) for m in ids}  # type: ignore[no-untyped-call]
    assert cluster_client.keyslot(INDEX) not in slots or len(slots) > 1  # type: ignore[no-untyped-call]
    listed = client.get("/v1/lobby").get_json()["matches"]
    assert sorted(m["id"] for m in listed) == sorted(ids)

    target = ids[0]
    results = race(
        6,
        lambda i: app.test_client().post(
            f"/v1/matches/{target}/join", json={"name": f"p{i}", "seat": 1}
        ),
    )
    assert Counter(r.status_code for r in results) == {201: 1, 409: 5}
    assert event_types(client, target).count("SeatJoined") == 1

    token = client.post(f"/v1/matches/{target}/join", json={"name": "last"}).get_json()
    assert token["match"]["lobby"]["status"] == "started"
    assert target not in [m["id"] for m in client.get("/v1/lobby").get_json()["matches"]]


def test_a_stale_index_entry_is_skipped_and_a_lost_one_is_put_back(
    cluster_service: MatchService, cluster_client: RedisCluster
) -> None:
    app = create_app({"TESTING": True, "SERVICE": cluster_service})
    client: Any = app.test_client()
    started, _, _ = create_open(client, named=2, open_seats=1, listed=True)
    waiting, _, _ = create_open(client, named=1, open_seats=2, listed=True)
    kept = [codec.text(cast("bytes", name)) for name in cluster_client.zrange(INDEX, 0, -1)]
    client.post(f"/v1/matches/{started}/join", json={"name": "x"})
    for key in index_keys("three-hand-gin"):
        cluster_client.zadd(key, {name: 0 for name in kept})  # as if the removal were lost
    assert [m["id"] for m in client.get("/v1/lobby").get_json()["matches"]] == [waiting]
    assert cluster_client.zcard(INDEX) == 1  # the reader dropped the stale entry
    for key in index_keys("three-hand-gin"):
        cluster_client.delete(key)
    reconcile(cluster_service)
    assert [m["id"] for m in client.get("/v1/lobby").get_json()["matches"]] == [waiting]
