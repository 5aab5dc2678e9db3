"""What the service's writes return: a created match, and what a move appended.

Both carry every state the response needs, so the API renders each once without folding
again: `Appended.befores` holds the state before each of its events (the state an event's
redaction is worked out on) and `state` the state after the last.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from domain.variants import State, Variant
from store.clock import Turn
from store.codec import StoredEvent


@dataclass(frozen=True)
class Created:
    match_id: str
    version: int
    state: State
    variant: Variant
    tokens: list[str | None]  # per seat; None for bot seats; shown once, stored only as hashes
    replayed: bool = False  # True when an idempotent repeat of a create returned the same match


@dataclass(frozen=True)
class Appended:
    """What a move appended (or, `replayed`, what its first request appended): the state
    before it, its events, the state before each event and the state after, enough to render
    the response once."""

    version: int
    events: list[StoredEvent]
    before: State
    state: Any
    variant: Variant
    replayed: bool
    response: dict[str, Any] | None = None  # the body of a record written by older code
    befores: tuple[State, ...] = ()  # the state each event was applied to (one per event)
    turn: Turn | None = None  # a clocked match's clock after the append (store/clock.py)

    def steps(self) -> list[tuple[State, StoredEvent]]:
        """(the state before the event, the event) for each event, folded once: from
        `befores`, or (an Appended built without them) by evolving `before` along."""
        if len(self.befores) == len(self.events):
            return list(zip(self.befores, self.events, strict=True))
        steps: list[tuple[State, StoredEvent]] = []
        state = self.before
        for item in self.events:
            steps.append((state, item))
            state = self.variant.evolve(state, item.event)
        return steps
