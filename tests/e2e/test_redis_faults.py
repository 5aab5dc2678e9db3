"""Redis killed or paused under load (issue 6, architecture.md "One move, end to end" 6).

The private redis-server keeps an append-only file with `appendfsync always`, so a write is
on disk before its reply. Under the load of test_load.py:
- `kill -9`, then a restart on the same port and directory: requests in flight get no answer
  (or a 503) and are sent again with the same Idempotency-Key;
- SIGSTOP for longer than the clients' timeout, then SIGCONT: the clients time out, retry,
  and the twins meet in the store.
Afterwards the audit (reliability_audit.py) finds zero acknowledged events lost, zero
duplicates, zero gaps, every log passes the replay check, and every match that is not over
moved on after the last fault (every seat can still move).

In `make test` each fault is timed to a move known to be in flight (issue 10): the load's
FaultGate holds the next POST of any seat, the fault is injected, and only then is the POST
sent, so it meets a dead or paused Redis and its outcome is unknown to the client whatever
the machine's speed. The soak variants inject their faults at random moments instead.
"""

from __future__ import annotations

import functools
import random
import time
from typing import Any

import pytest

from tests.support.reliability_audit import audit_all, table, wait_settled
from tests.support.reliability_load import create_matches, run_load
from tests.support.reliability_procs import soak
from tests.support.waiting import wait_until

PAUSE_SECONDS = 2.0
"""How long Redis stays stopped: four times the clients' 0.5 s timeout."""


def _audit(
    stack: Any, made: Any, stats: Any, since: float, label: str, **figures: Any
) -> dict[str, Any]:
    """The audit of reliability_audit.py, and every match not over moved on after `since`
    (the end of the last fault): every seat can still move."""
    assert not stats.problems, stats.problems[:10]
    assert not stats.unresolved, stats.unresolved[:10]
    settle = wait_settled(stack.redis_url, [m for m, _, _ in made], 30.0)
    audited = audit_all(stack.redis_url, stats.acks, [m for m, _, _ in made])
    summary = {**figures, **stats.summary()}
    summary["settle_seconds"] = round(settle, 1)
    summary["events"] = sum(a.events for a in audited)
    summary["system_runs"] = sum(a.system_runs for a in audited)
    print(f"\n{label}: {table(summary)}")
    moved = {ack.match_id for ack in stats.acks if ack.at > since}
    stuck = [a.match_id for a in audited if not a.finished and a.match_id not in moved]
    assert not stuck, f"no move acknowledged after the last fault in {stuck}"
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


def _fault_moment(stats: Any, rng: random.Random, gated: bool, seconds: float) -> None:
    """Gated: return once a seat's POST is held at the gate (released after the fault).
    Otherwise (soak): after a random while."""
    if gated:
        stats.gate.hold_next_post(30.0)
    else:
        time.sleep(rng.uniform(1.0, max(1.5, seconds)))


def _kill_run(
    stack: Any, private_redis: Any, matches: int, seconds: float, kills: int, seed: int, gated: bool
) -> tuple[Any, Any, dict[str, Any]]:
    rng = random.Random(seed)
    stack.start_api(workers=2)
    stack.start_worker()
    made = create_matches(stack.base_url, matches, rng)
    figures: dict[str, Any] = {"workers": 0, "last_fault": 0.0}

    def faults(stats: Any) -> None:
        for _ in range(kills):
            _fault_moment(stats, rng, gated, seconds / (2 * kills))
            try:
                private_redis.kill9()
            finally:
                stats.gate.release()  # the held POST meets an API whose Redis is gone
            time.sleep(rng.uniform(0.2, 1.0))  # the outage
            private_redis.start()
            figures["last_fault"] = time.monotonic()
            figures["workers"] += _keep_workers_up(stack)

    stats = run_load(stack.base_url, made, seconds, seed=seed, timeout=3.0, during=faults)
    figures["workers"] += _keep_workers_up(stack)
    return made, stats, figures


def test_redis_kill9_under_load_loses_no_acknowledged_event(stack: Any, private_redis: Any) -> None:
    """kill -9 of Redis (AOF, fsync always) while a move is in flight, restart, clients retry."""
    made, stats, figures = _kill_run(stack, private_redis, 6, 10.0, kills=1, seed=21, gated=True)
    since, workers = figures["last_fault"], figures["workers"]
    summary = _audit(
        stack, made, stats, since, "redis kill -9", kills=private_redis.kills, workers=workers
    )
    assert private_redis.kills == 1
    assert figures["workers"] == 0, "the worker process died of the outage (workers/run.py)"
    assert summary["unknown_outcome_retries"] > 0, "the move held at the kill was not retried"


@pytest.mark.slow
def test_redis_kill9_soak_many_kills(stack: Any, private_redis: Any) -> None:
    """Kills at random moments (exploring the timing the gated test pins)."""
    kills = soak(2, 6)
    made, stats, figures = _kill_run(stack, private_redis, 16, 40.0, kills, seed=22, gated=False)
    since, workers = figures["last_fault"], figures["workers"]
    _audit(
        stack, made, stats, since, "redis kill -9 soak", kills=private_redis.kills, workers=workers
    )
    assert private_redis.kills == kills
    assert workers == 0, "the worker process died of an outage (workers/run.py)"


def _pause_run(
    stack: Any, private_redis: Any, seconds: float, pauses: int, seed: int, gated: bool
) -> tuple[Any, Any, float]:
    rng = random.Random(seed)
    stack.start_api(workers=2)
    stack.start_worker()
    made = create_matches(stack.base_url, 6, rng)
    last = [0.0]

    def faults(stats: Any) -> None:
        for _ in range(pauses):
            _fault_moment(stats, rng, gated, 3.0)
            with stats.lock:
                before = stats.counts["unknown_outcome_retries"]
            try:
                private_redis.pause()
            finally:
                stats.gate.release()  # the held POST meets a stopped Redis
            stopped = time.monotonic()
            try:
                wait_until(
                    functools.partial(_held_long_enough, stats, stopped, before, gated),
                    30.0,
                    f"a move to time out while Redis is stopped (at least {PAUSE_SECONDS} s)",
                )
            finally:
                private_redis.resume()
            last[0] = time.monotonic()

    stats = run_load(stack.base_url, made, seconds, seed=seed, timeout=0.5, during=faults)
    return made, stats, last[0]


def _held_long_enough(stats: Any, stopped: float, before: int, gated: bool) -> bool:
    """PAUSE_SECONDS passed, and (gated) the held POST timed out and was sent again."""
    with stats.lock:
        retried = stats.counts["unknown_outcome_retries"] > before
    return time.monotonic() - stopped >= PAUSE_SECONDS and (retried or not gated)


def test_redis_sigstop_longer_than_client_timeouts(stack: Any, private_redis: Any) -> None:
    """SIGSTOP for 2 s with 0.5 s client timeouts while a move is in flight, then SIGCONT."""
    made, stats, last = _pause_run(stack, private_redis, 9.0, pauses=1, seed=31, gated=True)
    summary = _audit(stack, made, stats, last, "redis SIGSTOP 2 s", pauses=private_redis.pauses)
    assert summary["unknown_outcome_retries"] > 0, "the move held at the pause was not retried"


@pytest.mark.slow
def test_redis_sigstop_soak(stack: Any, private_redis: Any) -> None:
    """Pauses at random moments (exploring the timing the gated test pins)."""
    made, stats, last = _pause_run(stack, private_redis, 40.0, pauses=8, seed=32, gated=False)
    _audit(stack, made, stats, last, "redis SIGSTOP soak", pauses=private_redis.pauses)
