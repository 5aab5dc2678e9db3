"""Brute-force oracles for the table solver (small inputs only) and random positions.

The oracle for `best_move` tries every part P of the hand, best points first, and every way
to split the table cards plus P into melds with every joker declaration that makes each meld
valid, and asks `validate_meld_move` (the rules as written) whether that table is legal. It
shares no code with the dynamic program.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import combinations

from domain.cards import JOKER, Card, TableCard
from domain.errors import IllegalMove
from domain.manipulation.table.meld import is_group, is_sequence
from domain.manipulation.table.rules import validate_meld_move

Meld = tuple[TableCard, ...]


def _valid(cards: Sequence[Card]) -> bool:
    return is_group(cards) or is_sequence(cards)


def _declarations(real: Sequence[Card], jokers: int) -> Iterator[tuple[Card, ...]]:
    """Every tuple of joker declarations (non-decreasing) making real + jokers a valid meld."""
    if jokers == 0:
        if _valid(real):
            yield ()
        return
    ranks = {c.rank for c in real}
    suits = {c.suit for c in real}
    pool = [
        Card(i)
        for i in range(52)
        if not real
        or (len(ranks) == 1 and Card(i).rank in ranks)
        or (len(suits) == 1 and Card(i).suit in suits)
    ]
    seen: set[tuple[Card, ...]] = set()
    for first in range(len(pool)):
        if jokers == 1:
            choice: tuple[Card, ...] = (pool[first],)
            if choice not in seen and _valid([*real, *choice]):
                seen.add(choice)
                yield choice
            continue
        for second in range(first, len(pool)):
            choice = (pool[first], pool[second])
            if choice not in seen and _valid([*real, *choice]):
                seen.add(choice)
                yield choice


def _partitions(real: list[Card], jokers: int) -> Iterator[list[Meld]]:
    """Every split of the real cards (a sorted list) and `jokers` jokers into valid melds."""
    if not real:
        if jokers == 0:
            yield []
        return
    first, rest = real[0], real[1:]
    seen: set[tuple[Card, ...]] = set()
    for size in range(0, min(len(rest), 12) + 1):
        for chosen in combinations(range(len(rest)), size):
            others = tuple(rest[k] for k in chosen)
            if others in seen:
                continue
            seen.add(others)
            group = [first, *others]
            if len({c.rank for c in group}) > 1 and len({c.suit for c in group}) > 1:
                continue
            remaining = [rest[k] for k in range(len(rest)) if k not in chosen]
            for used in range(jokers + 1):
                if not 3 <= len(group) + used <= 13:
                    continue
                for declared in _declarations(group, used):
                    meld = tuple(TableCard(c) for c in group) + tuple(
                        TableCard(JOKER, d) for d in declared
                    )
                    for tail in _partitions(remaining, jokers - used):
                        yield [meld, *tail]


def oracle_can_arrange(cards: Sequence[Card]) -> bool:
    real = sorted(c for c in cards if not c.is_joker)
    jokers = sum(c.is_joker for c in cards)
    return next(_partitions(real, jokers), None) is not None


def _sub_multisets(cards: Sequence[Card]) -> list[tuple[Card, ...]]:
    counts = Counter(cards)
    items = sorted(counts)
    out: list[tuple[Card, ...]] = [()]
    for card in items:
        out = [part + (card,) * k for part in out for k in range(counts[card] + 1)]
    return out


def oracle_best_points(
    table: Sequence[Sequence[TableCard]],
    hand: Sequence[Card],
    options: object = None,
    *,
    has_opened: bool = False,
    decks: int = 2,
) -> int | None:
    """The most points any legal meld move sheds, by exhaustive search; None if none."""
    table_real = [tc.card for meld in table for tc in meld if not tc.card.is_joker]
    table_jokers = sum(tc.card.is_joker for meld in table for tc in meld)
    parts = [p for p in _sub_multisets(hand) if p]
    parts.sort(key=lambda p: -sum(c.value for c in p))
    for part in parts:
        real = sorted(table_real + [c for c in part if not c.is_joker])
        jokers = table_jokers + sum(c.is_joker for c in part)
        for melds in _partitions(real, jokers):
            try:
                validate_meld_move(
                    table, hand, tuple(melds), options, has_opened=has_opened, decks=decks
                )
            except IllegalMove:
                continue
            return sum(c.value for c in part)
    return None


# --- random positions ----------------------------------------------------------------------


def two_deck_pack(decks: int = 2) -> list[Card]:
    return [Card(i) for i in range(52)] * decks + [JOKER] * decks


def random_meld(rng: random.Random, pool: Counter[Card], joker_rate: float) -> Meld | None:
    """A random valid meld drawn from `pool` (consumed), maybe with a joker; None if stuck."""
    for _ in range(40):
        if rng.random() < 0.5:
            rank = rng.randint(1, 13)
            suits = rng.sample(range(4), rng.choice((3, 3, 4)))
            shape = [Card.of(rank, s) for s in suits]
        else:
            suit = rng.randrange(4)
            size = rng.choice((3, 3, 3, 4, 4, 5, 6))
            start = rng.randint(1, 15 - size)
            shape = [Card.of((r - 1) % 13 + 1, suit) for r in range(start, start + size)]
        meld: list[TableCard] = []
        need: Counter[Card] = Counter()
        for card in shape:
            if pool[JOKER] - need[JOKER] > 0 and rng.random() < joker_rate:
                meld.append(TableCard(JOKER, card))
                need[JOKER] += 1
            else:
                meld.append(TableCard(card))
                need[card] += 1
        if all(pool[c] >= n for c, n in need.items()) and any(not tc.card.is_joker for tc in meld):
            pool.subtract(need)
            rng.shuffle(meld)
            return tuple(meld)
    return None


def random_position(
    rng: random.Random,
    table_cards: int,
    hand_cards: int,
    *,
    decks: int = 2,
    joker_rate: float = 0.08,
    ranks: Sequence[int] | None = None,
    suits: Sequence[int] | None = None,
) -> tuple[tuple[Meld, ...], tuple[Card, ...]]:
    """A valid table of about `table_cards` cards from random melds, and a hand from the rest.
    `ranks`/`suits` narrow the pack so that small positions interact."""
    pack = [
        c
        for c in two_deck_pack(decks)
        if c.is_joker or ((ranks is None or c.rank in ranks) and (suits is None or c.suit in suits))
    ]
    pool = Counter(pack)
    melds: list[Meld] = []
    size = 0
    misses = 0
    while size < table_cards and misses < 20:
        meld = random_meld(rng, pool, joker_rate)
        if meld is None:
            misses += 1
            continue
        if size + len(meld) > table_cards + 2:
            pool.update(tc.card for tc in meld)
            misses += 1
            continue
        melds.append(meld)
        size += len(meld)
    rest = list(pool.elements())
    rng.shuffle(rest)
    return tuple(melds), tuple(sorted(rest[:hand_cards]))


# --- the oracle's own checks ---------------------------------------------------------------


def test_oracle_can_arrange_known_cases_m2() -> None:
    from domain.cards import parse_cards

    assert oracle_can_arrange(parse_cards(["AH", "2H", "3H", "QS", "KS", "AS"]))
    assert not oracle_can_arrange(parse_cards(["KH", "AH", "2H"]))
    assert oracle_can_arrange(parse_cards(["JK", "JK", "5C"]))
    assert not oracle_can_arrange(parse_cards(["7C", "7C", "7C"]))


def test_oracle_best_points_known_case_m5_4() -> None:
    from domain.cards import parse_cards
    from domain.manipulation.table.meld import parse_table_text

    before = parse_table_text("7S JK=8S 9S | 4H 5H 6H")
    assert oracle_best_points(before, parse_cards(["8S", "KD", "KC", "2C"])) == 28
    assert oracle_best_points(before, parse_cards(["2C"])) is None


def test_random_position_is_a_valid_table_from_one_pack() -> None:
    rng = random.Random(7)
    melds, hand = random_position(rng, 40, 15)
    for meld in melds:
        assert is_group(meld) or is_sequence(meld)
    used = Counter(tc.card for meld in melds for tc in meld) + Counter(hand)
    assert all(n <= 2 for n in used.values())
    assert len(hand) == 15
