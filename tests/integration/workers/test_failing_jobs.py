"""A failing bot or system job never stalls a match unseen (issue 31): rq retries it a bounded
number of times, then a bot seat's turn is the random bot's legal move and a system job marks
the match stalled, each with an event; the reconciler never runs a spent job again."""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

import pytest
import redis
from rq.job import Job, JobStatus
from rq.serializers import JSONSerializer

from domain import bots
from domain.events import SYSTEM
from store import jobs
from store.service import MatchService
from tests.support.workers_play import MANIP, burst
from workers.connection import set_service
from workers.reconcile import reconcile


def broken(
    view: Mapping[str, Any], legal_moves: Sequence[Mapping[str, Any]], rng: random.Random
) -> dict[str, Any]:
    """A test double strategy that always fails."""
    raise RuntimeError("the broken bot always fails")


@pytest.fixture(autouse=True)
def quick_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jobs, "RETRY_INTERVALS", (0, 0))  # two retries, no wait


@pytest.fixture
def broken_bot() -> Iterator[None]:
    template = bots.BOTS[MANIP]["random"]
    bots.BOTS[MANIP]["broken"] = replace(template, name="broken", choose=broken)
    yield
    bots.BOTS[MANIP].pop("broken", None)


@pytest.fixture
def pinned(service: MatchService) -> Iterator[MatchService]:
    set_service(service)
    yield service
    set_service(None)


def test_a_failing_bot_falls_back_to_the_random_move_and_the_match_finishes(
    pinned: MatchService, redis_client: redis.Redis, broken_bot: None
) -> None:
    players = [{"name": "b", "bot": "broken"}, {"name": "r", "bot": "random"}]
    created = pinned.create_match(MANIP, players, {"max_rounds": 1}, seed=5)
    burst(redis_client)
    loaded = pinned.load(created.match_id)
    assert loaded.variant.is_finished(loaded.state)
    log = [e.event for e in pinned.events(created.match_id, limit=1000)]
    failed = [e for e in log if e.type == "BotMoveFailed"]
    assert failed and all(e.data["seat"] == 0 and e.data["bot"] == "broken" for e in failed)
    assert failed[0].data["error"] == "RuntimeError"
    job = Job.fetch(str(failed[0].data["job"]), connection=redis_client, serializer=JSONSerializer)
    assert str(job.return_value()).startswith("fell back")


def test_a_failing_system_job_marks_the_match_stalled_and_is_not_run_again(
    pinned: MatchService, redis_client: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    players = [{"name": "a", "bot": "random"}, {"name": "r", "bot": "random"}]
    real_submit = MatchService.submit

    def failing(self: MatchService, match_id: str, seat: int, *a: Any, **k: Any) -> Any:
        if seat == SYSTEM:
            raise RuntimeError("scoring is broken")
        return real_submit(self, match_id, seat, *a, **k)

    monkeypatch.setattr(MatchService, "submit", failing)
    created = pinned.create_match(MANIP, players, {"max_rounds": 1}, seed=5)
    burst(redis_client)
    match_id = created.match_id
    log = [e.event for e in pinned.events(match_id, limit=1000)]
    assert log[-1].type == "MatchStalled"
    assert log[-1].data["error"] == "RuntimeError"
    assert pinned.stalled(match_id) is not None
    assert pinned.stalled_count() == 1
    version = pinned.load(match_id).version
    assert reconcile(pinned) == []  # the spent job is never enqueued again
    burst(redis_client)
    assert pinned.load(match_id).version == version


def test_the_reconciler_marks_a_job_that_failed_after_its_retries(
    pinned: MatchService, redis_client: redis.Redis
) -> None:
    players = [{"name": "a"}, {"name": "b"}]
    created = pinned.create_match(MANIP, players, {}, seed=5)
    spec = jobs.JobSpec(jobs.SCORING, "score-x-1", jobs.SCORE_FUNC, created.match_id, 1)
    job = pinned.queues.make_job(spec)
    job.retries_left = 0
    job.set_status(JobStatus.FAILED)
    job.save()
    assert pinned.queues.spent(spec) is not None
