"""The gin fold makes each state from a draft copy of the previous one's slots (state.py,
issue 14): the states it makes must be ordinary frozen GinStates, and the fold must never change the
state it is given (G9: replay is only the fold)."""

from __future__ import annotations

import dataclasses

import pytest

from domain import gin
from domain.gin.state import GinState, evolve_plainly
from tests.unit.test_gin_support import random_match

NAMES = tuple(f.name for f in dataclasses.fields(GinState))


def test_every_folded_state_is_an_ordinary_frozen_gin_state() -> None:
    """Same fields as `__init__` would set, equal to its rebuild, and read-only."""
    _, states = random_match(5, {"target_score": 30}, rng_seed=2)
    for state in states[:: max(1, len(states) // 60)]:
        assert type(state) is GinState
        assert GinState.__slots__ == NAMES and not hasattr(state, "__dict__")
        rebuilt = GinState(**{name: getattr(state, name) for name in NAMES})
        assert rebuilt == state and dataclasses.replace(state) == state
        with pytest.raises(dataclasses.FrozenInstanceError):
            state.version = -1  # type: ignore[misc]


def test_the_fold_never_changes_the_state_it_is_given() -> None:
    """G9: folding an event leaves the state before it as it was (the step writes a draft)."""
    events, states = random_match(6, {"target_score": 30}, rng_seed=3)
    for before, event in zip(states, events[1:], strict=False):
        values = [getattr(before, name) for name in NAMES]
        after = gin.evolve(before, event)
        assert after is not before and type(after) is GinState
        assert all(getattr(before, n) is v for n, v in zip(NAMES, values, strict=True))
        assert after.version == before.version + 1


@pytest.mark.parametrize("seed", [6, 7])
def test_the_draft_fold_equals_the_plain_fold(seed: int) -> None:
    """`evolve` (a `_Draft` made a GinState) stands for `evolve_plainly` (the steps' changes
    applied by `dataclasses.replace`): the same state after every event of random matches,
    from the same state before, including the first (MatchCreated)."""
    events, states = random_match(seed, {"target_score": 60}, rng_seed=seed)
    befores = [gin.initial_state(), *states[:-1]]
    for before, event in zip(befores, events, strict=True):
        assert gin.evolve(before, event) == evolve_plainly(before, event), event.type
