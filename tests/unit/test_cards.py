"""Card notation of api.md: `TS`, `AH`, `JK`, and `JK=8S` on the Manipulation table."""

from __future__ import annotations

import pytest

from domain.cards import FULL_DECK, JOKER, Card, TableCard, from_mask, parse_cards, to_mask
from domain.errors import InvalidCard


def test_every_plain_card_round_trips_through_its_code() -> None:
    assert [str(Card.parse(str(c))) for c in FULL_DECK] == [str(c) for c in FULL_DECK]
    assert len({str(c) for c in FULL_DECK}) == 52


def test_ranks_suits_and_values_g2_3_m1_4() -> None:
    """G2.3 / M1.4: ace 1, pips their value, J Q K 10, joker 25."""
    assert Card.parse("AH").value == 1 and Card.parse("AH").rank == 1
    assert Card.parse("9S").value == 9
    assert [Card.parse(c).value for c in ("TD", "JD", "QD", "KD")] == [10, 10, 10, 10]
    assert JOKER.value == 25 and Card.parse("JK") is JOKER
    assert Card.parse("TS").suit == 3 and Card.parse("2C").suit == 0


@pytest.mark.parametrize("bad", ["ts", "1S", "TX", "T", "TSS", "", "JK=", "10S", " TS", 7, None])
def test_bad_codes_are_refused_naming_the_code(bad: object) -> None:
    with pytest.raises(InvalidCard) as err:
        Card.parse(bad)
    assert repr(bad) in str(err.value)


def test_table_cards_declare_jokers() -> None:
    assert str(TableCard.parse("JK=8S")) == "JK=8S"
    assert TableCard.parse("JK=8S").acts_as == Card.parse("8S")
    assert TableCard.parse("7H").acts_as == Card.parse("7H")
    for bad in ("JK", "JK=JK", "JK=8X"):
        with pytest.raises(InvalidCard):
            TableCard.parse(bad)


def test_masks_round_trip_and_refuse_repeats() -> None:
    hand = parse_cards("AS 2S 3S KD KH KC")
    assert set(from_mask(to_mask(hand))) == set(hand)
    with pytest.raises(InvalidCard, match="twice"):
        to_mask(["AS", "AS"])
