"""domain.gin.melds against a brute-force oracle (issue 2: exact, never greedy; G3, G6.2-G6.7).

The oracle is written plainly from the rules with Card objects: list every meld of the deck
(G3.1 sets of 3-4 of one rank, G3.2 runs of 3+ in one suit, ace low only per G2.2), keep those
inside the hand, and enumerate every collection of disjoint ones (G3.3). An 11-card hand is
the least over its 11 possible discards (G6.2). Lay-offs (G6.6) are every subset of the
defender's leftover cards that can all be placed on the knocker's melds one at a time.

In all, 10,000 random hands (half 10 cards, half 11; half uniform, half meld-heavy) are
checked for deadwood and best_melds, plus layoffs, minimal_arrangements and
choose_knock_arrangement on random deals.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from itertools import combinations

from hypothesis import given
from hypothesis import strategies as st

from domain.cards import FULL_DECK, Card
from domain.gin.melds import (
    best_melds,
    choose_knock_arrangement,
    deadwood,
    is_meld,
    layoffs,
    minimal_arrangements,
)
from domain.gin.melds.core import (
    DECK_MASK,
    best_arrangement,
    best_discard,
    deadwood_saved,
    least_deadwood,
    least_deadwoods_plus,
)

Meld = frozenset[Card]


def _deck_melds() -> list[Meld]:
    melds: list[Meld] = []
    for rank in range(1, 14):
        same_rank = [c for c in FULL_DECK if c.rank == rank]
        for size in (3, 4):
            melds.extend(frozenset(combo) for combo in combinations(same_rank, size))
    for suit in range(4):
        for low in range(1, 14):
            for high in range(low + 2, 14):
                melds.append(frozenset(Card.of(r, suit) for r in range(low, high + 1)))
    return melds


DECK_MELDS = _deck_melds()


def value(cards: frozenset[Card] | set[Card]) -> int:
    return sum(c.value for c in cards)


def meld_collections(hand: frozenset[Card]) -> Iterator[tuple[Meld, ...]]:
    """Every collection of pairwise disjoint melds inside the hand, the empty one included."""
    inside = [m for m in DECK_MELDS if m <= hand]

    def extend(
        start: int, used: frozenset[Card], chosen: tuple[Meld, ...]
    ) -> Iterator[tuple[Meld, ...]]:
        yield chosen
        for i in range(start, len(inside)):
            if not inside[i] & used:
                yield from extend(i + 1, used | inside[i], (*chosen, inside[i]))

    return extend(0, frozenset(), ())


def oracle_deadwood(hand: frozenset[Card]) -> int:
    if len(hand) == 11:
        return min(oracle_deadwood(hand - {d}) for d in hand)
    return min(value(hand - frozenset().union(*ms)) for ms in meld_collections(hand))


def oracle_minimal(hand: frozenset[Card]) -> set[frozenset[Meld]]:
    scored = [
        (value(hand - frozenset().union(*ms)), frozenset(ms)) for ms in meld_collections(hand)
    ]
    least = min(score for score, _ in scored)
    return {ms for score, ms in scored if score == least}


def all_placeable(cards: set[Card], knocker_melds: list[Meld], chain: bool) -> bool:
    """G6.6: can every card be laid off, one at a time, onto the knocker's melds?"""
    runs = []
    fourths = set()
    for meld in knocker_melds:
        ranks = {c.rank for c in meld}
        if len(ranks) == 1:
            if len(meld) == 3:
                fourths |= {c for c in FULL_DECK if c.rank in ranks} - meld
        else:
            suit = next(iter(meld)).suit
            runs.append([min(ranks), max(ranks), suit, min(ranks), max(ranks)])
    placed: set[Card] = set()
    progress = True
    while progress:
        progress = False
        for card in cards - placed:
            for run in runs:
                low, high, suit = (run[0], run[1], run[2]) if chain else (run[3], run[4], run[2])
                if card.suit == suit and card.rank in (low - 1, high + 1):
                    run[0], run[1] = min(run[0], card.rank), max(run[1], card.rank)
                    placed.add(card)
                    progress = True
                    break
            else:
                if card in fourths:
                    placed.add(card)
                    progress = True
    return placed == cards


