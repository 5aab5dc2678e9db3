"""The scoring and bot-turn jobs (issue 5 "Workers"): idempotent, stale-safe, and a bot sees
only its seat's view."""

from __future__ import annotations

import inspect
import random
from typing import Any

import pytest
import redis
from rq import Queue
from rq.serializers import JSONSerializer

import workers.bot_turn as bot_turn
from domain import bots
from domain.events import SYSTEM
from store.event_store import events_key
from store.jobs import BOTS_LOW, SCORING, JobSpec, Queues
from store.service import MatchService
from tests.support.workers_play import GIN, MANIP, burst, hasty
from workers import scoring
from workers.connection import set_service

HUMANS = [{"name": "a"}, {"name": "b"}, {"name": "c"}]


@pytest.fixture
def pinned(service: MatchService) -> Any:
    """Jobs called directly (outside a worker) use the test's service."""
    set_service(service)
    yield service
    set_service(None)


def _to_pending_score(service: MatchService, match_id: str) -> int:
    """Play random human moves until a round waits to be scored; the version then."""
    rng = random.Random(3)
    for _ in range(3000):
        _loaded = service.load(match_id)
        state, version = _loaded.state, _loaded.version
        game = service.variant(state)
        if game.pending(state) == {"type": "score_round"}:
            return version
        pending = game.pending(state)
        if pending is not None:
            service.submit(
                match_id,
                SYSTEM,
                pending,
                expected_version=version,
                idempotency_key=None,
                fingerprint="",
            )
            continue
        seat = game.to_act(state)
        assert seat is not None
        move = hasty(game.view(state, seat), game.legal_moves(state, seat), rng)
        service.submit(
            match_id, seat, move, expected_version=version, idempotency_key=None, fingerprint=""
        )
    raise AssertionError("no round ended")


def test_a_scoring_job_run_twice_appends_once(
    pinned: MatchService, redis_client: redis.Redis
) -> None:
    """G7/G8: the job scores the round (RoundScored); a second run of the same job is stale."""
    match_id = pinned.create_match(GIN, HUMANS, {}, 4).match_id
    version = _to_pending_score(pinned, match_id)
    first = scoring.score_round(match_id, version)
    length = redis_client.xlen(events_key(match_id))
    second = scoring.score_round(match_id, version)
    assert first.startswith("score_round") and second.startswith("stale")
    assert redis_client.xlen(events_key(match_id)) == length
    types = [e.event.type for e in pinned.events(match_id, after=version)]
    assert types[0] == "RoundScored"


def test_a_stale_scoring_job_does_nothing(pinned: MatchService, redis_client: redis.Redis) -> None:
    """A job for a version the match has left, or with no round to score, appends nothing."""
    match_id = pinned.create_match(GIN, HUMANS, {}, 4).match_id
    length = redis_client.xlen(events_key(match_id))
    assert scoring.score_round(match_id, length).startswith("stale")
    assert scoring.score_round(match_id, length - 1).startswith("stale")
    assert scoring.score_round("m_unknown", 3).startswith("skipped")
    assert redis_client.xlen(events_key(match_id)) == length


def test_a_bot_job_run_twice_plays_once(pinned: MatchService, redis_client: redis.Redis) -> None:
    players = [{"name": n, "bot": "random"} for n in "abc"]
    created = pinned.create_match(GIN, players, {}, 4)
    first = bot_turn.play_bot_turn(created.match_id, created.version)
    second = bot_turn.play_bot_turn(created.match_id, created.version)
    assert first.startswith("played") and second.startswith("stale")
    assert redis_client.xlen(events_key(created.match_id)) > created.version


def test_a_bot_job_for_a_human_seat_does_nothing(
    pinned: MatchService, redis_client: redis.Redis
) -> None:
    created = pinned.create_match(GIN, HUMANS, {}, 4)
    assert bot_turn.play_bot_turn(created.match_id, created.version).startswith("stale")
    assert redis_client.xlen(events_key(created.match_id)) == created.version


