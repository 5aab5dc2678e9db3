"""The table solver: can_arrange and best_move (M2, M5, M6), checked against brute force."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.cards import JOKER, Card, TableCard, parse_cards
from domain.manipulation.melds import best_move
from domain.manipulation.table.arrange import can_arrange
from domain.manipulation.table.meld import is_group, is_sequence, parse_table_text
from domain.manipulation.table.rules import validate_meld_move
from domain.manipulation.table.solver import BestMove
from tests.unit.test_table_oracle import (
    oracle_best_points,
    oracle_can_arrange,
    random_position,
)


def cards(text: str) -> tuple[Card, ...]:
    return parse_cards(text.split())


def table(text: str) -> tuple[tuple[TableCard, ...], ...]:
    return parse_table_text(text)


def codes(melds: object) -> list[list[str]]:
    return [sorted(str(c) for c in meld) for meld in melds]  # type: ignore[attr-defined]


def assert_arrangement(found: tuple[tuple[TableCard, ...], ...], given: tuple[Card, ...]) -> None:
    """Every meld valid (M2) and the physical cards exactly the ones given."""
    for meld in found:
        assert is_group(meld) or is_sequence(meld), [str(c) for c in meld]
        for tc in meld:
            assert (tc.declared is not None) == tc.card.is_joker
    assert Counter(tc.card for meld in found for tc in meld) == Counter(given)


def solved(before: str, held: str, options: object = None, **kw: object) -> BestMove:
    found = best_move(table(before), cards(held), options, **kw)  # type: ignore[arg-type]
    assert found is not None
    outcome = validate_meld_move(table(before), cards(held), found.table, options, **kw)  # type: ignore[arg-type]
    assert outcome.played == found.played
    assert outcome.points == found.points
    return found


# --- can_arrange ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "ok"),
    [
        ("7H 8H 9H", True),
        ("7H 8H", False),
        ("AH 2H 3H QS KS AS", True),  # ace low and ace high (M2.4)
        ("KH AH 2H", False),  # no corner (M2.4)
        ("AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH", True),  # splits 11 + 3
        ("JK 5C 5D", True),
        ("JK JK 5C", True),
        ("7C 7D 7H 7S 7C 7D", True),
        ("7C 7C 7C", False),  # A-M3: no identical cards in a group
        ("7C 7C 7C JK JK", False),
        ("8C 8D 8H 8S 9S TS", True),
        ("", True),
    ],
)
def test_can_arrange_examples_m2(text: str, ok: bool) -> None:
    given_cards = cards(text)
    found = can_arrange(given_cards)
    assert (found is not None) == ok
    if found is not None:
        assert_arrangement(found, given_cards)


def test_can_arrange_copy_count_option_m5_7() -> None:
    given_cards = cards("8S 9S TS 8S 8H 8D JK 6S 7S")
    assert can_arrange(given_cards) is not None
    strict = {"joker_identity_respects_copy_count": True}
    found = can_arrange(given_cards, strict)
    assert found is not None  # the joker must be 5S or JS, not a third 8S
    assert_arrangement(found, given_cards)
    assert can_arrange(cards("8S JK JK"), strict, decks=1) is not None
    assert can_arrange(cards("8S 8S JK"), strict) is None


def _small_pack(rng: random.Random) -> tuple[list[int], list[int]]:
    low = rng.randint(1, 10)
    ranks = [(low + d - 1) % 13 + 1 for d in range(rng.randint(4, 6))]
    return ranks, rng.sample(range(4), rng.randint(2, 4))


@settings(max_examples=150)
@given(st.integers(0, 2**32))
def test_can_arrange_matches_brute_force_m2(seed: int) -> None:
    rng = random.Random(seed)
    ranks, suits = _small_pack(rng)
    pack = [Card.of(r, s) for r in ranks for s in suits] * 2 + [JOKER, JOKER]
    given_cards = tuple(rng.sample(pack, rng.randint(3, 10)))
    found = can_arrange(given_cards)
    assert (found is not None) == oracle_can_arrange(given_cards)
    if found is not None:
        assert_arrangement(found, given_cards)


def test_two_jokers_fill_two_gaps_of_a_run_from_the_ace_m2_4_m5_1() -> None:
    """The arrangement the old solver missed is a legal sequence of exactly these cards, and
    the brute-force oracle finds the set arrangeable."""
    given_cards = cards("3S 6S 5S JK JK AS")
    arranged = table("AS JK=2S 3S JK=4S 5S 6S")
    assert_arrangement(arranged, given_cards)
    assert oracle_can_arrange(given_cards)


def test_can_arrange_two_jokers_in_a_run_from_the_ace_m2_4_m5_1() -> None:
    """Issue 13: two free jokers filling two gaps of one run from the ace (the old solver
    refused it; the exact program finds it)."""
    given_cards = cards("3S 6S 5S JK JK AS")
    found = can_arrange(given_cards)
    assert found is not None
    assert_arrangement(found, given_cards)


# --- best_move: worked cases -------------------------------------------------------------


def test_best_move_on_empty_table_lays_the_best_melds_i6() -> None:
    found = solved("", "KD KS KC 2H 3H 4H 9C")
    assert found.points == 39
    assert found.played == tuple(sorted(cards("2H 3H 4H KC KD KS")))


def test_best_move_none_without_a_meld() -> None:
    assert best_move((), cards("KD 2H 9C")) is None
    assert best_move(table("7H 8H 9H"), cards("KD 2C")) is None


def test_best_move_extends_and_splits_table_melds_m6() -> None:
    found = solved("4S 5S 6S 7S 8S 9S | 3H 3D 3C", "6S 3S KD")
    assert found.points == 9
    assert found.played == tuple(sorted(cards("3S 6S")))


def test_best_move_rearranges_to_shed_more_m6() -> None:
    # QH must leave its group to run with the hand's JH KH; the group keeps its other three
    found = solved("QC QD QS QH", "JH KH 9D")
    assert found.points == 20


def test_best_move_frees_a_joker_and_places_it_again_m5_4() -> None:
    found = solved("7S JK=8S 9S | 4H 5H 6H", "8S KD KC 2C")
    assert found.points == 28
    assert found.played == tuple(sorted(cards("KC KD 8S")))


def test_best_move_respects_one_real_card_one_joker_m5_6() -> None:
    before = "7S JK=8S 9S | 8C 8D 8H JK=8S"
    found = solved(before, "8S KH KC QD QC")
    assert found.points == 8 + 20  # one 8S frees one joker, to the kings or the queens
    loose = solved(before, "8S KH KC QD QC", {"one_real_card_frees_one_joker": False})
    assert loose.points == 8 + 20 + 20  # the one 8S frees both jokers


def test_best_move_hand_only_source_a_m18() -> None:
    before = "7S JK=8S 9S | 8C 8D 8H 8S"
    assert solved(before, "KD KC").points == 20  # the table's 8S frees the joker
    assert (
        best_move(table(before), cards("KD KC"), {"joker_replacement_source": "hand_only"}) is None
    )


def test_best_move_freed_joker_to_new_meld_from_hand_a_m18() -> None:
    before = "7S JK=8S 9S | 4H 5H 6H"
    options = {"freed_joker_placement": "new_meld_from_hand"}
    found = solved(before, "8S KD KC 7H", options)
    assert found.points == 8 + 20 + 7
    assert best_move(table(before), cards("8S KD"), options) is None


def test_best_move_copy_count_option_m5_7() -> None:
    before = "8S 9S TS | 8S 8H 8D"
    assert solved(before, "JK 7S 6S").points == 38
    strict = {"joker_identity_respects_copy_count": True}
    assert solved(before, "JK 7S 6S", strict).points == 38  # JK=5S, not a third 8S


def test_best_move_per_player_opening_i6() -> None:
    options = {"initial_meld_per_player": True}
    assert best_move(table("7H 8H 9H"), cards("TH 2C"), options, has_opened=False) is None
    assert solved("7H 8H 9H", "TH 2C", options, has_opened=True).points == 10
    found = solved("7H 8H 9H", "TH KD KS KC", options, has_opened=False)
    assert found.points == 40


def test_best_move_opening_from_hand_only_i6() -> None:
    options = {"initial_meld_per_player": True, "initial_meld_from_hand_only": True}
    found = solved("7H 8H 9H", "TH KD KS KC", options, has_opened=False)
    assert found.points == 30
    assert codes(found.table[:1]) == [["7H", "8H", "9H"]]


def test_best_move_opening_min_points_i6() -> None:
    options = {"initial_meld_min_points": 30}
    assert best_move((), cards("2H 3H 4H 9C 9D"), options) is None
    assert solved("", "2H 3H 4H KD KS KC", options).points == 39


# --- best_move against brute force ---------------------------------------------------------

OPTION_SETS: list[tuple[dict[str, object], dict[str, object]]] = [
    ({}, {}),
    ({"one_real_card_frees_one_joker": False}, {}),
    ({"joker_replacement_source": "hand_only"}, {}),
    ({"freed_joker_placement": "new_meld_from_hand"}, {}),
    ({"joker_identity_respects_copy_count": True}, {}),
    ({"joker_identity_respects_copy_count": True}, {"decks": 1}),
    ({"initial_meld_per_player": True}, {"has_opened": False}),
    ({"initial_meld_per_player": True, "initial_meld_from_hand_only": True}, {}),
    ({"initial_meld_min_points": 15}, {}),
    (
        {
            "freed_joker_placement": "new_meld_from_hand",
            "joker_replacement_source": "hand_only",
            "one_real_card_frees_one_joker": False,
            "initial_meld_per_player": True,
        },
        {},
    ),
]


def _check_against_oracle(seed: int, options: dict[str, object], kw: dict[str, object]) -> None:
    rng = random.Random(seed)
    ranks, suits = _small_pack(rng)
    decks = int(kw.get("decks", 2))  # type: ignore[call-overload]
    before, held = random_position(
        rng,
        rng.randint(0, 8),
        rng.randint(1, 5),
        ranks=ranks,
        suits=suits,
        joker_rate=0.3,
        decks=decks,
    )
    want = oracle_best_points(before, held, options, **kw)  # type: ignore[arg-type]
    found = best_move(before, held, options, **kw)  # type: ignore[arg-type]
    assert (None if found is None else found.points) == want
    if found is not None:
        outcome = validate_meld_move(before, held, found.table, options, **kw)  # type: ignore[arg-type]
        assert outcome.played == found.played
        assert outcome.points == found.points


@pytest.mark.parametrize("seed", range(300))
def test_best_move_matches_brute_force_default_options_m6(seed: int) -> None:
    """Exactness on 300 small random positions: same best points as exhaustive search."""
    _check_against_oracle(seed, {}, {})


@pytest.mark.parametrize(
    ("options", "kw"), OPTION_SETS[1:], ids=[str(sorted(o)) + str(k) for o, k in OPTION_SETS[1:]]
)
def test_best_move_matches_brute_force_with_options_m5_i3_i6(
    options: dict[str, object], kw: dict[str, object]
) -> None:
    """The joker and opening options: 30 random positions each against exhaustive search."""
    for seed in range(30):
        _check_against_oracle(10_000 + seed, options, kw)


# --- larger positions: legality at scale ---------------------------------------------------


@settings(max_examples=25)
@given(st.integers(0, 2**32), st.sampled_from(OPTION_SETS))
def test_best_move_on_larger_tables_passes_validation_m6(
    seed: int, option_set: tuple[dict[str, object], dict[str, object]]
) -> None:
    """On 20-40 table cards and 6-12 hand cards (too big for the oracle) every move found is
    accepted by validate_meld_move, and sheds at least what laying hand melds alone would."""
    options, kw = option_set
    rng = random.Random(seed)
    decks = int(kw.get("decks", 2))  # type: ignore[call-overload]
    before, held = random_position(
        rng, rng.randint(20, 40), rng.randint(6, 12), decks=decks, joker_rate=0.1
    )
    found = best_move(before, held, options, **kw)  # type: ignore[arg-type]
    if found is not None:
        outcome = validate_meld_move(before, held, found.table, options, **kw)  # type: ignore[arg-type]
        assert outcome.points == found.points


# --- the work budget (issue 13b) -------------------------------------------------------------


def _dense() -> tuple[tuple[tuple[TableCard, ...], ...], tuple[Card, ...]]:
    """A table of runs and groups with a joker, and a hand that can rearrange it."""
    runs = ["3H 4H 5H 6H 7H", "9S TS JS QS", "5C 5D 5S", "KC KD KH", "2D 3D 4D 5D"]
    table = tuple(tuple(TableCard(c) for c in cards(meld)) for meld in runs)
    table += (
        (
            TableCard(JOKER, Card.parse("8C")),
            TableCard(Card.parse("9C")),
            TableCard(Card.parse("TC")),
        ),
    )
    return table, cards("8H 9H 8S KS 6D 7D 8C 5H 2C 3C 4C JC QC AD")


@pytest.mark.parametrize("budget", [0, 1, 50, 150])
def test_budget_spent_gives_a_legal_unproven_move_i1_i6(budget: int) -> None:
    """I1-I6, M6: when the program's state budget runs out, best_move still returns a table
    validate_meld_move accepts, marked not proven, shedding no more than the exact best.
    A second 2C, which no arrangement places, keeps the hand from going out by local moves
    (which would be proven before the program spends anything)."""
    table, hand = _dense()
    hand = (*hand, Card.parse("2C"))
    exact = best_move(table, hand, budget=None)
    assert exact is not None and exact.proven
    found = best_move(table, hand, budget=budget)
    assert found is not None
    assert not found.proven
    outcome = validate_meld_move(table, hand, found.table)
    assert outcome.played == found.played
    assert sum(card.value for card in found.played) == found.points <= exact.points


def test_default_budget_proves_a_small_position_m6() -> None:
    """M6: a position of a few melds stays well inside the default budget: proven best."""
    table, hand = _dense()
    found = best_move(table, hand)
    exact = best_move(table, hand, budget=None)
    assert found is not None and exact is not None
    assert found.proven and found.points == exact.points


def test_going_out_by_local_moves_is_the_proven_best_m8_3_i1_i2() -> None:
    """M8.3, I1, I2: a hand that joins the table by local moves (5H cuts 3H..8H holding
    its twin, 9H joins the group of 9s, 4H and 4D borrow 4S from the end of 4S..7S, the
    joker goes on an end) is played whole: the most any move sheds, and a legal table."""
    before = table("3H 4H 5H 6H 7H 8H | 9C 9D 9S | 4S 5S 6S 7S")
    hand = cards("5H 9H 4H 4D JK")
    found = best_move(before, hand, has_opened=True)
    assert found is not None and found.proven
    assert found.points == 5 + 9 + 4 + 4 + 25
    outcome = validate_meld_move(before, hand, found.table, has_opened=True)
    assert Counter(outcome.played) == Counter(hand)


def test_going_out_locally_gives_up_when_a_card_fits_nowhere_m8_3() -> None:
    """M8.3: a card no local move places leaves the question to the table program."""
    from domain.manipulation.table.local_moves import going_out_by_local_moves

    assert going_out_by_local_moves(table("3H 4H 5H"), cards("9C"), None, True, 2) is None
    assert going_out_by_local_moves(table("3H 4H 5H"), cards("6H"), None, True, 2) is not None


def test_going_out_swaps_a_table_joker_for_its_card_m5_2_m5_4_m8_3() -> None:
    """M5.2, M5.4, M8.3: 6H from the hand takes the joker's place in 4H 5H JK=6H, and the
    freed joker joins the table again: the whole hand is played, a legal table."""
    from domain.manipulation.table.local_moves import going_out_by_local_moves

    before = table("4H 5H JK=6H | 9C 9D 9S")
    out = going_out_by_local_moves(before, cards("6H"), None, True, 2)
    assert out is not None and out.played == (Card.parse("6H"),)
    assert out.freed == (Card.parse("6H"),)
