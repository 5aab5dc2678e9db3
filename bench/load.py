"""Load with retries: requests/s and latency of legal moves over HTTP, with faults.

Starts a private redis-server (AOF, fsync always), gunicorn (gevent workers) and an rq worker
on free loopback ports in a temporary directory, then runs the load of
tests/support/reliability_load.py: one client thread per human seat, 10% exact resends,
5% stale If-Match, 2% reused idempotency keys, audited afterwards
(tests/support/reliability_audit.py). Prints one table row per run. `--kill` kills Redis
with SIGKILL once mid-run and restarts it.

    python bench/load.py [--matches 16] [--seconds 30] [--workers 2] [--kill]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the tests.support helpers

from tests.support.reliability_audit import audit_all, wait_settled  # noqa: E402
from tests.support.reliability_load import create_matches, run_load  # noqa: E402
from tests.support.reliability_procs import Gunicorn, PrivateRedis, RqWorker  # noqa: E402

ENV = {"DEADWOOD_TOKEN_PEPPER": "bench", "PYTHONUNBUFFERED": "1"}


def run(matches: int, seconds: float, workers: int, kill: bool) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        server = PrivateRedis(base / "redis")
        server.start()
        env = {**ENV, "REDIS_URL": server.url, "QUEUE_URL": server.url}
        api = worker = None
        try:
            api = Gunicorn(base, env, workers=workers)
            worker = RqWorker(base, env)
            made = create_matches(api.base_url, matches, random.Random(1))

            def faults(_: object) -> None:
                if kill:
                    time.sleep(seconds / 2)
                    server.kill9()
                    time.sleep(0.5)
                    server.start()

            stats = run_load(api.base_url, made, seconds, timeout=3.0, during=faults)
            ids = [m for m, _, _ in made]
            wait_settled(server.url, ids, 60.0)
            audited = audit_all(server.url, stats.acks, ids)
            row: dict[str, object] = dict(stats.summary())
            row["audit"] = "ok" if not stats.problems and not stats.unresolved else "FAILED"
            row["events"] = sum(a.events for a in audited)
            row["kills"] = server.kills
            return row
        finally:
            for proc in (worker, api):
                if proc is not None:
                    proc.stop()
            server.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn worker processes")
    parser.add_argument("--kill", action="store_true", help="kill -9 Redis once mid-run")
    args = parser.parse_args()
    threading.excepthook = lambda hook: print(f"thread error: {hook.exc_value}", file=sys.stderr)
    row = run(args.matches, args.seconds, args.workers, args.kill)
    keys = [
        "requests",
        "seconds",
        "rps",
        "p50_ms",
        "p99_ms",
        "move_p50_ms",
        "move_p99_ms",
        "acked_moves",
        "exact_resends",
        "stale_if_match",
        "reused_keys",
        "unknown_outcome_retries",
        "events",
        "kills",
        "audit",
    ]
    print(f"load: {args.matches} matches, {args.seconds:g} s, gunicorn -k gevent -w {args.workers}")
    print(" | ".join(f"{k:>10}" for k in keys))
    print(" | ".join(f"{row.get(k, 0)!s:>10}" for k in keys))
    return 0 if row["audit"] == "ok" else 1


if __name__ == "__main__":
    raise SystemExit(main())
