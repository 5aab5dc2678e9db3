"""The MatchService a job uses (built by store.config.build_service, as the API's is).

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

from store.config import ServiceConfig, build_service
from store.service import MatchService

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
    if job is None:
        return build_service(ServiceConfig.from_env())
    connection = job.connection
    with _lock:
        kept = _by_connection.get(id(connection))
        if kept is not None and kept[0] is connection:
            return kept[1]
        store = None if os.environ.get("REDIS_URL") else connection  # None: REDIS_URL's
        made = build_service(ServiceConfig.from_env(), store=store, queue=connection)
        if len(_by_connection) > 16:
            _by_connection.clear()
        _by_connection[id(connection)] = (connection, made)
        return made
