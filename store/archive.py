"""Retention: finished matches archived to gzip NDJSON files and removed from Redis after
DEADWOOD_RETAIN_DAYS, read back transparently (issue 34).

    DEADWOOD_RETAIN_DAYS   unset or 0 (default): keep every match in Redis for ever
    DEADWOOD_ARCHIVE_DIR   where archives go (default `var/archive`; `deadwood up`:
                           `<data dir>/archive`)

One file a match, `<dir>/<match id>.ndjson.gz`: a first line `{"archive": 1, "match_id",
"meta": {...}}` with the match's meta hash (variant, players, token hashes, finished flag),
then one line per stream entry `{"id": "0-<seq>", "fields": {...}}` exactly as stored, so a
restore writes back the very entries (and the seat tokens keep working).

`retire(service, archive, days)` (the worker's reconciler timer runs it when a retention is
set) takes the matches that finished before the cutoff from the finished index, writes each
archive (to a temporary name, fsynced, renamed, read back and counted) and only then deletes
the match's keys. A match asked for that is not in Redis is restored from its archive by
MatchService (store/metadata.py, `Metadata.get`), so views, the log (`deadwood export`), seats
and replays work as before; it is finished, so it is indexed as finished anew and retired again
a retention later. The files are the durable copy: back them up with the Redis data.
"""

from __future__ import annotations

import gzip
import json
import logging
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import redis

from store import codec, metrics
from store.event_store import FINISHED_KEY, events_key, meta_key, snap_key

log = logging.getLogger(__name__)

DAY = 86400.0
_SAFE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


def retain_days_from_env() -> float:
    raw = os.environ.get("DEADWOOD_RETAIN_DAYS", "").strip()
    return float(raw) if raw else 0.0


def archive_dir_from_env() -> Path:
    return Path(os.environ.get("DEADWOOD_ARCHIVE_DIR") or "var/archive")


class Archive:
    """The archive directory: one gzip NDJSON file a match."""

    def __init__(self, directory: Path | str) -> None:
        self.directory = Path(directory)

    def path(self, match_id: str) -> Path | None:
        if not _SAFE_ID.fullmatch(match_id):
            return None
        return self.directory / f"{match_id}.ndjson.gz"

    def has(self, match_id: str) -> bool:
        path = self.path(match_id)
        return path is not None and path.is_file()

    def write(self, match_id: str, meta: dict[str, str], entries: list[Any]) -> Path:
        path = self.path(match_id)
        if path is None:
            raise ValueError(f"{match_id!r} is not a match id")
        self.directory.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".partial")
        with partial.open("wb") as raw:
            with gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as out:
                head = {"archive": 1, "match_id": match_id, "meta": meta}
                out.write(_line(head))
                for entry_id, fields in entries:
                    row = {"id": codec.text(entry_id), "fields": _texts(fields)}
                    out.write(_line(row))
            raw.flush()
            os.fsync(raw.fileno())
        os.replace(partial, path)
        return path

    def read(self, match_id: str) -> tuple[dict[str, str], list[tuple[str, dict[str, str]]]]:
        path = self.path(match_id)
        if path is None or not path.is_file():
            raise FileNotFoundError(match_id)
        lines = _lines(path)
        head = next(lines)
        if head.get("archive") != 1 or head.get("match_id") != match_id:
            raise ValueError(f"{path} is not the archive of {match_id}")
        return dict(head["meta"]), [(row["id"], dict(row["fields"])) for row in lines]


def _line(item: Any) -> bytes:
    return (json.dumps(item, separators=(",", ":")) + "\n").encode()


def _lines(path: Path) -> Iterator[dict[str, Any]]:
    with gzip.open(path, "rt", encoding="utf-8") as source:
        for line in source:
            if line.strip():
                yield json.loads(line)


def _texts(fields: Any) -> dict[str, str]:
    return {codec.text(k): codec.text(v) for k, v in fields.items()}


def archive_match(store: Any, archive: Archive, match_id: str) -> bool:
    """Archive one finished match and remove it from Redis; False when it is not there or
    not finished (then nothing is removed)."""
    meta = _texts(store.hgetall(meta_key(match_id)))
    if meta.get("finished") != "1":
        return False
    entries: Any = store.redis.xrange(events_key(match_id), "-", "+")
    path = archive.write(match_id, meta, entries)
    _, written = archive.read(match_id)
    if len(written) != len(entries):
        raise OSError(f"{path}: {len(written)} entries read back, {len(entries)} written")
    client = store.redis
    client.delete(events_key(match_id), meta_key(match_id), snap_key(match_id))
    for key in client.scan_iter(match=f"match:{{{match_id}}}:*", count=100):
        client.delete(key)  # idempotency records and markers
    client.zrem(FINISHED_KEY, match_id)
    return True


def restore(store: Any, archive: Archive, match_id: str) -> bool:
    """Write an archived match back into Redis (as it was); False when there is no archive.
    Two processes restoring at once are harmless: an entry id at or below the top is refused
    by XADD, and the meta is the same."""
    if not archive.has(match_id):
        return False
    meta, entries = archive.read(match_id)
    pipe = store.redis.pipeline(transaction=True)
    for entry_id, fields in entries:
        pipe.xadd(events_key(match_id), fields, id=entry_id)
    if meta:
        pipe.hset(meta_key(match_id), mapping=meta)
    pipe.zadd(FINISHED_KEY, {match_id: time.time()})
    pipe.execute(raise_on_error=False)
    log.info("match %s restored from its archive", match_id)
    return True


def retire(service: Any, archive: Archive, days: float, batch: int = 500) -> int:
    """Archive and remove the matches that finished more than `days` days ago; how many."""
    if days <= 0:
        return 0
    cutoff = time.time() - days * DAY
    done = 0
    while True:
        ids = service.store.finished_before(cutoff, batch)
        if not ids:
            return done
        for match_id in ids:
            try:
                moved = archive_match(service.store, archive, match_id)
            except (OSError, redis.RedisError) as error:
                log.warning("match %s not archived: %r", match_id, error)
                return done
            if not moved:
                service.store.redis.zrem(FINISHED_KEY, match_id)  # not finished: not ours
            else:
                done += 1
                if metrics.ENABLED:
                    metrics.ARCHIVED.inc()
