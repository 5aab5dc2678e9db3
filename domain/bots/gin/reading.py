"""What the match so far says about the opponent (G1.5, G7): is it weak?

An opponent is *weak* when it shows no sign of ever getting under the knock limit (G6.2).
Against it nothing is lost by playing on for gin (G6.4, G7.1: its whole count and the bonus,
against its count less ours, after lay-offs, for a knock): it will not knock first, and a
drawn hand (G5.6) is dealt again with the same roles. Two readings of the view:

- Its earlier hands (`rounds`: each hand shown at its end, the winners): it has held cards
  in an earlier hand, won none, and ended each with `weak_at` or more deadwood (G3.4). A
  player drawing for melds ends a hand it loses with about 24, nine in ten under 40; a
  player discarding at random with about 54.
- This hand, when its earlier hands say nothing: a card worth 4 or less was discarded above
  the upcard (a player after a low count keeps those), or the opponent holds a card worth 5
  or more taken from the pile (`picked`, G1.4) that can meld with no card it may hold, by
  the cards this seat has seen (it saves nothing against a higher card). In arena positions
  with a knock in hand and no earlier hand to read, this reads 46% of a random player's
  positions as weak and 2% of the greedy `basic`'s.
"""

from __future__ import annotations

from domain.bots.common import ViewJSON, json_view
from domain.bots.gin.eval import SeatView, bits, deadwood, mask_of
from domain.gin.melds.core import CARD_VALUES
from domain.shapes import JSON, json_list, json_object

WEAK_AT = 30
"""The least deadwood an opponent ends its hands with to count as weak (see the docstring)."""
LOW_CARD = 4  # a discard worth this or less is a sign of weakness ...
DEAD_PICK = 5  # ... and so is a picked card worth this or more that melds with nothing


def opponent_weak(view: ViewJSON, opponent: int, weak_at: int = WEAK_AT) -> bool:
    """Has `opponent` held cards in an earlier round of this match, won none, and ended
    each with at least `weak_at` deadwood (G3.4)? False with no earlier hand to read."""
    if weak_at <= 0:
        return False
    played = False
    for entry in json_list(json_view(view).get("rounds")):
        done = json_object(entry)
        if opponent in json_list(done.get("winners")):
            return False
        held = _held(json_list(done.get("hands")), opponent)
        if held is None:
            continue
        if len(held) != 10 or deadwood(mask_of(held)) < weak_at:
            return False
        played = True
    return played


def _held(hands: object, seat: int) -> list[str] | None:
    if not isinstance(hands, (list, tuple)) or seat >= len(hands) or hands[seat] is None:
        return None
    return [c for c in hands[seat] if isinstance(c, str)]


def has_history(view: ViewJSON, opponent: int) -> bool:
    """Did `opponent` hold cards in an earlier round of this match?"""
    rounds = json_list(json_view(view).get("rounds"))
    return any(_held(json_list(json_object(r).get("hands")), opponent) for r in rounds)


def plays_weak(view: ViewJSON, seat: SeatView, weak_at: int = WEAK_AT) -> bool:
    """Is the opponent weak (module docstring): by its earlier hands, else by this one."""
    if seat.opponent is None or weak_at <= 0:
        return False
    if has_history(view, seat.opponent):
        return opponent_weak(view, seat.opponent, weak_at)
    pile = [c for c in json_list(json_view(view).get("discard_pile")) if isinstance(c, str)]
    if any(CARD_VALUES[c] <= LOW_CARD for c in bits(mask_of(pile[1:]))):
        return True
    picked = _picked(json_view(view).get("picked"), seat.opponent)
    possible = seat.unseen | picked
    return any(
        CARD_VALUES[c] >= DEAD_PICK and not can_meld(c, possible & ~(1 << c)) for c in bits(picked)
    )


def _picked(value: JSON, opponent: int) -> int:
    seats = json_list(value)
    if opponent >= len(seats):
        return 0
    return mask_of([c for c in json_list(seats[opponent]) if isinstance(c, str)])


def can_meld(card: int, possible: int) -> bool:
    """Can `card` share a set (G3.1) or a run (G3.2) with cards of `possible`?"""
    rank, suit = card % 13, card // 13
    if sum(possible >> (s * 13 + rank) & 1 for s in range(4) if s != suit) >= 2:
        return True
    ranks = range(rank - 2, rank + 3)
    near = [0 <= r < 13 and bool(possible >> (suit * 13 + r) & 1) for r in ranks]
    below2, below, _, above, above2 = near
    return (below2 and below) or (below and above) or (above and above2)
