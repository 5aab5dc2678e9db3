"""Issue 28 items 2 and 3 against the app as gunicorn serves it, with a real RQ worker.

Item 3: a match of three random bots with the options that never ended (`knock_limit` 0,
`target_score` 1000) now records a bound on its rounds, and one asking for few rounds plays
to its end through the worker; asking for no bound is 422 validation_error. Item 2: the
finished match's log replays as streamed NDJSON steps through gevent (one line a step)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import httpx
import pytest

from tests.support.reliability_procs import PrivateRedis, Stack

ENDLESS = {"knock_limit": 0, "target_score": 1000}
BOTS = [{"name": f"r{i}", "bot": "random"} for i in range(3)]
WAIT_SECONDS = 180.0
"""How long the worker may take to play 3 hands on a busy machine (a bound on the wait, not
an assertion on speed)."""


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Stack]:
    server = PrivateRedis(tmp_path / "redis", appendonly=False)
    server.start()
    made = Stack(tmp_path, server.url)
    try:
        made.start_api(workers=1)
        made.start_worker()
        yield made
    finally:
        made.stop()
        server.stop()


def _create(client: httpx.Client, options: Mapping[str, object]) -> httpx.Response:
    body = {"variant": "three-hand-gin", "players": BOTS, "options": options}
    return client.post("/v1/matches", json=body)


def test_endless_options_are_bounded_and_a_served_match_ends(stack: Stack) -> None:
    with httpx.Client(base_url=stack.base_url, timeout=60) as client:
        refused = _create(client, {**ENDLESS, "max_rounds": None})
        assert refused.status_code == 422, refused.text
        assert refused.json()["code"] == "validation_error" and "max_rounds" in refused.text
        endless = _create(client, ENDLESS)
        assert endless.status_code == 201, endless.text
        view = client.get(f"/v1/matches/{endless.json()['id']}").json()
        assert view["options"]["max_rounds"] == 500
        short = _create(client, {**ENDLESS, "max_rounds": 3})
        assert short.status_code == 201, short.text
        match_id = short.json()["id"]
        deadline = time.monotonic() + WAIT_SECONDS
        while client.get(f"/v1/matches/{match_id}").json()["status"] != "finished":
            assert time.monotonic() < deadline, "the bounded match did not end"
            time.sleep(0.5)
        log = client.get(f"/v1/matches/{match_id}/log").text
        events = [json.loads(line) for line in log.splitlines()]
        assert sum(e["type"] == "RoundScored" for e in events) == 3
        assert events[-1]["type"] == "MatchFinished"
        assert events[-1]["data"]["ended_by"] == "max_rounds"
        answer = client.post(
            "/v1/replays?steps=true&format=ndjson",
            content=log,
            headers={"Content-Type": "application/x-ndjson"},
        )
        assert answer.status_code == 200, answer.text
        assert answer.headers["content-type"].startswith("application/x-ndjson")
        lines = [json.loads(line) for line in answer.text.splitlines()]
        assert len(lines) == len(events) + 1 and lines[0]["match"]["status"] == "finished"
        assert [line["seq"] for line in lines[1:]] == list(range(1, len(events) + 1))
