"""Manipulation Rummy's joker swaps (M5.2, M5.4) for the meld listing (melds.py): a hand card
equal to a table joker's declared card takes its place, and the freed joker goes on as a
one-card extension of a meld or into a new meld with two hand cards.

`joker_swaps` lists the swapped tables plainly (each then checked whole by
`validate_meld_move`); `swap_listing` lists the same tables in the same order, checked meld
by meld from parts remembered per meld and per hand (meld_parts.py), where the options let a
freed joker go anywhere (tests/unit/test_manipulation_listing.py holds both to `decide`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from domain.cards import JOKER, JOKER_INDEX, Card, TableCard
from domain.manipulation.meld_parts import (
    Change,
    Meld,
    Table,
    extension_of,
    joker_triples,
    keys_change,
    meld_growth,
    meld_key,
    swapped_meld,
    table_index,
)
from domain.manipulation.table.local_melds import growth, hand_melds


def swap_listing(
    table: Table,
    jokers: tuple[tuple[int, int, Card], ...],
    hand: tuple[Card, ...],
    mask: int,
    seen: set[Change],
    out: list[Table],
) -> None:
    """The joker swaps of `joker_swaps`, in its order, checked meld by meld: the hand card
    takes the joker's place (the meld acts the same), and the freed joker may go anywhere
    (A-M18 default), so I1-I6 hold once each changed meld is valid (I2); each is kept when
    its change to the table is new. The swapped meld, the extensions by the freed joker and
    the new 3-card melds with it are remembered per meld and per hand mask."""
    for i, k, declared in jokers:  # the table's (`table_index`)
        if not mask >> declared.index & 1:
            continue
        meld = table[i]
        swapped, swapped_key = swapped_meld(meld, k)
        if swapped is None:
            continue
        removed = meld_key(meld)
        _freed_onto_melds(table, i, (swapped, swapped_key, removed), seen, out)
        left = mask if hand.count(declared) > 1 else mask & ~(1 << declared.index)
        for grown, grown_key in joker_triples(left | 1 << JOKER_INDEX):
            change = keys_change([removed], [swapped_key, grown_key])
            if change not in seen:
                seen.add(change)
                out.append((*table[:i], swapped, *table[i + 1 :], grown))


def _freed_onto_melds(
    table: Table,
    i: int,
    swap: tuple[Meld, tuple[str, ...], tuple[str, ...]],
    seen: set[Change],
    out: list[Table],
) -> None:
    """`swap_listing`'s tables where the joker freed from meld `i` (now `swapped`, whose key
    is `swapped_key`; the meld's key before was `removed`) extends a meld by one card."""
    swapped, swapped_key, removed = swap
    for j, target in enumerate(table):
        if j == i:
            target = swapped
        _, fits, made, _ = meld_growth(target)
        for key, card in enumerate(fits, 64):
            if key in made:
                found = made[key]
            else:
                found = made[key] = extension_of(target, TableCard(JOKER, card))
            if found is None:
                continue
            grown, grown_change = found
            if j == i:
                change = keys_change([removed], [grown_change[1][0]])
                listed = (*table[:i], grown, *table[i + 1 :])
            else:
                change = keys_change(
                    [removed, grown_change[0][0]], [swapped_key, grown_change[1][0]]
                )
                replaced = list(table)
                replaced[i] = swapped
                replaced[j] = grown
                listed = tuple(replaced)
            if change not in seen:
                seen.add(change)
                out.append(listed)


def joker_swaps(table: Table, hand: Sequence[Card]) -> Iterator[Table]:
    """M5.2, M5.4: a hand card equal to a table joker's declared card takes its place, and
    the freed joker goes on as a one-card extension of a meld, or into a new meld with two
    hand cards (declared as the card they miss)."""
    jokers = table_index(table)[0]
    if not jokers:
        return
    held = frozenset(hand)  # a declared card is never a joker
    for i, k, declared in jokers:
        if declared not in held:
            continue
        meld = table[i]
        swapped = (*meld[:k], TableCard(declared), *meld[k + 1 :])
        rest = (*table[:i], swapped, *table[i + 1 :])
        left = list(hand)
        left.remove(declared)
        yield from _seat_freed(rest, left)


def _seat_freed(table: Table, hand: Sequence[Card]) -> Iterator[Table]:
    """A freed joker placed again: onto any meld, or with two hand cards."""
    for i, meld in enumerate(table):
        for declared in growth(meld)[1]:
            yield (*table[:i], (*meld, TableCard(JOKER, declared)), *table[i + 1 :])
    for meld in hand_melds([*hand, JOKER]):
        if sum(tc.card.is_joker for tc in meld) == 1 and len(meld) == 3:
            yield (*table, meld)
