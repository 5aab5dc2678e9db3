"""A bot's move the service makes for a seat (issue 31): the auto move of a timed-out turn,
and the move of a bot seat whose own job kept failing. Seeded by a salt (the match and
version), so a rerun makes the same move; the `random` bot's move when the named bot fails.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from domain import bots
from domain.events import Event
from domain.variants import State, Variant, move_from_json

FALLBACK_BOT = "random"
"""The bot whose legal move stands in when another bot fails (it cannot fail)."""


def fallback_move(game: Variant, state: State, seat: int, bot: str, salt: str) -> tuple[Event, ...]:
    """The events of `bot`'s move for `seat` (the `random` bot's when `bot` fails)."""
    view = game.view(state, seat)
    you = view["you"]
    legal: Sequence[object] = (you["legal_moves"] if you is not None else None) or (
        game.legal_moves(state, seat)
    )
    for name in dict.fromkeys((bot, FALLBACK_BOT)):
        rng = random.Random(f"{salt}:{name}")  # seeded so a rerun agrees
        try:
            move = bots.choose(game.name, name, view, legal, rng)  # type: ignore[arg-type]
            return game.decide(state, seat, move_from_json(move))
        except Exception:
            continue
    raise RuntimeError(f"no bot could move seat {seat}")
