"""Seeks and pairing on a Redis Cluster (issue 32): every seek key shares the `{seeks}` slot,
so each script (create, cancel, claim, sweep) runs on one node; the paired match lives in
its own slot like any match."""

from __future__ import annotations

from redis.cluster import RedisCluster

from store.pairing import Pairing
from store.seeks import KEYS, PAIRED, seek_service
from store.service import MatchService

DUO = {"variant": "manipulation-rummy", "rated": False, "seats": 2}


def test_seeks_pair_on_a_cluster(
    cluster_service: MatchService, cluster_client: RedisCluster
) -> None:
    slots = {cluster_client.keyslot(key) for key in KEYS}  # type: ignore[no-untyped-call]
    assert len(slots) == 1
    seeks = seek_service(cluster_service)
    made = [seeks.create(handle, False, DUO) for handle in ("ana", "ben", "cyd")]
    seeks.cancel(made[2].id, "cyd")
    report = Pairing(seeks).run("manipulation-rummy")
    assert len(report.made) == 1 and report.left == 0
    match = seeks.get(made[0].id, "ana").match
    assert match is not None and seeks.get(made[1].id, "ben").status == PAIRED
    state = cluster_service.load(match["id"]).state
    assert sorted(str(p.account) for p in state.players) == ["ana", "ben"]
