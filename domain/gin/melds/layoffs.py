"""Lay-offs (G6.6-G6.7) on card masks: the defender's least deadwood against a knock.

What the defender may lay off onto the knocker's melds (never onto his deadwood, never as a
new meld): the missing fourth card of a knocker's three-card set, and cards of a run's suit
at either end of the run; with chaining (option `layoff_chain`), a card laid off at an end is
itself an end for the next one (9S then TS onto 6S7S8S).

How it is exact: the cards laid off at the ends of a knocker's run form one unbroken block
from that end, so the search tries every block length at every end (a handful of choices).
A fourth card for a set needs nothing else, so it simply costs nothing when the defender
does not use it in his own melds. What is left is the defender's own arrangement with those
cards worth zero, found by a memoised search over his lowest undecided card.

The cost searched is `64 * deadwood + cards laid off`, so among the arrangements of least
deadwood the one that lays off the fewest cards (keeps more in his own melds) is chosen.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

from domain.gin.melds.core import CARD_VALUES, MELDS_BY_LOWEST, RANK_MASKS, SUIT_WIDTH

_LAYOFF_WEIGHT = 1
_POINT_WEIGHT = 64
"""Weights of the searched cost: a point of deadwood outweighs any number of lay-offs."""


@dataclass(frozen=True, slots=True)
class LayoffMasks:
    """The defender's best reply to a knock, as masks (see LayoffResult in domain.gin.melds)."""

    count: int
    melds: tuple[int, ...]
    laid_off: int
    deadwood: int


def set_fourth_cards(knocker_melds: tuple[int, ...]) -> int:
    """G6.6: the cards that complete a knocker's three-card set (one per such set)."""
    out = 0
    for meld in knocker_melds:
        for rank in RANK_MASKS:
            if meld & rank == meld and meld.bit_count() == 3:
                out |= rank ^ meld
    return out


def run_extensions(defender: int, knocker_melds: tuple[int, ...], chain: bool) -> list[int]:
    """G6.6: every union of end blocks the defender can lay off onto the knocker's runs."""
    per_end: list[tuple[int, ...]] = []
    for meld in knocker_melds:
        if any(meld & rank == meld for rank in RANK_MASKS):
            continue
        low = (meld & -meld).bit_length() - 1
        high = meld.bit_length() - 1
        per_end.append(_end_blocks(defender, high, +1, chain))
        per_end.append(_end_blocks(defender, low, -1, chain))
    return sorted({sum_or(combo) for combo in product(*per_end)})


def _end_blocks(defender: int, end: int, step: int, chain: bool) -> tuple[int, ...]:
    """The blocks that can be laid off beyond card `end` going `step`: none, 1 card, 2 ..."""
    suit = end // SUIT_WIDTH
    blocks = [0]
    block = 0
    index = end + step
    while 0 <= index < 52 and index // SUIT_WIDTH == suit and defender >> index & 1:
        block |= 1 << index
        blocks.append(block)
        if not chain:
            break
        index += step
    return tuple(blocks)


def sum_or(masks: tuple[int, ...]) -> int:
    """The union of masks."""
    out = 0
    for mask in masks:
        out |= mask
    return out


def best_layoffs(defender: int, knocker_melds: tuple[int, ...], chain: bool) -> LayoffMasks:
    """G6.7: the defender's least deadwood over his own melds and every legal set of lay-offs."""
    fourths = defender & set_fourth_cards(knocker_melds)
    best: tuple[int, int, dict[int, tuple[int, int]]] | None = None
    for block in run_extensions(defender, knocker_melds, chain):
        memo: dict[int, tuple[int, int]] = {}
        cost = block.bit_count() * _LAYOFF_WEIGHT + _own_melds(defender & ~block, fourths, memo)
        if best is None or cost < best[0]:
            best = (cost, block, memo)
    assert best is not None
    cost, block, memo = best
    melds, leftover = _read_choice(defender & ~block, memo)
    return LayoffMasks(
        count=cost // _POINT_WEIGHT,
        melds=melds,
        laid_off=block | (leftover & fourths),
        deadwood=leftover & ~fourths,
    )


def _own_melds(rest: int, free: int, memo: dict[int, tuple[int, int]]) -> int:
    """Least cost of `rest` in the defender's own melds; cards in `free` cost one lay-off.

    memo[rest] = (cost, the meld taken with the lowest card, or 0 to leave it out of melds).
    """
    if rest == 0:
        return 0
    known = memo.get(rest)
    if known is not None:
        return known[0]
    low = rest & -rest
    index = low.bit_length() - 1
    weight = _LAYOFF_WEIGHT if free & low else _POINT_WEIGHT * CARD_VALUES[index]
    best = weight + _own_melds(rest ^ low, free, memo)
    choice = 0
    for meld in MELDS_BY_LOWEST[index]:
        if meld & rest == meld:
            cost = _own_melds(rest ^ meld, free, memo)
            if cost < best:
                best, choice = cost, meld
    memo[rest] = (best, choice)
    return best


def _read_choice(rest: int, memo: dict[int, tuple[int, int]]) -> tuple[tuple[int, ...], int]:
    """Follow the memo's choices: the melds taken and the cards left out of melds."""
    melds = []
    leftover = 0
    while rest:
        choice = memo[rest][1]
        if choice:
            melds.append(choice)
            rest ^= choice
        else:
            low = rest & -rest
            leftover |= low
            rest ^= low
    return tuple(melds), leftover
