"""The Manipulation table: melds (M2) and the meld-move invariants I1-I6 (M6)."""

from __future__ import annotations

import pytest

from domain.cards import JOKER, Card, TableCard, parse_cards
from domain.errors import IllegalMove, InvalidCard
from domain.manipulation.table.meld import (
    is_group,
    is_sequence,
    meld_kind,
    normalise_meld,
    parse_meld,
    parse_table_text,
)
from domain.manipulation.table.rules import MeldOutcome, validate_meld_move


def hand(text: str) -> tuple[Card, ...]:
    return parse_cards(text.split())


def table(text: str) -> tuple[tuple[TableCard, ...], ...]:
    return parse_table_text(text)


def move(before: str, held: str, after: str, options: object = None, **kw: object) -> MeldOutcome:
    return validate_meld_move(table(before), hand(held), table(after), options, **kw)  # type: ignore[arg-type]


def refused(before: str, held: str, after: str, options: object = None, **kw: object) -> str:
    with pytest.raises(IllegalMove) as info:
        move(before, held, after, options, **kw)
    return str(info.value)


# --- M2: melds ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["7C 7D 7H", "7C 7D 7H 7S", "QS JK=QD QC", "AS AD AC"],
)
def test_group_is_three_or_four_of_one_rank_m2_2(text: str) -> None:
    assert meld_kind(parse_meld(text)) == "group"
    assert is_group(parse_meld(text))


@pytest.mark.parametrize(
    "text",
    ["7C 7C 7H", "7C 7D", "7C 7D 7H 7S 7S", "7C 7D 8H"],
)
def test_group_never_repeats_a_card_nor_passes_four_m2_2_a_m3(text: str) -> None:
    assert not is_group(parse_meld(text))
    assert meld_kind(parse_meld(text)) is None


@pytest.mark.parametrize(
    "text",
    [
        "AH 2H 3H",
        "QH KH AH",
        "9S TS JS",
        "AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH",
        "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
        "JK=8S 9S TS",
    ],
)
def test_sequence_of_one_suit_ace_low_or_high_m2_3_m2_4(text: str) -> None:
    assert meld_kind(parse_meld(text)) == "sequence"
    assert is_sequence(parse_meld(text))


@pytest.mark.parametrize(
    "text",
    [
        "KH AH 2H",  # turning the corner
        "7H 8H 9S",  # A-M1: one suit
        "7H 8H TH",  # a gap
        "7H 7H 8H",  # a repeated rank
        "7H 8H",  # too short
    ],
)
def test_sequence_refused_m2_3_m2_4_a_m1_a_m2(text: str) -> None:
    assert not is_sequence(parse_meld(text))
    assert meld_kind(parse_meld(text)) is None


def test_sequence_with_an_ace_at_both_ends_is_refused_m2_4() -> None:
    cards = [Card.of(r, 2) for r in range(1, 14)] + [Card.of(1, 2)]
    assert not is_sequence(cards)


def test_sequence_accepted_in_any_submitted_order_and_normalised() -> None:
    meld = parse_meld("AH KH QH")
    assert meld_kind(meld) == "sequence"
    assert [str(c) for c in normalise_meld(meld)] == ["QH", "KH", "AH"]
    assert [str(c) for c in normalise_meld(parse_meld("3S AS 2S"))] == ["AS", "2S", "3S"]


def test_a_bare_joker_is_no_meld_card_m5_1() -> None:
    assert meld_kind((TableCard(JOKER), *parse_meld("9S TS"))) is None


# --- I1: nothing leaves the table, at least one card arrives -----------------------------


def test_first_meld_on_empty_table_from_hand_i1_i6() -> None:
    outcome = move("", "7H 8H 9H KD", "9H 7H 8H")
    assert outcome.played == hand("7H 8H 9H")
    assert outcome.points == 24
    assert [str(c) for c in outcome.table[0]] == ["7H", "8H", "9H"]


def test_no_card_from_hand_refused_i1() -> None:
    message = refused("7H 8H 9H | 5C 5D 5S", "KD", "7H 8H 9H | 5C 5D 5S")
    assert "no card from your hand was played" in message and "(I1" in message


def test_rearranging_without_a_new_card_refused_a_m19() -> None:
    message = refused("7H 8H 9H TH", "KD", "7H 8H 9H TH")
    assert "no card from your hand" in message


def test_card_not_in_hand_refused_i1() -> None:
    message = refused("7H 8H 9H", "2C", "7H 8H 9H | KD KS KC")
    assert "card KC is not in your hand or on the table (I1)" in message


def test_joker_not_in_hand_refused_i1() -> None:
    message = refused("7H 8H 9H", "2C KS KC", "7H 8H 9H | JK=KD KS KC")
    assert "a joker is not in your hand or on the table (I1)" in message


