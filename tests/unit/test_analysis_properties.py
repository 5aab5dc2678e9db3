"""The analyser on arena matches of every bot: every decision it reports is a move event of
that seat, costs are never negative, each class follows the thresholds, the summaries add up,
and the judgments of a gin match do not change when the hidden cards are dealt again."""

from __future__ import annotations

import random

import pytest

from arena.harness import MatchSpec
from arena.logged import play_logged
from domain.analysis import analyse
from domain.analysis import gin as gin_walk
from domain.analysis.gin_judge import judge
from domain.gin.state import evolve as gin_evolve
from domain.gin.state import initial_state as gin_initial
from domain.gin.views import view as gin_view
from domain.shapes import json_int
from tests.support.analysis_helpers import gin_hidden_shuffled

MATCHES = [
    ("three-hand-gin", ("random", "basic", "expert"), 40, 1),
    ("three-hand-gin", ("expert", "random", "random"), 40, 2),
    ("manipulation-rummy", ("basic", "expert"), 40, 3),
    ("manipulation-rummy", ("random", "basic", "expert"), 40, 4),
]


@pytest.mark.parametrize(("variant", "lineup", "target", "seed"), MATCHES)
def test_every_judgment_is_a_move_of_its_seat_with_a_cost_in_its_class(
    variant: str, lineup: tuple[str, ...], target: int, seed: int
) -> None:
    events = play_logged(variant, MatchSpec(0, seed, lineup), {"target_score": target})
    found = analyse(events)
    assert found.decisions
    for decision in found.decisions:
        event = events[decision.seq - 1]
        assert event.data.get("seat") == decision.seat, decision
        assert decision.cost >= 0
        assert decision.judgment == found.thresholds.classify(decision.cost, decision.tags)
    for summary in found.seats:
        mine = [d for d in found.decisions if d.seat == summary.seat]
        assert summary.decisions == len(mine) == sum(n for _, n in summary.counts)
        assert [d.seq for d in summary.worst] == [
            d.seq for d in sorted((d for d in mine if d.cost > 0), key=lambda d: (-d.cost, d.seq))
        ][:3]


def test_gin_judgments_of_an_arena_match_ignore_the_hidden_cards() -> None:
    spec = MatchSpec(0, 9, ("expert", "basic", "random"))
    events = play_logged("three-hand-gin", spec, {"target_score": 40})
    rng = random.Random(3)
    state = gin_initial()
    for index, event in enumerate(events):
        if event.type in gin_walk.MOVES and state.roles is not None:
            seat = json_int(event.data["seat"])
            move = gin_walk.played_move(event)
            real = judge(gin_view(state, seat), move, index + 1)
            again = judge(gin_view(gin_hidden_shuffled(state, seat, rng), seat), move, index + 1)
            assert (real and real.as_json()) == (again and again.as_json()), index + 1
        state = gin_evolve(state, event)
