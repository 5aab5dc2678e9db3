"""Redis connections from the environment (architecture.md, Configuration).

`REDIS_URL` names the event store (default redis://127.0.0.1:6379/0); `QUEUE_URL` the RQ queue
server, which defaults to the event store. Clients are made with `decode_responses=False`
because RQ needs bytes; the store decodes its own fields.

`DEADWOOD_TOKEN_PEPPER` keys the seat-token hashes and the match ids of keyed creates. It is
required: the built-in development pepper (`dev-pepper`, public, so a match id could be
computed from a create's Idempotency-Key alone) is accepted only with `DEADWOOD_DEV=1` (a
development or test run). `deadwood up` generates a random pepper in its data directory
when none is set (cli/pepper.py).
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


def same_server(a: redis.Redis, b: redis.Redis) -> bool:
    """True when two clients talk to the same server and database, so one MULTI spans both."""
    if a is b:
        return True
    ka = a.connection_pool.connection_kwargs
    kb = b.connection_pool.connection_kwargs
    fields = ("host", "port", "db", "path")
    return all(ka.get(f) == kb.get(f) for f in fields)
