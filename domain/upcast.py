"""Upcasters: old event payload shapes read as current ones, so the rules only see current shapes.

Stored events are never edited: when a payload shape changes, the type gets `v + 1` and an
upcaster here turns the old shape into the new one. The store applies them at its edge
(store/codec.py); the client's log check (deadwood_client/logfile.py) and POST /v1/replays
read exported logs the same way. Upcasters are keyed by (variant, type, v) because the two
games share some type names with different payloads (CardDrawn).
"""

from __future__ import annotations

from collections.abc import Callable

from domain.events import Event
from domain.shapes import JSON

Upcaster = Callable[[dict[str, JSON]], dict[str, JSON]]
"""An old payload (recorded JSON) to the next version's."""

UPCASTERS: dict[tuple[str | None, str, int], Upcaster] = {}


def upcaster(variant: str | None, type_: str, v: int) -> Callable[[Upcaster], Upcaster]:
    """Register `fn` to turn data of `type_` version `v` into version `v + 1`."""

    def register(fn: Upcaster) -> Upcaster:
        UPCASTERS[(variant, type_, v)] = fn
        return fn

    return register


def upcast(event: Event, variant: str | None = None) -> Event:
    """Apply upcasters (the variant's, then any variant-independent one) until none applies."""
    data, v = dict(event.data), event.v
    while True:
        fn = UPCASTERS.get((variant, event.type, v)) or UPCASTERS.get((None, event.type, v))
        if fn is None:
            return event if v == event.v else Event(event.type, data, v)
        data, v = fn(data), v + 1


@upcaster("three-hand-gin", "CardDrawn", 0)
def _gin_card_drawn_v0(data: dict[str, JSON]) -> dict[str, JSON]:
    """v0 (the prototype's shape) recorded `{"seat", "card", "discard": bool}`; v1 names the
    pile: `{"seat", "from": "stock" | "discard", "card"}` (G5.2)."""
    new = {k: val for k, val in data.items() if k != "discard"}
    new["from"] = "discard" if data.get("discard") else "stock"
    return new


@upcaster(None, "MatchCreated", 1)
def _match_created_v1(data: dict[str, JSON]) -> dict[str, JSON]:
    """v1 had no `max_rounds` option (issue 28 item 3): such a match had no bound on its
    rounds, which v2 says with `max_rounds: None` (never accepted for a new match)."""
    options = data.get("options")
    if not isinstance(options, dict) or "max_rounds" in options:
        return data
    return {**data, "options": {**options, "max_rounds": None}}
