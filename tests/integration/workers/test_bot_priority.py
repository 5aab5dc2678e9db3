"""Bot-only matches never starve the bots of matches with a person (issue 11, item 5).

Real Redis, and a real worker process (`python -m workers.run`): six bot-only matches keep the
worker busy (each always has its next bot turn queued), then a match with a person needs a
bot turn. The bot turns of bot-only matches go to the queue `bots-low`, which the worker takes
last (store/jobs.py), so the person's bot starts before any bot-only job that was not already
running: the count of bot-only jobs started between its enqueue and its start is at most one.
With one FIFO queue it waited behind every bot-only match.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path

import pytest
import redis
from rq import Queue
from rq.job import Job, JobStatus
from rq.registry import FinishedJobRegistry, StartedJobRegistry
from rq.serializers import JSONSerializer

from domain.variants import get_variant
from store.jobs import QUEUES, bot_job_id
from store.service import MatchService
from tests.support.waiting import wait_until

GIN = "three-hand-gin"
ROOT = Path(__file__).resolve().parents[3]
ALL_BOTS = [{"name": n, "bot": "basic"} for n in ("ana", "ben", "cy")]
WITH_A_PERSON = [{"name": "dee"}, {"name": "eve", "bot": "basic"}, {"name": "fay", "bot": "basic"}]


@pytest.fixture
def worker(
    redis_url: str, redis_client: redis.Redis
) -> Iterator[Callable[[], subprocess.Popen[bytes]]]:
    """Started by the test (`start()`), stopped here."""
    procs: list[subprocess.Popen[bytes]] = []

    def start() -> subprocess.Popen[bytes]:
        env = {**os.environ, "REDIS_URL": redis_url, "QUEUE_URL": redis_url}
        command = [sys.executable, "-m", "workers.run", "--reconcile-every", "0"]
        proc = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        procs.append(proc)
        return proc

    yield start
    for proc in procs:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _bot_first_seed() -> int:
    """A seed whose first turn belongs to a bot seat of WITH_A_PERSON (the captain)."""
    game = get_variant(GIN)
    for seed in range(1, 200):
        state = game.initial_state()
        for event in game.create(WITH_A_PERSON, {}, seed, ""):
            state = game.evolve(state, event)
        if game.to_act(state) != 0:
            return seed
    raise AssertionError("no seed gives a bot the first turn")


def _done(connection: redis.Redis, job_id: str, seconds: float = 60.0) -> Job:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        job = Job.fetch(job_id, connection=connection, serializer=JSONSerializer)
        if job.get_status() == JobStatus.FINISHED:
            return job
        time.sleep(0.05)
    raise AssertionError(f"job {job_id} did not finish")


def _bot_only_starts(connection: redis.Redis, matches: list[str]) -> list[datetime]:
    """When each bot job of the bot-only `matches` started (any queue)."""
    ids: set[str] = set()
    for name in QUEUES:
        for registry in (FinishedJobRegistry, StartedJobRegistry):
            ids.update(registry(name, connection=connection).get_job_ids())
    ours = [i for i in ids if any(i.startswith(f"bot-{m}-") for m in matches)]
    jobs = Job.fetch_many(ours, connection=connection, serializer=JSONSerializer)
    return [job.started_at for job in jobs if job is not None and job.started_at is not None]


def _overtaken(connection: redis.Redis, job: Job, matches: list[str]) -> int:
    """Bot-only jobs that started after `job` was queued and before it started."""
    assert job.enqueued_at is not None and job.started_at is not None
    starts = _bot_only_starts(connection, matches)
    return sum(1 for at in starts if job.enqueued_at < at < job.started_at)


def test_a_person_s_bot_is_not_queued_behind_bot_only_matches(
    service: MatchService,
    redis_client: redis.Redis,
    worker: Callable[[], subprocess.Popen[bytes]],
) -> None:
    busy = [service.create_match(GIN, ALL_BOTS, {}, None).match_id for _ in range(6)]
    assert Queue("bots-low", connection=redis_client).count == 6
    created = service.create_match(GIN, WITH_A_PERSON, {}, _bot_first_seed())
    first = bot_job_id(created.match_id, created.version)
    worker()
    job = _done(redis_client, first)
    assert _overtaken(redis_client, job, busy) <= 1, "the person's bot waited for bot-only jobs"
    # The second check is made while the bot-only matches are playing: more than their 6 first
    # jobs have started (each job queues its match's next one, so `bots-low` is never empty).
    # Waited for, not hoped for: the person's moves below can be quicker than 7 bot-only jobs.
    wait_until(lambda: len(_bot_only_starts(redis_client, busy)) > 6, 60, "bot-only jobs to start")
    _move_until_a_bot_is_due(service, created.match_id)
    version = service.load(created.match_id).version
    job = _done(redis_client, bot_job_id(created.match_id, version))
    assert len(_bot_only_starts(redis_client, busy)) > 6, "the bot-only matches were playing"
    assert _overtaken(redis_client, job, busy) <= 1, "the person's bot waited for bot-only jobs"


def _move_until_a_bot_is_due(service: MatchService, match_id: str) -> None:
    """Wait for the person's turn (the worker plays the bots), then move until a bot is to
    act; meanwhile the worker keeps playing the bot-only matches."""
    game = get_variant(GIN)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        loaded = service.load(match_id)
        state, version = loaded.state, loaded.version
        if game.to_act(state) == 0:
            move = game.legal_moves(state, 0)[0]
            after = service.submit(
                match_id, 0, move, expected_version=version, idempotency_key=None, fingerprint=""
            )
            if game.to_act(after.state) not in (0, None):
                return
        else:
            time.sleep(0.05)
    raise AssertionError("the person never got a turn that hands over to a bot")
