"""Helpers for clock tests (issue 31): a fake clock injected into the service, and the rq
scheduler driven from the test (no sleeping)."""

from __future__ import annotations

import threading
import time
from typing import Any
from unittest import mock

import redis
from rq import Queue
from rq.registry import ScheduledJobRegistry
from rq.scheduler import RQScheduler
from rq.serializers import JSONSerializer

from store.jobs import DEADLINES, QUEUES
from store.service import MatchService
from tests.support.workers_play import burst

MANIP = "manipulation-rummy"
GIN = "three-hand-gin"


class FakeClock:
    """Unix seconds that move only when told. It starts well in the past, so a deadline it
    sets is already due for rq's scheduler (which reads the real time) once it has passed on
    this clock."""

    def __init__(self, start: float | None = None) -> None:
        self.now = (time.time() - 100_000) if start is None else start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def clocked_service(client: redis.Redis, clock: FakeClock) -> MatchService:
    return MatchService(client, pepper=b"test-pepper", clock=clock)


def run_scheduler(client: redis.Redis) -> None:
    """Move every due scheduled job to its queue (rq's own scheduler, one pass), then run the
    queues with a burst worker."""
    queues = [Queue(name, connection=client, serializer=JSONSerializer) for name in QUEUES]
    scheduler: Any = RQScheduler(queues, connection=client, serializer=JSONSerializer)
    scheduler.acquire_locks()
    try:
        scheduler.enqueue_scheduled_jobs()
    finally:
        scheduler.release_locks()
    burst(client)


def run_due(client: redis.Redis, clock: FakeClock) -> None:
    """`run_scheduler` with rq's scheduler reading the fake clock: only the jobs due by it are
    queued, as the workers' scheduler would at that time (the jobs those run schedule wait
    for a later pass)."""
    with mock.patch("rq.scheduler.current_timestamp", clock):
        run_scheduler(client)


def scheduled_ids(client: redis.Redis) -> list[str]:
    queue = Queue(DEADLINES, connection=client, serializer=JSONSerializer)
    registry: Any = ScheduledJobRegistry
    return list(registry(queue=queue).get_job_ids())


def types(service: MatchService, match_id: str) -> list[str]:
    return [item.event.type for item in service.events(match_id, limit=1000)]


def humans(n: int) -> list[dict[str, Any]]:
    return [{"name": f"p{seat}"} for seat in range(n)]


def first_legal(service: MatchService, match_id: str) -> tuple[int, dict[str, Any]]:
    """(the seat to act, its first legal move)."""
    loaded = service.load(match_id)
    seat = loaded.variant.to_act(loaded.state)
    assert seat is not None
    return seat, dict(loaded.variant.legal_moves(loaded.state, seat)[0])


def race(
    mover: MatchService,
    timer: MatchService,
    match_id: str,
    seat: int,
    move: dict[str, object],
    version: int,
    job_version: int | None = None,
) -> list[str]:
    """A move and the deadline job at the same version, each on its own service and thread:
    what each did ("move" or its refusal, the job's note). The job is (match, `job_version`)
    when given: an older job that carries the turn (store/clock.py)."""
    outcomes: list[str] = []

    def move_now() -> None:
        try:
            mover.submit(
                match_id,
                seat,
                move,
                expected_version=version,
                idempotency_key=None,
                fingerprint="",
            )
            outcomes.append("move")
        except Exception as error:
            outcomes.append(type(error).__name__)

    def deadline_now() -> None:
        job = version if job_version is None else job_version
        outcomes.append(timer.apply_deadline(match_id, job).split(":")[0])

    threads = [threading.Thread(target=move_now), threading.Thread(target=deadline_now)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes
