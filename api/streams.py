"""What live streams may hold, so that idle streams never starve ordinary requests (issue 28).

A live stream (GET .../events/stream) spends most of its life in XREAD BLOCK. Those reads go
through a Redis client of their own (`blocking_twin`: its own pool, as large as the process
cap), never the pool that views, moves and health use, and every stream holds a place:

    SSE_MAX_STREAMS              200 per API process: 503 `streams_full` beyond it
    SSE_MAX_STREAMS_PER_ADDRESS  16 per client network (api/addresses.py): 429 `stream_limit`
    SSE_MAX_STREAMS_PER_TOKEN    4 per seat token: 429 `stream_limit`
    SSE_MAX_SECONDS              3600: a stream ends after that long (clients resume with
                                 Last-Event-ID, as after any disconnect)

The per-address and per-token places are leases in the queue Redis (a sorted set per key,
scored by expiry in ms, renewed while the stream lives), so every API process shares the counts
and a process that dies gives its places back when their leases run out. A refusal is for
the stream only: the same client's other requests go on as before.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import threading
import time
from typing import Any

import redis
from flask import Flask
from redis.cluster import RedisCluster

from api.errors import ApiError

log = logging.getLogger("deadwood.api")

LEASE_SECONDS_PER_HEARTBEAT = 3
"""A lease lasts three heartbeats: a live stream renews it at every turn of its loop."""

_TAKE = """
local now, expiry, member = ARGV[1], ARGV[2], ARGV[3]
for i, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
  if redis.call('ZCARD', key) >= tonumber(ARGV[3 + i]) then return i end
end
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, expiry, member)
  redis.call('PEXPIREAT', key, expiry)
end
return 0
"""

_RENEW = """
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, 'XX', ARGV[1], ARGV[2])
  redis.call('PEXPIREAT', key, ARGV[1])
end
return 0
"""


def _millis(seconds: float) -> int:
    return int(seconds * 1000)


def blocking_twin(client: Any, max_connections: int) -> Any:
    """A client of the same server as `client` with a pool of its own (`max_connections`),
    for reads that block: they can never take a connection an ordinary request needs."""
    if isinstance(client, RedisCluster):
        node = client.get_default_node()  # type: ignore[no-untyped-call]
        kwargs = dict(client.nodes_manager.connection_kwargs)
        for key in ("host", "port", "max_connections"):
            kwargs.pop(key, None)
        return RedisCluster(
            host=node.host, port=node.port, max_connections=max_connections, **kwargs
        )
    pool = client.connection_pool
    twin = redis.BlockingConnectionPool(  # type: ignore[no-untyped-call]
        connection_class=pool.connection_class,
        max_connections=max_connections,
        timeout=5,
        **pool.connection_kwargs,
    )
    return redis.Redis(connection_pool=twin)


class StreamLimits:
    """The places streams hold: a count in this process, leases per network and token."""

    def __init__(
        self,
        counts: Any,
        *,
        per_process: int,
        per_address: int,
        per_token: int,
        lease_seconds: float,
    ) -> None:
        self.counts = counts
        self.per_process = per_process
        self.per_address = per_address
        self.per_token = per_token
        self.lease_seconds = max(1.0, lease_seconds)
        self.open = 0
        self._lock = threading.Lock()
        self._take = counts.register_script(_TAKE)
        self._renew = counts.register_script(_RENEW)

    def take(self, network: str, token: str | None) -> StreamPlace:
        """A place for one stream, or ApiError 503 `streams_full` / 429 `stream_limit`."""
        with self._lock:
            if self.open >= self.per_process:
                raise ApiError(
                    "streams_full",
                    f"this server holds its most live streams ({self.per_process}); "
                    "try again shortly or read GET .../events instead",
                    503,
                    retry_after=5,
                )
            self.open += 1
        try:
            return self._lease(network, token)
        except BaseException:
            self._give_back()
            raise

    def _lease(self, network: str, token: str | None) -> StreamPlace:
        keys = [f"deadwood:streams:addr:{network}"]
        caps = [self.per_address]
        if token is not None:
            digest = hashlib.sha256(token.encode()).hexdigest()
            keys.append(f"deadwood:streams:token:{digest}")
            caps.append(self.per_token)
        member = secrets.token_hex(8)
        now = _millis(time.time())
        until = now + _millis(self.lease_seconds)
        full = int(self._take(keys=keys, args=[now, until, member, *caps]))
        if full:
            what = "client network" if full == 1 else "seat token"
            raise ApiError(
                "stream_limit",
                f"this {what} already holds {caps[full - 1]} live streams, the most it may "
                "hold at once: close one, or read GET .../events",
                429,
                retry_after=int(self.lease_seconds),
            )
        return StreamPlace(self, keys, member)

    def _give_back(self) -> None:
        with self._lock:
            self.open = max(0, self.open - 1)


class StreamPlace:
    """One stream's place; `release` (idempotent) gives it back, `renew` extends its lease."""

    def __init__(self, limits: StreamLimits, keys: list[str], member: str) -> None:
        self.limits = limits
        self.keys = keys
        self.member = member
        self.released = False

    def renew(self) -> None:
        until = _millis(time.time() + self.limits.lease_seconds)
        try:
            self.limits._renew(keys=self.keys, args=[until, self.member])
        except redis.RedisError as error:  # the lease lapses; the stream itself goes on
            log.warning("stream lease not renewed: %s", type(error).__name__)

    def release(self) -> None:
        if self.released:
            return
        self.released = True
        self.limits._give_back()
        try:
            for key in self.keys:
                self.limits.counts.zrem(key, self.member)
        except redis.RedisError as error:  # the lease runs out by itself
            log.warning("stream lease not released: %s", type(error).__name__)


_BUILDING = threading.Lock()


def stream_parts(app: Flask) -> tuple[StreamLimits, Any]:
    """The app's stream limits and its client for blocking reads, made on first use."""
    parts: tuple[StreamLimits, Any] | None = app.extensions["deadwood"].get("streams")
    if parts is not None:
        return parts
    with _BUILDING:
        parts = app.extensions["deadwood"].get("streams")
        if parts is None:
            service = app.extensions["deadwood"]["service"]
            per_process = int(app.config["SSE_MAX_STREAMS"])
            limits = StreamLimits(
                service.queues.connection,
                per_process=per_process,
                per_address=int(app.config["SSE_MAX_STREAMS_PER_ADDRESS"]),
                per_token=int(app.config["SSE_MAX_STREAMS_PER_TOKEN"]),
                lease_seconds=3 * max(1.0, float(app.config["SSE_HEARTBEAT_SECONDS"])),
            )
            parts = limits, blocking_twin(service.redis, per_process + 2)
            app.extensions["deadwood"]["streams"] = parts
    return parts
