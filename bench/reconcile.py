"""One reconciler pass with many finished matches and a few in play: the active index
(issue 34) against the SCAN of every stream that the reconciler did before it (ebe715f).

    python bench/reconcile.py [--finished 100000] [--active 100] [--passes 3]

A private redis-server (no persistence) holds `--finished` finished matches (written
directly: a one-entry stream, a meta hash with `finished` = 1 and the finished index, which
is all a pass reads of a finished match) and `--active` matches in play, created through
MatchService (three human seats: no job is due, so the pass loads each and enqueues
nothing). Rows:
- before: the pass as it was (SCAN `match:*:events`, then HGET `finished` for each stream);
- index: today's pass (the active index only);
- full: today's full pass (SCAN, pipelined flags, index repair), run at a worker's first
  start on a store written before the index existed, and by `python -m workers.reconcile
  --full`.
Each row is the median of `--passes` passes (min..max shown). Wall times of one machine
shared with other work: read the ratio.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from typing import Any

import redis

from cli.procs import free_port, redis_server_binary, wait_port
from store.event_store import FINISHED_KEY, events_key, meta_key
from store.service import MatchService
from workers.reconcile import _heal, reconcile

PLAYERS = [{"name": "a"}, {"name": "b"}, {"name": "c"}]


def reconcile_before(service: MatchService, batch: int = 500) -> list[str]:
    """The reconciler at ebe715f: every stream, a flag read for each, the unfinished healed
    as today's pass heals them (`_heal`)."""
    enqueued: list[str] = []
    for match_id in service.store.scan_matches(batch):
        if not service.is_finished(match_id):
            enqueued += _heal(service, match_id)
    return enqueued


def fill(client: redis.Redis, service: MatchService, finished: int, active: int) -> None:
    now = time.time()
    for start in range(0, finished, 1000):
        pipe = client.pipeline(transaction=False)
        for n in range(start, min(finished, start + 1000)):
            match_id = f"m_done{n:07d}"
            pipe.xadd(events_key(match_id), {"type": "MatchFinished", "data": "{}"}, id="0-1")
            pipe.hset(meta_key(match_id), mapping={"variant": "three-hand-gin", "finished": "1"})
            pipe.zadd(FINISHED_KEY, {match_id: now})
        pipe.execute()
    for n in range(active):
        service.create_match("three-hand-gin", PLAYERS, {}, n)


def timed(run: Callable[[], Any], passes: int) -> list[float]:
    took = []
    for _ in range(passes):
        started = time.perf_counter()
        run()
        took.append(time.perf_counter() - started)
    return sorted(took)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--finished", type=int, default=100_000)
    parser.add_argument("--active", type=int, default=100)
    parser.add_argument("--passes", type=int, default=3)
    args = parser.parse_args()
    port = free_port()
    data = tempfile.mkdtemp(prefix="deadwood-bench-reconcile-")
    command = [redis_server_binary(), "--port", str(port), "--bind", "127.0.0.1"]
    proc = subprocess.Popen(
        [*command, "--dir", data, "--save", "", "--appendonly", "no"], stdout=subprocess.DEVNULL
    )
    try:
        wait_port(port, proc)
        client = redis.Redis(port=port)
        service = MatchService(client, pepper=b"bench-pepper")
        service.store.mark_index_built()
        fill(client, service, args.finished, args.active)
        rows = [
            ("before (SCAN every stream)", lambda: reconcile_before(service)),
            ("index (matches in play)", lambda: reconcile(service)),
            ("full (SCAN, index repair)", lambda: reconcile(service, full=True)),
        ]
        results = [(name, timed(run, args.passes)) for name, run in rows]
        streams = sum(1 for _ in client.scan_iter(match="match:*:events", count=1000))
        in_play = service.store.active_count()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    print(
        f"one reconciler pass, {args.finished} finished + {args.active} active matches "
        f"({streams} streams, {in_play} in the active index), median of {args.passes}"
    )
    header = f"{'pass':<28} | {'seconds':>8} {'(min..max)':>14}"
    print(header)
    print("-" * len(header))
    for name, took in results:
        spread = f"{took[0]:.3f}..{took[-1]:.3f}"
        print(f"{name:<28} | {statistics.median(took):>8.3f} {spread:>14}")
    before, index = (statistics.median(t) for _, t in results[:2])
    print(f"before / index: {before / index:.0f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
