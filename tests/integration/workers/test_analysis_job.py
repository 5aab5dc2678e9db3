"""The analysis job (issue 33): a finished match is analysed once, however often the job
runs; a match in play never gets an analysis. Real Redis, real RQ workers (burst)."""

from __future__ import annotations

from typing import Any

import pytest
import redis
from redis.crc import key_slot
from rq import Queue
from rq.serializers import JSONSerializer

from store.analysis import analysis_key, stored_analysis
from store.event_store import events_key
from store.jobs import ANALYSIS, Queues, analysis_job, analysis_job_id
from store.service import MatchService
from tests.support.workers_play import GIN, MANIP, burst
from workers import analysis
from workers.connection import set_service

BOTS = [{"name": f"b{i}", "bot": "hasty"} for i in range(3)]


@pytest.fixture
def pinned(service: MatchService) -> Any:
    """Jobs called directly (outside a worker) use the test's service."""
    set_service(service)
    yield service
    set_service(None)


def _finished(service: MatchService, client: redis.Redis, variant: str, target: int) -> str:
    created = service.create_match(
        variant, BOTS, {"target_score": target}, 12, f"an-{variant}", "f"
    )
    burst(client)
    loaded = service.load(created.match_id)
    assert loaded.variant.is_finished(loaded.state)
    return created.match_id


@pytest.mark.parametrize(("variant", "target"), [(GIN, 50), (MANIP, 60)])
def test_a_finished_match_is_analysed_by_its_job(
    service: MatchService, redis_client: redis.Redis, variant: str, target: int
) -> None:
    match_id = _finished(service, redis_client, variant, target)
    found = stored_analysis(service, match_id)
    assert found is not None
    assert found["variant"] == variant
    assert found["events"] == service.load(match_id).version
    assert len(found["seats"]) == 3 and found["decisions"]
    finished = Queue(ANALYSIS, connection=redis_client).finished_job_registry.get_job_ids()
    assert finished == [analysis_job_id(match_id)]


def test_the_analysis_job_run_again_writes_nothing(
    pinned: MatchService, redis_client: redis.Redis
) -> None:
    match_id = _finished(pinned, redis_client, GIN, 50)
    stored = redis_client.get(analysis_key(match_id))
    version = pinned.load(match_id).version
    assert analysis.analyse_match(match_id, version).startswith("done already")
    queues = Queues(redis_client)
    queues.replace(analysis_job(match_id, version))
    queues.replace(analysis_job(match_id, version))
    burst(redis_client)
    assert redis_client.get(analysis_key(match_id)) == stored


def test_two_runs_after_the_first_is_lost_write_once(
    pinned: MatchService, redis_client: redis.Redis
) -> None:
    match_id = _finished(pinned, redis_client, GIN, 50)
    redis_client.delete(analysis_key(match_id))
    version = pinned.load(match_id).version
    first = analysis.analyse_match(match_id, version)
    second = analysis.analyse_match(match_id, version)
    assert first.startswith("analysed:") and second.startswith("done already")


def test_a_match_in_play_gets_no_analysis(pinned: MatchService, redis_client: redis.Redis) -> None:
    players = [{"name": "ana"}, {"name": "ben"}, {"name": "cy"}]
    created = pinned.create_match(GIN, players, {}, 4)
    note = analysis.analyse_match(created.match_id, created.version)
    assert note.startswith("skipped") and "not finished" in note
    assert redis_client.get(analysis_key(created.match_id)) is None
    assert Queue(ANALYSIS, connection=redis_client, serializer=JSONSerializer).count == 0


def test_the_analysis_key_lives_in_the_match_slot() -> None:
    assert analysis_key("m_abc") == "match:{m_abc}:analysis"
    for match_id in ("m_abc", "m_7Qx0Zp", "m_" + "z" * 22):
        assert key_slot(analysis_key(match_id).encode()) == key_slot(events_key(match_id).encode())
