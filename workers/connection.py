"""The MatchService a job uses.

Inside a job the queue connection is the worker's own; the event store is `REDIS_URL` when
set, else that same server (the default one-machine setup). `set_service` pins a service (for
in-process tests and tools). One service is kept per worker connection, so its in-process
state cache (validated against the stream on every load) spares a snapshot decode per job.
"""

from __future__ import annotations

import os
import threading

import redis
from rq import get_current_job

from store.connection import pepper_from_env, redis_from_env
from store.durability import durability_from_env
from store.service import MatchService, service_from_env

_pinned: MatchService | None = None
_by_connection: dict[int, tuple[redis.Redis, MatchService]] = {}
_lock = threading.Lock()


def set_service(service: MatchService | None) -> None:
    """Make every job of this process use `service` (None: back to the environment)."""
    global _pinned
    _pinned = service


def service() -> MatchService:
    """The service for the current job."""
    if _pinned is not None:
        return _pinned
    job = get_current_job()
    pepper = pepper_from_env()
    if job is None:
        return service_from_env()
    connection = job.connection
    with _lock:
        kept = _by_connection.get(id(connection))
        if kept is not None and kept[0] is connection:
            return kept[1]
        store = redis_from_env() if os.environ.get("REDIS_URL") else connection
        made = MatchService(
            store, queue_redis=connection, pepper=pepper, durability=durability_from_env()
        )
        if len(_by_connection) > 16:
            _by_connection.clear()
        _by_connection[id(connection)] = (connection, made)
        return made