def oracle_layoffs(
    defender: frozenset[Card], knocker_melds: list[Meld], chain: bool
) -> tuple[int, int]:
    """G6.7: (least deadwood, fewest cards laid off at that deadwood)."""
    knocker_suits = {next(iter(m)).suit for m in knocker_melds if len({c.rank for c in m}) > 1}
    set_ranks = {next(iter(m)).rank for m in knocker_melds if len({c.rank for c in m}) == 1}
    best = (10**9, 10**9)
    for own in meld_collections(defender):
        left = set(defender - frozenset().union(*own))
        candidates = [c for c in left if c.suit in knocker_suits or c.rank in set_ranks]
        for size in range(len(candidates) + 1):
            for laid in combinations(candidates, size):
                if all_placeable(set(laid), knocker_melds, chain):
                    best = min(best, (value(left - set(laid)), size))
    return best


def meld_heavy(rng: random.Random, size: int, pool: list[Card] | None = None) -> frozenset[Card]:
    """2-4 random melds, mostly overlapping, trimmed or filled up with random cards."""
    deck = list(FULL_DECK) if pool is None else pool
    in_pool = set(deck)
    melds = DECK_MELDS if pool is None else [m for m in DECK_MELDS if m <= in_pool]
    cards: set[Card] = set(rng.choice(melds))
    for _ in range(rng.choice((1, 2, 3))):
        touching = [m for m in melds if m & cards and not m <= cards]
        cards |= rng.choice(touching if touching and rng.random() < 0.7 else melds)
    chosen = rng.sample(sorted(cards), min(size, len(cards)))
    rest = [c for c in deck if c not in chosen]
    return frozenset(chosen + rng.sample(rest, size - len(chosen)))


def uniform(rng: random.Random, size: int) -> frozenset[Card]:
    return frozenset(rng.sample(FULL_DECK, size))


def check_best_melds(hand: frozenset[Card], expected: int) -> None:
    arrangement = best_melds(sorted(hand))
    assert arrangement.count == expected, sorted(hand)
    melded = [c for meld in arrangement.melds for c in meld]
    assert all(is_meld(meld) for meld in arrangement.melds)
    assert len(melded) == len(set(melded))
    discard = {arrangement.discard} if arrangement.discard else set()
    assert (len(discard) == 1) == (len(hand) == 11)
    parts = set(melded) | set(arrangement.deadwood) | discard
    assert parts == hand and len(melded) + len(arrangement.deadwood) + len(discard) == len(hand)
    assert value(set(arrangement.deadwood)) == arrangement.count


def run_hands(seed: int, size: int, make: str, count: int) -> None:
    rng = random.Random(seed)
    for _ in range(count):
        hand = meld_heavy(rng, size) if make == "heavy" else uniform(rng, size)
        expected = oracle_deadwood(hand)
        assert deadwood(sorted(hand)) == expected, sorted(hand)
        check_best_melds(hand, expected)


def test_ten_card_uniform_hands_match_oracle_g3_4() -> None:
    run_hands(seed=10, size=10, make="uniform", count=2500)


def test_ten_card_meld_heavy_hands_match_oracle_g3_4() -> None:
    run_hands(seed=11, size=10, make="heavy", count=2500)


def test_eleven_card_uniform_hands_match_oracle_g6_2() -> None:
    run_hands(seed=12, size=11, make="uniform", count=2500)


def test_eleven_card_meld_heavy_hands_match_oracle_g6_2() -> None:
    run_hands(seed=13, size=11, make="heavy", count=2500)


def test_small_hands_match_oracle_g3_4() -> None:
    rng = random.Random(14)
    for size in range(10):
        for _ in range(40):
            hand = meld_heavy(rng, size) if size >= 3 else uniform(rng, size)
            expected = oracle_deadwood(hand)
            assert deadwood(sorted(hand)) == expected
            check_best_melds(hand, expected)


def test_minimal_arrangements_match_oracle_g6_3() -> None:
    rng = random.Random(15)
    for _ in range(1500):
        hand = meld_heavy(rng, 10)
        found = minimal_arrangements(sorted(hand))
        shapes = [frozenset(frozenset(m) for m in a.melds) for a in found]
        assert len(shapes) == len(set(shapes)), sorted(hand)
        assert set(shapes) == oracle_minimal(hand), sorted(hand)
        assert found[0] == best_melds(sorted(hand))


