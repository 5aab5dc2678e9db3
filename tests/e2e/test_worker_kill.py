"""Worker killed mid-job (issue 6; architecture.md: jobs idempotent by job id and version, the
reconciler heals a lost follow-up).

Matches of server bots only: every move is an rq job (bot turns, round scoring, deals). The
worker runs with `--fork`, so each job runs in a work horse (which rq puts in a process group
of its own). While a horse runs a job that has not appended yet (rq marked it STARTED), the
horse and the worker's process group (the worker, its scheduler and reconciler timer) get
SIGKILL; a new worker starts (it reconciles at start and every second). Once a bot job is
killed, once a scoring job. Afterwards every match finishes, every round is scored exactly
once, and every event of each log is the deterministic move of the bot or SYSTEM job due at
its version (reliability_audit.py).
"""

from __future__ import annotations

import os
import random
import signal
import time
from collections import Counter
from typing import Any

import pytest
import redis
from rq import Worker
from rq.job import Job
from rq.serializers import JSONSerializer

from store.service import MatchService
from tests.support.reliability_audit import audit_all, table
from tests.support.reliability_procs import soak

GIN_BOTS = [{"name": n, "bot": "basic"} for n in ("ana", "ben", "cy")]
MANIP_BOTS = [{"name": n, "bot": "basic"} for n in ("dee", "eve")]


def _create(service: MatchService, count: int) -> list[str]:
    made = []
    for i in range(count):
        if i % 2 == 0:
            created = service.create_match(
                "three-hand-gin", GIN_BOTS, {"target_score": 10}, None, f"wk-{i}", "f"
            )
        else:
            created = service.create_match(
                "manipulation-rummy", MANIP_BOTS, {"target_score": 25}, None, f"wk-{i}", "f"
            )
        made.append(created.match_id)
    return made


def _current_job(client: redis.Redis, pid: int) -> str | None:
    """The job the rq worker of process `pid` is running now (rq's own worker record)."""
    for found in Worker.all(connection=client, serializer=JSONSerializer):
        if found.pid == pid:
            return found.get_current_job_id()
    return None


def _horse(worker: Any) -> int | None:
    """The worker's work horse: the child rq forks for one job, which puts itself in a
    process group of its own (its scheduler and reconciler timer stay in the worker's)."""
    for pid in worker.children():
        try:
            if os.getpgid(pid) == pid:
                return pid
        except ProcessLookupError:
            continue
    return None


def _kill_mid_job(
    worker: Any, client: redis.Redis, service: MatchService, prefixes: tuple[str, ...]
) -> str:
    """SIGKILL the worker's work horse and the worker's process group (the worker, its
    scheduler and reconciler timer) while the horse runs a job whose id starts with one of
    `prefixes` (any job after 10 s), before that job appended.

    When a horse appears with a wanted job, we wait until rq marks the job STARTED (the horse
    runs it), stop the horse and the worker (SIGSTOP), and kill both only when the job's match
    is still at the job's version (the job has not appended); otherwise both go on (SIGCONT)
    and we wait for the next horse."""
    started = time.monotonic()
    group = worker.proc.pid
    while time.monotonic() - started < 30.0:
        horse = _horse(worker)
        job_id = _current_job(client, worker.proc.pid) if horse is not None else None
        if horse is None or job_id is None:
            time.sleep(0.0005)
            continue
        wanted = time.monotonic() - started > 10.0 or job_id.startswith(prefixes)
        if wanted and _running(client, job_id, horse):
            os.kill(horse, signal.SIGSTOP)
            os.killpg(group, signal.SIGSTOP)
            match_id, version = Job.fetch(job_id, connection=client, serializer=JSONSerializer).args
            if service.store.version(match_id) == version:
                os.kill(horse, signal.SIGKILL)
                os.killpg(group, signal.SIGKILL)
                worker.proc.wait(timeout=10)
                return job_id
            os.killpg(group, signal.SIGCONT)
            os.kill(horse, signal.SIGCONT)
        _wait_for(lambda horse=horse: _horse(worker) != horse, 10.0)
    raise AssertionError("no job was caught before its append within 30 s")


def _running(client: redis.Redis, job_id: str, horse: int) -> bool:
    """Wait (up to 2 s, while the horse lives) until rq marks the job started."""
    deadline = time.monotonic() + 2.0
    while time.monotonic() < deadline and os.path.exists(f"/proc/{horse}"):
        if client.hget(Job.key_for(job_id), "status") == b"started":
            return True
        time.sleep(0.0002)
    return False


def _wait_for(condition: Any, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.001)


def _finished(service: MatchService, match_ids: list[str], seconds: float) -> float:
    started = time.monotonic()
    waiting = list(match_ids)
    while waiting:
        waiting = [m for m in waiting if not service.is_finished(m)]
        if waiting and time.monotonic() - started > seconds:
            versions = {m: service.load(m)[1] for m in waiting}
            raise AssertionError(f"matches not finished after {seconds} s: {versions}")
        time.sleep(0.1)
    return time.monotonic() - started


def _scored_once(service: MatchService, match_id: str) -> int:
    log = [s.event for s in service.store.read(match_id)]
    dealt = Counter(e.data["round"] for e in log if e.type == "RoundDealt")
    scored = Counter(e.data["round"] for e in log if e.type == "RoundScored")
    assert all(n == 1 for n in dealt.values()), f"{match_id}: a round dealt twice: {dealt}"
    assert scored == dealt, f"{match_id}: rounds dealt {dealt}, scored {scored}"
    assert sum(e.type == "MatchFinished" for e in log) <= 1
    return len(scored)


def _run(stack: Any, private_redis: Any, matches: int, kills: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    client = private_redis.client()
    service = MatchService(client, pepper=b"wk")
    worker = stack.start_worker(fork=True)
    made = _create(service, matches)
    killed: list[str] = []
    for k in range(kills):
        time.sleep(rng.uniform(0.2, 1.0))
        prefixes = ("bot-",) if k % 2 == 0 else ("score-", "system-")
        job_id = _kill_mid_job(worker, client, service, prefixes)
        job = Job.fetch(job_id, connection=client, serializer=JSONSerializer)
        killed.append(f"{job_id} ({job.get_status()} when killed)")
        stack.workers.remove(worker)
        worker = stack.start_worker(fork=True)
    finish = _finished(service, made, 90.0)
    rounds = sum(_scored_once(service, m) for m in made)
    audited = audit_all(stack.redis_url, [], made)
    summary = {
        "matches": matches,
        "kills": kills,
        "jobs_running_when_killed": killed,
        "seconds_to_finish_after_last_restart": round(finish, 1),
        "rounds_scored": rounds,
        "events": sum(a.events for a in audited),
    }
    client.close()
    return summary


def test_worker_killed_mid_job_every_round_scored_once_every_match_finishes(
    stack: Any, private_redis: Any
) -> None:
    summary = _run(stack, private_redis, matches=4, kills=2, seed=41)
    print(f"\nworker kill -9: {table(summary)}")
    killed = summary["jobs_running_when_killed"]
    assert len(killed) == 2 and killed[0].startswith("bot-")


@pytest.mark.slow
def test_worker_kill_soak(stack: Any, private_redis: Any) -> None:
    summary = _run(stack, private_redis, matches=10, kills=soak(3, 10), seed=42)
    print(f"\nworker kill -9 soak: {table(summary)}")
