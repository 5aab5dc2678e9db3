"""Liveness and readiness (issue 34): /v1/health/live answers whenever the process does;
/v1/health/ready names the part that is not ready (event store, queue, workers) in a 503
problem; /v1/health keeps its meaning."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient
from redis.backoff import NoBackoff
from redis.retry import Retry
from rq import SimpleWorker

from api import create_app
from cli.procs import free_port
from store.service import MatchService
from tests.support.api_helpers import problem


@pytest.fixture
def live_worker(service: MatchService) -> Iterator[SimpleWorker]:
    worker = SimpleWorker(["scoring"], connection=service.queues.connection)
    worker.register_birth()  # type: ignore[no-untyped-call]
    yield worker
    worker.register_death()  # type: ignore[no-untyped-call]


def _nowhere() -> redis.Redis:
    """A client of a port where nothing listens (refused at once, no retries)."""
    return redis.Redis(port=free_port(), socket_connect_timeout=0.5, retry=Retry(NoBackoff(), 0))


def test_live_answers_without_reading_anything(service: MatchService) -> None:
    down = MatchService(_nowhere())
    client = create_app({"TESTING": True, "SERVICE": down}).test_client()
    response = client.get("/v1/health/live")
    assert response.status_code == 200 and response.get_json() == {"status": "live"}
    problem(client.get("/v1/health"), 503, "store_unavailable")  # unchanged meaning


def test_ready_with_store_queue_and_a_live_worker(
    client: FlaskClient, live_worker: SimpleWorker
) -> None:
    response = client.get("/v1/health/ready")
    assert response.status_code == 200
    assert response.get_json() == {
        "status": "ready",
        "checks": {"event_store": "ok", "queue": "ok", "workers": "ok"},
        "stalled": 0,
    }


def test_ready_counts_the_stalled_matches(
    client: FlaskClient, live_worker: SimpleWorker, service: MatchService
) -> None:
    """A match whose system job used its retries (issue 31) shows, and the service stays
    ready (an operator's to mend)."""
    created = service.create_match("manipulation-rummy", [{"name": "a"}, {"name": "b"}], {}, 5)
    service.stall(created.match_id, "system-x-1", "RuntimeError: broken")
    response = client.get("/v1/health/ready")
    assert response.status_code == 200 and response.get_json()["stalled"] == 1


def test_not_ready_without_a_worker(client: FlaskClient) -> None:
    body = problem(client.get("/v1/health/ready"), 503, "not_ready")
    assert body["checks"]["workers"] == "no live rq worker"
    assert "workers" in body["detail"] and "event_store" not in body["detail"]


def test_a_worker_marked_dead_does_not_count(client: FlaskClient, service: MatchService) -> None:
    worker = SimpleWorker(["scoring"], connection=service.queues.connection)
    worker.register_birth()  # type: ignore[no-untyped-call]
    worker.register_death()  # type: ignore[no-untyped-call]
    problem(client.get("/v1/health/ready"), 503, "not_ready")


def test_not_ready_names_the_queue_and_the_event_store(redis_client: redis.Redis) -> None:
    queue_down = MatchService(redis_client, queue_redis=_nowhere())
    body = _ready_problem(queue_down)
    assert body["checks"]["queue"] == "does not answer PING"
    assert body["checks"]["event_store"] == "ok"
    store_down = MatchService(_nowhere(), queue_redis=redis_client)
    body = _ready_problem(store_down)
    assert body["checks"]["event_store"] == "does not answer PING"
    assert "event_store" in body["detail"]


def _ready_problem(service: MatchService) -> Any:
    client = create_app({"TESTING": True, "SERVICE": service}).test_client()
    return problem(client.get("/v1/health/ready"), 503, "not_ready")
