"""The active and finished indexes, and the scan of every match (retention and the reconciler).

`deadwood:active` is a sorted set of the match ids not finished, scored by the time each was
indexed; `deadwood:finished` a sorted set of the finished ones by the time they finished. They
are kept as separate steps around the append script, never inside it: in a Redis Cluster they
live in slots of their own, and a script may touch one slot only (event_store.py says when
each step runs). The reconciler reads only the active index and repairs both
(workers/reconcile.py); retention reads the finished one (store/archive.py).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import Any

import redis

from store import codec
from store.keys import match_id_of, meta_key

log = logging.getLogger("store.event_store")

ACTIVE_KEY = "deadwood:active"
FINISHED_KEY = "deadwood:finished"
INDEX_BUILT_KEY = "deadwood:active:built"


class MatchIndex:
    """The indexes' commands, on the event store's client (EventStore is one)."""

    redis: Any
    _r: Any
    cluster: bool

    def scan_matches(self, batch: int = 500) -> Any:
        """Every match id, from every primary of a cluster (SCAN sees one node)."""
        clients = [self.redis]
        if self.cluster:
            clients = [self.redis.get_redis_connection(n) for n in self.redis.get_primaries()]
        for client in clients:
            for key in client.scan_iter(match="match:*:events", count=batch, _type="STREAM"):
                match_id = match_id_of(key)
                if match_id is not None:
                    yield match_id

    def mark_finished(self, match_id: str, at: float | None = None) -> None:
        """Move a match from the active index to the finished one (best effort: the
        reconciler drops a finished match it still finds in the active index)."""
        try:
            self._r.zadd(FINISHED_KEY, {match_id: time.time() if at is None else at}, nx=True)
            self._r.zrem(ACTIVE_KEY, match_id)
        except redis.RedisError as error:
            log.warning("match %s not moved to the finished index: %r", match_id, error)

    def mark_finished_many(self, match_ids: Sequence[str]) -> None:
        """`mark_finished` for many (a full reconciler pass), two commands in all."""
        if match_ids:
            self._r.zadd(FINISHED_KEY, dict.fromkeys(match_ids, time.time()), nx=True)
            self._r.zrem(ACTIVE_KEY, *match_ids)

    def active_entries(self, batch: int = 1000) -> Any:
        """(id, unix time it was indexed) of each match in the active index (ZSCAN)."""
        for raw, score in self._r.zscan_iter(ACTIVE_KEY, count=batch):
            yield codec.text(raw), float(score)

    def active_count(self) -> int:
        return int(self._r.zcard(ACTIVE_KEY))

    def unindex(self, match_id: str) -> None:
        self._r.zrem(ACTIVE_KEY, match_id)

    def index_active(self, match_ids: Sequence[str]) -> None:
        if match_ids:
            now = time.time()
            self._r.zadd(ACTIVE_KEY, dict.fromkeys(match_ids, now), nx=True)

    def index_built(self) -> bool:
        return bool(self._r.exists(INDEX_BUILT_KEY))

    def mark_index_built(self) -> None:
        self._r.set(INDEX_BUILT_KEY, str(int(time.time())))

    def finished_before(self, cutoff: float, count: int = 500) -> list[str]:
        """Ids of matches that finished before `cutoff` (unix time), oldest first."""
        rows: Any = self._r.zrangebyscore(FINISHED_KEY, "-inf", cutoff, start=0, num=count)
        return [codec.text(raw) for raw in rows]

    def finished_flags(self, match_ids: Sequence[str]) -> list[str | None]:
        """The `finished` meta field of each match (None: no meta), in one pipeline."""
        if self.cluster:
            return [_text_or_none(self._r.hget(meta_key(m), "finished")) for m in match_ids]
        pipe = self._r.pipeline(transaction=False)
        for match_id in match_ids:
            pipe.hget(meta_key(match_id), "finished")
        return [_text_or_none(raw) for raw in pipe.execute()]


def _text_or_none(raw: Any) -> str | None:
    return None if raw is None else codec.text(raw)
