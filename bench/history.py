"""Reading a long match's history (issue 28 item 5): `?at=` and `/events?after=` load the match
as it was after event k, which folds from the nearest snapshot at or before k.

Plays one three-hand gin match of `--events` events (knock_limit 0 and no knocks: every hand
a draw, the longest matches the rules allow before item 3 of issue 28) twice through
MatchService on a private redis-server: once keeping snapshots every 256 events (now), once
with no kept snapshot (before: only the latest one). Then loads `--positions` positions
spread over each match from a service with no cache and prints, per row, the time of one
load (min / median / p99 / max, ms), its process CPU (median, max, ms) and the events folded
(max), with the ratio of the medians. Speed is measured here, never asserted in a test.

    .venv/bin/python bench/history.py                 # 15,000 events, 200 positions
    .venv/bin/python bench/history.py --events 3000   # quicker
    .venv/bin/python bench/history.py --gc-off         # without the collector's pauses
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import redis

from domain.events import SYSTEM
from domain.variants import Move
from store.service import MatchService
from tests.support.reliability_procs import PrivateRedis

GIN = "three-hand-gin"
OPTIONS = {"knock_limit": 0, "target_score": 1000}
NEVER = 10**12


def _service(client: Any, keep_every: int) -> MatchService:
    return MatchService(client, pepper=b"bench-pepper", keep_every=keep_every)


def _play(service: MatchService, events: int, seed: int) -> str:
    """A match of at least `events` events (no seat ever knocks)."""
    players = [{"name": f"p{i}"} for i in range(3)]
    match_id = service.create_match(GIN, players, dict(OPTIONS), seed).match_id
    rng = random.Random(seed)
    version = 0
    while version < events:
        loaded = service.load(match_id)
        state, version = loaded.state, loaded.version
        game = loaded.variant
        if game.is_finished(state):
            break
        due = game.pending(state)
        move: Move
        if due is not None:
            seat, move = SYSTEM, due
        else:
            actor = game.to_act(state)
            assert actor is not None
            seat = actor
            moves = [m for m in game.legal_moves(state, seat) if m["type"] != "knock"]
            move = moves[rng.randrange(len(moves))]
        service.submit(
            match_id, seat, move, expected_version=version, idempotency_key=None, fingerprint=""
        )
    return match_id


def _reads(
    client: Any, keep_every: int, match_id: str, positions: list[int]
) -> tuple[list[float], int, list[float]]:
    """Load the match at every position: wall seconds, the most entries folded, CPU seconds."""
    service = _service(client, keep_every)
    folded: list[int] = []
    entries = service.store.entries

    def counting(*args: Any, **kwargs: Any) -> Any:
        rows = entries(*args, **kwargs)
        folded.append(len(rows))
        return rows

    service.store.entries = counting  # type: ignore[method-assign]
    service.load(match_id, at=positions[0])  # warm the imports and the connection
    times: list[float] = []
    cpu: list[float] = []
    most = 0
    for at in positions:
        folded.clear()
        started, used = time.perf_counter(), time.process_time()
        service.load(match_id, at=at)
        times.append(time.perf_counter() - started)
        cpu.append(time.process_time() - used)
        most = max(most, sum(folded))
    return times, most, cpu


def _row(name: str, times: list[float], most: int, cpu: list[float], ratio: str) -> str:
    ms = sorted(t * 1000 for t in times)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    return (
        f"{name:<34} {len(ms):>5} {ms[0]:8.2f} {statistics.median(ms):8.2f} {p99:8.2f} "
        f"{ms[-1]:8.2f} {statistics.median(cpu) * 1000:8.2f} {max(cpu) * 1000:8.2f} "
        f"{most:>7} {ratio:>7}"
    )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=15_000)
    parser.add_argument("--positions", type=int, default=200)
    parser.add_argument(
        "--gc-off",
        action="store_true",
        help="no cyclic garbage collection: shows how much of the tail is the collector's",
    )
    args = parser.parse_args()
    if args.gc_off:
        gc.disable()
    server = PrivateRedis(Path(tempfile.mkdtemp(prefix="bench-history-")), appendonly=False)
    server.start()
    try:
        client = redis.Redis.from_url(server.url)
        kept = _play(_service(client, 256), args.events, seed=15)
        bare = _play(_service(client, NEVER), args.events, seed=15)
        length = _service(client, 256).load(kept).version
        rng = random.Random(1)
        positions = sorted(rng.randrange(1, length + 1) for _ in range(args.positions))
        now = _reads(client, 256, kept, positions)
        before = _reads(client, NEVER, bare, positions)
        kept_bytes = sum(len(m) for m in client.zrange(f"match:{{{kept}}}:snaps", 0, -1))
        print(f"history reads of a {length}-event gin match, ms per load (no cache)")
        print(
            f"{'row':<34} {'n':>5} {'min':>8} {'median':>8} {'p99':>8} {'max':>8} "
            f"{'cpu med':>8} {'cpu max':>8} {'folded':>7} {'ratio':>7}"
        )
        print(_row("only the latest snapshot (before)", *before, "-"))
        ratio = f"{statistics.median(now[0]) / statistics.median(before[0]):.3f}"
        print(_row("snapshots kept every 256 (now)", *now, ratio))
        print(
            f"kept snapshots: {client.zcard(f'match:{{{kept}}}:snaps')}, "
            f"{kept_bytes / 1024:.0f} KiB"
        )
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
