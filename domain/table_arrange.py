"""Arranging a multiset of cards into melds (M2): the table program run once, read back.

`solve(supply)` is the arrangement placing every mandatory card that sheds the most hand
points, or None; `can_arrange(cards)` asks whether all of `cards` (jokers free, each
declared as needed) split into valid melds. Both are exact (see `domain.table_dp`).
"""

from __future__ import annotations

from collections.abc import Sequence

from domain.cards import JOKER_INDEX, Card
from domain.table import Table, TableRules
from domain.table_build import Arrangement, build
from domain.table_dp import JOKER_POINTS, VALUES, Supply, best_final, search, trace

ZERO = (0,) * 52


FLOOR_STEPS = (1, 6, 16, 41, 101)


def solve(supply: Supply, floor: int = -1) -> Arrangement | None:
    """The best arrangement of `supply` (every mandatory card placed) shedding more than
    `floor` points, or None.

    Branch and bound with a falling floor: first ask for every hand card played (going out,
    M8.3, the usual best on a full table), then for a little less, and so on down to
    `floor`. A run with a floor drops only states that cannot beat it, so the first run
    that finds anything above its floor has found the best.
    """
    top = _top(supply)
    for step in FLOOR_STEPS:
        if top - step <= floor:
            break
        found = _above(supply, top - step)
        if found is not None:
            return found
    return _above(supply, floor)


def _above(supply: Supply, floor: int) -> Arrangement | None:
    run = search(supply, floor)
    found = best_final(supply, run)
    if found is None or found[1] <= floor:
        return None
    return build(supply, trace(run, found[0]))


def _top(supply: Supply) -> int:
    """The points of every hand card and hand joker: no arrangement sheds more."""
    cards = sum(n * VALUES[i] for i, n in enumerate(supply.hand_real))
    return cards + JOKER_POINTS * supply.jokers_hand


def counts(cards: Sequence[Card]) -> list[int]:
    """How many of each code 0..52 (jokers at 52)."""
    out = [0] * 53
    for card in cards:
        out[card.index] += 1
    return out


def can_arrange(cards: Sequence[Card], options: object = None, *, decks: int = 2) -> Table | None:
    """An arrangement of all `cards` into valid melds (jokers declared as needed), or None.

    With `joker_identity_respects_copy_count` in `options`, no card is shown more often than
    the `decks` packs hold (M5.7).
    """
    if not cards:
        return ()
    held = counts(cards)
    rules = TableRules.of(options)
    cap = (decks,) * 52 if rules.joker_identity_respects_copy_count else None
    supply = Supply(tuple(held[:52]), ZERO, ZERO, ZERO, cap, 0, held[JOKER_INDEX])
    found = solve(supply)
    return None if found is None else found.melds
