"""The Redis event store: one stream per match and ONE atomic append.

Keys of a match all carry its hash tag `{<id>}` (one Redis Cluster slot):
    match:{<id>}:events         the stream; entry ids 0-<seq>, never trimmed or edited
    match:{<id>}:meta           hash: variant, players, token hashes, finished flag
    match:{<id>}:snap           the latest snapshot (snapshots.py)
    match:{<id>}:idem:<sha256>  idempotency records (idempotency.py), 24 h

The append is WATCH / check / MULTI / EXEC:
    WATCH the stream (and the idempotency key)
    check that the last entry id is 0-<expected> and the idempotency key is unused
    MULTI
      XADD each event with the explicit id 0-<expected + i>, stamped with this append's nonce
      SET the idempotency record (EX 24 h), HSET meta, SET the snapshot
      the follow-up RQ jobs (job hash + RPUSH onto its queue), written by rq into this MULTI
    EXEC
Either all of it happens or none: EXEC aborts when a watched key changed after WATCH.

Why redis-py's retries are harmless here:
1. redis-py does not re-send a transaction while keys are watched: after a connection error it
   disconnects and raises WatchError (Pipeline._disconnect_raise_on_watching), and every
   attempt of ours starts with a fresh WATCH and a fresh version check. A WATCH set on a dead
   connection is gone with it, and a stale EXEC that somehow still ran on the server would
   meet the check of the attempt that wrote first: only one attempt of one version can commit.
2. Even a raw re-sent MULTI block could not append twice: XADD with an explicit id at or below
   the stream's top is an error, so entry 0-<seq> can be written once only. (The rest of such
   a block would rewrite the same idempotency record and push a job id a second time, and jobs
   are idempotent: they carry the version they were made for.)
3. When the reply of EXEC is lost (connection error or WatchError), the outcome is settled by
   reading entry 0-<expected + 1> back: it carries this append's random nonce (`tx`) exactly
   when this append committed. Then the append reports success, not a false conflict; if the
   stream is still at `expected`, the attempt is simply tried again.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import redis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.exceptions import WatchError

from domain.events import Event
from store import codec, connection
from store.codec import StoredEvent
from store.idempotency import TTL_SECONDS
from store.jobs import JobSpec, Queues

log = logging.getLogger(__name__)

ATTEMPTS = 3
MAX_BLOCK_MS = 10_000
"""The longest single XREAD BLOCK, whatever the socket timeout."""


def events_key(match_id: str) -> str:
    return f"match:{{{match_id}}}:events"


def meta_key(match_id: str) -> str:
    return f"match:{{{match_id}}}:meta"


def snap_key(match_id: str) -> str:
    return f"match:{{{match_id}}}:snap"


def match_id_of(key: bytes | str) -> str | None:
    """The match id in a `match:{<id>}:events` key."""
    name = codec.text(key)
    if name.startswith("match:{") and name.endswith("}:events"):
        return name[len("match:{") : -len("}:events")]
    return None


class Conflict(Exception):
    """The stream is not at the expected version (internal; the service maps it)."""

    def __init__(self, actual: int) -> None:
        super().__init__(f"the stream is at version {actual}")
        self.actual = actual


class IdemTaken(Exception):
    """The idempotency key already has a record (internal; the service replays it)."""

    def __init__(self, raw: bytes | str) -> None:
        super().__init__("the idempotency key has a record")
        self.raw = raw


@dataclass(frozen=True)
class AppendRequest:
    """Everything one atomic append writes."""

    match_id: str
    expected: int
    events: Sequence[Event]
    idem_key: str | None = None
    idem_record: str | None = None
    meta: Mapping[str, str] = field(default_factory=dict)
    snapshot: str | None = None
    jobs: Sequence[JobSpec] = ()
    at: str = field(default_factory=codec.now)


class EventStore:
    """Streams of one Redis server; jobs in the same MULTI when the queue is on that server."""

    def __init__(self, client: redis.Redis, queues: Queues, *, jobs_in_transaction: bool) -> None:
        self.redis = client
        self._r: Any = client  # redis-py's reply types are unions; the store checks shapes
        self.queues = queues
        self.jobs_in_transaction = jobs_in_transaction

    # --- reading ------------------------------------------------------------------------

    def version(self, match_id: str, client: Any = None) -> int:
        """The number of events of a match (0 when the stream does not exist)."""
        rows: Any = (client or self._r).xrevrange(events_key(match_id), "+", "-", count=1)
        return codec.entry_seq(rows[0][0]) if rows else 0

    def read(
        self,
        match_id: str,
        after: int = 0,
        upto: int | None = None,
        count: int | None = None,
        variant: str | None = None,
    ) -> list[StoredEvent]:
        """Events with after < seq <= upto (all after `after` when upto is None)."""
        return [item for item, _tx in self.entries(match_id, after, upto, count, variant)]

    def entries(
        self,
        match_id: str,
        after: int = 0,
        upto: int | None = None,
        count: int | None = None,
        variant: str | None = None,
    ) -> list[tuple[StoredEvent, str]]:
        """Like `read`, with the nonce of the append that wrote each entry."""
        if upto is not None and upto <= after:
            return []
        end = "+" if upto is None else f"0-{upto}"
        rows: Any = self._r.xrange(events_key(match_id), f"0-{after + 1}", end, count=count)
        return [
            (codec.decode(entry_id, fields, variant), codec.tx_of(fields) or "")
            for entry_id, fields in rows
        ]

    def wait(
        self, match_id: str, after: int, block_ms: int, variant: str | None
    ) -> list[StoredEvent]:
        """Events after `after`, waiting up to `block_ms` for the first (XREAD BLOCK).

        The wait is cut to `max_block_ms()`, so the server's silence never outlasts the
        client's socket timeout: a caller that wants to wait longer asks again."""
        block = max(1, min(block_ms, self.max_block_ms()))
        reply: Any = self._r.xread({events_key(match_id): f"0-{after}"}, count=100, block=block)
        rows = reply[0][1] if reply else []
        return [codec.decode(entry_id, fields, variant) for entry_id, fields in rows]

    def max_block_ms(self) -> int:
        """The longest XREAD BLOCK that ends well inside the client's socket timeout."""
        timeout = connection.socket_timeout(self.redis)
        if timeout is None:
            return MAX_BLOCK_MS
        return max(1, min(MAX_BLOCK_MS, int(timeout * 1000 / 2)))

    # --- the atomic append --------------------------------------------------------------

    def append(self, request: AppendRequest) -> tuple[list[StoredEvent], str]:
        """Write the request atomically: (the events as stored, the append's nonce). Raises
        Conflict or IdemTaken, and then nothing was written."""
        tx = secrets.token_hex(8)
        stored = [
            StoredEvent(request.expected + i + 1, event, request.at)
            for i, event in enumerate(request.events)
        ]
        for attempt in range(1, ATTEMPTS + 1):
            try:
                self._attempt(request, stored, tx)
                break
            except (WatchError, RedisConnectionError, RedisTimeoutError) as error:
                if self._landed(request, tx):
                    break
                actual = self.version(request.match_id)
                if actual != request.expected:
                    raise Conflict(actual) from None
                if attempt == ATTEMPTS:
                    raise
                log.info("append to %s at %d tried again after %r", request.match_id, actual, error)
        if not self.jobs_in_transaction and request.jobs:
            self._enqueue_after(request.jobs)
        return stored, tx

    def _attempt(self, request: AppendRequest, stored: list[StoredEvent], tx: str) -> None:
        key = events_key(request.match_id)
        watched = [key] + ([request.idem_key] if request.idem_key else [])
        with self.redis.pipeline(transaction=True) as pipe:
            pipe.watch(*watched)  # type: ignore[no-untyped-call]
            actual = self.version(request.match_id, pipe)
            if actual != request.expected:
                raise Conflict(actual)
            if request.idem_key:
                raw = pipe.get(request.idem_key)
                if raw is not None:
                    raise IdemTaken(raw)
            pipe.multi()
            self._write(pipe, request, stored, tx)
            pipe.execute()

    def _write(self, pipe: Any, request: AppendRequest, stored: list[StoredEvent], tx: str) -> None:
        key = events_key(request.match_id)
        for item in stored:
            pipe.xadd(key, codec.encode(item.event, item.at, tx), id=f"0-{item.seq}")
        if request.idem_key and request.idem_record is not None:
            pipe.set(request.idem_key, request.idem_record, ex=TTL_SECONDS)
        if request.meta:
            pipe.hset(meta_key(request.match_id), mapping=dict(request.meta))
        if request.snapshot is not None:
            pipe.set(snap_key(request.match_id), request.snapshot)
        if self.jobs_in_transaction and request.jobs:
            self.queues.enqueue(request.jobs, pipeline=pipe)

    def _landed(self, request: AppendRequest, tx: str) -> bool:
        """Did this append (nonce `tx`) commit? Read its first entry back."""
        if not request.events:
            return False
        seq = request.expected + 1
        rows: Any = self._r.xrange(events_key(request.match_id), f"0-{seq}", f"0-{seq}")
        return bool(rows) and codec.tx_of(rows[0][1]) == tx

    def _enqueue_after(self, jobs: Sequence[JobSpec]) -> None:
        """Queue on another server: best effort after the commit; the reconciler heals gaps."""
        try:
            self.queues.enqueue(jobs)
        except redis.RedisError:
            log.exception("follow-up jobs %s not enqueued; the reconciler will", jobs)
