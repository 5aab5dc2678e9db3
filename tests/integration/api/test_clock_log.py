"""Export, replay and verify of a clocked match's log (issue 31): timeouts, auto moves and a
replaced seat; the export carries each append's clock beside its last event."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import redis

from cli.client import verify
from store.service import MatchService
from tests.support.clock_golden import FIXTURE, record

SECRET = ("salt_key", "salt", "commitment")
"""A seeded match's salts come from a secret drawn at its creation (Fair deals)."""


def _masked(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {**e, "data": {k: "*" if k in SECRET else v for k, v in e["data"].items()}} for e in events
    ]


def test_the_golden_clocked_log_is_what_the_service_records(redis_client: redis.Redis) -> None:
    recorded = record(redis_client)
    golden = [json.loads(line) for line in FIXTURE.read_text().splitlines()]
    assert _masked(recorded) == _masked(golden)


def test_export_replay_and_verify_of_a_clocked_log(
    client: Any, service: MatchService, redis_client: redis.Redis, tmp_path: Path
) -> None:
    record(redis_client)
    (match_id,) = list(service.store.scan_matches())
    exported = client.get(f"/v1/matches/{match_id}/log")
    assert exported.status_code == 200
    lines = [json.loads(line) for line in exported.get_data(as_text=True).splitlines()]
    assert {"TurnTimedOut", "SeatReplacedByBot"} <= {line["type"] for line in lines}
    clocks = [line["clock"] for line in lines if "clock" in line]
    assert clocks and all(len(c["left_ms"]) == 2 for c in clocks)
    assert clocks[-1]["turn_seat"] is None  # the match is over: no clock runs
    replayed = client.post(
        "/v1/replays",
        data=exported.get_data(),
        headers={"Content-Type": "application/x-ndjson"},
    )
    assert replayed.status_code == 200, replayed.get_json()
    assert replayed.get_json()["match"]["status"] == "finished"
    path = tmp_path / "clocked.ndjson"
    path.write_bytes(exported.get_data())
    assert verify(argparse.Namespace(file=str(path))) == 0
