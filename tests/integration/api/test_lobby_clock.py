"""A lobby match with a clock (issues 30 and 31): the clock is pinned in MatchCreated, none
runs while the match waits, and the last join's append (MatchStarted and the deal) starts the
first turn's clock and schedules its deadline job, exactly as a plain create does.

Real Redis, the real app (responses checked against openapi.yaml), rq's scheduler driven from
the test with a burst worker, and a fake clock in the service (nothing sleeps)."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from cli.client import main as cli_main
from deadwood_client.logfile import check
from store.clock import deadline_job_id
from store.service import MatchService
from tests.support.api_helpers import auth, play
from tests.support.clock_play import FakeClock, clocked_service, run_scheduler, scheduled_ids
from tests.support.lobby_helpers import event_types, open_body
from workers.connection import set_service

PER_MOVE = {"mode": "per_move", "move_s": 2}


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def service(redis_client: redis.Redis, clock: FakeClock) -> Iterator[MatchService]:
    svc = clocked_service(redis_client, clock)
    set_service(svc)  # the burst worker's service: the same fake clock
    yield svc
    set_service(None)


def _open(client: Any, clock: dict[str, Any]) -> tuple[str, list[str | None]]:
    body = open_body(named=1, open_seats=2, options={"target_score": 10}, clock=clock)
    created = client.post("/v1/matches", json=body)
    assert created.status_code == 201, created.get_json()
    return created.get_json()["id"], [s["token"] for s in created.get_json()["seats"]]


def _join(client: Any, match_id: str, name: str) -> str:
    joined = client.post(f"/v1/matches/{match_id}/join", json={"name": name})
    assert joined.status_code == 201, joined.get_json()
    return str(joined.get_json()["token"])


def _deadlines(redis_client: redis.Redis, match_id: str) -> list[str]:
    return [j for j in scheduled_ids(redis_client) if j.startswith(f"deadline-{match_id}-")]


def _not_running(view: dict[str, Any]) -> bool:
    shown = view.get("clock")
    return shown is None or (shown["turn_seat"] is None and shown["deadline_ms"] is None)


def test_the_clock_starts_at_match_started_and_times_out_once(
    client: Any, service: MatchService, clock: FakeClock, redis_client: redis.Redis, tmp_path: Path
) -> None:
    match_id, tokens = _open(client, PER_MOVE)
    clock.advance(30)  # the wait is nobody's time
    tokens[1] = _join(client, match_id, "bo")
    assert _not_running(client.get(f"/v1/matches/{match_id}").get_json())
    assert _deadlines(redis_client, match_id) == []
    clock.advance(30)
    tokens[2] = _join(client, match_id, "cyd")
    view = client.get(f"/v1/matches/{match_id}").get_json()
    shown = view["clock"]
    seat = shown["turn_seat"]
    assert seat is not None and seat == view["turn"] and shown["seats"][seat]["running"]
    assert shown["deadline_ms"] == int(clock.now * 1000) + 2000  # counted from MatchStarted
    assert _deadlines(redis_client, match_id) == [
        deadline_job_id(match_id, service.load(match_id).version)
    ]
    clock.advance(2.5)
    run_scheduler(redis_client)
    types = event_types(client, match_id)
    assert types.count("MatchStarted") == 1 and types.count("TurnTimedOut") == 1
    timed_out = [e for e in service.events(match_id, limit=1000) if e.event.type == "TurnTimedOut"]
    assert timed_out[0].event.data["seat"] == seat
    play(client, service, match_id, tokens, random.Random(5))
    exported = client.get(f"/v1/matches/{match_id}/log")
    lines = [json.loads(line) for line in exported.get_data(as_text=True).splitlines()]
    assert check(lines).view["status"] == "finished"
    path = tmp_path / "lobby-clock.ndjson"
    path.write_bytes(exported.get_data())
    assert cli_main(["verify", str(path)]) == 0


def test_the_abort_window_counts_from_match_started(
    client: Any, service: MatchService, clock: FakeClock, redis_client: redis.Redis
) -> None:
    match_id, tokens = _open(client, {**PER_MOVE, "first_move_s": 60})
    _join(client, match_id, "bo")
    clock.advance(100)  # longer than the abort window, while the match waits
    tokens[2] = _join(client, match_id, "cyd")
    started_ms = int(clock.now * 1000)
    view = client.get(f"/v1/matches/{match_id}", headers=auth(tokens[0])).get_json()
    assert view["status"] != "finished" and view["clock"]["abortable"] is True
    assert view["clock"]["deadline_ms"] == started_ms + 60_000
    clock.advance(59)
    run_scheduler(redis_client)
    assert "MatchAborted" not in event_types(client, match_id)
    clock.advance(2)
    run_scheduler(redis_client)
    assert event_types(client, match_id).count("MatchAborted") == 1
