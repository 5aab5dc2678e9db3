"""`random`: a uniformly random legal move. The baseline every other bot must beat."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any


def choose(
    view: Mapping[str, Any], legal_moves: Sequence[Mapping[str, Any]], rng: random.Random
) -> dict[str, Any]:
    """One of `legal_moves`, picked by `rng` (the view is not consulted)."""
    if not legal_moves:
        raise ValueError("the random bot was asked to move with no legal move")
    return dict(legal_moves[rng.randrange(len(legal_moves))])


def explain(
    view: Mapping[str, Any], legal_moves: Sequence[Mapping[str, Any]], rng: random.Random
) -> tuple[dict[str, Any], str]:
    move = choose(view, legal_moves, rng)
    return move, f"picked at random among {len(legal_moves)} legal moves"