def test_job_arguments_are_only_the_match_id_and_a_version(
    service: MatchService, redis_client: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No-leak rule: every job of a whole bot match carries (match_id, version), nothing else."""
    made: list[JobSpec] = []
    original = Queues.make_job

    def spy(self: Queues, spec: JobSpec) -> Any:
        made.append(spec)
        return original(self, spec)

    monkeypatch.setattr(Queues, "make_job", spy)
    players = [{"name": n, "bot": "hasty"} for n in "abc"]
    created = service.create_match(GIN, players, {"target_score": 5}, 6, "args-1", "f")
    burst(redis_client)
    assert service.variant(created.state).is_finished(service.load(created.match_id).state)
    assert {s.func for s in made} >= {
        "workers.bot_turn.play_bot_turn",
        "workers.scoring.score_round",
    }
    for spec in made:
        assert spec.args == (created.match_id, spec.version)
        assert isinstance(spec.version, int)


def test_a_bot_receives_its_seat_view_and_legal_moves_only(
    service: MatchService, redis_client: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bot function gets exactly `variant.view(state, seat)`, that seat's legal moves and a
    generator seeded "<match>:<version>": the function signature admits nothing else."""
    assert list(inspect.signature(bot_turn.choose_move).parameters) == [
        "variant",
        "bot",
        "view",
        "legal_moves",
        "seed",
    ]
    for bot in bots.BOTS[GIN].values():
        assert list(inspect.signature(bot.choose).parameters) == ["view", "legal_moves", "rng"]
    seen: list[tuple[Any, ...]] = []
    original = bot_turn.choose_move

    def spy(variant: str, bot: str, view: Any, legal: Any, seed: str) -> Any:
        seen.append((variant, bot, view, legal, seed))
        return original(variant, bot, view, legal, seed)

    monkeypatch.setattr(bot_turn, "choose_move", spy)
    players = [{"name": "a"}, {"name": "b", "bot": "random"}]
    created = service.create_match(MANIP, players, {"target_score": 1}, 8, "view-1", "f")
    for _ in range(30):
        _loaded = service.load(created.match_id)
        state, version = _loaded.state, _loaded.version
        game = service.variant(state)
        seat = game.to_act(state)
        if seat == 0:
            move = game.legal_moves(state, 0)[0]
            service.submit(
                created.match_id,
                0,
                move,
                expected_version=version,
                idempotency_key=None,
                fingerprint="",
            )
        burst(redis_client)
        if game.is_finished(service.load(created.match_id).state):
            break
    assert seen, "the bot never played"
    for variant, bot, view, legal, seed in seen:
        match_id, version = seed.rsplit(":", 1)
        _loaded = service.load(match_id, at=int(version))
        state, _ = _loaded.state, _loaded.version
        game = service.variant(state)
        seat = game.to_act(state)
        assert (variant, bot, seat) == (MANIP, "random", 1)
        assert seat is not None
        assert view == game.view(state, seat)
        assert legal == game.legal_moves(state, seat)
        assert match_id == created.match_id


def test_a_rerun_picks_the_same_move() -> None:
    view = {"you": {"seat": 0}}
    legal = [{"type": "draw"}, {"type": "pass"}, {"type": "knock"}]
    picks = {str(bot_turn.choose_move(GIN, "random", view, legal, "m_x:7")) for _ in range(5)}
    assert len(picks) == 1


def test_jobs_go_to_the_scoring_and_bots_queues_with_the_json_serializer(
    service: MatchService, redis_client: redis.Redis
) -> None:
    players = [{"name": n, "bot": "random"} for n in "abc"]
    created = service.create_match(GIN, players, {}, 4)
    queue = Queue(BOTS_LOW, connection=redis_client, serializer=JSONSerializer)
    (job,) = queue.jobs  # every seat is a bot: the low-priority queue (store/jobs.py)
    assert job.args == [created.match_id, created.version] and job.origin == BOTS_LOW
    assert Queue(SCORING, connection=redis_client).count == 0