def test_card_played_more_times_than_held_refused_i1() -> None:
    message = refused("7H 8H 9H", "KD KS KC", "7H 8H 9H | KD KS KC | KD KS KC")
    assert "played 2 times but your hand holds 1 (I1)" in message


def test_card_leaving_the_table_refused_i1() -> None:
    message = refused("7H 8H 9H TH", "2C", "7H 8H 9H | 2C")
    assert "card TH on the table is missing" in message
    assert "(I1)" in message


def test_two_deck_identical_cards_are_a_multiset_m1_3() -> None:
    outcome = move("7H 8H 9H", "7H 8H 9H", "7H 8H 9H | 9H 8H 7H")
    assert outcome.played == hand("7H 8H 9H")


def test_extending_and_splitting_melds_is_allowed_i5() -> None:
    before = "4S 5S 6S 7S 8S 9S"
    outcome = move(before, "6S", "4S 5S 6S | 6S 7S 8S 9S")
    assert outcome.played == hand("6S")


def test_refused_move_names_the_meld_and_the_rule_i2() -> None:
    message = refused("7H 8H 9H", "9S", "7H 8H 9S | 9H")
    assert message.startswith("meld 1 [7H 8H 9S]: a sequence must be one suit (M2.3)")


def test_short_meld_refused_i2() -> None:
    message = refused("7H 8H 9H", "9S 9D", "7H 8H | 9H 9S 9D")
    assert "meld 1 [7H 8H]: a meld needs at least 3 cards (M2.1)" in message


def test_corner_turning_refused_with_its_rule_m2_4() -> None:
    message = refused("", "KH AH 2H", "KH AH 2H")
    assert "K-A-2" in message and "(M2.4)" in message


def test_group_with_identical_cards_refused_a_m3() -> None:
    message = refused("", "8S 8S 8H", "8S 8S 8H")
    assert "8S appears twice (M2.2, A-M3)" in message


# --- I3 / I4 / M5: jokers ------------------------------------------------------------------


def test_new_joker_must_declare_its_card_i4() -> None:
    bad = (TableCard(JOKER), *parse_meld("9S TS"))
    with pytest.raises(IllegalMove, match=r"\(I4"):
        validate_meld_move((), hand("JK 9S TS"), (bad,))


def test_plain_card_with_a_declaration_is_not_notation() -> None:
    bad = (TableCard(Card.parse("8S"), Card.parse("8S")), *parse_meld("9S TS"))
    with pytest.raises(InvalidCard):
        validate_meld_move((), hand("8S 9S TS"), (bad,))


def test_joker_from_hand_with_declared_card_m5_1() -> None:
    outcome = move("", "JK 9S TS", "JK=8S 9S TS")
    assert outcome.played == (Card.parse("9S"), Card.parse("TS"), JOKER)
    assert outcome.points == 25 + 9 + 10


def test_joker_may_move_keeping_its_card_m5_3() -> None:
    outcome = move("7S JK=8S 9S TS", "6S", "6S 7S JK=8S 9S TS")
    assert outcome.freed == ()
    outcome = move("7S JK=8S 9S | 8C 8D 8H", "8S", "JK=8S 8C 8D 8H | 7S 8S 9S")
    assert outcome.freed == ()  # the joker kept its card: moved, not freed


def test_joker_redeclared_without_the_real_card_refused_i3() -> None:
    message = refused(
        "JK=8S 9S TS | 4H 5H 6H",
        "7H JS",
        "4H 5H 6H 7H | 9S TS JS JK=QS",
    )
    assert "the joker declared as 8S must keep its card unless a real 8S frees it (I3" in message


def test_joker_freed_by_real_card_from_hand_m5_2_m5_4() -> None:
    outcome = move("7S JK=8S 9S | 4H 5H 6H", "8S", "7S 8S 9S | 4H 5H 6H JK=7H")
    assert outcome.freed == (Card.parse("8S"),)
    assert outcome.played == hand("8S")


def test_joker_freed_by_real_card_from_another_meld_m5_2() -> None:
    before = "7S JK=8S 9S | 8C 8D 8H 8S | 4H 5H 6H"
    outcome = move(before, "7H", "7S 8S 9S | 8C 8D 8H | 4H 5H 6H 7H JK=8H")
    assert outcome.freed == (Card.parse("8S"),)


def test_freed_joker_does_not_count_as_the_new_card_a_m18() -> None:
    before = "7S JK=8S 9S | 8C 8D 8H 8S | 4H 5H 6H"
    message = refused(before, "KD", "7S 8S 9S | 8C 8D 8H | 4H 5H 6H JK=7H")
    assert "no card from your hand was played" in message


def test_freed_joker_must_be_placed_again_m5_4() -> None:
    message = refused("7S JK=8S 9S | 4H 5H 6H", "8S", "7S 8S 9S | 4H 5H 6H")
    assert "joker on the table is missing" in message
    assert "freed joker must be placed again" in message


