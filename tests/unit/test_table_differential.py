"""The table program against an independent brute force (M2, M5, I1-I6).

`can_arrange` (domain.manipulation.table.state and its normal form for free jokers) is compared with
`table_brute.brute_can_arrange` on random small multisets: 1-4 suits, short rank windows
with and without aces, 0-2 free jokers, one and two copies of each card. 5,000 cases in
`make test`, 200,000 under `make soak` (DEADWOOD_SOAK=1); zero disagreements allowed. Every
arrangement found is also checked card by card (valid melds, exactly the cards given).
"""

from __future__ import annotations

import os
import random
from collections import Counter

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from domain.cards import JOKER, Card, parse_cards
from domain.manipulation.melds import best_move
from domain.manipulation.table.arrange import can_arrange
from domain.manipulation.table.meld import is_group, is_sequence
from domain.manipulation.table.rules import validate_meld_move
from tests.support.table_brute import brute_can_arrange
from tests.unit.test_table_oracle import oracle_best_points, random_position

CASES = 200_000 if os.environ.get("DEADWOOD_SOAK") else 5_000
BATCH = 500


def small_multiset(rng: random.Random) -> list[Card]:
    """A random small multiset: a few suits, a short window of ranks (touching an ace
    about half the time), one or two copies, 0-2 jokers."""
    suits = rng.sample(range(4), rng.randint(1, 4))
    width = rng.randint(3, 7)
    near_ace = rng.random() < 0.5  # A.. or ..K-A
    start = rng.choice((1, 15 - width)) if near_ace else rng.randint(2, 13 - width)
    ranks = {(r - 1) % 13 + 1 for r in range(start, start + width)}
    pack = [Card.of(r, s) for r in ranks for s in suits] * rng.choice((1, 2))
    chosen = rng.sample(pack, rng.randint(2, min(12, len(pack))))
    return chosen + [JOKER] * rng.choice((0, 0, 1, 2))


def check_one(cards: list[Card]) -> None:
    found = can_arrange(cards)
    want = brute_can_arrange(cards)
    text = " ".join(map(str, sorted(cards)))
    assert (found is not None) == want, f"{text}: program {found is not None}, brute {want}"
    if found is not None:
        for meld in found:
            assert is_group(meld) or is_sequence(meld), f"{text}: {meld}"
        assert Counter(tc.card for meld in found for tc in meld) == Counter(cards), text


@pytest.mark.parametrize("batch", range(CASES // BATCH))
def test_can_arrange_agrees_with_brute_force_m2_m5(batch: int) -> None:
    """M2 (groups, sequences, the ace low or high, no wrap) and M5 (jokers as any card):
    the program and the brute force agree on every random small multiset."""
    rng = random.Random(1_000_003 * batch + 17)
    for _ in range(BATCH):
        check_one(small_multiset(rng))


@given(
    st.lists(
        st.sampled_from(["AS", "2S", "3S", "4S", "5S", "6S", "QS", "KS", "JK"]),
        min_size=3,
        max_size=8,
    )
)
@example(["3S", "6S", "5S", "JK", "JK", "AS"])  # = AS JK=2S 3S JK=4S 5S 6S (issue 13)
def test_free_jokers_around_aces_m2_4_m5(codes: list[str]) -> None:
    """Two free jokers around aces: the family the old solver missed."""
    cards = list(parse_cards(codes))
    if sum(c.is_joker for c in cards) > 2 or max(Counter(cards).values()) > 2:
        return
    check_one(cards)


def test_two_jokers_around_an_ace_pinned_m2_4() -> None:
    found = can_arrange(parse_cards(["3S", "6S", "5S", "JK", "JK", "AS"]))
    assert found is not None
    assert Counter(tc.card for meld in found for tc in meld) == Counter(
        parse_cards(["3S", "6S", "5S", "JK", "JK", "AS"])
    )


def _small_pack(rng: random.Random) -> tuple[list[int], list[int]]:
    start = rng.choice((1, 2, 5, 9, 11))
    ranks = [(r - 1) % 13 + 1 for r in range(start, start + rng.randint(3, 5))]
    return ranks, rng.sample(range(4), rng.randint(1, 3))


@pytest.mark.parametrize("seed", range(200))
def test_best_move_agrees_with_brute_force_m6(seed: int) -> None:
    """I1-I6: best_move sheds exactly the most points exhaustive search finds, and its
    table passes validate_meld_move, on oracle-sized positions with jokers."""
    rng = random.Random(77_000 + seed)
    ranks, suits = _small_pack(rng)
    before, held = random_position(
        rng, rng.randint(0, 9), rng.randint(1, 5), ranks=ranks, suits=suits, joker_rate=0.35
    )
    want = oracle_best_points(before, held)
    found = best_move(before, held)
    assert (None if found is None else found.points) == want
    if found is not None:
        assert found.proven
        outcome = validate_meld_move(before, held, found.table)
        assert outcome.played == found.played
