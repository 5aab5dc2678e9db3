"""Follow-up jobs come from the variant's typed questions (issue 29: which round, which seats
are bots), and are exactly the jobs the state's public view describes."""

from __future__ import annotations

import random
from typing import Any

from domain import gin
from domain.events import SYSTEM
from store.jobs import followups


def _states(players: list[dict[str, Any]], seed: int) -> list[Any]:
    """Every state of one random gin hand (and its scoring) with these players."""
    rng = random.Random(seed)
    state = gin.initial_state()
    for event in gin.create(players, {"target_score": 10}, seed, ""):
        state = gin.evolve(state, event)
    states = [state]
    while not gin.is_finished(state) and len(states) < 400:
        seat = gin.to_act(state)
        move = gin.pending(state) if seat is None else rng.choice(gin.legal_moves(state, seat))
        assert move is not None
        for event in gin.decide(state, SYSTEM if seat is None else seat, move):
            state = gin.evolve(state, event)
            states.append(state)
    return states


def test_followups_from_the_typed_questions_match_the_public_view() -> None:
    """G1.1 seats and their bots never change: bot turns, scoring and system jobs alike."""
    kinds: set[str] = set()
    for players in (
        [{"name": "a"}, {"name": "b", "bot": "basic"}, {"name": "c"}],
        [
            {"name": "a", "bot": "basic"},
            {"name": "b", "bot": "basic"},
            {"name": "c", "bot": "basic"},
        ],
    ):
        for version, state in enumerate(_states(players, 11), start=1):
            shown = gin.view(state, None)
            assert gin.VARIANT.round_number(state) == shown["round"]
            assert gin.VARIANT.bot_seats(state) == tuple(s["bot"] for s in shown["seats"])
            assert gin.VARIANT.public_seats(state) == shown["seats"]
            expected = followups(gin.VARIANT, state, "m_x", version)
            kinds.update(job.func for job in expected)
    assert len(kinds) >= 2  # bot turns and scoring were both met