def test_one_real_card_frees_one_joker_m5_6() -> None:
    before = "7S JK=8S 9S | 8C 8D JK=8S"
    after = "7S 8S 9S | 8C 8D 8H | JK=4C JK=5C 6C"
    message = refused(before, "8S 8H 6C", after)
    assert "2 jokers declared as 8S" in message and "(I3, M5.6)" in message
    outcome = move(before, "8S 8H 6C", after, {"one_real_card_frees_one_joker": False})
    assert outcome.freed == hand("8S 8S")


def test_two_real_cards_free_two_jokers_m5_6() -> None:
    before = "7S JK=8S 9S | 8C 8D JK=8S"
    outcome = move(before, "8S 8S 6C", "7S 8S 9S | 8C 8D 8S | JK=4C JK=5C 6C")
    assert outcome.freed == hand("8S 8S")


def test_hand_only_joker_replacement_option_a_m18() -> None:
    before = "7S JK=8S 9S | 8C 8D 8H 8S | 4H 5H 6H"
    after = "7S 8S 9S | 8C 8D 8H | 4H 5H 6H 7H JK=8H"
    options = {"joker_replacement_source": "hand_only"}
    message = refused(before, "7H", after, options)
    assert "from your hand" in message and "hand_only" in message
    outcome = move("7S JK=8S 9S | 4H 5H 6H", "8S", "7S 8S 9S | 4H 5H 6H JK=7H", options)
    assert outcome.freed == hand("8S")


def test_freed_joker_placement_new_meld_from_hand_option_a_m18() -> None:
    options = {"freed_joker_placement": "new_meld_from_hand"}
    message = refused("7S JK=8S 9S | 4H 5H 6H", "8S", "7S 8S 9S | 4H 5H 6H JK=7H", options)
    assert "new_meld_from_hand" in message
    after = "7S 8S 9S | 4H 5H 6H | KD KC JK=KH"
    outcome = move("7S JK=8S 9S | 4H 5H 6H", "8S KD KC", after, options)
    assert outcome.freed == hand("8S")
    assert outcome.played == hand("KC KD 8S")  # sorted by code index


def test_joker_may_copy_a_card_all_of_whose_copies_are_out_m5_7() -> None:
    before = "8S 9S TS | 8S 8H 8D"
    after = "8S 9S TS | 8S 8H 8D | JK=8S 6S 7S"
    assert move(before, "JK 6S 7S", after).played == (*hand("6S 7S"), JOKER)
    message = refused(before, "JK 6S 7S", after, {"joker_identity_respects_copy_count": True})
    assert "joker_identity_respects_copy_count" in message
    strict = {"joker_identity_respects_copy_count": True}
    assert move("8S 9S TS", "JK 6S 7S", "8S 9S TS | JK=5S 6S 7S", strict, decks=1).points == 38
    message = refused("8S 9S TS", "JK 8H 8D", "8S 9S TS | JK=8S 8H 8D", strict, decks=1)
    assert "the pack holds 1 8S and the table would show 2" in message


# --- I6: opening options -------------------------------------------------------------------


def test_no_per_player_opening_by_default_i6_a_m6() -> None:
    outcome = move("7H 8H 9H", "TH", "7H 8H 9H TH", has_opened=False)
    assert outcome.played == hand("TH")


def test_per_player_opening_needs_a_meld_from_hand_i6() -> None:
    options = {"initial_meld_per_player": True}
    message = refused("7H 8H 9H", "TH KD KS KC", "7H 8H 9H TH", options, has_opened=False)
    assert "initial_meld_per_player" in message
    assert move("7H 8H 9H", "TH", "7H 8H 9H TH", options, has_opened=True).played == hand("TH")
    outcome = move("7H 8H 9H", "TH KD KS KC", "7H 8H 9H TH | KD KS KC", options, has_opened=False)
    assert outcome.points == 40


def test_opening_from_hand_only_leaves_the_table_melds_alone_i6() -> None:
    options = {"initial_meld_per_player": True, "initial_meld_from_hand_only": True}
    message = refused("7H 8H 9H", "TH KD KS KC", "7H 8H 9H TH | KD KS KC", options)
    assert "initial_meld_from_hand_only" in message
    outcome = move("7H 8H 9H", "TH KD KS KC", "9H 8H 7H | KD KS KC", options)
    assert outcome.played == hand("KC KD KS")


def test_opening_min_points_i6() -> None:
    options = {"initial_meld_min_points": 30}
    message = refused("", "2H 3H 4H KD KS KC", "2H 3H 4H", options)
    assert "at least 30 points" in message and "plays 9" in message
    assert move("", "2H 3H 4H KD KS KC", "KD KS KC", options).points == 30
    # not an opening any more once the table holds a meld (no per-player opening)
    assert move("KD KS KC", "2H 3H 4H", "KD KS KC | 2H 3H 4H", options).points == 9
