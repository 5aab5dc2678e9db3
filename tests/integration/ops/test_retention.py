"""Retention (issue 34): a match finished more than DEADWOOD_RETAIN_DAYS ago is archived to a
gzip NDJSON file and removed from Redis; the API reads it back transparently (its log, its
views, its seat tokens), and a match in play is never retired."""

from __future__ import annotations

import gzip
import json
import time
from pathlib import Path
from typing import Any

import redis
from flask.testing import FlaskClient

from api import create_app
from store.archive import Archive, retire
from store.event_store import ACTIVE_KEY, FINISHED_KEY
from store.service import MatchService
from tests.support.api_helpers import auth
from tests.support.workers_play import GIN, burst

PEOPLE_AND_BOTS = [{"name": "ana"}, {"name": "b", "bot": "hasty"}, {"name": "c", "bot": "hasty"}]
BOTS = [{"name": n, "bot": "hasty"} for n in "abc"]


def _age(client: redis.Redis, match_id: str, days: float) -> None:
    client.zadd(FINISHED_KEY, {match_id: time.time() - days * 86400})


def _app(service: MatchService) -> FlaskClient:
    return create_app({"TESTING": True, "SERVICE": service}).test_client()


def test_a_finished_match_is_archived_removed_and_read_back(
    redis_client: redis.Redis, tmp_path: Path
) -> None:
    archive = Archive(tmp_path / "archive")
    service = MatchService(redis_client, pepper=b"test-pepper", archive=archive)
    created = service.create_match(GIN, BOTS, {"target_score": 25}, 1)
    match_id = created.match_id
    burst(redis_client)
    assert service.is_finished(match_id)
    client = _app(service)
    log_before = client.get(f"/v1/matches/{match_id}/log").get_data()
    view_before = client.get(f"/v1/matches/{match_id}").get_json()

    _age(redis_client, match_id, 10)
    assert retire(service, archive, days=7) == 1
    assert not redis_client.exists(f"match:{{{match_id}}}:events", f"match:{{{match_id}}}:meta")
    path = tmp_path / "archive" / f"{match_id}.ndjson.gz"
    with gzip.open(path, "rt") as source:
        lines = [json.loads(line) for line in source]
    assert lines[0]["archive"] == 1 and lines[0]["meta"]["finished"] == "1"
    assert len(lines) - 1 == view_before["version"]

    fresh = MatchService(redis_client, pepper=b"test-pepper", archive=archive)  # no cache
    client = _app(fresh)
    assert client.get(f"/v1/matches/{match_id}/log").get_data() == log_before
    assert client.get(f"/v1/matches/{match_id}").get_json() == view_before
    assert redis_client.zscore(FINISHED_KEY, match_id) is not None  # retired again later


def test_seat_tokens_work_on_a_restored_match(redis_client: redis.Redis, tmp_path: Path) -> None:
    archive = Archive(tmp_path)
    service = MatchService(redis_client, pepper=b"test-pepper", archive=archive)
    created = service.create_match(GIN, PEOPLE_AND_BOTS, {"target_score": 1}, 2)
    token = created.tokens[0]
    assert token is not None
    match_id = created.match_id
    redis_client.hset(f"match:{{{match_id}}}:meta", "finished", "1")  # as if it had ended
    _age(redis_client, match_id, 3)
    assert retire(service, archive, days=1) == 1
    fresh = MatchService(redis_client, pepper=b"test-pepper", archive=archive)
    view = _app(fresh).get(f"/v1/matches/{match_id}", headers=auth(token)).get_json()
    assert view["you"]["seat"] == 0


def test_matches_in_play_and_recent_ones_are_kept(
    redis_client: redis.Redis, tmp_path: Path
) -> None:
    archive = Archive(tmp_path)
    service = MatchService(redis_client, pepper=b"test-pepper", archive=archive)
    playing = service.create_match(GIN, PEOPLE_AND_BOTS, {}, 3).match_id
    finished = service.create_match(GIN, BOTS, {"target_score": 25}, 4).match_id
    burst(redis_client)
    redis_client.zadd(FINISHED_KEY, {playing: 0})  # a wrong entry: not finished, not retired
    assert retire(service, archive, days=1) == 0  # `finished` finished just now
    assert retire(service, archive, days=0) == 0  # 0: keep for ever
    assert service.is_finished(finished) and not service.is_finished(playing)
    assert redis_client.zscore(ACTIVE_KEY, playing) is not None
    assert list(tmp_path.iterdir()) == []


def test_an_unknown_match_is_still_404(redis_client: redis.Redis, tmp_path: Path) -> None:
    service = MatchService(redis_client, pepper=b"test-pepper", archive=Archive(tmp_path))
    response: Any = _app(service).get("/v1/matches/m_never")
    assert response.status_code == 404
