"""Redis connections from the environment (architecture.md, Configuration).

`REDIS_URL` names the event store (default redis://127.0.0.1:6379/0); `QUEUE_URL` the RQ queue
server, which defaults to the event store. Clients are made with `decode_responses=False`
because RQ needs bytes; the store decodes its own fields.
"""

from __future__ import annotations

import os

import redis

DEFAULT_URL = "redis://127.0.0.1:6379/0"


def redis_url() -> str:
    return os.environ.get("REDIS_URL") or DEFAULT_URL


def queue_url() -> str:
    return os.environ.get("QUEUE_URL") or redis_url()


def redis_from_env() -> redis.Redis:
    """The event store's client."""
    return redis.Redis.from_url(redis_url())


def queue_from_env() -> redis.Redis:
    """The job queue's client (QUEUE_URL, else the event store's server)."""
    return redis.Redis.from_url(queue_url())


def pepper_from_env() -> bytes:
    """The HMAC key for seat-token hashes (DEADWOOD_TOKEN_PEPPER; a development default)."""
    return os.environ.get("DEADWOOD_TOKEN_PEPPER", "dev-pepper").encode()


def socket_timeout(client: redis.Redis) -> float | None:
    """The read timeout of the client's connections (None: it waits for ever).

    redis-py puts a timeout given to the client or in the URL in the pool's connection
    arguments; without one its connections use the library default (5 s in redis-py 8)."""
    kwargs = client.connection_pool.connection_kwargs
    if "socket_timeout" in kwargs:
        value = kwargs["socket_timeout"]
        return None if value is None else float(value)
    default = getattr(redis.connection, "DEFAULT_SOCKET_TIMEOUT", None)
    return None if default is None else float(default)


def same_server(a: redis.Redis, b: redis.Redis) -> bool:
    """True when two clients talk to the same server and database, so one MULTI spans both."""
    if a is b:
        return True
    ka = a.connection_pool.connection_kwargs
    kb = b.connection_pool.connection_kwargs
    fields = ("host", "port", "db", "path")
    return all(ka.get(f) == kb.get(f) for f in fields)
