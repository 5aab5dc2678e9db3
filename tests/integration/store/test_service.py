"""MatchService with the real engines: follow-up jobs written in the append's transaction,
loading at a version, event pages, states along the log (architecture.md "One move")."""

from __future__ import annotations

import json
import random
import zlib
from typing import Any

import pytest
import redis
from rq import Queue
from rq.job import Job
from rq.serializers import JSONSerializer

from domain.events import Event
from domain.replay import replay
from store.event_store import AppendRequest, Conflict
from store.jobs import BOTS_LOW, SCORING, JobSpec, bot_job_id, score_job_id
from store.service import MatchService
from tests.support import store_play

BOT_PLAYERS = [{"name": n, "bot": "random"} for n in "abc"]


def _queued(redis_client: redis.Redis, queue: str) -> list[str]:
    ids: Any = redis_client.lrange(f"rq:queue:{queue}", 0, -1)  # raw reply (bytes)
    return [j.decode() for j in ids]


def test_a_bot_to_act_gets_its_job_in_the_same_append(
    service: MatchService, redis_client: redis.Redis
) -> None:
    """The create that leaves a bot to act also wrote job bot-<match>-<version> on queue
    `bots-low` (every seat is a bot), whose arguments are the match id and the version and
    nothing else (no leak)."""
    created = service.create_match("three-hand-gin", BOT_PLAYERS, {}, 2)
    assert service.variant(created.state).to_act(created.state) is not None
    job_id = bot_job_id(created.match_id, created.version)
    assert _queued(redis_client, BOTS_LOW) == [job_id]
    job = Job.fetch(job_id, connection=redis_client, serializer=JSONSerializer)
    assert job.func_name == "workers.bot_turn.play_bot_turn"
    assert job.args == [created.match_id, created.version]
    assert job.retries_left == 3 and job.timeout
    data: Any = redis_client.hget(f"rq:job:{job_id}", "data")  # raw reply (bytes)
    raw = json.loads(zlib.decompress(data or b""))
    assert raw[2] == [created.match_id, created.version] and raw[3] == {}


def test_no_job_when_the_append_conflicts(service: MatchService, redis_client: redis.Redis) -> None:
    """An event can never exist without its job, nor a job without its event."""
    created = store_play.create(service, store_play.GIN)
    spec = JobSpec(SCORING, "score-x-1", "workers.scoring.score_round", created.match_id, 1)
    request = AppendRequest(created.match_id, 1, [Event("Noise", {})], jobs=[spec])
    with pytest.raises(Conflict):
        service.store.append(request)
    assert _queued(redis_client, SCORING) == []
    assert not redis_client.exists("rq:job:score-x-1")


def test_an_ended_round_gets_its_scoring_job(
    service: MatchService, redis_client: redis.Redis
) -> None:
    """Round end puts the state in scoring: job score-<match>-<round> on queue `scoring`."""
    match_id = store_play.create(service, store_play.GIN).match_id
    rng = random.Random(4)
    for _ in range(2000):
        _loaded = service.load(match_id)
        state, version = _loaded.state, _loaded.version
        game = service.variant(state)
        if game.pending(state) == {"type": "score_round"}:
            break
        store_play.step(service, match_id, rng)
    else:
        pytest.fail("no round ended in 2000 moves")
    round_no = game.view(state, None)["round"]
    assert score_job_id(match_id, round_no) in _queued(redis_client, SCORING)
    job = Job.fetch(
        score_job_id(match_id, round_no), connection=redis_client, serializer=JSONSerializer
    )
    assert job.func_name == "workers.scoring.score_round" and job.args == [match_id, version]


def test_jobs_on_another_queue_server_are_enqueued_after_the_commit(redis_url: str) -> None:
    """With QUEUE_URL elsewhere (here: another database) the job is written after the commit
    on the queue's server, never into the event store's transaction."""
    base = redis_url.rsplit("/", 1)[0]
    store_client = redis.Redis.from_url(base + "/0")
    queue_client = redis.Redis.from_url(base + "/1")
    store_client.flushdb()
    queue_client.flushdb()
    try:
        svc = MatchService(store_client, queue_redis=queue_client, pepper=b"p")
        assert not svc.store.jobs_in_transaction
        created = svc.create_match("three-hand-gin", [{"name": "a", "bot": "random"}] * 3, {}, 2)
        job_id = bot_job_id(created.match_id, created.version)
        assert Queue(BOTS_LOW, connection=queue_client).job_ids == [job_id]
        assert not store_client.exists(f"rq:job:{job_id}")
    finally:
        queue_client.flushdb()
        queue_client.close()
        store_client.close()


def test_load_at_a_version_equals_the_replay_of_that_prefix(service: MatchService) -> None:
    match_id = store_play.create(service, store_play.GIN).match_id
    store_play.play(service, match_id, 25)
    log = [e.event for e in service.events(match_id, limit=1000)]
    for at in (0, 1, 3, 10, len(log)):
        _loaded = service.load(match_id, at=at)
        state, version = _loaded.state, _loaded.version
        assert version == at
        assert state == (replay(log[:at]) if at else service.variant(state).initial_state())
    assert service.load(match_id, at=len(log) + 50).version == len(log)


def test_event_pages_and_states_along_the_log(service: MatchService) -> None:
    """events(after, limit) pages by seq; states_along gives the state BEFORE each event."""
    match_id = store_play.create(service, store_play.GIN).match_id
    store_play.play(service, match_id, 12)
    page = service.events(match_id, after=2, limit=5)
    assert [e.seq for e in page] == [3, 4, 5, 6, 7]
    log = [e.event for e in service.events(match_id, limit=1000)]
    along = list(service.states_along(match_id))
    assert [item.seq for _, item in along] == list(range(1, len(log) + 1))
    for before, item in along[1:]:
        assert before == replay(log[: item.seq - 1])
    tail = list(service.states_along(match_id, upto=9, after=5))
    assert [item.seq for _, item in tail] == [6, 7, 8, 9]
    assert tail[0][0] == replay(log[:5])


def test_create_refuses_unknown_bots_and_options(service: MatchService) -> None:
    from domain.errors import InvalidOptions

    with pytest.raises(InvalidOptions, match="bot 'nobody'"):
        service.create_match("three-hand-gin", [{"name": "a", "bot": "nobody"}] * 3, {}, 1)
    with pytest.raises(InvalidOptions):
        service.create_match("three-hand-gin", [{"name": "a"}] * 3, {"gin_bonus": -4}, 1)
    with pytest.raises(InvalidOptions):
        service.create_match("chess", [{"name": "a"}] * 2, {}, 1)


def test_ping(service: MatchService) -> None:
    assert service.ping() is True


def test_a_cached_state_of_a_replaced_stream_is_dropped(
    service: MatchService, redis_client: redis.Redis
) -> None:
    """The in-process cache checks the cached entry's append nonce: when the stream under the
    same match id was replaced (a flushed test database), the state is rebuilt from Redis."""
    gin = service.create_match("three-hand-gin", [{"name": "a"}] * 3, {}, 1, "same-key", "f")
    service.load(gin.match_id)
    redis_client.flushdb()
    other = MatchService(redis_client, pepper=b"test-pepper")
    manip = other.create_match("manipulation-rummy", [{"name": "a"}] * 2, {}, 1, "same-key", "f")
    assert manip.match_id == gin.match_id
    _loaded = service.load(gin.match_id)
    state, version = _loaded.state, _loaded.version
    assert (state, version) == (manip.state, manip.version)
