"""`basic` Manipulation Rummy: a sensible greedy player.

- Meld whenever a meld move is listed, the one that sheds the most points (the listed moves
  include the solver's best, domain.table_solver.best_move), as early in the turn as it can
  (M4, M6).
- Knock as soon as it may (M8.1); otherwise draw (M4), end the turn, or pass (M9.2).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from domain.bots.manip_eval import SeatView, best_meld, moves_of

Move = dict[str, Any]


def choose(
    view: Mapping[str, Any], legal_moves: Sequence[Mapping[str, Any]], rng: random.Random
) -> Move:
    return explain(view, legal_moves, rng)[0]


def explain(
    view: Mapping[str, Any], legal_moves: Sequence[Mapping[str, Any]], rng: random.Random
) -> tuple[Move, str]:
    """The greedy move and a one-line reason."""
    if not legal_moves:
        raise ValueError("the basic manipulation bot was asked to move with no legal move")
    seat = SeatView.of(view)
    if moves_of(legal_moves, "knock"):
        return {"type": "knock"}, f"knock with {seat.points} points in hand (M8.1)"
    found = best_meld(seat.table, moves_of(legal_moves, "meld"))
    if found is not None:
        move, points = found
        return move, f"meld: sheds {points} points, the most of the listed melds (M6)"
    for kind, reason in (
        ("draw", "draw: no meld is possible (M4)"),
        ("end_turn", "end the turn: the hand is over the knock limit"),
        ("pass", "pass: no meld is possible (M9)"),
    ):
        if moves_of(legal_moves, kind):
            return {"type": kind}, reason
    return dict(legal_moves[0]), "the only move listed"
