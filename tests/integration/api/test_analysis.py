"""GET /v1/matches/{id}/analysis and the annotated export (issue 33): 404 during play (no
analysis ever leaks a hand), 202 with Retry-After while the job runs, the analysis when done.
Every response is checked against openapi.yaml by the client (conftest.CheckedClient)."""

from __future__ import annotations

import json
import random
from typing import Any

from rq import Queue, SimpleWorker
from rq.serializers import JSONSerializer

from store.analysis import analysis_key
from store.jobs import ANALYSIS, QUEUES
from tests.support.api_helpers import auth, create, play, problem, run_jobs
from workers.connection import set_service

BOTS = {0: "basic", 1: "basic", 2: "random"}


def _run_play_jobs(service: Any) -> None:
    """Every queued job but the analysis (so the test sees the analysis still running)."""
    connection = service.queues.connection
    names = [name for name in QUEUES if name != ANALYSIS]
    queues = [Queue(name, connection=connection, serializer=JSONSerializer) for name in names]
    set_service(service)
    try:
        SimpleWorker(queues, connection=connection, serializer=JSONSerializer).work(
            burst=True, logging_level="WARNING"
        )
    finally:
        set_service(None)


def _finished_bot_match(client: Any, service: Any) -> str:
    match_id, _ = create(
        client, "three-hand-gin", 3, seed=5, options={"target_score": 30}, bots=BOTS
    )
    for _ in range(50):
        _run_play_jobs(service)
        if client.get(f"/v1/matches/{match_id}").get_json()["status"] == "finished":
            return match_id
    raise AssertionError("the bot match did not finish")


def test_no_analysis_while_the_match_is_in_play(client: Any, service: Any) -> None:
    match_id, tokens = create(client, "three-hand-gin", 3, seed=3)
    for token in (None, *tokens):
        response = client.get(f"/v1/matches/{match_id}/analysis", headers=auth(token))
        problem(response, 404, "match_not_finished")
    problem(client.get(f"/v1/matches/{match_id}/log?annotations=true"), 403, "match_in_progress")
    assert service.redis.get(analysis_key(match_id)) is None


def test_unknown_match_is_404_unknown_match(client: Any) -> None:
    problem(client.get("/v1/matches/m_nothing/analysis"), 404, "unknown_match")


def test_running_then_done(client: Any, service: Any) -> None:
    match_id = _finished_bot_match(client, service)
    running = client.get(f"/v1/matches/{match_id}/analysis")
    assert running.status_code == 202
    assert running.headers["Retry-After"] == "2"
    assert running.get_json()["status"] == "running"
    export = client.get(f"/v1/matches/{match_id}/log?annotations=true")
    assert export.status_code == 202 and export.headers["Retry-After"] == "2"
    run_jobs(service)
    done = client.get(f"/v1/matches/{match_id}/analysis")
    assert done.status_code == 200
    body = done.get_json()
    assert body["id"] == match_id and body["variant"] == "three-hand-gin"
    assert done.headers["ETag"] == f'"{body["version"]}"'
    assert [s["name"] for s in body["seats"]] == ["ana", "ben", "cy"]
    assert body["decisions"] and all(d["judgment"] for d in body["decisions"])


def test_a_lost_job_is_made_again_by_the_request(client: Any, service: Any) -> None:
    match_id = _finished_bot_match(client, service)
    service.queues.connection.delete(f"rq:queue:{ANALYSIS}")  # the job is lost
    assert client.get(f"/v1/matches/{match_id}/analysis").status_code == 202
    run_jobs(service)
    assert client.get(f"/v1/matches/{match_id}/analysis").status_code == 200


def test_the_export_carries_the_judgments(client: Any, service: Any) -> None:
    match_id, tokens = create(client, "three-hand-gin", 3, seed=9, options={"target_score": 30})
    play(client, service, match_id, tokens, random.Random(2))
    run_jobs(service)
    plain = client.get(f"/v1/matches/{match_id}/log").get_data(as_text=True).splitlines()
    annotated = client.get(f"/v1/matches/{match_id}/log?annotations=true")
    assert annotated.status_code == 200
    lines = [json.loads(line) for line in annotated.get_data(as_text=True).splitlines()]
    assert len(lines) == len(plain)
    judged = [line for line in lines if "annotation" in line]
    analysis = client.get(f"/v1/matches/{match_id}/analysis").get_json()
    assert len(judged) == len(analysis["decisions"]) > 0
    for line in judged:
        assert line["annotation"]["seq"] == line["seq"]
    stripped = [
        {k: v for k, v in line.items() if k not in ("annotation", "hindsight")} for line in lines
    ]
    assert stripped == [json.loads(line) for line in plain]
