"""The melds local moves make (M2): new melds from the hand alone (`hand_melds`), and the
cards that keep a meld valid when added (`growth`).

The vocabulary shared by the going-out certificate (`table.local_moves`) and, above this
package, the listing of representative meld moves (`domain/manipulation/melds.py`), which
imports it from here: the table package imports nothing above it. A hand is read as a mask
of its distinct cards (bit `index`, `hand_mask`), and its melds are made in parts, one per
rank and one per suit (`part_keys`, `part`), each remembered.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import lru_cache, reduce
from itertools import chain, combinations
from operator import attrgetter, or_

from domain.cards import FULL_DECK, JOKER, JOKER_INDEX, Card, TableCard
from domain.manipulation.table.meld import Meld, meld_kind
from domain.memo import by_identity


def hand_mask(hand: Sequence[Card]) -> int:
    """The hand's distinct cards as a mask (bit `index`; the joker's is bit 52)."""
    return reduce(or_, map(_INDEX_BIT, map(_INDEX, hand)), 0)


def hand_melds(hand: Sequence[Card]) -> Iterator[Meld]:
    """New melds from the hand alone: groups of 3 and 4, sequences of 3 or more, and the
    same completed by one joker from the hand (declared as the missing card)."""
    return iter(mask_melds(hand_mask(hand)))


_INDEX = attrgetter("index")


_INDEX_BIT = [1 << i for i in range(JOKER_INDEX + 1)].__getitem__
"""A card's bit in a hand mask, by its index (the joker's is bit 52): two copies are one bit."""


@lru_cache(maxsize=4096)
def mask_melds(mask: int) -> tuple[Meld, ...]:
    """`hand_melds` of the hand's distinct cards as a mask (bit `index`), memoised (the same
    hands, less one card, come back swap after swap)."""
    return tuple(chain.from_iterable(map(part, part_keys(mask))))


def has_run(ranks: int) -> bool:
    """Three consecutive ranks among these ranks of one suit (bit r-1 for rank r; ace low,
    or high after a king): without a joker, a suit with none makes no meld (`_RUNS` holds
    the answer for every suit's ranks)."""
    ranks |= (ranks & 1) << 13
    return bool(ranks & (ranks >> 1) & (ranks >> 2))


def part_keys(mask: int) -> list[int]:
    """The hand's melds in parts, each named by one int (`part`): rank by rank (in order of
    each rank's first card: by suit, then rank), then suit by suit.

    A rank makes a group with 3 cards, or 2 and the joker; a suit makes a sequence only with
    three ranks in a row (M2.4: ace low, or high after a king, no wrap), or two and the joker:
    the rank and suit fields of the mask tell both without a loop over the cards."""
    a, b, c, d = mask & 8191, mask >> 13 & 8191, mask >> 26 & 8191, mask >> 39 & 8191
    keys: list[int] = []
    if mask >> JOKER_INDEX & 1:
        grouped = (a & (b | c | d)) | (b & (c | d)) | (c & d)  # two suits or more
        if grouped:
            _group_keys(keys, grouped, a, b, c, d, 1)
        if a & (a - 1):  # two cards or more
            keys.append(a | _JOKER_PART)
        if b & (b - 1):
            keys.append(b | 1 << 13 | _JOKER_PART)
        if c & (c - 1):
            keys.append(c | 2 << 13 | _JOKER_PART)
        if d & (d - 1):
            keys.append(d | 3 << 13 | _JOKER_PART)
        return keys
    grouped = (a & b & (c | d)) | (c & d & (a | b))  # three suits or more
    if grouped:
        _group_keys(keys, grouped, a, b, c, d, 0)
    runs = _RUNS
    if runs[a]:
        keys.append(a)
    if runs[b]:
        keys.append(b | 1 << 13)
    if runs[c]:
        keys.append(c | 2 << 13)
    if runs[d]:
        keys.append(d | 3 << 13)
    return keys


def _group_keys(keys: list[int], grouped: int, a: int, b: int, c: int, d: int, joker: int) -> None:
    """The rank parts of `part_keys`: each grouped rank in the order of its first card."""
    left = grouped
    for suit in (a, b, c, d):
        first, left = suit & left, left & ~suit
        while first:
            low = first & -first
            first ^= low
            rank = low.bit_length() - 1
            held = (a >> rank & 1) | (b >> rank & 1) << 1 | (c >> rank & 1) << 2
            keys.append(RANK_PART | rank | (held | (d >> rank & 1) << 3) << 4 | joker << 8)


_JOKER_PART = 1 << 15


_RUNS = bytes(has_run(ranks) for ranks in range(8192))
"""Whether a suit's ranks (bits 0-12) hold three in a row (M2.4, ace low or high)."""


RANK_PART = 1 << 16


@lru_cache(maxsize=8192)
def part(key: int) -> tuple[Meld, ...]:
    """With bit 16 set, `rank_melds` of rank `key & 15` (0 for an ace) held in the suits of
    bits 4-7, with the joker when bit 8 is set; otherwise `suit_melds` of suit
    `key >> 13 & 3` holding the ranks of bits 0-12, with the joker when bit 15 is set."""
    if key & RANK_PART:
        rank, joker = key & 15, bool(key >> 8 & 1)
        return rank_melds(tuple(13 * s + rank for s in range(4) if key >> 4 + s & 1), joker)
    suit, joker = key >> 13 & 3, bool(key >> 15 & 1)
    return suit_melds(tuple(13 * suit + r for r in range(13) if key >> r & 1), joker)


@lru_cache(maxsize=4096)
def rank_melds(indices: tuple[int, ...], has_joker: bool) -> tuple[Meld, ...]:
    """The hand's melds of one rank (its cards' indices, ascending): remembered per rank,
    since a draw changes one rank of the hand and leaves the others as they were."""
    cards = tuple(FULL_DECK[i] for i in indices)
    out: list[Meld] = []
    if len(cards) >= 3:
        for size in (3, 4):
            out.extend(plain_meld(combo) for combo in combinations(cards, size))
    if has_joker and len(cards) in (2, 3):
        out.extend(with_joker(combo, _missing_suit(combo)) for combo in combinations(cards, 2))
    return tuple(out)


@lru_cache(maxsize=4096)
def suit_melds(indices: tuple[int, ...], has_joker: bool) -> tuple[Meld, ...]:
    """The hand's melds of one suit (its cards' indices, ascending), remembered per suit."""
    cards = tuple(FULL_DECK[i] for i in indices)
    out: list[Meld] = []
    if len(cards) >= 3:
        out.extend(plain_meld(run) for run in runs(cards))
    if has_joker:
        for a, b in combinations(cards, 2):
            out.extend(with_joker((a, b), d) for d in run_fillers(a, b))
    return tuple(out)


@lru_cache(maxsize=8192)
def plain_meld(cards: tuple[Card, ...]) -> Meld:
    """The meld of these plain cards (one object per content, so the memos downstream
    answer by identity from hand to hand)."""
    return tuple(TableCard(c) for c in cards)


@lru_cache(maxsize=8192)
def with_joker(cards: tuple[Card, ...], declared: Card | None) -> Meld:
    if declared is None:
        return tuple(TableCard(c) for c in cards)
    return (*(TableCard(c) for c in cards), TableCard(JOKER, declared))


def _missing_suit(cards: Sequence[Card]) -> Card | None:
    suits = {c.suit for c in cards}
    for suit in range(4):
        if suit not in suits:
            return Card.of(cards[0].rank, suit)
    return None


def run_fillers(a: Card, b: Card) -> list[Card]:
    """The cards a joker may stand for to make a 3-card sequence with a and b."""
    low, high = sorted((a.rank, b.rank))
    if high - low == 2:
        return [Card.of(low + 1, a.suit)]
    if high - low == 1:
        out = [Card.of(r, a.suit) for r in (low - 1, high + 1) if 1 <= r <= 13]
        if high == 13:
            out.append(Card.of(1, a.suit))
        return out
    if (low, high) == (1, 12):
        return [Card.of(13, a.suit)]
    return []


def runs(cards: Sequence[Card]) -> Iterator[tuple[Card, ...]]:
    """Every sequence of 3+ consecutive cards of one suit (ace low, or high after a king)."""
    ranks = {c.rank: c for c in cards}
    if 1 in ranks:
        ranks[14] = ranks[1]
    for start in range(1, 13):
        if start + 2 not in ranks or start + 1 not in ranks or start not in ranks:
            continue  # no sequence of 3 starts here (most starts of a short suit)
        run = [ranks[start], ranks[start + 1]]
        for rank in range(start + 2, 15):
            if rank not in ranks:
                break
            run.append(ranks[rank])
            yield tuple(run)


@by_identity(4096)
@lru_cache(maxsize=4096)
def growth(meld: Meld) -> tuple[frozenset[Card], tuple[Card, ...]]:
    """The plain cards that keep `meld` valid when added, and the cards a joker added to it
    may be declared as (memoised: table melds repeat from view to view)."""
    kind = meld_kind(meld)
    acting = [tc.acts_as for tc in meld]
    if kind == "group":
        missing = [
            Card.of(acting[0].rank, s) for s in range(4) if s not in {c.suit for c in acting}
        ]
        return frozenset(missing), tuple(missing[:1])
    if kind == "sequence":
        return _run_growth(acting)
    near = _near(meld)
    plain = frozenset(card for card in near if meld_kind((*meld, TableCard(card))) is not None)
    jokers = tuple(
        declared
        for declared in _fitting(meld)
        if declared in near and meld_kind((*meld, TableCard(JOKER, declared))) is not None
    )
    return plain, jokers


def _run_growth(acting: list[Card]) -> tuple[frozenset[Card], tuple[Card, ...]]:
    """`growth` of a valid sequence (M2.3, M2.4): a card just below or above its ends, the
    ace low below a 2 or high above a king, never past 13 cards."""
    if len(acting) >= 13:
        return frozenset(), ()
    suit = acting[0].suit
    ranks = sorted(c.rank for c in acting)
    if ranks[0] == 1 and 2 not in ranks:
        ranks = [*ranks[1:], 14]  # the ace is high
    ends = [r for r in (ranks[0] - 1, ranks[-1] + 1) if 1 <= r <= 14]
    if 1 in ranks:
        ends = [r for r in ends if r != 14]
    if 14 in ranks:
        ends = [r for r in ends if r != 1]
    cards = sorted({Card.of((r - 1) % 13 + 1, suit) for r in ends}, key=lambda c: c.rank)
    return frozenset(cards), tuple(cards)


def _near(meld: Meld) -> frozenset[Card]:
    """The only cards that could extend `meld` (M2.2-M2.4): its rank's cards, and its
    suit's cards one rank below or above its lowest and highest ranks (the ace both ends)."""
    acting = [tc.acts_as for tc in meld if tc.declared is not None or not tc.card.is_joker]
    out: set[Card] = set()
    for card in acting:
        out.update(Card.of(card.rank, suit) for suit in range(4))
        for rank in (card.rank - 1, card.rank + 1):
            out.add(Card.of((rank - 1) % 13 + 1, card.suit))
    return frozenset(out)


def _fitting(meld: Meld) -> list[Card]:
    acting = [tc.acts_as for tc in meld]
    kind = meld_kind(meld)
    if kind == "group":
        suits = {c.suit for c in acting}
        return [Card.of(acting[0].rank, s) for s in range(4) if s not in suits][:1]
    if kind == "sequence":
        suit = acting[0].suit
        return [Card.of(r, suit) for r in range(1, 14)]
    return []
