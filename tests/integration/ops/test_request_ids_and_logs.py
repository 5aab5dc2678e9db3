"""Request ids and logs (issue 34): an id accepted or made, echoed in the response and in
problem bodies, carried into the jobs a request enqueues and onto the worker's log lines;
JSON lines with the request's fields and never a token."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from typing import Any

import pytest
from flask.testing import FlaskClient
from rq import Queue
from rq.job import Job
from rq.serializers import JSONSerializer

from store import logs
from store.jobs import QUEUES
from tests.support.api_helpers import auth, create, players, problem
from tests.support.log_setup import unconfigure_logs
from workers.connection import set_service
from workers.run import ObservedSimpleWorker

HEX_ID = re.compile(r"[0-9a-f]{24}")


@pytest.fixture
def json_lines(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Iterator[Any]:
    """Logs configured as in production (JSON, INFO) into the captured stderr."""
    monkeypatch.setenv("DEADWOOD_LOG_FORMAT", "json")
    monkeypatch.setenv("DEADWOOD_LOG_LEVEL", "INFO")
    logs.configure("test", force=True)  # writes the lines buffered before, then drops them
    capsys.readouterr()

    def read() -> list[dict[str, Any]]:
        logs.flush_access()  # access lines are buffered (store/flushing.py)
        return [json.loads(line) for line in capsys.readouterr().err.splitlines() if line]

    yield read
    unconfigure_logs()


def test_a_valid_request_id_is_echoed(client: FlaskClient) -> None:
    response = client.get("/v1/health/live", headers={"X-Request-ID": "bot-7:turn.42"})
    assert response.headers["X-Request-ID"] == "bot-7:turn.42"


@pytest.mark.parametrize("given", ["", "x" * 129, "two words", "a\tb", "caf\u00e9", "<script>"])
def test_an_unusable_request_id_is_replaced_by_a_new_one(client: FlaskClient, given: str) -> None:
    response = client.get("/v1/health/live", headers={"X-Request-ID": given})
    assert HEX_ID.fullmatch(response.headers["X-Request-ID"])


def test_without_one_each_request_gets_its_own(client: FlaskClient) -> None:
    first = client.get("/v1/health/live").headers["X-Request-ID"]
    second = client.get("/v1/health/live").headers["X-Request-ID"]
    assert HEX_ID.fullmatch(first) and HEX_ID.fullmatch(second) and first != second


def test_problem_bodies_carry_the_request_id(client: FlaskClient) -> None:
    response = client.get("/v1/matches/m_nope", headers={"X-Request-ID": "req-404"})
    body = problem(response, 404, "unknown_match")
    assert body["request_id"] == "req-404" == response.headers["X-Request-ID"]
    refused = client.post("/v1/matches", data="{", headers={"Content-Type": "application/json"})
    assert problem(refused, 400, "bad_request")["request_id"] == refused.headers["X-Request-ID"]


def test_the_jobs_a_request_enqueues_carry_its_id_in_meta_not_in_args(
    client: FlaskClient, service: Any
) -> None:
    """A match of bots only: its create enqueues the first bot turn."""
    body = {"variant": "three-hand-gin", "players": players(3, dict.fromkeys(range(3), "random"))}
    response = client.post("/v1/matches", json=body, headers={"X-Request-ID": "create-bots"})
    assert response.status_code == 201
    match_id = response.get_json()["id"]
    jobs = _all_jobs(service)
    assert jobs, "the create should have made a follow-up job"
    for job in jobs:
        assert job.args == [match_id, job.args[1]]  # the match id and a version, nothing else
        assert job.meta.get("request_id") == "create-bots"


def test_json_lines_carry_the_request_fields_and_never_a_token(
    client: FlaskClient, service: Any, json_lines: Any
) -> None:
    match_id, tokens = create(client, seed=5)
    json_lines()  # drop the create's lines
    for seat, token in enumerate(tokens):
        client.post(
            f"/v1/matches/{match_id}/moves",
            json={"type": "draw", "from": "stock"},
            headers={**auth(token), "X-Request-ID": f"seat-{seat}"},
        )
    lines = json_lines()
    access = [line for line in lines if line["logger"] == "deadwood.access"]
    assert len(access) == 3
    for seat, line in enumerate(access):
        assert {"time", "level", "logger", "message", "request_id", "match_id", "seat"} <= set(line)
        assert line["request_id"] == f"seat-{seat}"
        assert line["match_id"] == match_id
        assert line["seat"] == seat
        assert line["route"] == "/v1/matches/<match_id>/moves"
        assert line["duration_ms"] >= 0
        assert 200 <= line["status"] < 500
    text = json.dumps(lines)
    assert not any(token and token in text for token in tokens)


def test_a_bearer_token_in_a_message_is_redacted(json_lines: Any) -> None:
    logging.getLogger("deadwood.test").warning("header was Bearer s3cr3t-t0ken, oops")
    (line,) = json_lines()
    assert "s3cr3t" not in line["message"] and "[redacted]" in line["message"]


def test_the_worker_logs_a_job_with_its_match_and_request_id(
    client: FlaskClient, service: Any, json_lines: Any
) -> None:
    match_id, _ = create(client, bots=dict.fromkeys(range(3), "random"), seed=3)
    rid = "bots-please"
    for job in _all_jobs(service):
        job.meta["request_id"] = rid
        job.save_meta()  # type: ignore[no-untyped-call]
    json_lines()
    _burst_one(service)
    lines = json_lines()
    job_lines = [line for line in lines if line["logger"] == "rq.worker" and line["match_id"]]
    assert job_lines, lines
    assert all(line["match_id"] == match_id for line in job_lines)
    assert any(line["request_id"] == rid for line in job_lines)


def _all_jobs(service: Any) -> list[Job]:
    connection = service.queues.connection
    ids = [i for name in QUEUES for i in Queue(name, connection=connection).job_ids]
    return [Job.fetch(i, connection=connection, serializer=JSONSerializer) for i in ids]


def _burst_one(service: Any) -> None:
    connection = service.queues.connection
    queues = [Queue(name, connection=connection, serializer=JSONSerializer) for name in QUEUES]
    set_service(service)
    try:
        worker = ObservedSimpleWorker(queues, connection=connection, serializer=JSONSerializer)
        worker.work(burst=True, max_jobs=1, logging_level="INFO")
    finally:
        set_service(None)


def test_an_exception_is_logged_by_class_and_frames_never_its_message(json_lines: Any) -> None:
    try:
        raise KeyError("AS 7H secret hand")
    except KeyError:
        logging.getLogger("deadwood.test").exception("could not load")
    (line,) = json_lines()
    assert line["exception"] == "KeyError" and "test_request_ids_and_logs.py" in line["frames"]
    assert "7H" not in json.dumps(line)


def test_a_hostile_path_cannot_forge_a_log_line(client: FlaskClient, capsys: Any) -> None:
    logs.configure("test", force=True)
    try:
        capsys.readouterr()
        client.get("/v1/matches/m_x%0A2026-01-01T00:00:00Z%20INFO%20forged/legal-moves")
        logs.flush_access()
        err = capsys.readouterr().err
    finally:
        unconfigure_logs()
    access = [line for line in err.splitlines() if "deadwood.access" in line]
    assert len(access) == 1 and "(not a match id)" in access[0]
    assert not any(line.startswith("2026-01-01") for line in err.splitlines())
