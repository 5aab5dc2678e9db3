"""`expert` Manipulation Rummy: the best-shed solver, and a sampled knock.

From the seat's view only (domain.bots.manipulation.eval):

- Meld (M6): the legal meld that sheds the most points. The listed meld moves hold the best
  move of the exact solver (domain.manipulation.table.solver.best_move: any rearrangement of
  the table that I1-I6 allow), so this is the solver's move; going out (M8.3) is always among the
  best. Among equal points it plays more cards.
- A meld it can make after the first draw is made at once (M4): every card drawn is a
  card to shed, and melding ends the drawing.
- The turn planner: meld now or hold back (M4 D1-D3). After the best meld, next turn melds
  at its first draw with some chance (over the unseen cards, one drawn card fits a table
  meld or makes a meld with the cards left); otherwise it must draw a second card, and
  maybe a third. Those forced draws cost their expected points (`draw_cost`: the chance of
  each extra draw times the mean unseen card). When the hand stays over the knock limit
  anyway, and that cost is more than the cheapest card that still fits the table the
  solver leaves, it holds that card back: a sure meld right after next turn's first draw.
  At most one solver call per candidate card, cheapest first, and only cards the draw
  cost pays for.
- Knock (M8.1): the other hands are sampled from the unseen cards, each seat's hand size
  as shown, and the knock is taken when its expected points (a win is the sum of the
  differences, M10.4; an undercut gives the lowest hand those points plus the bonus) are
  not below zero; otherwise it plays on, keeping its low cards.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from domain.bots.common import (
    Legal,
    Move,
    ViewJSON,
    choose_of,
    first_listed,
    require_moves,
    sample_split,
)
from domain.bots.manipulation.basic import FALLBACKS
from domain.bots.manipulation.eval import (
    SeatView,
    best_meld,
    card_value,
    draw_cost,
    hold_back,
    mean_unseen_value,
    meld_chance,
    moves_of,
)

DESCRIPTION = (
    "plays the exact best-shed solver's meld (rearranging the table), holds back its cheapest "
    "playable card when the forced extra draws would cost more, and knocks when the sampled other "
    "hands say the knock wins on average"
)

SAMPLES = 200
"""Sampled deals of the unseen cards for a knock decision."""


@dataclass(frozen=True, slots=True)
class Params:
    """The expert's knobs (tuned with the arena)."""

    hold: bool = True  # keep a playable card back when the next turn's meld is unsure
    hold_below: float = 0.9  # ... only when a drawn card would meld with less than this chance
    hold_max_value: int = 9  # the most a held card may be worth (and the draw cost pays for)


PARAMS = Params()


def explain(view: ViewJSON, legal_moves: Legal, rng: random.Random) -> tuple[Move, str]:
    """The expert move and a one-line reason."""
    return decide(view, legal_moves, rng, PARAMS)


choose = choose_of(explain)


def decide(
    view: ViewJSON,
    legal_moves: Legal,
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
    cost = draw_cost(chance, mean_unseen_value(seat))
    most = min(params.hold_max_value, int(cost))
    if most < 1:
        return None
    found = hold_back(seat, most)
    if found is None:
        return None
    move, card, proven = found
    unproven = "" if proven else " (the solver's budget ran out: not proven best)"
    return move, (
        f"meld, holding {card} back: a drawn card alone would meld only {100 * chance:.0f}% "
        f"of the time, and the forced draws would cost ~{cost:.1f} points against "
        f"{card_value(card)} for {card}, which fits the table for next turn (M4){unproven}"
    )
