"""`random`: a uniformly random legal move. The baseline every other bot must beat."""

from __future__ import annotations

import random

from domain.bots.common import Legal, Move, ViewJSON, require_moves


def choose(view: ViewJSON, legal_moves: Legal, rng: random.Random) -> Move:
    """One of `legal_moves`, picked by `rng` (the view is not consulted)."""
    require_moves(legal_moves, "random")
    return dict(legal_moves[rng.randrange(len(legal_moves))])


def explain(view: ViewJSON, legal_moves: Legal, rng: random.Random) -> tuple[Move, str]:
    move = choose(view, legal_moves, rng)
    return move, f"picked at random among {len(legal_moves)} legal moves"
