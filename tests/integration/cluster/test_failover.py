"""Failover (issue 14, DEADWOOD_DURABILITY=replica): kill -9 a primary under load; its replica
is promoted, the clients resume once the killed node is back as its replica, and no
acknowledged event is lost.

Each client thread plays its own gin match through the service with an Idempotency-Key per
move, and retries the same request (same key, same move) on any store error or
NotReplicated (503), which settles its outcome. An append is acknowledged only after one
replica confirmed it (WAIT 1), so the promoted replica holds every acknowledged event.
(Without `replica`, a write acknowledged in the few milliseconds before the kill may not have
reached the replica yet, and is gone after the failover: Redis replication is asynchronous.)
"""

from __future__ import annotations

import random
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import redis
from redis.cluster import RedisCluster

from cli.cluster import LocalCluster
from cli.procs import redis_server_binary
from domain.events import SYSTEM
from domain.variants import Move
from store.durability import Durability
from store.errors import NotReplicated
from store.event_store import events_key
from store.service import MatchService
from tests.support import cluster_play
from tests.support.waiting import wait_until

CLIENTS = 6
ORPHAN_TRIES = 5
"""How often the victim's client has tried the promoted primary (each a 503, the first try of a
move and then its retries with the same key) before the killed node is started again."""


@pytest.fixture
def own_cluster(tmp_path: Path) -> Any:
    cluster = LocalCluster.start(tmp_path, redis_server_binary())
    yield cluster
    cluster.stop()


class Player(threading.Thread):
    """One client: moves of its own match, each retried with its key until it is answered."""

    def __init__(self, service: MatchService, match_id: str, index: int, stop: threading.Event):
        super().__init__(daemon=True)
        self.service, self.match_id, self.stop = service, match_id, stop
        self.rng = random.Random(index)
        self.acked: list[tuple[float, int, str]] = []  # (time, version, last event type)
        self.unreplicated: list[float] = []  # when a request answered NotReplicated
        self.index, self.steps = index, 0

    def run(self) -> None:
        while not self.stop.is_set():
            request = self._next()
            if request is None:
                return
            appended = self._until_answered(*request)
            if appended is not None:
                self.acked.append(
                    (time.monotonic(), appended.version, appended.events[-1].event.type)
                )

    def _next(self) -> tuple[int, Move, int, str] | None:
        while True:
            try:
                loaded = self.service.load(self.match_id)
                break
            except redis.RedisError:
                time.sleep(0.1)
        game, state = loaded.variant, loaded.state
        if game.is_finished(state):
            return None
        pending = game.pending(state)
        seat = SYSTEM if pending is not None else game.to_act(state)
        assert seat is not None
        move = pending if pending is not None else self.rng.choice(game.legal_moves(state, seat))
        self.steps += 1
        return seat, move, loaded.version, f"c{self.index}-{self.steps}"

    def _until_answered(self, seat: int, move: Move, expected: int, key: str) -> Any:
        while not self.stop.is_set():
            try:
                return self.service.submit(
                    self.match_id,
                    seat,
                    move,
                    expected_version=expected,
                    idempotency_key=key,
                    fingerprint=str(sorted(move.items())),
                )
            except NotReplicated:
                self.unreplicated.append(time.monotonic())
                time.sleep(0.1)
            except redis.RedisError:
                time.sleep(0.1)
        return None


def _created(service: MatchService, seed: int) -> str:
    """A new gin match, created with an Idempotency-Key and retried with it on NotReplicated
    (a replica of a cluster this young may still be in its first sync, and miss the WAIT)."""
    while True:
        try:
            return cluster_play.new_gin(service, seed, idempotency_key=f"create-{seed}")
        except NotReplicated:
            time.sleep(0.1)


def test_no_acknowledged_event_is_lost_when_a_primary_is_killed(
    own_cluster: LocalCluster, redis_client: redis.Redis
) -> None:
    """Kill -9 a primary under load: its replica is promoted. The promoted primary has no
    replica of its own, so its match's client gets 503s, retries included, and no
    acknowledgement, until the killed node is started again and rejoins as its replica; then
    the client resumes. Every acknowledged event is on the cluster at the end."""
    client = RedisCluster.from_url(own_cluster.url)
    durability = Durability("replica", 500)
    service = MatchService(client, queue_redis=redis_client, pepper=b"t", durability=durability)
    ids = [_created(service, seed) for seed in range(CLIENTS)]
    victim = int(client.get_node_from_key(events_key(ids[0])).port)  # type: ignore[no-untyped-call]
    heir = own_cluster.replicas[own_cluster.primaries.index(victim)]
    stop = threading.Event()
    players = [Player(service, m, i, stop) for i, m in enumerate(ids)]
    for player in players:
        player.start()
    wait_until(lambda: all(p.acked for p in players), 60, "every client to have a move acked")
    own_cluster.kill(victim)
    wait_until(lambda: heir in own_cluster.primary_ports(), 60, "the victim's replica promoted")
    promoted_at = time.monotonic()
    on_victim = players[0]
    wait_until(
        lambda: sum(t > promoted_at for t in on_victim.unreplicated) >= ORPHAN_TRIES,
        60,
        f"the victim's client to try the promoted primary {ORPHAN_TRIES} times (503s)",
    )
    restarted_at = time.monotonic()
    own_cluster.restart(victim)
    wait_until(
        lambda: any(t > restarted_at for t, _, _ in on_victim.acked),
        60,
        "the victim's client to resume once a replica is back",
    )
    stop.set()
    for player in players:
        player.join(timeout=30)
        assert not player.is_alive(), f"client {player.index} did not stop"
    own_cluster.wait_healthy()
    assert victim not in own_cluster.primary_ports() and len(own_cluster.primary_ports()) == 3
    orphaned = [t for t, _, _ in on_victim.acked if promoted_at < t < restarted_at]
    assert not orphaned, "a move was acknowledged while the promoted primary had no replica"
    for player in players:
        entries: Any = client.xrange(events_key(player.match_id))  # raw reply (bytes)
        types = {int(eid.split(b"-")[1]): fields[b"type"].decode() for eid, fields in entries}
        for _, version, kind in player.acked:
            assert types.get(version) == kind, f"acknowledged event {version} lost"
    client.close()
