"""`expert` Manipulation Rummy: the best-shed solver, and a sampled knock.

From the seat's view only (domain.bots.manipulation.eval):

- Meld (M6): the legal meld that sheds the most points. The listed meld moves hold the best
  move of the exact solver (domain.manipulation.table.solver.best_move: any rearrangement of
  the table that I1-I6 allow), so this is the solver's move; going out (M8.3) is always among the
  best. Among equal points it plays more cards.
- A meld it can make after the first draw is made at once (M4): every card drawn is a
  card to shed, and melding ends the drawing.
- When to hold cards: a turn without a meld costs three draws (M4 D1-D3). When the best
  meld would leave a hand that one drawn card melds with less than `hold_below` chance
  (over the unseen cards: it fits a table meld or makes a meld with the cards left), and
  the hand is over the knock limit anyway, it holds back its cheapest card that still fits
  the table the solver leaves, so it can meld right after next turn's first draw.
- Knock (M8.1): the other hands are sampled from the unseen cards, each seat's hand size
  as shown, and the knock is taken when its expected points (a win is the sum of the
  differences, M10.4; an undercut gives the lowest hand those points plus the bonus) are
  not below zero; otherwise it plays on, keeping its low cards.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from domain.bots.common import choose_of, first_listed, require_moves, sample_split
from domain.bots.manipulation.basic import FALLBACKS
from domain.bots.manipulation.eval import (
    SeatView,
    best_meld,
    card_value,
    hold_back,
    meld_chance,
    moves_of,
)

Move = dict[str, Any]
DESCRIPTION = (
    "plays the exact best-shed solver's meld (rearranging the table), and knocks when the "
    "sampled other hands say the knock wins on average"
)

SAMPLES = 200
"""Sampled deals of the unseen cards for a knock decision."""


@dataclass(frozen=True, slots=True)
class Params:
    """The expert's knobs (tuned with the arena)."""

    hold: bool = True  # keep a playable card back when the next turn's meld is unsure
    hold_below: float = 0.6  # ... when a drawn card would meld with less than this chance
    hold_max_value: int = 5  # the most a held card may be worth


PARAMS = Params()


def explain(
    view: Mapping[str, Any], legal_moves: Sequence[Mapping[str, Any]], rng: random.Random
) -> tuple[Move, str]:
    """The expert move and a one-line reason."""
    return decide(view, legal_moves, rng, PARAMS)


choose = choose_of(explain)


def decide(
    view: Mapping[str, Any],
    legal_moves: Sequence[Mapping[str, Any]],
    rng: random.Random,
    params: Params,
) -> tuple[Move, str]:
    """The expert move with these knobs, and why."""
    require_moves(legal_moves, "expert manipulation")
    seat = SeatView.of(view)
    if moves_of(legal_moves, "knock"):
        ev, win = knock_value(seat, rng)
        if ev >= 0 or not moves_of(legal_moves, "end_turn"):
            return {"type": "knock"}, (
                f"knock with {seat.points} points: wins {100 * win:.0f}% of sampled deals, "
                f"about {ev:+.1f} points (M8.1, M10)"
            )
        return {"type": "end_turn"}, (
            f"play on: a knock with {seat.points} points would lose {100 * (1 - win):.0f}% of "
            "sampled deals to a lower hand"
        )
    found = best_meld(seat.table, moves_of(legal_moves, "meld"))
    if found is not None:
        move, points = found
        left = seat.points - points
        if params.hold and seat.phase == "meld_or_draw" and left > seat.knock_limit:
            held = _hold(seat, move, params)
            if held is not None:
                return held
        out = "goes out" if left == 0 else f"leaves {left} points"
        return move, f"meld: sheds {points} points, the solver's best; {out}"
    return first_listed(legal_moves, FALLBACKS)


def knock_value(seat: SeatView, rng: random.Random, samples: int = SAMPLES) -> tuple[float, float]:
    """(expected points of knocking now, share of sampled deals the knock wins), M10.1-M10.4.

    Points are relative: a win scores the sum of the differences; a loss counts the lowest
    hand's score (with the undercut bonus) shared among the other players.
    """
    unseen = [card_value(c) for c in seat.unseen()]
    others = [s for s in range(seat.players) if s != seat.seat]
    sizes = [seat.hand_sizes[s] for s in others]
    need = sum(sizes)
    mine = seat.points
    if not others or need > len(unseen):
        return 0.0, 1.0
    total = 0.0
    wins = 0
    for _ in range(samples):
        counts = [sum(part) for part in sample_split(rng, unseen, sizes)]
        low = min(counts)
        if low > mine:
            wins += 1
            total += sum(c - mine for c in counts)
        else:
            gain = sum(c - low for c in counts) + (mine - low) + seat.undercut_bonus
            total -= gain / len(others)
    return total / samples, wins / samples


def _hold(seat: SeatView, best: Move, params: Params) -> tuple[Move, str] | None:
    """Keep one low card back that next turn's table takes, when a drawn card alone would
    too often leave us with no meld, and so two or three more draws (M4)."""
    chance = meld_chance(seat, best)
    if chance >= params.hold_below:
        return None
    found = hold_back(seat, params.hold_max_value)
    if found is None:
        return None
    move, card, proven = found
    unproven = "" if proven else " (the solver's budget ran out: not proven best)"
    return move, (
        f"meld, holding {card} back: a drawn card alone would meld only {100 * chance:.0f}% "
        f"of the time, and {card} fits the table for next turn (M4){unproven}"
    )
