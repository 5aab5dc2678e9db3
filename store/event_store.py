"""The Redis event store: one stream per match and ONE atomic append, in one round trip.

Keys of a match all carry its hash tag `{<id>}` (one Redis Cluster slot):
    match:{<id>}:events         the stream; entry ids 0-<seq>, never trimmed or edited
    match:{<id>}:meta           hash: variant, players, token hashes, finished flag
    match:{<id>}:snap           the latest snapshot (snapshots.py)
    match:{<id>}:snaps          sorted set: a snapshot kept at intervals, scored by version
    match:{<id>}:idem:<sha256>  idempotency records (idempotency.py), 24 h
    match:{<id>}:settle         a marker written before a replayed answer's WAIT (replica)

The append is one EVALSHA of `append.lua` (registered once per client, loaded on NOSCRIPT):
    check that the last entry id is 0-<expected> (and, when the caller decided on a cached
      state, that it carries the nonce the cache saw) and that the idempotency key is unused
    XADD each event with the explicit id 0-<expected + i>, stamped with this append's nonce
    SET the idempotency record (EX 24 h), HSET meta, SET the snapshot when one is due
      (and ZADD it to the kept ones when it crosses a multiple of the keeping interval)
    the follow-up RQ jobs, when the queue is this same server (not a cluster): rq's own
      commands (job hash, SADD, RPUSH), recorded from a non-executed pipeline and replayed
      by the script, so a job exists exactly when its events do
A script runs atomically: all of it happens or none. With a cluster, or a queue on another
server, the jobs are enqueued after the script and the reconciler heals a lost one.

The active index (`deadwood:active`, a sorted set of the match ids not finished, scored by
the time each was indexed; its commands are index.py's, keys.py names the keys) and the finished
index (`deadwood:finished`, a sorted set of match ids by the time they finished) are kept
as separate steps around the script, never inside it: in a Redis Cluster they live in slots
of their own, and a script may touch one slot only. A create adds its match to the active
index *before* its script (so the index holds every match in play, and at worst an id whose
create failed); the append that finishes a match moves it to the finished index after its
script. The reconciler reads only the active index and repairs both: an id with no stream,
or a finished match still listed, is dropped (workers/reconcile.py); a full SCAN at the
first start of a worker indexes the matches written before the index existed.

With DEADWOOD_DURABILITY=replica the script is followed by `WAIT 1 <ms>` in the same
pipeline (same connection, still one round trip); no ack in time -> NotReplicated.

When the reply is lost (connection error, timeout, a failover), the outcome is settled by
reading entry 0-<expected + 1> back: it carries this append's random nonce (`tx`) exactly
when this append committed. Then the append reports success, not a false conflict; if the
stream is still at `expected`, the script is simply run again (its version check makes a
second commit impossible: XADD with an id at or below the top is refused anyway).
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis
from redis import exceptions as rx

from domain.events import Event
from store import codec, connection, metrics
from store.codec import StoredEvent
from store.connection import is_cluster
from store.durability import Durability
from store.errors import NotReplicated
from store.idempotency import TTL_SECONDS
from store.index import ACTIVE_KEY, FINISHED_KEY, INDEX_BUILT_KEY, MatchIndex
from store.jobs import JobSpec, Queues
from store.keys import (
    events_key,
    kept_snaps_key,
    match_id_of,
    meta_key,
    no_idem_key,
    settle_key,
    snap_key,
)

log = logging.getLogger(__name__)

ATTEMPTS = 3
CLUSTER_ATTEMPTS = 40  # a failover takes a few seconds: 40 tries 0.25 s apart
SCRIPT = Path(__file__).with_name("append.lua").read_text()
LOST_REPLY = (
    rx.ConnectionError,
    rx.TimeoutError,
    rx.ClusterDownError,
    rx.AskError,  # and MovedError
    rx.TryAgainError,
    rx.ReadOnlyError,
)

MAX_BLOCK_MS = 10_000
"""The longest single XREAD BLOCK, whatever the socket timeout."""

__all__ = [
    "ACTIVE_KEY",
    "FINISHED_KEY",
    "INDEX_BUILT_KEY",
    "AppendRequest",
    "Conflict",
    "EventStore",
    "IdemTaken",
    "events_key",
    "kept_snaps_key",
    "match_id_of",
    "meta_key",
    "snap_key",
]

_APPENDED = metrics.batched(metrics.APPENDS, "ok")  # written by the flusher (store/metrics.py)
_CONFLICTS = metrics.batched(metrics.APPENDS, "conflict")
_IDEMPOTENT = metrics.batched(metrics.APPENDS, "idempotent")


class Conflict(Exception):
    """The stream is not at the expected version (internal; the service maps it)."""

    def __init__(self, actual: int, last_tx: str = "") -> None:
        super().__init__(f"the stream is at version {actual}")
        self.actual = actual
        self.last_tx = last_tx


class IdemTaken(Exception):
    """The idempotency key already has a record (internal; the service replays it)."""

    def __init__(self, raw: bytes | str) -> None:
        super().__init__("the idempotency key has a record")
        self.raw = raw


@dataclass(frozen=True)
class AppendRequest:
    """Everything one atomic append writes. `check_tx`: the nonce the entry at `expected`
    must carry (the caller decided on a cached state); empty: the version alone decides."""

    match_id: str
    expected: int
    events: Sequence[Event]
    idem_key: str | None = None
    idem_record: str | None = None
    meta: Mapping[str, str] = field(default_factory=dict)
    snapshot: str | None = None
    snapshot_latest: bool = True  # SET it as the latest snapshot
    snapshot_kept: bool = False  # ZADD it to the snapshots kept at intervals
    jobs: Sequence[JobSpec] = ()
    at: str = field(default_factory=codec.now)
    check_tx: str = ""
    data: Sequence[str] = ()  # each event's data as codec.stored_forms encoded it (or none)
    clk: str = ""  # the clock after this append (store/clock.py), beside its last entry


class EventStore(MatchIndex):
    """Streams on one Redis server or a Redis Cluster; jobs inside the append script when
    the queue is that same (single) server."""

    def __init__(
        self,
        client: Any,
        queues: Queues,
        *,
        jobs_in_transaction: bool,
        durability: Durability | None = None,
    ) -> None:
        self.redis = client
        self._r: Any = client  # redis-py's reply types are unions; the store checks shapes
        self.queues = queues
        self.jobs_in_transaction = jobs_in_transaction
        self.durability = durability or Durability()
        self.cluster = is_cluster(client)
        self._sha = _sha1(SCRIPT)

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
        return _decoded(rows, variant)

    def newer(
        self, match_id: str, version: int, tx: str, variant: str | None = None
    ) -> list[tuple[StoredEvent, str]] | None:
        """`entries` after `version`, read in one XRANGE from the entry at `version`; None
        when that entry is not the one the append with nonce `tx` wrote (the stream was
        replaced). The entry at `version` is only compared, never decoded: a view's load
        from a current cache reads it alone."""
        rows: Any = self._r.xrange(events_key(match_id), f"0-{version}", "+")
        if not rows or codec.entry_seq(rows[0][0]) != version or codec.tx_of(rows[0][1]) != tx:
            return None
        return _decoded(rows[1:], variant)

    def wait(
        self, match_id: str, after: int, block_ms: int, variant: str | None, *, client: Any = None
    ) -> list[StoredEvent]:
        """Events after `after`, waiting up to `block_ms` for the first (XREAD BLOCK).

        The wait is cut to `max_block_ms()`, so the server's silence never outlasts the
        client's socket timeout: a caller that wants to wait longer asks again. `client` is
        another client of the same server (one whose pool is kept for blocking reads)."""
        block = max(1, min(block_ms, self.max_block_ms()))
        reader = self._r if client is None else client
        reply: Any = reader.xread({events_key(match_id): f"0-{after}"}, count=100, block=block)
        rows = reply[0][1] if reply else []
        return [codec.decode(entry_id, fields, variant) for entry_id, fields in rows]

    def get(self, key: str) -> Any:
        return self._r.get(key)

    def snapshots_at(self, match_id: str, at: int) -> tuple[Any, Any]:
        """The raw latest snapshot and the raw kept snapshot with the highest version at or
        below `at` (None each when absent), in one round trip."""
        pipe = self._r.pipeline(transaction=False)
        pipe.get(snap_key(match_id))
        pipe.zrevrangebyscore(kept_snaps_key(match_id), at, "-inf", start=0, num=1)
        latest, kept = pipe.execute()
        return latest, (kept[0] if kept else None)

    def keep_snapshots(
        self, match_id: str, snaps: Mapping[str, int], drop_upto: int | None = None
    ) -> None:
        """Add `snaps` (encoded snapshot -> its version) to the kept ones; first drop the kept
        ones up to version `drop_upto` when given (they were written by other rules code).
        They are a cache written on a read: a failure is logged, and the read goes on."""
        pipe = self._r.pipeline(transaction=False)
        if drop_upto is not None:
            pipe.zremrangebyscore(kept_snaps_key(match_id), "-inf", drop_upto)
        if snaps:
            pipe.zadd(kept_snaps_key(match_id), dict(snaps))
        try:
            pipe.execute()
        except redis.RedisError as error:
            log.info("snapshots of %s not kept: %s", match_id, type(error).__name__)

    def hget(self, key: str, name: str) -> Any:
        return self._r.hget(key, name)

    def hgetall(self, key: str) -> Any:
        return self._r.hgetall(key)

    def ping(self) -> bool:
        try:
            return bool(self._r.ping())
        except redis.RedisError:
            return False

    def max_block_ms(self) -> int:
        """The longest XREAD BLOCK that ends well inside the client's socket timeout."""
        timeout = connection.socket_timeout(self.redis)
        if timeout is None:
            return MAX_BLOCK_MS
        return max(1, min(MAX_BLOCK_MS, int(timeout * 1000 / 2)))

    # --- the atomic append --------------------------------------------------------------

    def append(self, request: AppendRequest) -> tuple[list[StoredEvent], str]:
        """Write the request atomically: (the events as stored, the append's nonce). Raises
        Conflict or IdemTaken, and then nothing was written; NotReplicated (durability
        `replica`) when it was written but no replica confirmed it in time."""
        tx = secrets.token_hex(8)
        finishing = request.meta.get("finished") == "1"
        if request.expected == 0 and not finishing:
            # before the script: the index may hold a failed create, never miss a match
            self._r.zadd(ACTIVE_KEY, {request.match_id: time.time()}, nx=True)
        stored = [
            StoredEvent(request.expected + i + 1, event, request.at)
            for i, event in enumerate(request.events)
        ]
        reply, replicas = self._run(request, self.keys(request), self.args(request, stored, tx), tx)
        kind = codec.text(reply[0])
        if kind == "conflict":
            if metrics.ENABLED:
                _CONFLICTS.inc()
            raise Conflict(int(reply[1]), codec.text(reply[2]))
        if kind == "idem":
            if metrics.ENABLED:
                _IDEMPOTENT.inc()
            raise IdemTaken(reply[1])
        if metrics.ENABLED:
            _APPENDED.inc()
        if finishing:
            self.mark_finished(request.match_id)
        if not self.jobs_in_transaction and request.jobs:
            self._enqueue_after(request.jobs)
        if self.durability.waits_for_replica and replicas < 1:
            raise NotReplicated(
                f"the move on match {request.match_id!r} was written but no replica confirmed "
                f"it within {self.durability.wait_ms} ms (DEADWOOD_DURABILITY=replica); retry "
                "with the same Idempotency-Key to learn its outcome"
            )
        return stored, tx

    def confirm_replicated(self, match_id: str) -> None:
        """With durability `replica`: return once one replica holds everything the match's
        primary has written so far, else raise NotReplicated. A replayed answer calls this
        first: the write it replays may be the very one no replica confirmed, and WAIT only
        counts the writes of its own connection, so the pipeline writes a marker in the
        match's slot and waits for that (a replica that has the marker has all before it)."""
        if not self.durability.waits_for_replica:
            return
        pipe = self._node_client(events_key(match_id)).pipeline(transaction=False)
        pipe.set(settle_key(match_id), secrets.token_hex(4), px=60_000)
        pipe.execute_command("WAIT", 1, self.durability.wait_ms)
        if int(pipe.execute()[1]) < 1:
            raise NotReplicated(
                f"match {match_id!r}: the first request with this Idempotency-Key was written "
                f"but no replica confirmed it within {self.durability.wait_ms} ms "
                "(DEADWOOD_DURABILITY=replica); retry with the same key to learn its outcome"
            )

    def _run(
        self, request: AppendRequest, keys: list[str], args: list[Any], tx: str
    ) -> tuple[Any, int]:
        """(the script's reply, replicas that acked), settling a lost reply by its nonce."""
        attempts = CLUSTER_ATTEMPTS if self.cluster else ATTEMPTS
        for attempt in range(1, attempts + 1):
            try:
                reply, replicas = self._eval(keys, args)
            except LOST_REPLY as error:
                if self._landed_quietly(request, tx):
                    return [b"ok", request.expected + len(request.events)], 0
                if attempt == attempts:
                    raise
                log.info("append to %s tried again after %r", request.match_id, error)
                self._recover(attempt)
                continue
            if self._ours(reply, request, tx):
                return [b"ok", request.expected + len(request.events)], replicas
            return reply, replicas
        raise AssertionError("unreachable")

    def _ours(self, reply: Any, request: AppendRequest, tx: str) -> bool:
        """A conflict that is this very append, run twice (redis-py re-sends a command whose
        reply was lost): the top entry, or entry expected + 1, carries our nonce."""
        if codec.text(reply[0]) != "conflict" or int(reply[1]) <= request.expected:
            return False
        return codec.text(reply[2]) == tx or self._landed(request, tx)

    def _eval(self, keys: list[str], args: list[Any]) -> tuple[Any, int]:
        """EVALSHA (+ WAIT, in one pipeline) on the connection of the match's primary."""
        client = self._node_client(keys[0])
        wait = self.durability.waits_for_replica
        for _ in range(2):
            if not wait:  # one command: no pipeline to build
                try:
                    return client.execute_command("EVALSHA", self._sha, len(keys), *keys, *args), 0
                except rx.NoScriptError:
                    client.script_load(SCRIPT)
                    continue
            pipe = client.pipeline(transaction=False)
            pipe.execute_command("EVALSHA", self._sha, len(keys), *keys, *args)
            if wait:
                pipe.execute_command("WAIT", 1, self.durability.wait_ms)
            try:
                replies = pipe.execute()
            except rx.NoScriptError:
                client.script_load(SCRIPT)
                continue
            return replies[0], int(replies[1]) if wait else 0
        raise rx.NoScriptError("the append script could not be loaded")

    def _node_client(self, key: str) -> Any:
        """The plain client of the primary holding `key` (the store's client on one server)."""
        if not self.cluster:
            return self.redis
        node = self.redis.get_node_from_key(key)
        return self.redis.get_redis_connection(node)

    def _recover(self, attempt: int) -> None:
        """After a lost reply on a cluster: wait a little and learn the slots again."""
        if not self.cluster:
            return
        time.sleep(0.25)
        try:
            self.redis.nodes_manager.initialize()
        except redis.RedisError as error:
            log.info("cluster topology not readable yet (try %d): %r", attempt, error)

    @staticmethod
    def keys(request: AppendRequest) -> list[str]:
        """The script's KEYS (see append.lua): all in the match's slot."""
        match_id = request.match_id
        keys = [events_key(match_id), meta_key(match_id), snap_key(match_id)]
        return [*keys, request.idem_key or no_idem_key(match_id), kept_snaps_key(match_id)]

    def args(self, request: AppendRequest, stored: list[StoredEvent], tx: str) -> list[Any]:
        """The script's ARGV (see append.lua)."""
        args: list[Any] = [request.expected, request.check_tx, "1" if request.idem_key else "0"]
        args.append(len(stored))
        texts = request.data if len(request.data) == len(stored) else [None] * len(stored)
        last = stored[-1].seq if stored else 0
        for item, data in zip(stored, texts, strict=True):
            fields = codec.encode(item.event, item.at, tx, data)
            if request.clk and item.seq == last:
                fields["clk"] = request.clk
            args += [f"0-{item.seq}", 2 * len(fields)]
            for name, value in fields.items():
                args += [name, value]
        args += [request.idem_record or "", TTL_SECONDS, len(request.meta)]
        for name, value in request.meta.items():
            args += [name, value]
        if request.snapshot is None:
            args += ["0", ""]
        else:
            flag = int(request.snapshot_latest) + 2 * int(request.snapshot_kept)
            args += [str(flag), request.snapshot]
        commands = self._job_commands(request.jobs) if self.jobs_in_transaction else []
        args.append(len(commands))
        for command in commands:
            args += [len(command), *command]
        return args

    def _job_commands(self, jobs: Sequence[JobSpec]) -> list[list[bytes]]:
        """rq's commands for `jobs`, recorded from a pipeline that is never executed."""
        if not jobs:
            return []
        connection = self.queues.connection
        encoder: Any = connection.get_encoder()
        scheduled = [job for job in jobs if job.at_ms is not None]
        commands = [command for job in scheduled for command in self.queues.scheduled_commands(job)]
        if len(scheduled) == len(jobs):
            return commands
        pipe = connection.pipeline(transaction=False)
        self.queues.enqueue([job for job in jobs if job.at_ms is None], pipeline=pipe)
        commands += [[encoder.encode(arg) for arg in args] for args, _ in pipe.command_stack]
        pipe.reset()
        return commands

    def _landed(self, request: AppendRequest, tx: str) -> bool:
        """Did this append (nonce `tx`) commit? Read its first entry back."""
        if not request.events:
            return False
        seq = request.expected + 1
        rows: Any = self._r.xrange(events_key(request.match_id), f"0-{seq}", f"0-{seq}")
        return bool(rows) and codec.tx_of(rows[0][1]) == tx

    def _landed_quietly(self, request: AppendRequest, tx: str) -> bool:
        """`_landed`, False while the store cannot be read (a failover in progress)."""
        try:
            return self._landed(request, tx)
        except redis.RedisError:
            return False

    def _enqueue_after(self, jobs: Sequence[JobSpec]) -> None:
        """Queue on another server: best effort after the commit; the reconciler heals gaps."""
        try:
            self.queues.enqueue(jobs)
        except redis.RedisError:
            log.exception("follow-up jobs %s not enqueued; the reconciler will", jobs)


def _sha1(text: str) -> str:
    """The name Redis gives a script (EVALSHA)."""
    return hashlib.sha1(text.encode()).hexdigest()


def _decoded(rows: Any, variant: str | None) -> list[tuple[StoredEvent, str]]:
    """XRANGE rows as (event, nonce of the append that wrote it)."""
    return [
        (codec.decode(entry_id, fields, variant), codec.tx_of(fields) or "")
        for entry_id, fields in rows
    ]
