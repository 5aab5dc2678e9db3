"""Redis connections from the environment (architecture.md, Configuration).

    REDIS_URL               the event store (default redis://127.0.0.1:6379/0); with
                            DEADWOOD_REDIS_CLUSTER=1 any node of a Redis Cluster
    QUEUE_URL               the RQ queue server: defaults to the event store on one server,
                            required with a cluster (RQ needs one ordinary Redis)
    DEADWOOD_DURABILITY     os (default) | fsync | replica (durability.py)
    DEADWOOD_TOKEN_PEPPER   keys the seat-token hashes and the match ids of keyed creates

Clients are made with `decode_responses=False` because RQ needs bytes; the store decodes its
own fields. hiredis (pinned) parses the replies when installed.

The token pepper is required: the built-in development pepper (`dev-pepper`, public, so a
match id could be computed from a create's Idempotency-Key alone) is accepted only with
`DEADWOOD_DEV=1` (a development or test run). `deadwood up` generates a random pepper in its
data directory when none is set (cli/pepper.py).
"""

from __future__ import annotations

import os
from typing import Any

import redis
from redis.cluster import RedisCluster

DEFAULT_URL = "redis://127.0.0.1:6379/0"


class ConfigError(ValueError):
    """An environment setting the store cannot work with."""


def redis_url() -> str:
    return os.environ.get("REDIS_URL") or DEFAULT_URL


def cluster_enabled() -> bool:
    return os.environ.get("DEADWOOD_REDIS_CLUSTER", "") not in ("", "0")


def queue_url() -> str:
    if cluster_enabled() and not os.environ.get("QUEUE_URL"):
        raise ConfigError("DEADWOOD_REDIS_CLUSTER=1 needs QUEUE_URL: an ordinary Redis for RQ")
    return os.environ.get("QUEUE_URL") or redis_url()


POOL_WAIT_SECONDS = 5.0
"""How long a request waits for a free connection of a bounded pool before it fails."""


def store_client(url: str, *, cluster: bool, max_connections: int | None = None) -> Any:
    """A client of the event store at `url`: redis-py's cluster client when `cluster`.

    `max_connections` bounds its pool (per node for a cluster); on one server the pool is a
    blocking one, so a burst of requests waits up to POOL_WAIT_SECONDS for a connection
    instead of failing at once."""
    if max_connections is None:
        return RedisCluster.from_url(url) if cluster else redis.Redis.from_url(url)
    if cluster:
        return RedisCluster.from_url(url, max_connections=max_connections)
    pool = redis.BlockingConnectionPool.from_url(
        url, max_connections=max_connections, timeout=POOL_WAIT_SECONDS
    )
    return redis.Redis(connection_pool=pool)


def redis_from_env() -> Any:
    """The event store's client (a Redis, or a RedisCluster with DEADWOOD_REDIS_CLUSTER=1)."""
    return store_client(redis_url(), cluster=cluster_enabled())


def queue_from_env() -> redis.Redis:
    """The job queue's client (QUEUE_URL, else the event store's server)."""
    return redis.Redis.from_url(queue_url())


DEV_PEPPER = "dev-pepper"
DEV_FLAG = "DEADWOOD_DEV"


class InsecurePepper(RuntimeError):
    """No token pepper is configured, or it is the public development one, outside dev mode."""


def pepper_from_env(*, allow_dev: bool = False) -> bytes:
    """The HMAC key for seat-token hashes (DEADWOOD_TOKEN_PEPPER).

    InsecurePepper when it is unset or the development pepper, unless `allow_dev` or
    DEADWOOD_DEV=1 (then the development pepper stands in for an unset one)."""
    pepper = os.environ.get("DEADWOOD_TOKEN_PEPPER") or DEV_PEPPER
    if pepper == DEV_PEPPER and not (allow_dev or os.environ.get(DEV_FLAG) == "1"):
        raise InsecurePepper(
            "DEADWOOD_TOKEN_PEPPER is not set (or is the public development pepper): set it "
            f"to a long random secret, or set {DEV_FLAG}=1 for a development run "
            "(`deadwood up` generates one in its data directory)"
        )
    return pepper.encode()


def socket_timeout(client: Any) -> float | None:
    """The read timeout of the client's connections (None: it waits for ever).

    redis-py puts a timeout given to the client or in the URL in the pool's connection
    arguments (the nodes manager's, for a cluster client); without one its connections use
    the library default (5 s in redis-py 8)."""
    if is_cluster(client):
        kwargs = client.nodes_manager.connection_kwargs
    else:
        kwargs = client.connection_pool.connection_kwargs
    if "socket_timeout" in kwargs:
        value = kwargs["socket_timeout"]
        return None if value is None else float(value)
    default = getattr(redis.connection, "DEFAULT_SOCKET_TIMEOUT", None)
    return None if default is None else float(default)


def is_cluster(client: Any) -> bool:
    return isinstance(client, RedisCluster)


def same_server(a: Any, b: Any) -> bool:
    """True when two clients talk to the same server and database, so one script spans both."""
    if a is b:
        return not is_cluster(a)
    if is_cluster(a) or is_cluster(b):
        return False
    ka = a.connection_pool.connection_kwargs
    kb = b.connection_pool.connection_kwargs
    fields = ("host", "port", "db", "path")
    return all(ka.get(f) == kb.get(f) for f in fields)
