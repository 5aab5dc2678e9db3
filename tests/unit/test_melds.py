"""Gin melds, deadwood, arrangements and lay-offs: rules G2.2, G3, G6.2-G6.7 and example E7."""

from __future__ import annotations

import pytest

from domain.cards import Card, from_mask, parse_cards
from domain.errors import IllegalMove, InvalidCard
from domain.gin.melds import (
    Arrangement,
    LayoffResult,
    best_melds,
    choose_knock_arrangement,
    deadwood,
    deadwood_of_mask,
    hand_mask,
    is_meld,
    layoffs,
    minimal_arrangements,
)
from domain.gin.melds.core import arrangements_of, mask_value


def cards(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


def as_sets(melds: tuple[tuple[Card, ...], ...]) -> set[frozenset[str]]:
    return {frozenset(str(c) for c in meld) for meld in melds}


def test_set_of_three_or_four_g3_1() -> None:
    assert is_meld("7C 7D 7H")
    assert is_meld("7C 7D 7H 7S")
    assert is_meld(["KS", "KH", "KD"])
    assert not is_meld("7C 7D")
    assert not is_meld("7C 7D 8H")


def test_run_of_three_or_more_same_suit_g3_2() -> None:
    assert is_meld("4H 5H 6H")
    assert is_meld("6H 4H 5H")  # order does not matter
    assert is_meld("2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD")
    assert not is_meld("4H 5H 6D")  # suits differ
    assert not is_meld("4H 5H 7H")  # gap
    assert not is_meld("4H 5H")


def test_ace_low_only_no_qka_g2_2() -> None:
    assert is_meld("AC 2C 3C")
    assert not is_meld("QC KC AC")
    assert not is_meld("KC AC 2C")
    assert deadwood("QC KC AC") == 21


def test_is_meld_refuses_repeats_and_jokers_g2_1() -> None:
    assert not is_meld("7C 7C 7D")
    assert not is_meld("JK 7C 7D")
    with pytest.raises(InvalidCard, match="'7X'"):
        is_meld("7X 7C 7D")


def test_deadwood_counts_values_of_unmelded_cards_g2_3_g3_4() -> None:
    assert deadwood("") == 0
    assert deadwood("KS") == 10
    assert deadwood("AS 9D TH JC QD") == 1 + 9 + 10 + 10 + 10
    assert deadwood("AS 2S 3S 4S 5H 5D 5C KD QD JD") == 0


def test_card_in_at_most_one_meld_g3_3() -> None:
    # 7S fits the set 7C7D7S and the run 7S8S9S, but only one of them at a time: the run
    # leaves 7C 7D (14), the set leaves 8S 9S (17). Both melds together would be 0.
    hand = "7C 7D 7S 8S 9S"
    assert deadwood(hand) == 14
    assert as_sets(best_melds(hand).melds) == {frozenset({"7S", "8S", "9S"})}


def test_least_deadwood_is_not_greedy_g3_4() -> None:
    # Greedy "longest meld first" takes the run 4H..8H and leaves 4C 4D 8C 8D (24);
    # the best takes both sets and 5H6H7H (0).
    hand = "4H 5H 6H 7H 8H 4C 4D 8C 8D"
    assert deadwood(hand) == 0
    assert best_melds(hand).count == 0


def test_eleven_cards_least_over_every_discard_g6_2() -> None:
    hand = "AS 2S 3S 4S 5H 5D 5C KD QD JD 9C"
    assert deadwood(hand) == 0
    arrangement = best_melds(hand)
    assert arrangement.discard == Card.parse("9C")
    assert arrangement.count == 0


def test_eleven_cards_discard_may_break_a_meld_g6_2() -> None:
    # All eleven cards are melded (3S-7S, 9C9D9H, KCKDKH); the discard must come off an end
    # of the run of five, and the count stays 0.
    hand = "3S 4S 5S 6S 7S 9C 9D 9H KC KD KH"
    arrangement = best_melds(hand)
    assert deadwood(hand) == 0
    assert arrangement.count == 0
    assert arrangement.discard in (Card.parse("3S"), Card.parse("7S"))
    assert arrangement.deadwood == ()


def test_eleven_cards_not_highest_unmelded_of_one_arrangement_g6_2() -> None:
    """Issue 2 / OpenSpiel's bug: the 11-card count is the least over every discard, not
    "the best arrangement of all 11 cards, less its highest deadwood card".

    Hand: AC AH AS, 2C 2D 2H 2S, 3H, 5H 6H 7H.
    - Counting all 11, the only least arrangement is 2C2D2S + AH2H3H + 5H6H7H, deadwood
      AC AS = 2 (with AC AH AS + 2C2D2H2S + 5H6H7H the 3H is left: 3). Dropping its highest
      deadwood card gives 1.
    - Exact: discard 3H and the other ten are AC AH AS + 2C 2D 2H 2S + 5H 6H 7H: 0.
    """
    hand = "AC 2C 2D AH 2H 3H 5H 6H 7H AS 2S"
    eleven_way = minimal_arrangements_of_eleven(hand)
    assert [a.count for a in eleven_way] == [2]
    assert eleven_way[0].count - max(c.value for c in eleven_way[0].deadwood) == 1
    assert deadwood(hand) == 0
    best = best_melds(hand)
    assert best.discard == Card.parse("3H") and best.count == 0
    assert deadwood([c for c in cards(hand) if c != Card.parse("3H")]) == 0


def minimal_arrangements_of_eleven(hand: str) -> list[Arrangement]:
    """Least-deadwood arrangements counting all 11 cards (what OpenSpiel starts from)."""
    mask = hand_mask(hand)
    out = []
    for melds in arrangements_of(mask):
        left = mask & ~sum(melds)
        out.append(
            Arrangement(tuple(from_mask(m) for m in melds), from_mask(left), mask_value(left), None)
        )
    return out


def test_deadwood_refuses_too_many_cards_and_repeats() -> None:
    with pytest.raises(IllegalMove, match="12 cards"):
        deadwood("AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC")
    with pytest.raises(InvalidCard, match="twice"):
        deadwood("AC AC")
    with pytest.raises(InvalidCard, match="jokers"):
        deadwood("JK AC")


def test_inputs_codes_string_or_cards() -> None:
    text = "AS 2S 3S 9D"
    assert deadwood(text) == deadwood(text.split()) == deadwood(cards(text)) == 9
    assert deadwood_of_mask(hand_mask(text)) == 9


def test_best_melds_result_shape_g3() -> None:
    arrangement = best_melds("AS 2S 3S 9D 9C 9H KH")
    assert isinstance(arrangement, Arrangement)
    assert arrangement.count == 10
    assert arrangement.discard is None
    assert arrangement.deadwood == cards("KH")
    assert as_sets(arrangement.melds) == {
        frozenset({"AS", "2S", "3S"}),
        frozenset({"9C", "9D", "9H"}),
    }


def test_minimal_arrangements_lists_every_choice_g6_3() -> None:
    # A run of six is one meld or two runs of three; both leave KD KH (20).
    found = minimal_arrangements("3S 4S 5S 6S 7S 8S KD KH 2C AC")
    assert {frozenset(frozenset(map(str, m)) for m in a.melds) for a in found} == {
        frozenset({frozenset({"3S", "4S", "5S", "6S", "7S", "8S"})}),
        frozenset({frozenset({"3S", "4S", "5S"}), frozenset({"6S", "7S", "8S"})}),
    }
    assert all(a.count == 23 for a in found)
    assert found[0] == best_melds("3S 4S 5S 6S 7S 8S KD KH 2C AC")


def test_minimal_arrangements_set_of_four_or_three_g6_3() -> None:
    # 7S can sit in the set of four or in the run 5S6S7S (then 7C7D7H is the set).
    found = minimal_arrangements("7C 7D 7H 7S 5S 6S KC QC JC")
    shapes = {frozenset(frozenset(map(str, m)) for m in a.melds) for a in found}
    assert (
        frozenset(
            {
                frozenset({"7C", "7D", "7H"}),
                frozenset({"5S", "6S", "7S"}),
                frozenset({"JC", "QC", "KC"}),
            }
        )
        in shapes
    )
    assert all(a.count == 0 for a in found)
    assert len(found) == 1  # 7C7D7H7S + JC-KC leaves 5S 6S (11): not minimal


def test_minimal_arrangements_refuses_eleven_cards_g6_3() -> None:
    with pytest.raises(IllegalMove):
        minimal_arrangements("AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC")


def test_layoff_chain_e7() -> None:
    """E7: BOX shows 6S7S8S and KDKCKH; CAPTAIN lays off 9S, then TS, then KS."""
    result = layoffs("9S TS KS 2C 4D 7H 9H JC QD 3H", ["6S 7S 8S", "KD KC KH"])
    assert isinstance(result, LayoffResult)
    assert set(result.laid_off) == set(cards("9S TS KS"))
    assert result.count == 2 + 4 + 7 + 9 + 10 + 10 + 3
    assert result.melds == ()


def test_layoff_without_chain_option_g6_6() -> None:
    """With `layoff_chain` off, only the card next to the run's own end goes (TS stays)."""
    result = layoffs("9S TS KS 2C", ["6S 7S 8S", "KD KC KH"], chain=False)
    assert set(result.laid_off) == set(cards("9S KS"))
    assert result.deadwood == cards("2C TS")


def test_layoff_either_end_of_run_g6_6() -> None:
    result = layoffs("4S 5S 9S TS", ["6S 7S 8S"])
    assert set(result.laid_off) == set(cards("4S 5S 9S TS"))
    assert result.count == 0


def test_layoff_same_suit_only_g6_6() -> None:
    result = layoffs("9H 5D", ["6S 7S 8S"])
    assert result.laid_off == ()
    assert result.count == 14


def test_layoff_fourth_card_only_onto_three_card_set_g6_6() -> None:
    assert layoffs("KS", ["KC KD KH"]).laid_off == cards("KS")
    assert layoffs("QS", ["KC KD KH"]).laid_off == ()


def test_no_layoff_onto_knocker_deadwood_g6_6() -> None:
    """E7: the defender may not combine his deadwood with the knocker's deadwood.

    The knocker's deadwood (4H 5H) is not a meld; 6H is no lay-off.
    """
    result = layoffs("6H 2C", ["KC KD KH"])
    assert result.laid_off == ()
    assert result.count == 8
    with pytest.raises(IllegalMove, match="not a meld"):
        layoffs("6H 2C", ["4H 5H"])


def test_layoffs_never_form_a_new_meld_g6_6() -> None:
    # 9S and TS beyond a gap do not reach the run 5S6S7S, and are not a meld on their own.
    result = layoffs("9S TS", ["5S 6S 7S"])
    assert result.laid_off == ()
    assert result.count == 19


def test_defender_keeps_own_meld_rather_than_lay_off_on_a_tie_g6_7() -> None:
    # 9S TS JS is an own run, or three lay-offs onto 6S7S8S: both give 0; among equal counts
    # the fewest cards are laid off.
    result = layoffs("9S TS JS", ["6S 7S 8S"])
    assert result.count == 0
    assert result.laid_off == ()
    assert as_sets(result.melds) == {frozenset({"9S", "TS", "JS"})}


def test_defender_breaks_own_meld_to_lay_off_g6_7() -> None:
    # Own set of four 9C9D9H9S leaves TS (10). Taking 9S out of it (9C9D9H stays a set)
    # lets 9S and then TS go onto 6S7S8S: 0.
    result = layoffs("9C 9D 9H 9S TS", ["6S 7S 8S"])
    assert result.count == 0
    assert set(result.laid_off) == set(cards("9S TS"))
    assert as_sets(result.melds) == {frozenset({"9C", "9D", "9H"})}


def test_defender_own_meld_blocks_the_chain_g6_6() -> None:
    # 9S in the defender's own set cannot carry TS onto 6S7S8S: set 9C9D9S leaves TS (10),
    # laying off 9S TS leaves 9C 9D (18); the set is better.
    result = layoffs("9C 9D 9S TS", ["6S 7S 8S"])
    assert result.count == 10
    assert result.deadwood == cards("TS")
    assert result.laid_off == ()


def test_layoff_onto_a_set_needs_no_chain_g6_6() -> None:
    # KS goes onto KC KD KH; a QS cannot follow it (sets take no chains).
    result = layoffs("KS QS", ["KC KD KH"])
    assert result.laid_off == cards("KS")
    assert result.count == 10


def test_layoffs_refuse_overlapping_cards_g3_3() -> None:
    with pytest.raises(IllegalMove, match="two places"):
        layoffs("6S 2C", ["6S 7S 8S"])


def test_choose_knock_arrangement_picks_the_set_that_blocks_g6_3() -> None:
    """A knock without melds (api.md): of the least-deadwood arrangements, the one that
    lets the defender lay off the fewest cards."""
    # Knocker: 4S5S6S7S, 7C7D7H, KC QC 2D. Arrangements of least deadwood 22:
    #   A: 4S5S6S7S + 7C7D7H   (the defender's 8S lays off on the run)
    #   B: 4S5S6S + 7C7D7H7S   (8S no longer reaches the run)
    knocker = "4S 5S 6S 7S 7C 7D 7H KC QC 2D"
    defender = "8S 2C 3C 9D 9H TD JH QH AH 5D"
    options = minimal_arrangements(knocker)
    assert len(options) == 2 and {a.count for a in options} == {22}
    chosen = choose_knock_arrangement(knocker, defender)
    assert as_sets(chosen.melds) == {
        frozenset({"4S", "5S", "6S"}),
        frozenset({"7C", "7D", "7H", "7S"}),
    }
    assert layoffs(defender, chosen.melds).laid_off == ()
