"""Dominance between states of the normal-form program (`table.state`): which states are
at least as good as others, and dropping those they dominate (`drop_dominated`).

A state is at least as good as another that it equals but for, in one suit, a long
sequence open where the other has a short one, a 2-card one where the other has a 1-card
one, a long one ending in a real card where the other has one ending in a free joker
(which must go on, `choices.choices`), or one more long one open; or one free joker fewer
used. Whatever completes the other completes it with the same real cards and no more free
jokers: its sequence takes the cards the other's takes and is as valid (a long one may
stop or go on; a spare long one stops, or where the other starts a sequence takes that
card instead, as `choices._splits` would); jokers left at its top end come off, and spare
jokers are laid on after (the normal form). So the program drops, when a rank closes,
each state with a state at least as good (at as many points, for the same set-aside
aces): the same best arrangement, from fewer states (at every step it would cost more
time than it saves).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from domain.manipulation.table.state import USED, WIDTH

V = TypeVar("V")
_ONE = 1 << USED


_TAIL = (1 << 6) - (1 << 12)  # a long sequence ending in a real card for one ending in a joker


def _lifts(index: int) -> tuple[int, ...]:
    """The deltas from a state to those at least as good in one suit (see above), for the
    index of `lift_index`: the suit's 9 sequence bits, and 512 when it has a long sequence
    ending in a free joker."""
    short1, short2, long = index & 7, index >> 3 & 7, index >> 6 & 7
    out = []
    if long < 7:
        out += [1 << 6] + [(1 << 6) - 1] * bool(short1) + [(1 << 6) - (1 << 3)] * bool(short2)
        out += [_TAIL] * (index >> 9)
    if short1 and short2 < 7:
        out.append((1 << 3) - 1)
    return tuple(out)


def lift_index(field: int) -> int:
    """`_lifts`'s index of the suit whose code is at the bottom of `field`."""
    return field & 511 | (512 if field & 0x7000 else 0)


# per suit, the deltas of `_lifts` for each index, shifted to the suit
LIFTS = tuple(
    tuple(tuple(d << WIDTH * suit for d in _lifts(index)) for index in range(1024))
    for suit in range(4)
)
# per suit, (the suit's shift in a state, its `LIFTS`)
SUITS = tuple((WIDTH * suit, LIFTS[suit]) for suit in range(4))


def better(key: int) -> list[int]:
    """The states one change at least as good as `key` (see above)."""
    out = [key - _ONE] if key >> USED & 7 else []
    for shift, lifts in SUITS:
        out += [key + delta for delta in lifts[lift_index(key >> shift)]]
    return out


def drop_dominated(states: dict[int, V], left: Callable[[V, V], V | None]) -> None:
    """Drop from `states` what states at least as good cover (each as it was before any is
    dropped: what is at least as good as those is, too): `left(worse, better)` is what of
    `worse`'s points (and set-aside aces) `better` does not cover, or None. (`better`'s
    states are asked one by one, stopping as soon as the state is covered.)"""
    changed: dict[int, V | None] = {}
    get = states.get
    for key, value in states.items():
        rest: V | None = value
        if key >> USED & 7:
            held = get(key - _ONE)
            if held is not None:
                rest = left(value, held)
        for shift, lifts in SUITS:
            if rest is None:
                break
            for delta in lifts[lift_index(key >> shift)]:
                held = get(key + delta)
                if held is not None:
                    rest = left(rest, held)
                    if rest is None:
                        break
        if rest is not value:
            changed[key] = rest
    for key, rest in changed.items():
        if rest is None:
            del states[key]
        else:
            states[key] = rest


def points_left(worse: int, better: int) -> int | None:
    """`drop_dominated` on plain states (key -> points)."""
    return None if better >= worse else worse
