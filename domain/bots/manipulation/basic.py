"""`basic` Manipulation Rummy: a sensible greedy player that never rearranges the table.

- Meld (M6) whenever it can, as early in the turn as it can (M4): every meld its hand holds,
  the most points first, then every card that extends a meld on the table, one at a time,
  highest first. It does not split, join or rearrange table melds (that is what `expert`'s
  solver does); if its own move is refused it plays the listed adding-only meld that sheds
  the most points.
- Knock as soon as it may (M8.1); otherwise draw (M4), end the turn, or pass (M9.2).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from domain.bots.manipulation.eval import SeatView, best_meld, keeps_table, moves_of, simple_meld

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
    melds = moves_of(legal_moves, "meld")
    if melds:
        own = simple_meld(seat)
        if own is not None:
            return own[0], f"meld: lay down and lay off what the hand holds, {own[1]} points"
        found = best_meld(seat.table, [m for m in melds if keeps_table(seat.table, m)] or melds)
        if found is not None:
            return found[0], f"meld: sheds {found[1]} points without rearranging the table"
    for kind, reason in (
        ("draw", "draw: no meld is possible (M4)"),
        ("end_turn", "end the turn: the hand is over the knock limit"),
        ("pass", "pass: no meld is possible (M9)"),
    ):
        if moves_of(legal_moves, kind):
            return {"type": kind}, reason
    return dict(legal_moves[0]), "the only move listed"
