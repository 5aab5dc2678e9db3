"""Every match ends (issue 28 item 3), through MatchService and real RQ workers.

Three-hand gin with `knock_limit` 0, `target_score` 1000 and three random bots never ended
before (scores [0, 0, 0] after 111 hands): hands are drawn and nobody scores. Now a match
has `max_rounds` (recorded in MatchCreated like every option, its default following the
target), and once that many rounds are played the standing scores decide. Manipulation can
score nothing in a round too (tied hands), so it has the same bound."""

from __future__ import annotations

from typing import Any

import pytest
import redis

from domain.errors import InvalidOptions
from domain.replay import replay
from domain.shapes import json_object
from store.service import MatchService
from tests.support.workers_play import GIN, MANIP, burst

ENDLESS = {"knock_limit": 0, "target_score": 1000}


def _bots(n: int) -> list[dict[str, str]]:
    return [{"name": f"r{i}", "bot": "random"} for i in range(n)]


@pytest.mark.parametrize(
    ("variant", "seats", "options", "rounds"),
    [
        (GIN, 3, {**ENDLESS, "max_rounds": 3}, 3),
        (MANIP, 3, {"target_score": 1500, "max_rounds": 1}, 1),
    ],
)
def test_a_match_of_random_bots_with_endless_options_ends_after_max_rounds(
    service: MatchService,
    redis_client: redis.Redis,
    variant: str,
    seats: int,
    options: dict[str, int],
    rounds: int,
) -> None:
    created = service.create_match(variant, _bots(seats), options, 28, f"endless-{variant}", "f")
    burst(redis_client)
    loaded = service.load(created.match_id)
    game = loaded.variant
    assert game.is_finished(loaded.state), "the match did not end"
    log = [e.event for e in service.events(created.match_id, limit=100_000)]
    assert replay(log) == loaded.state
    opening: Any = log[0].data
    assert opening["options"]["max_rounds"] == rounds
    assert sum(e.type == "RoundScored" for e in log) == rounds
    finished = log[-1]
    ended: Any = finished.data
    assert finished.type == "MatchFinished" and ended["ended_by"] == "max_rounds"
    view = game.view(loaded.state, None)
    top = max(view["scores"]) if variant == GIN else None
    assert view["status"] == "finished" and view["winners"] == ended["winners"]
    if top is not None:  # G8.3: the highest standing score wins, a tie is shared
        totals = ended["totals"]
        assert ended["winners"] == [s for s, t in enumerate(totals) if t == max(totals)]


def test_the_endless_options_get_a_bound_and_no_bound_is_refused(service: MatchService) -> None:
    """The options that never ended now record `max_rounds` 500 (the default for a target of
    1000); asking for no bound, or more than the most, is refused by name."""
    created = service.create_match(GIN, _bots(3), dict(ENDLESS), 28)
    first = service.events(created.match_id, limit=1)[0].event
    assert (first.v, json_object(first.data["options"])["max_rounds"]) == (2, 500)
    for bad in (None, 0, 501):
        with pytest.raises(InvalidOptions, match=r"'max_rounds' must be an integer 1\.\.500"):
            service.create_match(GIN, _bots(3), {**ENDLESS, "max_rounds": bad}, 28)
    with pytest.raises(InvalidOptions, match=r"'max_rounds' must be an integer 1\.\.300"):
        service.create_match(MANIP, _bots(2), {"max_rounds": None}, 28)
