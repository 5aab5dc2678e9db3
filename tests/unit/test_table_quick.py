"""The simple splits `can_arrange` tries before the table program (`table.quick`), against the
independent brute force: on every case a split answers, the cards can be arranged, and the
arrangement holds exactly the cards given, each meld valid (M2, M5)."""

from __future__ import annotations

import random
from collections import Counter

from domain.cards import JOKER, Card, parse_cards
from domain.manipulation.table.arrange import can_arrange, counts
from domain.manipulation.table.meld import Meld, is_group, is_sequence
from domain.manipulation.table.quick import quick_arrangement
from tests.support.table_brute import brute_can_arrange
from tests.unit.test_table_differential import small_multiset
from tests.unit.test_table_oracle import random_position


def _quick(cards: list[Card]) -> tuple[Meld, ...] | None:
    held = counts(cards)
    return quick_arrangement(held[:52], held[52])


def _check(cards: list[Card]) -> bool:
    """Whether a split answered; when it did, the answer is right."""
    found = _quick(cards)
    text = " ".join(map(str, sorted(cards)))
    if found is None:
        return False
    assert brute_can_arrange(cards), f"{text}: a split arranged cards that cannot be"
    for meld in found:
        assert is_group(meld) or is_sequence(meld), f"{text}: {meld}"
    assert Counter(tc.card for meld in found for tc in meld) == Counter(cards), text
    return True


def test_quick_splits_agree_with_brute_force_on_small_multisets_m2_m5() -> None:
    rng = random.Random(20150)
    answered = sum(_check(small_multiset(rng)) for _ in range(3_000))
    assert answered >= 300  # the splits are exercised, not only refused


def test_quick_splits_agree_with_brute_force_on_random_tables_m2() -> None:
    """Tables of random melds (jokers taken off, 0-2 free jokers added), as the benchmark
    asks: a split answers most of them, and rightly."""
    rng = random.Random(7)
    answered = 0
    for _ in range(300):
        table, _hand = random_position(rng, rng.randint(3, 12), 0)
        cards = [tc.card for meld in table for tc in meld if not tc.card.is_joker]
        cards += [JOKER] * rng.choice((0, 1, 2))
        answered += _check(cards)
    assert answered >= 150


def test_groups_first_split_m2_2() -> None:
    """5H-8H cannot be one sequence when 8C and 8S need 8H for a group."""
    cards = list(parse_cards(["5H", "6H", "7H", "8H", "8C", "8S"]))
    assert _check(cards)


def test_no_split_for_cards_that_cannot_be_arranged() -> None:
    assert _quick(list(parse_cards(["5H", "6H", "8C"]))) is None
    assert _quick(list(parse_cards(["5H", "6H", "7H", "8C", "8S"]))) is None


def test_ace_high_is_left_to_the_program_m2_4() -> None:
    """The splits take the ace low only; the program still finds Q-K-A."""
    cards = list(parse_cards(["QS", "KS", "AS"]))
    assert _quick(cards) is None
    assert can_arrange(cards) is not None
