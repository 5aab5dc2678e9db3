"""Built-in bots, found by variant and name (`GET /v1/bots`).

A bot is a pure function `choose(view, legal_moves, rng) -> move` of one seat's view (exactly
what an HTTP client of that seat sees), that seat's legal moves and a `random.Random` seeded
from the match and version, so a rerun picks the same move and a bot cannot cheat.

`BOTS[variant][name]` is the registry; `choose(variant, name, view, legal_moves, rng)` plays.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from domain.bots import random_bot
from domain.errors import InvalidOptions

Move = dict[str, Any]
Choose = Callable[[Mapping[str, Any], Sequence[Mapping[str, Any]], random.Random], Move]


@dataclass(frozen=True)
class Bot:
    name: str
    variant: str
    description: str
    choose: Choose


VARIANTS = ("three-hand-gin", "manipulation-rummy")

BOTS: dict[str, dict[str, Bot]] = {
    variant: {
        "random": Bot("random", variant, "plays a uniformly random legal move", random_bot.choose)
    }
    for variant in VARIANTS
}


def get_bot(variant: str, name: str) -> Bot:
    """The bot `name` of `variant`; InvalidOptions names the unknown bot."""
    bots = BOTS.get(variant, {})
    if name not in bots:
        known = ", ".join(sorted(bots)) or "none"
        raise InvalidOptions(f"bot {name!r} is unknown for {variant}: expected one of {known}")
    return bots[name]


def choose(
    variant: str,
    name: str,
    view: Mapping[str, Any],
    legal_moves: Sequence[Mapping[str, Any]],
    rng: random.Random,
) -> Move:
    """The move bot `name` makes from one seat's view and legal moves."""
    return get_bot(variant, name).choose(view, legal_moves, rng)


def catalogue() -> list[dict[str, str]]:
    """`[{"name", "variant", "description"}]` for every bot (GET /v1/bots)."""
    return [
        {"name": bot.name, "variant": bot.variant, "description": bot.description}
        for bots in BOTS.values()
        for bot in bots.values()
    ]
