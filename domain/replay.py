"""Replay is only the fold: no random numbers, no clock, the same state on every machine."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TypeVar

from domain.events import Event
from domain.variants import Game, State, variant_of

S = TypeVar("S")
M = TypeVar("M")
V = TypeVar("V")


def fold(variant: Game[S, M, V], events: Iterable[Event], state: S | None = None) -> S:
    """Apply `events` to `state` (or to the variant's initial state). Typed by the game
    handed in: `gin.VARIANT` folds to a `GinState`, a `Variant` found by name to a `State`."""
    current = variant.initial_state() if state is None else state
    for event in events:
        current = variant.evolve(current, event)
    return current


def replay(events: Sequence[Event]) -> State:
    """The state a whole log (starting with MatchCreated) folds to."""
    return fold(variant_of(events), events)
