"""A lobby that is not full by its deadline is cancelled exactly once (issue 30): by the job
on rq's own scheduler, or by the first request that finds it past due, whichever comes
first. The scheduler is driven by hand (RQScheduler.enqueue_scheduled_jobs, then a burst
worker), and the service's clock is moved by hand: nothing sleeps."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from rq import Queue
from rq.scheduler import RQScheduler
from rq.serializers import JSONSerializer

from api import create_app
from store.jobs import QUEUES
from store.lobby import expire_job_id, lobby_service
from store.service import MatchService
from tests.support.lobby_helpers import FakeClock, race
from tests.support.workers_play import burst
from workers.connection import set_service
from workers.lobby import expire_lobby
from workers.reconcile import reconcile

PLAYERS: list[dict[str, Any]] = [{"name": "ana"}, {"open": True}, {"open": True}]


@pytest.fixture
def clock(service: MatchService) -> Iterator[FakeClock]:
    """The service's clock an hour in the past, so the deadline it sets is in the past for
    rq's scheduler (which reads the real time) and the test decides when it has passed."""
    fake = service.clock = FakeClock(time.time() - 3600)
    set_service(service)
    yield fake
    set_service(None)


def _open(service: MatchService, listed: bool = True) -> str:
    created = lobby_service(service).create(
        "three-hand-gin", PLAYERS, {}, None, listed=listed, ttl_s=600,
        idempotency_key=None, fingerprint=None,
    )  # fmt: skip
    return created.match_id


def _scheduler(service: MatchService) -> None:
    """One pass of rq's scheduler (what a worker `with_scheduler=True` does every second)."""
    connection = service.queues.connection
    queues = [Queue(name, connection=connection, serializer=JSONSerializer) for name in QUEUES]
    scheduler = RQScheduler(queues, connection, serializer=JSONSerializer)
    scheduler.acquire_locks()  # type: ignore[no-untyped-call]
    try:
        scheduler.enqueue_scheduled_jobs()  # type: ignore[no-untyped-call]
    finally:
        scheduler.release_locks()  # type: ignore[no-untyped-call]


def _cancels(service: MatchService, match_id: str) -> int:
    return sum(1 for e in service.events(match_id, 0, 1000) if e.event.type == "MatchCancelled")


def test_the_scheduled_job_cancels_a_lobby_past_its_deadline_once(
    service: MatchService, clock: FakeClock
) -> None:
    match_id = _open(service)
    scheduled = Queue("scoring", connection=service.queues.connection).scheduled_job_registry
    assert expire_job_id(match_id) in scheduled.get_job_ids()
    clock.advance(599)
    _scheduler(service)
    burst(service.queues.connection)  # the job runs before the deadline: nothing happens
    assert _cancels(service, match_id) == 0
    lobby_service(service)._schedule(match_id, int((time.time() - 10) * 1000))
    clock.advance(2)
    _scheduler(service)
    burst(service.queues.connection)
    assert _cancels(service, match_id) == 1
    lobby_service(service)._schedule(match_id, int((time.time() - 10) * 1000))
    _scheduler(service)
    burst(service.queues.connection)
    assert _cancels(service, match_id) == 1
    state = service.load(match_id).state
    assert state.lobby is not None and state.lobby.reason == "lobby_expired"
    assert service.is_finished(match_id)


def test_a_late_request_cancels_first_and_the_job_then_finds_nothing(
    service: MatchService, clock: FakeClock
) -> None:
    match_id = _open(service)
    clock.advance(601)
    client = create_app({"TESTING": True, "SERVICE": service}).test_client()
    view = client.get(f"/v1/matches/{match_id}").get_json()
    assert view["lobby"]["status"] == "cancelled" and view["lobby"]["cancelled"] == "lobby_expired"
    assert view["status"] == "finished"
    joined = client.post(f"/v1/matches/{match_id}/join", json={"name": "late"})
    assert joined.status_code == 410 and joined.get_json()["code"] == "lobby_closed"
    _scheduler(service)
    burst(service.queues.connection)
    assert _cancels(service, match_id) == 1
    assert client.get("/v1/lobby").get_json()["matches"] == []


@pytest.mark.parametrize("path", ["/events", "/events/stream", "/hint", "/legal-moves", ""])
def test_every_read_of_a_match_past_its_deadline_cancels_it_once(
    service: MatchService, clock: FakeClock, path: str
) -> None:
    """Issue 30: any request that finds the lobby past due expires it (the events page, the
    live stream, a hint, the legal moves and the view alike), and a second read adds nothing."""
    match_id = _open(service)
    clock.advance(601)
    client = create_app({"TESTING": True, "SERVICE": service}).test_client()
    first = client.get(f"/v1/matches/{match_id}{path}")
    assert _cancels(service, match_id) == 1, first.get_data(as_text=True)[:300]
    client.get(f"/v1/matches/{match_id}{path}")
    assert _cancels(service, match_id) == 1
    view = client.get(f"/v1/matches/{match_id}").get_json()
    assert view["lobby"]["status"] == "cancelled" and view["lobby"]["cancelled"] == "lobby_expired"


def test_racing_late_requests_and_the_job_cancel_once(
    service: MatchService, clock: FakeClock
) -> None:
    match_id = _open(service)
    clock.advance(601)
    app = create_app({"TESTING": True, "SERVICE": service})

    def send(i: int) -> Any:
        if i == 0:  # the job's own function (a worker's signal handlers need the main thread)
            return expire_lobby(match_id)
        return app.test_client().post(f"/v1/matches/{match_id}/join", json={"name": f"p{i}"})

    results = race(8, send)
    assert all(r.status_code == 410 for r in results[1:])
    assert _cancels(service, match_id) == 1
    _scheduler(service)
    burst(service.queues.connection)  # the scheduled job, too late: nothing more
    assert _cancels(service, match_id) == 1


def test_the_reconciler_cancels_past_due_and_reindexes_a_listed_lobby(
    service: MatchService, clock: FakeClock
) -> None:
    listed, due = _open(service), _open(service, listed=False)
    service.redis.delete("deadwood:lobby", "deadwood:lobby:three-hand-gin")
    clock.advance(300)
    reconcile(service)
    assert service.redis.zcard("deadwood:lobby") == 1
    assert _cancels(service, listed) == 0
    clock.advance(301)
    reconcile(service)
    assert _cancels(service, listed) == 1 and _cancels(service, due) == 1


def test_a_move_in_a_match_past_its_deadline_cancels_it_first(
    service: MatchService, clock: FakeClock
) -> None:
    created = lobby_service(service).create(
        "three-hand-gin", PLAYERS, {}, None, listed=False, ttl_s=60,
        idempotency_key=None, fingerprint=None,
    )  # fmt: skip
    token = created.tokens[0]
    client = create_app({"TESTING": True, "SERVICE": service}).test_client()
    headers = {"Authorization": f"Bearer {token}"}
    move = {"type": "draw", "from": "stock"}
    early = client.post(f"/v1/matches/{created.match_id}/moves", json=move, headers=headers)
    assert early.status_code == 409 and early.get_json()["code"] == "match_not_started"
    clock.advance(61)
    late = client.post(f"/v1/matches/{created.match_id}/moves", json=move, headers=headers)
    assert late.status_code == 410 and late.get_json()["code"] == "lobby_closed"
    assert _cancels(service, created.match_id) == 1
