"""Redis killed or paused under load (issue 6, architecture.md "One move, end to end" 6).

The private redis-server keeps an append-only file with `appendfsync always`, so a write is
on disk before its reply. Under the load of test_load.py:
- `kill -9` at a random moment, then a restart on the same port and directory: requests in
  flight get no answer (or a 503) and are sent again with the same Idempotency-Key;
- SIGSTOP for longer than the clients' timeout, then SIGCONT: the clients time out, retry,
  and the twins meet in the store.
Afterwards the audit (reliability_audit.py) finds zero acknowledged events lost, zero
duplicates, zero gaps, and every log passes the replay check.
"""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

from tests.support.reliability_audit import audit_all, table, wait_settled
from tests.support.reliability_load import create_matches, run_load
from tests.support.reliability_procs import soak


def _audit(stack: Any, made: Any, stats: Any, label: str, **figures: Any) -> dict[str, Any]:
    assert not stats.problems, stats.problems[:10]
    assert not stats.unresolved, stats.unresolved[:10]
    settle = wait_settled(stack.redis_url, [m for m, _, _ in made], 30.0)
    audited = audit_all(stack.redis_url, stats.acks, [m for m, _, _ in made])
    summary = {**figures, **stats.summary()}
    summary["settle_seconds"] = round(settle, 1)
    summary["events"] = sum(a.events for a in audited)
    summary["system_runs"] = sum(a.system_runs for a in audited)
    print(f"\n{label}: {table(summary)}")
    return summary


def _keep_workers_up(stack: Any) -> int:
    """Restart a worker process that died of the outage (so the audit can still run), and
    count it: the tests then fail, since the worker must outlive outages."""
    restarted = 0
    for worker in list(stack.workers):
        if worker.proc.poll() is not None:
            stack.workers.remove(worker)
            stack.start_worker()
            restarted += 1
    return restarted


def _kill_run(stack: Any, private_redis: Any, matches: int, seconds: float, kills: int, seed: int):
    rng = random.Random(seed)
    stack.start_api(workers=2)
    stack.start_worker()
    made = create_matches(stack.base_url, matches, rng)
    restarts = {"workers": 0}

    def faults(stats: Any) -> None:
        end = time.monotonic() + seconds
        for _ in range(kills):
            time.sleep(rng.uniform(1.0, max(1.5, (end - time.monotonic()) / 2)))
            private_redis.kill9()
            time.sleep(rng.uniform(0.2, 1.0))
            private_redis.start()
            time.sleep(0.5)
            restarts["workers"] += _keep_workers_up(stack)
        while time.monotonic() < end:
            time.sleep(0.2)
        time.sleep(1.0)
        restarts["workers"] += _keep_workers_up(stack)

    stats = run_load(stack.base_url, made, seconds, seed=seed, timeout=3.0, during=faults)
    return made, stats, restarts


def test_redis_kill9_under_load_loses_no_acknowledged_event(stack: Any, private_redis: Any) -> None:
    """kill -9 of Redis (AOF, fsync always) at a random moment, restart, clients retry."""
    made, stats, restarts = _kill_run(stack, private_redis, 6, 10.0, kills=1, seed=21)
    summary = _audit(stack, made, stats, "redis kill -9", kills=private_redis.kills, **restarts)
    assert private_redis.kills == 1
    assert restarts["workers"] == 0, "the worker process died of the outage (workers/run.py)"
    assert summary["unknown_outcome_retries"] > 0, "the kill hit no request in flight"


@pytest.mark.slow
def test_redis_kill9_soak_many_kills(stack: Any, private_redis: Any) -> None:
    made, stats, restarts = _kill_run(stack, private_redis, 16, 40.0, kills=soak(2, 6), seed=22)
    _audit(stack, made, stats, "redis kill -9 soak", kills=private_redis.kills, **restarts)
    assert restarts["workers"] == 0, "the worker process died of an outage (workers/run.py)"


def _pause_run(stack: Any, private_redis: Any, seconds: float, pauses: int, seed: int):
    rng = random.Random(seed)
    stack.start_api(workers=2)
    stack.start_worker()
    made = create_matches(stack.base_url, 6, rng)

    def faults(stats: Any) -> None:
        end = time.monotonic() + seconds
        for _ in range(pauses):
            time.sleep(rng.uniform(1.0, 3.0))
            private_redis.pause()
            try:
                time.sleep(2.0)  # four times the clients' 0.5 s timeout
            finally:
                private_redis.resume()
        while time.monotonic() < end:
            time.sleep(0.2)

    stats = run_load(stack.base_url, made, seconds, seed=seed, timeout=0.5, during=faults)
    return made, stats


def test_redis_sigstop_longer_than_client_timeouts(stack: Any, private_redis: Any) -> None:
    """SIGSTOP for 2 s with 0.5 s client timeouts, then SIGCONT: same checks."""
    made, stats = _pause_run(stack, private_redis, 9.0, pauses=1, seed=31)
    summary = _audit(stack, made, stats, "redis SIGSTOP 2 s", pauses=private_redis.pauses)
    assert summary["unknown_outcome_retries"] > 0, "the pause timed out no request"


@pytest.mark.slow
def test_redis_sigstop_soak(stack: Any, private_redis: Any) -> None:
    made, stats = _pause_run(stack, private_redis, 40.0, pauses=8, seed=32)
    _audit(stack, made, stats, "redis SIGSTOP soak", pauses=private_redis.pauses)
