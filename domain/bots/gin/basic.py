"""`basic` three-handed gin: a sensible greedy player that looks only at its own deadwood.

- Upcard offer and draw (G5.1, G5.2): take the discard top when keeping it (and discarding
  another card) leaves less deadwood than now; otherwise pass / draw from the stock.
- Knock (G6): as soon as it may, with the discard that leaves the least deadwood (gin first).
- Discard: the card whose removal leaves the least deadwood, the highest card among equals.
- ADVISOR (G1.3): its only move is to advise; it advises nothing.
- CAPTAIN follows its advisor's advice when the view carries it (`you.advice`, G1.4) and the
  advised move is legal.
"""

from __future__ import annotations

import random

from domain.bots.common import Legal, Move, ViewJSON, choose_of, follow_advice, require_moves
from domain.bots.gin.eval import (
    SeatView,
    bits,
    code,
    deadwood,
    find_move,
    least_deadwood,
    legal_cards,
)
from domain.gin.melds.core import CARD_VALUES


def explain(view: ViewJSON, legal_moves: Legal, rng: random.Random) -> tuple[Move, str]:
    """The greedy move and a one-line reason."""
    require_moves(legal_moves, "basic gin")
    seat = SeatView.of(view)
    kinds = {m.get("type") for m in legal_moves}
    if kinds == {"advise"}:
        return dict(legal_moves[0]), "the advisor only advises (G1.3); no advice given"
    advised = follow_advice(view, legal_moves)
    if advised is not None:
        return advised, "follow the advisor's advice (G1.4)"
    if "take_upcard" in kinds:
        return _offer(seat, legal_moves)
    if "draw" in kinds:
        return _draw(seat, legal_moves)
    knocks = legal_cards(legal_moves, "knock")
    if knocks:
        return _knock(seat, knocks)
    return _discard(seat, legal_cards(legal_moves, "discard"))


choose = choose_of(explain)


def takes(hand: int, top: int | None) -> tuple[bool, int, int]:
    """(would keeping `top` lower the deadwood, deadwood now, deadwood after taking it)."""
    now = deadwood(hand)
    if top is None:
        return False, now, now
    after = best_keep(hand | 1 << top, exclude=1 << top)[1]
    return after < now, now, after


def best_keep(hand11: int, exclude: int = 0) -> tuple[int, int]:
    """(the discard leaving the least deadwood, that deadwood); the highest card among equals."""
    best: tuple[int, int, int] | None = None
    for card in bits(hand11 & ~exclude):
        left = least_deadwood(hand11 & ~(1 << card), False)
        key = (left, -CARD_VALUES[card], -card)
        if best is None or key < best:
            best = key
    assert best is not None
    return -best[2], best[0]


def _offer(seat: SeatView, legal: Legal) -> tuple[Move, str]:
    good, now, after = takes(seat.hand, seat.top)
    top = code(seat.top) if seat.top is not None else "?"
    if good:
        move = find_move(legal, "take_upcard") or {"type": "take_upcard"}
        return move, f"take the upcard {top}: deadwood {now} -> {after}"
    move = find_move(legal, "pass_upcard") or {"type": "pass_upcard"}
    return move, f"pass the upcard {top}: it does not lower the deadwood of {now}"


def _draw(seat: SeatView, legal: Legal) -> tuple[Move, str]:
    take = find_move(legal, "draw", **{"from": "discard"})
    good, now, after = takes(seat.hand, seat.top)
    if take is not None and good and seat.top is not None:
        return take, f"take {code(seat.top)} from the discard pile: deadwood {now} -> {after}"
    move = find_move(legal, "draw", **{"from": "stock"}) or dict(legal[0])
    return move, f"draw from the stock: the discard top does not lower the deadwood of {now}"


def _knock(seat: SeatView, knocks: list[int]) -> tuple[Move, str]:
    card = min(knocks, key=lambda c: (deadwood(seat.hand & ~(1 << c)), -CARD_VALUES[c]))
    left = deadwood(seat.hand & ~(1 << card))
    what = "gin" if left == 0 else f"knock with {left} deadwood"
    return {"type": "knock", "card": code(card)}, f"{what}, discarding {code(card)} (G6)"


def _discard(seat: SeatView, cards: list[int]) -> tuple[Move, str]:
    allowed = sum(1 << c for c in cards)
    card, left = best_keep(seat.hand, exclude=seat.hand & ~allowed)
    return (
        {"type": "discard", "card": code(card)},
        f"discard {code(card)}: leaves the least deadwood ({left}), highest card among equals",
    )
