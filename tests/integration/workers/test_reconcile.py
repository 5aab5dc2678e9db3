"""The reconciler (issue 5): a lost job heals itself, live jobs are left alone."""

from __future__ import annotations

import pytest
import redis
from rq import Queue, SimpleWorker
from rq.job import Job, JobStatus
from rq.serializers import JSONSerializer

from store.jobs import BOTS_LOW, QUEUES, bot_job_id
from store.service import MatchService
from tests.support.workers_play import GIN, MANIP, burst
from workers import run
from workers.reconcile import reconcile


def _bot_matches(service: MatchService) -> list[str]:
    gin = [{"name": n, "bot": "hasty"} for n in "abc"]
    manip = [{"name": n, "bot": "hasty"} for n in "ab"]
    return [
        service.create_match(GIN, gin, {"target_score": 25}, 1, "rec-gin", "f").match_id,
        service.create_match(MANIP, manip, {"target_score": 1}, 2, "rec-manip", "f").match_id,
    ]


def _finished(service: MatchService, match_id: str) -> bool:
    _loaded = service.load(match_id)
    state, _ = _loaded.state, _loaded.version
    return service.variant(state).is_finished(state)


def _drop_all_jobs(client: redis.Redis) -> None:
    for name in QUEUES:
        Queue(name, connection=client, serializer=JSONSerializer).empty()  # type: ignore[no-untyped-call]


def test_matches_whose_jobs_were_deleted_still_finish(
    service: MatchService, redis_client: redis.Redis
) -> None:
    """Delete the queued jobs: a burst worker has nothing to do and the matches stall; after
    the reconciler and a burst worker both matches finish."""
    matches = _bot_matches(service)
    _drop_all_jobs(redis_client)
    burst(redis_client)
    assert not any(_finished(service, m) for m in matches)
    enqueued = reconcile(service)
    assert len(enqueued) == 2
    burst(redis_client)
    assert all(_finished(service, m) for m in matches)


def test_a_job_lost_mid_match_heals_too(service: MatchService, redis_client: redis.Redis) -> None:
    """Lose the job again at a later point (here: only the queue entry, the job hash stays)."""
    players = [{"name": n, "bot": "hasty"} for n in "abc"]
    created = service.create_match(GIN, players, {"target_score": 25}, 3, "rec-mid", "f")
    job_id = bot_job_id(created.match_id, created.version)
    redis_client.lrem(f"rq:queue:{BOTS_LOW}", 0, job_id)
    assert (
        Job.fetch(job_id, connection=redis_client, serializer=JSONSerializer).get_status()
        == "queued"
    )
    assert reconcile(service) == [job_id]
    burst(redis_client)
    assert _finished(service, created.match_id)


def test_live_jobs_and_finished_matches_are_left_alone(
    service: MatchService, redis_client: redis.Redis
) -> None:
    matches = _bot_matches(service)
    assert reconcile(service) == []
    assert Queue(BOTS_LOW, connection=redis_client).count == 2
    burst(redis_client)
    assert all(_finished(service, m) for m in matches)
    assert reconcile(service) == []


def test_a_job_running_when_its_worker_quit_runs_again_once_the_worker_restarts(
    service: MatchService, redis_client: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Redis went away while an rq worker ran a job: the worker quit, its record stayed, its
    process lives on to start a new worker (workers/run.py). The job is live to the
    reconciler until `run.restarted` marks that worker dead, and it is enqueued at once then,
    not at the next timer pass (found by tests/e2e/test_supervised_up.py)."""
    players = [{"name": n, "bot": "hasty"} for n in "abc"]
    created = service.create_match(GIN, players, {"target_score": 25}, 4, "rec-quit", "f")
    job_id = bot_job_id(created.match_id, created.version)
    queue = Queue(BOTS_LOW, connection=redis_client, serializer=JSONSerializer)
    quit_worker = SimpleWorker([queue], connection=redis_client, serializer=JSONSerializer)
    quit_worker.register_birth()  # type: ignore[no-untyped-call]
    redis_client.lrem(queue.key, 0, job_id)  # the worker took it ...
    job = Job.fetch(job_id, connection=redis_client, serializer=JSONSerializer)
    job.worker_name = quit_worker.name
    job.save()
    job.set_status(JobStatus.STARTED)  # ... and was running it when Redis went away
    assert reconcile(service) == []  # its record is there and its process (this one) lives
    monkeypatch.setattr(run, "_service", lambda: service)
    assert run.restarted(quit_worker) == [job_id]
    assert queue.get_job_ids() == [job_id]
    burst(redis_client)
    assert _finished(service, created.match_id)


def test_worker_main_reconciles_at_start(
    service: MatchService,
    redis_client: redis.Redis,
    redis_url: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`workers.run.main` (what `deadwood up` starts) reconciles before it works the queues."""
    matches = _bot_matches(service)
    _drop_all_jobs(redis_client)
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.setenv("DEADWOOD_TOKEN_PEPPER", "test-pepper")
    monkeypatch.setattr(run, "SimpleWorker", _quiet_worker())
    assert run.main(["--burst"]) == 0
    assert all(_finished(service, m) for m in matches)


def _quiet_worker() -> type:
    from tests.support.workers_play import BurstWorker

    class Quiet(BurstWorker):
        def work(self, *args: object, **kwargs: object) -> bool:
            kwargs["with_scheduler"] = False
            return super().work(*args, **kwargs)  # type: ignore[arg-type]

    return Quiet
