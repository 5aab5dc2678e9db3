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

from domain.bots.common import Legal, Move, ViewJSON, choose_of, first_listed, require_moves
from domain.bots.manipulation.eval import SeatView, best_meld, keeps_table, moves_of, simple_meld


def explain(view: ViewJSON, legal_moves: Legal, rng: random.Random) -> tuple[Move, str]:
    """The greedy move and a one-line reason."""
    require_moves(legal_moves, "basic manipulation")
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
    return first_listed(legal_moves, FALLBACKS)


choose = choose_of(explain)

FALLBACKS = (
    ("draw", "draw: no meld is possible (M4)"),
    ("end_turn", "end the turn: the hand is over the knock limit"),
    ("pass", "pass: no meld is possible (M9)"),
)
