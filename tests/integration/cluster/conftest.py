"""A real local Redis Cluster (3 primaries, 3 replicas) for the cluster tests, with the jobs
on the session's ordinary Redis (`redis_url`), as DEADWOOD_REDIS_CLUSTER=1 runs it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis
from redis.cluster import RedisCluster

from cli.cluster import LocalCluster
from cli.procs import redis_server_binary
from store.durability import Durability
from store.service import MatchService


@pytest.fixture(scope="session")
def local_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    cluster = LocalCluster.start(tmp_path_factory.mktemp("cluster"), redis_server_binary())
    yield cluster
    cluster.stop()


@pytest.fixture
def cluster_client(local_cluster: LocalCluster) -> Iterator[RedisCluster]:
    """A cluster client, every primary flushed before the test."""
    client = RedisCluster.from_url(local_cluster.url)
    client.flushall(target_nodes=RedisCluster.PRIMARIES)
    yield client
    client.close()


@pytest.fixture
def cluster_service(cluster_client: RedisCluster, redis_client: redis.Redis) -> MatchService:
    """The event store on the cluster, the jobs on the ordinary test Redis."""
    return MatchService(
        cluster_client, queue_redis=redis_client, pepper=b"test-pepper", durability=Durability()
    )
