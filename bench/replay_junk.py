"""Junk replays against the served app (issue 11 item 2): what an 8 MiB body of `{}` lines
costs, and what six clients sending such bodies do to the health check and to moves.

    python bench/replay_junk.py [--samples N] [--uploaders 6]

Starts a private redis-server (no persistence) and gunicorn with the gevent worker of
`deadwood up` (2 workers) on free ports, using the reliability tests' process helpers. Rows:
the junk upload alone (time until the 422's status line; the client stops sending once the
server has answered), the health check and a move with nothing else running (the
reference), and both again while `--uploaders` clients each send a junk body every 100 ms (in
a process of their own). Ratios are against the quiet row of the same request.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

import httpx  # noqa: E402

from tests.support.reliability_junk import JunkProcess, Mover, junk_body, p99, timed, upload  # noqa: E402
from tests.support.reliability_procs import PrivateRedis, Stack  # noqa: E402


def _row(name: str, values: list[float], reference: list[float] | None) -> str:
    ms = [v * 1000 for v in values]
    ratio = f"{p99(values) / p99(reference):6.1f}" if reference else "     -"
    return (
        f"{name:<34} {len(ms):>5} {min(ms):8.1f} {statistics.median(ms):8.1f} "
        f"{p99(values) * 1000:8.1f} {max(ms):8.1f} {ratio}"
    )


def _measure(http: httpx.Client, mover: Mover, samples: int) -> tuple[list[float], list[float]]:
    health = timed(lambda: http.get("/v1/health").raise_for_status(), samples)
    return health, mover.timed_moves(max(10, samples // 2))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument("--uploaders", type=int, default=6)
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="bench-replay-"))
    redis_server = PrivateRedis(base / "redis", appendonly=False)
    redis_server.start()
    stack = Stack(base, redis_server.url)
    try:
        api = stack.start_api(workers=2)
        stack.start_worker()
        body = junk_body()
        with httpx.Client(base_url=stack.base_url, timeout=60) as http:
            mover = Mover(http)
            _measure(http, mover, 20)  # warm both workers
            alone = [upload(api.port, body)[1] for _ in range(20)]
            quiet_health, quiet_moves = _measure(http, mover, args.samples)
            load = JunkProcess(api.port, args.uploaders)
            try:
                busy_health, busy_moves = _measure(http, mover, args.samples)
            finally:
                statuses, seconds = load.stop()
    finally:
        stack.stop()
        redis_server.stop()
    print(f"{'ms':<34} {'n':>5} {'min':>8} {'median':>8} {'p99':>8} {'max':>8} {'ratio':>6}")
    print(_row("junk 8 MiB replay, alone", alone, None))
    print(_row(f"junk replay, {args.uploaders} uploaders", seconds, alone))
    print(_row("health, quiet", quiet_health, None))
    print(_row(f"health, {args.uploaders} junk uploaders", busy_health, quiet_health))
    print(_row("move, quiet", quiet_moves, None))
    print(_row(f"move, {args.uploaders} junk uploaders", busy_moves, quiet_moves))
    print(f"junk uploads answered: {len(statuses)}, statuses {sorted(set(statuses))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
