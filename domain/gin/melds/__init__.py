"""Gin melds and deadwood (G3), the 11-card count (G6.2), arrangements (G6.3), lay-offs (G6.6).

Every function accepts card codes (a list of strings, or one space-separated string) or Card
objects, and works inside on 52-bit masks. All results are exact, never greedy;
tests/unit/test_melds_oracle.py checks them against a brute-force search.

    core.py     melds, least deadwood and arrangements of a hand, on 52-bit masks
    layoffs.py  the defender's lay-offs onto the knocker's melds (G6.6)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from domain.cards import Card, CardLike, from_mask, parse_cards
from domain.errors import IllegalMove, InvalidCard
from domain.gin.melds.core import (
    MELD_MASKS,
    RANK_MASKS,
    arrangements_of,
    best_arrangement,
    least_deadwood,
    mask_value,
)
from domain.gin.melds.layoffs import best_layoffs

Hand = Iterable[CardLike] | str
MAX_HAND = 11
"""A gin hand holds 10 cards, 11 between drawing and discarding (G4.2, G5.2)."""


@dataclass(frozen=True, slots=True)
class Arrangement:
    """A hand split into melds and deadwood (G3.3-G3.4).

    `count` is the deadwood count; for an 11-card hand `discard` is the card set aside
    (G6.2), counted neither in melds nor in deadwood, else None.
    """

    melds: tuple[tuple[Card, ...], ...]
    deadwood: tuple[Card, ...]
    count: int
    discard: Card | None


@dataclass(frozen=True, slots=True)
class LayoffResult:
    """The defender's reply to a knock (G6.5-G6.7).

    `melds` are his own melds, `laid_off` the cards he adds to the knocker's melds,
    `deadwood` the rest, and `count` their value: the O of G7.
    """

    count: int
    melds: tuple[tuple[Card, ...], ...]
    laid_off: tuple[Card, ...]
    deadwood: tuple[Card, ...]


def hand_mask(cards: Hand) -> int:
    """The mask of distinct plain cards; refuses repeats and jokers (G2.1: no jokers)."""
    items = tuple(cards.split() if isinstance(cards, str) else cards)
    mask = 0
    for card in items:
        if card.__class__ is not Card:
            card = Card.parse(card)
        mask |= 1 << card.index
    if mask >> 52:
        raise InvalidCard("card 'JK': gin is played without jokers (G2.1)")
    if mask.bit_count() != len(items):
        parsed = parse_cards(items)
        twice = next(c for c in parsed if parsed.count(c) > 1)
        raise InvalidCard(f"card {twice} appears twice in one hand")
    return mask


def _checked_hand(cards: Hand, most: int = MAX_HAND) -> int:
    mask = hand_mask(cards)
    if mask.bit_count() > most:
        raise IllegalMove(
            f"a hand of {mask.bit_count()} cards: at most {most} here (G4.2, G5.2, G6.2)"
        )
    return mask


def is_meld(cards: Hand) -> bool:
    """G3.1 a set of 3 or 4 cards of one rank; G3.2 a run of 3+ of one suit, ace low (G2.2)."""
    parsed = parse_cards(cards)
    if any(card.is_joker for card in parsed) or len(set(parsed)) != len(parsed):
        return False
    return sum(card.bit for card in parsed) in MELD_MASKS


def deadwood(hand: Hand) -> int:
    """G3.4: the least deadwood count over all meld choices; 11 cards: over every discard."""
    mask = _checked_hand(hand)
    return least_deadwood(mask, mask.bit_count() == MAX_HAND)


def deadwood_of_mask(mask: int) -> int:
    """`deadwood` for a card mask (bit = Card.index), for hot loops such as bots."""
    return least_deadwood(mask, mask.bit_count() == MAX_HAND)


def best_melds(hand: Hand) -> Arrangement:
    """An arrangement reaching `deadwood(hand)`; for 11 cards with the discard that does."""
    mask = _checked_hand(hand)
    melds, dropped = best_arrangement(mask, mask.bit_count() == MAX_HAND)
    return _arrangement(mask, melds, dropped)


def minimal_arrangements(hand10: Hand) -> tuple[Arrangement, ...]:
    """G6.3: every arrangement of a hand (at most 10 cards) reaching its least deadwood.

    Arrangements are distinct as sets of melds (a run of six and two runs of three are two
    arrangements, as are a set of four and each of its sets of three with the fourth card
    elsewhere). The first one is `best_melds(hand10)`.
    """
    mask = _checked_hand(hand10, MAX_HAND - 1)
    return tuple(_arrangement(mask, melds, 0) for melds in arrangements_of(mask))


def layoffs(defender_hand: Hand, knocker_melds: Iterable[Hand], chain: bool = True) -> LayoffResult:
    """G6.6-G6.7: the defender's least deadwood given the knocker's melds.

    Over every arrangement of the defender's own melds and every legal set of lay-offs: a
    fourth card onto a knocker's three-card set, same-suit cards at either end of a
    knocker's run, and (with `chain`, the `layoff_chain` option) further cards beyond a card
    just laid off. Lay-offs never form new melds nor go onto knocker deadwood (which is not
    even an argument). Among equal counts, the fewest cards are laid off. The caller applies
    G6.6's "no lay-offs after gin".
    """
    defender = _checked_hand(defender_hand)
    melds = tuple(_checked_meld(meld) for meld in knocker_melds)
    _check_disjoint(defender, melds)
    found = best_layoffs(defender, melds, chain)
    return LayoffResult(
        count=found.count,
        melds=tuple(from_mask(m) for m in found.melds),
        laid_off=from_mask(found.laid_off),
        deadwood=from_mask(found.deadwood),
    )


def choose_knock_arrangement(
    knocker_hand10: Hand, defender_hand10: Hand, chain: bool = True
) -> Arrangement:
    """G6.3 / api.md knock without melds: the least-deadwood arrangement that lets the
    defender lay off the fewest cards.

    Ties: the one leaving the defender the higher count, then the first in the order of
    `minimal_arrangements`. A gin (count 0) allows no lay-offs (G6.6): the first one.
    """
    options = minimal_arrangements(knocker_hand10)
    if options[0].count == 0:
        return options[0]
    defender = hand_mask(defender_hand10)
    return min(options, key=lambda option: _exposure(defender, option, chain))


def _exposure(defender: int, option: Arrangement, chain: bool) -> tuple[int, int]:
    """How much a spread gives the defender: cards he lays off, then minus his count."""
    melds = tuple(sum(c.bit for c in meld) for meld in option.melds)
    _check_disjoint(defender, melds)
    found = best_layoffs(defender, melds, chain)
    return found.laid_off.bit_count(), -found.count


def _arrangement(mask: int, melds: tuple[int, ...], dropped: int) -> Arrangement:
    melded = sum(melds)
    left = mask & ~melded & ~dropped
    return Arrangement(
        melds=tuple(from_mask(m) for m in sorted(melds, key=_meld_order)),
        deadwood=from_mask(left),
        count=mask_value(left),
        discard=from_mask(dropped)[0] if dropped else None,
    )


def _meld_order(meld: int) -> tuple[int, int]:
    """Melds listed sets first by rank, then runs by suit and rank."""
    is_set = any(meld & rank == meld for rank in RANK_MASKS)
    low = (meld & -meld).bit_length() - 1
    return (0, low % 13) if is_set else (1, low)


def _checked_meld(meld: Hand) -> int:
    mask = hand_mask(meld)
    if mask not in MELD_MASKS:
        shown = " ".join(str(c) for c in from_mask(mask))
        raise IllegalMove(f"[{shown}] is not a meld: a set of 3-4 (G3.1) or a run of 3+ (G3.2)")
    return mask


def _check_disjoint(defender: int, melds: tuple[int, ...]) -> None:
    seen = defender
    for meld in melds:
        if seen & meld:
            shown = " ".join(str(c) for c in from_mask(seen & meld))
            raise IllegalMove(f"card {shown} is in two places at once (G3.3)")
        seen |= meld
