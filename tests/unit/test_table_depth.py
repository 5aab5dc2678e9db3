"""The depth-first walk (`table.depth`) against the breadth-first program (`table.breadth`), M2
and M5: on going-out questions of full-size positions (every table and hand card
mandatory, the free jokers to place) both say whether an arrangement exists, and every
arrangement the walk finds is valid melds of exactly those cards. (Small multisets are
compared with the independent brute force in `test_table_differential.py`.)
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from domain.cards import JOKER, Card, parse_cards
from domain.manipulation.table.breadth import search
from domain.manipulation.table.build import build_fit, lay_jokers
from domain.manipulation.table.depth import Fit, _rounds, first_fit, mirrored
from domain.manipulation.table.meld import is_group, is_sequence, normalise_meld
from domain.manipulation.table.state import MIRROR, ZERO, Supply
from domain.manipulation.table.step import FITS, NEED
from tests.unit.test_table_oracle import random_position

BATCH = 10


def going_out_supply(rng: random.Random) -> tuple[Supply, list[Card]]:
    """Table and hand cards of a random position, all mandatory, with its jokers free."""
    melds, hand = random_position(rng, rng.choice((12, 24, 40, 60)), rng.randint(1, 15))
    cards = [tc.card for meld in melds for tc in meld] + list(hand)
    real = [0] * 52
    for card in cards:
        if not card.is_joker:
            real[card.index] += 1
    jokers = sum(card.is_joker for card in cards)
    return Supply(tuple(real), ZERO, ZERO, ZERO, None, 0, jokers), cards


@pytest.mark.parametrize("batch", range(6))
def test_walk_agrees_with_the_program_on_going_out_m2_m5(batch: int) -> None:
    """M2, M5: the walk finds an arrangement exactly when the program's normal form has an
    end state, and the melds it builds (free jokers laid back on) hold exactly the cards."""
    rng = random.Random(7_919 * batch + 3)
    for _ in range(BATCH):
        supply, cards = going_out_supply(rng)
        fit = first_fit(supply)
        assert (fit is not None) == bool(search(supply, normal=True).final)
        if fit is None:
            continue
        melds = lay_jokers(build_fit(fit).melds, supply.jokers - fit.used)
        if melds is None:
            continue  # no room to lay them back: `table.best_above` asks the full program
        assert all(is_group(meld) or is_sequence(meld) for meld in melds)
        assert Counter(tc.card for meld in melds for tc in meld) == Counter(cards)


def test_walk_needs_the_joker_between_two_aces_m2_4_m5() -> None:
    """M2.4, M5: 3S 6S 5S JK JK AS is AS JK=2S 3S JK=4S 5S 6S; without the jokers, none."""
    real = [0] * 52
    for code in ("3S", "6S", "5S", "AS"):
        real[Card.parse(code).index] += 1
    with_jokers = Supply(tuple(real), ZERO, ZERO, ZERO, None, 0, 2)
    fit = first_fit(with_jokers)
    assert fit is not None and fit.used == 2
    melds = build_fit(fit).melds
    assert Counter(tc.card for meld in melds for tc in meld)[JOKER] == 2
    assert first_fit(Supply(tuple(real), ZERO, ZERO, ZERO, None, 0, 0)) is None


def test_group_jokers_at_a_rank_close_are_the_fewest_that_fit_m2_2_m5() -> None:
    """`step.NEED` (the normal form's group jokers, taken when a rank closes) is the fewest
    free jokers that make the group slots into groups of 3-4 distinct suits (each joker
    declared as a suit its group lacks, so the largest suit count stays as it is)."""
    for total in range(16):
        for largest in range(1 if total else 0, min(total, 5) + 1):
            fewest = next(j for j in range(32 - total) if FITS[total + j][largest])
            assert NEED[total][largest] == fewest


@pytest.mark.parametrize(
    "text",
    ["7C 7D JK", "7C 7D JK 8S 9S TS", "KC KD JK JK QH KH", "AS JK 3S 5D 5H JK"],
)
def test_walk_places_free_jokers_in_groups_when_the_rank_closes_m5_1(text: str) -> None:
    cards = parse_cards(text)
    real = [0] * 52
    for card in cards:
        if not card.is_joker:
            real[card.index] += 1
    jokers = sum(card.is_joker for card in cards)
    fit = first_fit(Supply(tuple(real), ZERO, ZERO, ZERO, None, 0, jokers))
    assert fit is not None
    melds = build_fit(fit).melds
    laid = lay_jokers(melds, jokers - fit.used)
    assert laid is not None
    assert all(is_group(meld) or is_sequence(meld) for meld in laid)
    assert Counter(tc.card for meld in laid for tc in meld) == Counter(cards)


def _walked(supply: Supply, *, mirror: bool) -> Fit | None:
    """The answer of one walk of the race in `first_fit`, run to its end alone."""
    for done, fit in _rounds(supply, mirror=mirror):
        if done:
            return fit
    raise AssertionError("a walk always ends with an answer")


@pytest.mark.parametrize("batch", range(4))
def test_the_mirrored_walk_answers_as_the_walk_up_the_ranks_m2_4(batch: int) -> None:
    """M2, M2.4: turning the ranks 2..K end to end (A-2-3 <-> Q-K-A) keeps which cards
    arrange, so the walk of the mirror (`depth.mirrored`), which `first_fit` races
    against the walk up the ranks, answers as it does; and the melds it finds, turned
    back (`build.build_fit`), are valid melds of exactly the question's cards, in display
    order."""
    rng = random.Random(104_729 * batch + 11)
    for _ in range(BATCH):
        supply, cards = going_out_supply(rng)
        up = _walked(supply, mirror=False)
        down = _walked(supply, mirror=True)
        assert (up is None) == (down is None) == (first_fit(supply) is None)
        if down is None:
            continue
        assert down.mirrored and down.supply == mirrored(supply)
        built = build_fit(down).melds
        assert all(normalise_meld(meld) == meld for meld in built)  # in display order
        melds = lay_jokers(built, supply.jokers - down.used)
        if melds is None:
            continue  # no room to lay them back: `table.best_above` asks the full program
        assert all(is_group(meld) or is_sequence(meld) for meld in melds)
        assert Counter(tc.card for meld in melds for tc in meld) == Counter(cards)


def test_the_mirror_trades_the_low_and_high_ace_runs_m2_4() -> None:
    """M2.4: the mirror of AS 2S 3S is QS KS AS (the ace kept), and mirroring twice is
    the identity."""
    real = [0] * 52
    for code in ("AS", "2S", "3S"):
        real[Card.parse(code).index] += 1
    turned = mirrored(Supply(tuple(real), ZERO, ZERO, ZERO, None, 0, 0))
    shown = {Card(i) for i, n in enumerate(turned.table_real) if n}
    assert shown == set(parse_cards("QS KS AS"))
    assert all(MIRROR[MIRROR[i]] == i for i in range(52))
