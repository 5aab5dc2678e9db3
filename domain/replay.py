"""Replay is only the fold: no random numbers, no clock, the same state on every machine."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from domain.events import Event
from domain.variants import State, Variant, variant_of


def fold(variant: Variant, events: Iterable[Event], state: State | None = None) -> State:
    """Apply `events` to `state` (or to the variant's initial state)."""
    current = variant.initial_state() if state is None else state
    for event in events:
        current = variant.evolve(current, event)
    return current


def replay(events: Sequence[Event]) -> State:
    """The state a whole log (starting with MatchCreated) folds to."""
    return fold(variant_of(events), events)