def random_deal(rng: random.Random) -> tuple[frozenset[Card], frozenset[Card], list[Meld]]:
    """A knocker hand, a defender hand close to it, and a random choice of knocker melds."""
    pool = sorted(meld_heavy(rng, 20))
    knocker = meld_heavy(rng, 10, pool)
    defender = frozenset(c for c in pool if c not in knocker)
    shown: list[Meld] = []
    for meld in rng.sample(DECK_MELDS, len(DECK_MELDS)):
        if meld <= knocker and not any(meld & m for m in shown):
            shown.append(meld)
    return knocker, defender, shown


def test_layoffs_match_oracle_g6_7() -> None:
    rng = random.Random(16)
    for i in range(1000):
        _knocker, defender, shown = random_deal(rng)
        chain = i % 4 != 0
        melds = [sorted(m) for m in shown]
        result = layoffs(sorted(defender), melds, chain=chain)
        assert (result.count, len(result.laid_off)) == oracle_layoffs(defender, shown, chain), (
            sorted(defender),
            melds,
        )
        own = [c for meld in result.melds for c in meld]
        assert all(is_meld(m) for m in result.melds)
        assert len(own) + len(result.laid_off) + len(result.deadwood) == len(defender)
        assert set(own) | set(result.laid_off) | set(result.deadwood) == defender
        assert all_placeable(set(result.laid_off), shown, chain)
        assert value(set(result.deadwood)) == result.count


def test_choose_knock_arrangement_matches_oracle_g6_3() -> None:
    rng = random.Random(17)
    for _ in range(150):
        knocker, defender, _shown = random_deal(rng)
        least = oracle_deadwood(knocker)
        chosen = choose_knock_arrangement(sorted(knocker), sorted(defender))
        assert chosen.count == least
        if least == 0:
            continue
        options = oracle_minimal(knocker)
        assert frozenset(frozenset(m) for m in chosen.melds) in options
        fewest = min(oracle_layoffs(defender, list(ms), True)[1] for ms in options)
        laid = oracle_layoffs(defender, [frozenset(m) for m in chosen.melds], True)[1]
        assert laid == fewest


@given(st.lists(st.sampled_from(FULL_DECK), min_size=11, max_size=11, unique=True))
def test_eleven_cards_is_least_over_every_discard_g6_2(hand: list[Card]) -> None:
    assert deadwood(hand) == min(deadwood([c for c in hand if c != d]) for d in hand)


def _mask(hand: frozenset[Card]) -> int:
    return sum(card.bit for card in hand)


def test_grown_hand_counts_agree_with_the_full_search_g6_2() -> None:
    """least_deadwoods_plus (one lookup per drawn card) is least_deadwood of hand + card."""
    rng = random.Random(16)
    for _ in range(400):
        hand = _mask(meld_heavy(rng, 10))
        rest = DECK_MASK & ~hand
        grown = least_deadwoods_plus(hand, rest)
        assert sorted(grown) == [c.index for c in FULL_DECK if rest >> c.index & 1]
        for index, count in grown.items():
            assert count == least_deadwood(hand | 1 << index, True), (hand, index)


def test_best_discard_is_the_arrangements_discard_g6_2() -> None:
    rng = random.Random(17)
    for _ in range(1500):
        hand = _mask(meld_heavy(rng, 11) if rng.random() < 0.7 else uniform(rng, 11))
        assert best_discard(hand) == best_arrangement(hand, True)[1], hand


def test_deadwood_saved_sums_what_each_drawn_card_saves_g6_2() -> None:
    rng = random.Random(18)
    for _ in range(400):
        hand = _mask(meld_heavy(rng, 10) if rng.random() < 0.7 else uniform(rng, 10))
        cards = _mask(uniform(rng, 30)) & ~hand
        base = least_deadwood(hand, False)
        counts = [least_deadwood(hand | c.bit, True) for c in FULL_DECK if cards & c.bit]
        assert deadwood_saved(hand, cards) == sum(max(0, base - n) for n in counts), hand
