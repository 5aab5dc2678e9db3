"""Positions with the cards a seat cannot see dealt again (the analysis leak tests)."""

from __future__ import annotations

import dataclasses
import random

from domain.cards import Card
from domain.gin.state import SEAT_BITS, GinState
from domain.manipulation.state import State as ManipState


def gin_hidden_shuffled(state: GinState, seat: int, rng: random.Random) -> GinState:
    """The same state for `seat` with its opponent's unshown cards and the stock dealt
    again at random (the cards the opponent took from the pile stay with it, G1.4)."""
    roles = state.roles
    assert roles is not None
    other = roles.captain if seat == roles.box else roles.box
    shown = set(state.picked[other])
    hidden = [c for c in state.hands[other] if c not in shown] + list(state.stock)
    rng.shuffle(hidden)
    keep = len(state.hands[other]) - len(shown)
    hands = list(state.hands)
    hands[other] = tuple(sorted([*shown, *hidden[:keep]], key=lambda c: c.index))
    held = 0
    for owner, hand in enumerate(hands):
        for card in hand:
            held |= 1 << (SEAT_BITS * owner + card.index)
    return dataclasses.replace(state, hands=tuple(hands), stock=tuple(hidden[keep:]), held=held)


def manip_hidden_shuffled(state: ManipState, seat: int, rng: random.Random) -> ManipState:
    """The same state for `seat` with every other hand and the stock dealt again."""
    others = [s for s in range(state.n) if s != seat]
    hidden: list[Card] = [c for s in others for c in state.hands[s]] + list(state.stock)
    rng.shuffle(hidden)
    hands = list(state.hands)
    start = 0
    for s in others:
        size = len(state.hands[s])
        hands[s] = tuple(sorted(hidden[start : start + size], key=lambda c: c.index))
        start += size
    return dataclasses.replace(state, hands=tuple(hands), stock=tuple(hidden[start:]))
