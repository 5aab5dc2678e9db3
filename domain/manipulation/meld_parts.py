"""The parts Manipulation Rummy's meld listing (melds.py, swaps.py) remembers: a meld's key
(its codes in display order) and normal form, a move's change to the table (the melds it
takes away and puts in their place: two moves from one table give the same table exactly
when their changes are equal), a meld's one-card extensions, the hand's new melds (by part of
the hand: a rank or a suit) and the table's index of jokers and growing melds.

Each is remembered per meld, per hand part or per table (by identity or by value): a view
lists the legal moves of a state that differs little from the last one.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import chain, combinations

from domain.cards import FULL_DECK, Card, TableCard
from domain.manipulation.table.local_melds import (
    RANK_PART,
    growth,
    part,
    part_keys,
    plain_meld,
    run_fillers,
    with_joker,
)
from domain.manipulation.table.meld import meld_kind, normalise_meld
from domain.memo import by_identity

Meld = tuple[TableCard, ...]
Table = tuple[Meld, ...]


def extension_of(meld: Meld, card: TableCard) -> tuple[Meld, Change] | None:
    """`meld` with `card` added: its normal form and its change to the table, or None. A
    card of `growth` on a meld in normal form (as the table's are) goes in its place: a
    group's by suit, a sequence's at the low end when it acts one rank below the first
    card, else at the high end. Every other meld, and a sequence growing to 13 cards (whose
    ace may turn from high to low, M2.4), is normalised whole."""
    if len(meld) >= 12 or normal_form(meld) != meld or card.acts_as not in _fits(meld):
        grown = normal_form((*meld, card))
        return None if grown is None else (grown, change_of((meld,), (grown,)))
    acts = card.acts_as
    if meld[0].acts_as.rank == meld[1].acts_as.rank:  # a group
        place = sum(tc.acts_as.suit < acts.suit for tc in meld)
    else:
        place = 0 if acts.rank == meld[0].acts_as.rank - 1 else len(meld)
    key = meld_key(meld)
    grown = (*meld[:place], card, *meld[place:])
    return grown, ((key,), ((*key[:place], str(card), *key[place:]),))


def _fits(meld: Meld) -> frozenset[Card]:
    """The cards a plain card or a joker added to `meld` may act as (`growth`)."""
    plain, declared = growth(meld)
    return plain.union(declared)


@by_identity(8192)
def new_meld(added: Meld) -> tuple[Meld, Change, int] | None:
    """A new meld from the hand: its normal form, its change to the table and its points
    (None when it is no meld). Remembered by identity: the hand's melds are the same objects
    while the hand is (`mask_melds`)."""
    grown = normal_form(added)
    if grown is None:
        return None
    return grown, change_of((), (grown,)), sum(tc.card.value for tc in grown)


def swapped_meld(meld: Meld, k: int) -> tuple[Meld | None, tuple[str, ...]]:
    """Table meld `meld` with its joker at `k` replaced by the card it is declared as, in
    normal form (None if it is no meld), and its key; remembered with the meld."""
    swaps = meld_growth(meld)[3]
    hit = swaps.get(k)
    if hit is None:
        declared = meld[k].declared
        assert declared is not None
        normal = normal_form((*meld[:k], TableCard(declared), *meld[k + 1 :]))
        hit = swaps[k] = (normal, () if normal is None else meld_key(normal))
    return hit


@lru_cache(maxsize=4096)
def joker_triples(mask: int) -> tuple[tuple[Meld, tuple[str, ...]], ...]:
    """The hand's new 3-card melds holding one joker (`hand_listing`, the hand as `mask`):
    where a freed joker may go with two hand cards (M5.4); each with its key."""
    return tuple(
        (grown, change[1][0])
        for grown, change, _ in hand_listing(mask)
        if len(grown) == 3 and sum(tc.card.is_joker for tc in grown) == 1
    )


Change = tuple[tuple[tuple[str, ...], ...], tuple[tuple[str, ...], ...]]


def change_of(removed: Sequence[Meld], added: Sequence[Meld]) -> Change:
    """What a move does to T0, melds as normalised codes: the melds it takes away and the
    melds it puts in their place, the ones in both cancelled. Two moves from one T0 give the
    same table exactly when their changes are equal."""
    return keys_change(list(map(meld_key, removed)), list(map(meld_key, added)))


def keys_change(gone: list[tuple[str, ...]], new: list[tuple[str, ...]]) -> Change:
    """`change_of` of melds given by their keys (`meld_key`)."""
    gone.sort()
    new.sort()
    for key in list(gone):
        if key in new:
            gone.remove(key)
            new.remove(key)
    return tuple(gone), tuple(new)


@by_identity(8192)
@lru_cache(maxsize=8192)
def meld_key(meld: Meld) -> tuple[str, ...]:
    """The meld's codes in display order (a table meld may come in any order)."""
    normal = normal_form(meld)
    return tuple(str(tc) for tc in (meld if normal is None else normal))


@by_identity(8192)
@lru_cache(maxsize=8192)
def normal_form(meld: Meld) -> Meld | None:
    """The meld in display order, or None when it is not a valid meld (I2)."""
    if meld_kind(meld) is None:
        return None
    return normalise_meld(meld)


Made = dict[int, "tuple[Meld, Change] | None"]
Entry = tuple[int, Meld, int, tuple[Card, ...], Made]
Index = tuple[tuple[tuple[int, int, Card], ...], tuple[Entry, ...], int, bool, tuple[int, ...]]


@by_identity(256)
def table_index(table: Table) -> Index:
    """For a table (remembered by identity: draws leave it as it is): where its jokers lie
    with their declared cards; each meld that can grow, with the plain cards that extend it
    (a mask by index), what a joker added to it may be declared as, and its extensions made
    so far; and all the plain cards that extend some meld (a mask), and whether a joker
    extends one; and each growing meld's plain cards again (to filter the melds with
    `compress`). A meld's part is remembered with the meld (`meld_growth`): a move leaves
    most melds as the very same objects."""
    jokers: list[tuple[int, int, Card]] = []
    entries: list[Entry] = []
    reach = 0
    joker_reach = False
    for i, meld in enumerate(table):
        plain, declared, made, _ = meld_growth(meld)
        if plain or declared:
            entries.append((i, meld, plain, declared, made))
            reach |= plain
            joker_reach = joker_reach or bool(declared)
        for k, tc in enumerate(meld):
            if tc.declared is not None:
                jokers.append((i, k, tc.declared))
    return tuple(jokers), tuple(entries), reach, joker_reach, tuple(e[2] for e in entries)


Swaps = dict[int, "tuple[Meld | None, tuple[str, ...]]"]


@by_identity(8192)
def meld_growth(meld: Meld) -> tuple[int, tuple[Card, ...], Made, Swaps]:
    """`growth` of a table meld with the plain cards as a mask (bit `index`), a dict for
    its extensions (by card index, or 64 + the joker declaration's position) and one for
    its joker swaps (`swapped_meld`, by the joker's position)."""
    plain, declared = growth(meld)
    return sum(card.bit for card in plain), declared, {}, {}


def hand_listing(mask: int) -> tuple[NewMeld, ...]:
    """`new_meld` of each of `mask_melds(mask)` that is a meld, in the same order: what
    `legal_moves` lists of the hand's own melds, from parts remembered per rank and suit
    (a whole hand rarely comes back: each view is of a new hand, and a repeated view finds
    its listing in `_LISTED`)."""
    return tuple(chain.from_iterable(map(listing_part, part_keys(mask))))


NewMeld = tuple[Meld, Change, int]


@lru_cache(maxsize=8192)
def listing_part(key: int) -> tuple[NewMeld, ...]:
    """`new_meld` of the melds of `part(key)` that are melds. A suit's are made from
    entries remembered per sequence and per pair with the joker (`suit_entry`), so a suit
    part not seen before costs a walk of its ranks, not a normalisation per meld."""
    if key & RANK_PART:
        return tuple(found for found in map(new_meld, part(key)) if found is not None)
    suit, joker = key >> 13 & 3, key >> 15 & 1
    ranks = [r + 1 for r in range(13) if key >> r & 1]
    out: list[NewMeld | None] = []
    if len(ranks) >= 3:  # as `runs`: by start, then length
        held = set(ranks)
        if 1 in held:
            held.add(14)
        for start in range(1, 13):
            if start in held and start + 1 in held and start + 2 in held:
                end = start + 2
                while end in held:
                    out.append(suit_entry(suit, start, end, 0))
                    end += 1
    if joker:  # as `suit_melds`: each pair, with each card the joker may stand for
        for a, b in combinations(ranks, 2):
            for card in run_fillers(FULL_DECK[13 * suit + a - 1], FULL_DECK[13 * suit + b - 1]):
                out.append(suit_entry(suit, a, b, card.rank))
    return tuple(found for found in out if found is not None)


@lru_cache(maxsize=4096)
def suit_entry(suit: int, low: int, high: int, declared: int) -> NewMeld | None:
    """`new_meld` of the suit's sequence of ranks low..high (14 for a high ace), or with
    `declared`, of the cards of ranks low and high with the joker declared as that rank."""
    if not declared:
        cards = tuple(FULL_DECK[13 * suit + (r - 1) % 13] for r in range(low, high + 1))
        return new_meld(plain_meld(cards))
    pair = (FULL_DECK[13 * suit + low - 1], FULL_DECK[13 * suit + high - 1])
    return new_meld(with_joker(pair, FULL_DECK[13 * suit + declared - 1]))
