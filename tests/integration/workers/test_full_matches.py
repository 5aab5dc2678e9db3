"""Full matches through MatchService and real RQ workers (SimpleWorker, burst, JSON
serializer) on a real Redis: rounds score themselves (G7/G8, M10/M11) and bot seats play.

Matches are created with an idempotency key, which fixes the match id (store/idempotency.py)
and so the bots' seeds: each test plays the same match on every run."""

from __future__ import annotations

import redis

from domain.replay import replay
from store.service import MatchService
from tests.support import workers_play
from tests.support.workers_play import GIN, MANIP, burst, play_humans


def _check_final(service: MatchService, match_id: str, state: object) -> int:
    """The domain's replay of the whole log confirms the final state and scores."""
    log = [e.event for e in service.events(match_id, limit=100_000)]
    assert log[-1].type == "MatchFinished"
    assert any(e.type == "RoundScored" for e in log)
    assert replay(log) == state
    game = service.variant(state)
    view = game.view(state, None)
    assert view["status"] == "finished" and view["winners"]
    assert log[-1].data["scores"] == view["scores"]
    return sum(e.type == "RoundScored" for e in log)


def test_gin_match_with_two_bot_seats_plays_to_the_end(
    service: MatchService, redis_client: redis.Redis
) -> None:
    players = [{"name": "ana"}, {"name": "bot1", "bot": "hasty"}, {"name": "bot2", "bot": "random"}]
    created = service.create_match(GIN, players, {}, 11, "gin-1", "f")
    state = play_humans(service, redis_client, created.match_id, seed=1)
    assert _check_final(service, created.match_id, state) >= 2


def test_manipulation_match_with_two_bot_seats_plays_to_the_end(
    service: MatchService, redis_client: redis.Redis
) -> None:
    players = [{"name": "ana"}, {"name": "ben", "bot": "hasty"}, {"name": "cy", "bot": "random"}]
    created = service.create_match(MANIP, players, {"target_score": 120}, 5, "manip-1", "f")
    state = play_humans(service, redis_client, created.match_id, seed=2)
    assert _check_final(service, created.match_id, state) >= 2


def test_an_all_bot_match_plays_on_without_any_client(
    service: MatchService, redis_client: redis.Redis
) -> None:
    """Bots of several seats in a row: each bot's append enqueues the next bot's job, so one
    burst worker run, with no client move in between, plays the whole match."""
    players = [{"name": f"b{i}", "bot": "hasty"} for i in range(3)]
    created = service.create_match(GIN, players, {"target_score": 50}, 12, "gin-2", "f")
    burst(redis_client)
    _loaded = service.load(created.match_id)
    state, _ = _loaded.state, _loaded.version
    assert _check_final(service, created.match_id, state) >= 2
    assert service.variant(state).name == workers_play.GIN
