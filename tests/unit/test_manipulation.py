"""Manipulation Rummy engine, one test (at least) per numbered rule M1-M11 and I1-I6."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, cast

import pytest

from domain import manipulation as m
from domain.cards import JOKER, Card
from domain.errors import (
    ForbiddenMove,
    IllegalMove,
    InvalidCard,
    InvalidOptions,
    MalformedMove,
    NotYourTurn,
)
from domain.events import SYSTEM, Event
from domain.manipulation.scoring import hand_points
from domain.manipulation.shapes import ManipulationMove
from domain.manipulation.state import Phase, RoundEnd
from domain.shapes import JSON
from domain.shuffle import DealRng, commitment, seed_key
from domain.variants import get_variant
from tests.support.manipulation_helpers import (
    cards,
    conserved,
    dealt,
    fold,
    new_match,
    players,
    step,
    table_move,
    with_table,
)
from tests.support.views import you_of

# Seats 1 and 2 hold high cards that form no meld, so they never interfere.
HIGH1 = "KC KD QH JS TH 9D 8C 7H 6S 5D"
HIGH2 = "KH KS QC JD TS 9H 8D 7S 6C 5H"
LOW0 = "AC 2C 3C AH AD"  # a run of clubs and two aces


def three(hand0: str = LOW0, stock: str = "AS 9C 9D", **kw: object) -> m.State:
    return dealt([hand0, HIGH1, HIGH2], stock, **kw)  # type: ignore[arg-type]


def refused_unchanged(state: m.State, seat: int, move: Mapping[str, Any], error: type) -> str:
    """I5: a refused move raises and leaves the state as it was."""
    before = state
    with pytest.raises(error) as info:
        m.decide(state, seat, cast(ManipulationMove, move))  # may be malformed on purpose
    assert state == before
    return str(info.value)


# ---------------------------------------------------------------- the surface


def test_variant_is_registered_under_its_name() -> None:
    variant = get_variant("manipulation-rummy")
    assert variant is m.VARIANT
    assert (variant.min_players, variant.max_players) == (2, 5)


# ---------------------------------------------------------------- M1 players, cards, values


@pytest.mark.parametrize("n", [0, 1, 6])
def test_m1_1_two_to_five_players_only(n: int) -> None:
    with pytest.raises(InvalidOptions, match=r"M1\.1"):
        m.create(players(n), {}, 1, "")


@pytest.mark.parametrize(
    ("n", "size", "jokers"), [(2, 53, 1), (3, 106, 2), (4, 106, 2), (5, 106, 2)]
)
def test_m1_2_one_pack_for_two_two_packs_for_more(n: int, size: int, jokers: int) -> None:
    state = new_match(n)
    everything = [c for h in state.hands for c in h] + list(state.stock)
    assert len(everything) == size
    count = Counter(everything)
    assert count[JOKER] == jokers
    assert all(count[Card(i)] == (1 if n == 2 else 2) for i in range(52))
    assert conserved(state)


def test_m1_3_identical_cards_are_separate_physical_cards() -> None:
    """Two 8S are two cards: one may go to the table while the other stays in hand."""
    state = three("8S 8S 8H 8D 9S TS", stock="4H 4D 4S")
    state, _ = step(state, 0, {"type": "draw"})
    state, events = step(state, 0, table_move("8S 8H 8D"))
    assert events[0].data["played"] == ["8D", "8H", "8S"]
    assert Counter(state.hands[0])[Card.parse("8S")] == 1
    assert conserved(state)
    # and a group may not hold both copies (M2.2, A-M3)
    state2 = three("8S 8S 8H 8D 9S TS", stock="4H 4D 4S")
    state2, _ = step(state2, 0, {"type": "draw"})
    refused_unchanged(state2, 0, table_move("8S 8S 8H"), IllegalMove)


def test_m1_4_card_values() -> None:
    assert hand_points(cards("JK KS QH JD TC 9S AH 2C")) == 25 + 40 + 9 + 1 + 2


def test_m1_5_there_is_no_discard() -> None:
    state = three()
    state, _ = step(state, 0, {"type": "draw"})
    refused_unchanged(state, 0, {"type": "discard", "card": "AH"}, MalformedMove)


# ---------------------------------------------------------------- M3 deal and turn order


def test_m3_1_first_dealer_is_a_chance_event() -> None:
    events = m.create(players(4), {}, 99, "")
    assert [e.type for e in events] == ["MatchCreated", "DealerChosen", "RoundDealt"]
    key = seed_key(99)
    assert events[1].data["dealer"] == DealRng(key, "dealer").randbelow(4)
    dealers = {m.create(players(4), {}, seed, "")[1].data["dealer"] for seed in range(30)}
    assert len(dealers) > 1


@pytest.mark.parametrize(("n", "stock"), [(2, 33), (3, 76), (4, 66), (5, 56)])
def test_m3_1_ten_each_one_at_a_time_from_the_dealers_left(n: int, stock: int) -> None:
    events = m.create(players(n), {}, 5, "")
    deal: Any = events[2].data
    dealer = deal["dealer"]
    assert all(len(h) == 10 for h in deal["hands"]) and len(deal["stock"]) == stock
    deck = [""] * (10 * n)
    for seat, hand in enumerate(deal["hands"]):
        for k, code in enumerate(hand):
            deck[k * n + (seat - dealer - 1) % n] = code
    deck += deal["stock"]
    assert deal["commitment"] == commitment(deck, deal["salt"])
    ordered = [str(c) for c in m.pack(n)]
    DealRng(seed_key(5), "deal:1").shuffle(ordered)
    assert ordered == deck
    assert deal["salt"] == DealRng(seed_key(5), "salt:1").token()


@pytest.mark.parametrize("n", [2, 3, 5])
def test_m3_2_the_player_left_of_the_dealer_starts(n: int) -> None:
    state = new_match(n, seed=3)
    assert m.to_act(state) == (state.dealer + 1) % n  # type: ignore[operator]
    assert state.phase is Phase.DRAW


@pytest.mark.parametrize(
    ("rule", "expected"), [("rotate_left", "left"), ("round_winner", "winner"), ("random", "rng")]
)
def test_m3_3_next_dealer_option(rule: str, expected: str) -> None:
    """Dealer 0; seat 1 draws three, seat 2 melds and knocks and wins the round."""
    state = dealt(
        [HIGH1, HIGH2, LOW0],
        "KS QS JH AS",
        dealer=0,
        options={"next_dealer": rule, "target_score": 999},
    )
    for _ in range(3):
        state, _ = step(state, 1, {"type": "draw"})
    state, _ = step(state, 2, {"type": "draw"})
    state, _ = step(state, 2, table_move("AC 2C 3C"))
    state, _ = step(state, 2, {"type": "knock"})
    state, _ = m.autoplay_system(state)
    assert state.round == 2 and state.results[0].winners == (2,)
    if expected == "left":
        assert state.dealer == 1
    elif expected == "winner":
        assert state.dealer == 2
    else:
        assert state.dealer == DealRng(seed_key(1), "dealer:2").randbelow(3)
    assert state.dealer is not None and m.to_act(state) == (state.dealer + 1) % 3


# ---------------------------------------------------------------- M4 the turn


def test_m4_d1_a_turn_starts_with_a_compulsory_draw() -> None:
    state = three()
    assert m.legal_moves(state, 0) == [{"type": "draw"}]
    for move in ({"type": "end_turn"}, {"type": "knock"}, {"type": "pass"}):
        refused_unchanged(state, 0, move, IllegalMove)
    assert "M4 D1" in refused_unchanged(state, 0, table_move("AC 2C 3C"), IllegalMove)
    state, events = step(state, 0, {"type": "draw"})
    assert events[0].type == "CardDrawn"
    assert events[0].data == {"seat": 0, "card": "AS", "draw": 1}
    assert state.phase is Phase.MELD_OR_DRAW and state.draws == 1


def test_m4_d2_without_a_meld_the_second_draw_is_compulsory() -> None:
    state, _ = step(three(), 0, {"type": "draw"})
    moves = m.legal_moves(state, 0)
    kinds = {mv["type"] for mv in moves}
    assert kinds == {"draw", "meld"}  # no end_turn, no pass (A-M4)
    refused_unchanged(state, 0, {"type": "end_turn"}, IllegalMove)
    state, events = step(state, 0, {"type": "draw"})
    assert events[0].data["draw"] == 2 and state.phase is Phase.MELD_OR_DRAW


def test_m4_d3_third_draw_ends_the_turn_without_a_meld() -> None:
    state = three()
    for _ in range(2):
        state, _ = step(state, 0, {"type": "draw"})
    state, events = step(state, 0, {"type": "draw"})
    # hand counts 9 + 1 + 9 + 9 > 5: the turn passes at once, in the same decision
    assert [e.type for e in events] == ["CardDrawn", "TurnEnded"]
    assert events[0].data["draw"] == 3
    assert m.to_act(state) == 1 and state.phase is Phase.DRAW and state.draws == 0


def test_m4_d3_no_meld_after_the_third_draw_m5_5() -> None:
    state = three("AC 2C", stock="3C 4C 5C", options={"knock_limit": 20})
    for _ in range(3):
        state, _ = step(state, 0, {"type": "draw"})
    assert state.phase is Phase.KNOCK_OR_END  # 15 points, under the limit of 20
    assert m.legal_moves(state, 0) == [{"type": "knock"}, {"type": "end_turn"}]
    assert "M4 D3" in refused_unchanged(state, 0, table_move("AC 2C 3C 4C 5C"), IllegalMove)


def test_m4_a_meld_ends_the_drawing() -> None:
    state = three("AC 2C 3C KH KD", stock="9C 9D 9H")
    state, _ = step(state, 0, {"type": "draw"})
    state, events = step(state, 0, table_move("AC 2C 3C"))
    assert [e.type for e in events] == ["TableMelded", "TurnEnded"]
    assert m.to_act(state) == 1
    assert [[str(c) for c in meld] for meld in state.table] == [["AC", "2C", "3C"]]


def test_m4_after_the_turn_a_low_hand_may_knock_or_end_the_turn() -> None:
    state, _ = step(three(), 0, {"type": "draw"})  # AC 2C 3C AH AD AS
    state, events = step(state, 0, table_move("AC 2C 3C"))
    assert [e.type for e in events] == ["TableMelded"]
    assert state.phase is Phase.KNOCK_OR_END and m.to_act(state) == 0
    assert m.legal_moves(state, 0) == [{"type": "knock"}, {"type": "end_turn"}]
    refused_unchanged(state, 0, {"type": "draw"}, IllegalMove)
    state, events = step(state, 0, {"type": "end_turn"})
    assert [e.type for e in events] == ["TurnEnded"] and m.to_act(state) == 1


def test_m4_melding_is_optional_a_player_may_draw_instead() -> None:
    state, _ = step(three(), 0, {"type": "draw"})
    assert any(mv["type"] == "meld" for mv in m.legal_moves(state, 0))
    state, events = step(state, 0, {"type": "draw"})
    assert events[0].data["draw"] == 2


# ---------------------------------------------------------------- M5 jokers


def test_m5_1_a_joker_from_hand_must_declare_its_card() -> None:
    state, _ = step(three("AC 2C JK KH", stock="9D 9H 9S"), 0, {"type": "draw"})
    refused_unchanged(state, 0, {"type": "meld", "table": [["AC", "2C", "JK"]]}, InvalidCard)
    state, events = step(state, 0, table_move("AC 2C JK=3C"))
    assert events[0].data["played"] == ["AC", "2C", "JK"]
    assert events[0].data["table"] == [["AC", "2C", "JK=3C"]]


def test_m5_2_a_table_joker_keeps_its_card_unless_freed_by_the_real_card() -> None:
    state = with_table(three("3C 7D 8D", stock="4H 4D 4S"), "AC 2C JK=3C")
    state, _ = step(state, 0, {"type": "draw"})
    # re-declaring the joker without a real 3C is refused (I3)
    refused_unchanged(state, 0, table_move("JK=AC 2C 3C | 7D 8D KS"), IllegalMove)
    # the real 3C frees it; the joker goes straight into a new meld (M5.4)
    state, events = step(state, 0, table_move("AC 2C 3C | 7D 8D JK=9D"))
    assert events[0].data["played"] == ["3C", "7D", "8D"]
    assert conserved(state)


def test_m5_2_the_real_card_may_come_from_another_meld() -> None:
    state = with_table(three("7D 8D KS", stock="4H 4D 4S"), "AC 2C JK=3C | 3C 3D 3H 3S")
    state, _ = step(state, 0, {"type": "draw"})
    move = table_move("AC 2C 3C | 3D 3H 3S | 7D 8D JK=9D")
    after, _ = step(state, 0, move)
    assert conserved(after)
    hand_only = replace(state, options=replace(state.options, joker_replacement_source="hand_only"))
    assert "hand_only" in refused_unchanged(hand_only, 0, move, IllegalMove)


def test_m5_3_a_joker_may_move_to_another_meld_keeping_its_card() -> None:
    state = with_table(three("4C 5C KS", stock="4H 4D 4S"), "AC 2C JK=3C")
    state, _ = step(state, 0, {"type": "draw"})
    state, _ = step(state, 0, table_move("AC 2C JK=3C 4C 5C"))
    assert any("JK=3C" in [str(c) for c in meld] for meld in state.table)


def test_m5_4_a_freed_joker_must_be_placed_again() -> None:
    state = with_table(three("3C KS QS", stock="4H 4D 4S"), "AC 2C JK=3C")
    state, _ = step(state, 0, {"type": "draw"})
    assert "M5.4" in refused_unchanged(state, 0, table_move("AC 2C 3C"), IllegalMove)


def test_m5_6_one_real_card_frees_one_joker() -> None:
    state = with_table(three("3C 9S 9H", stock="4H 4D 4S"), "AC 2C JK=3C | 3D 3H JK=3C")
    state, _ = step(state, 0, {"type": "draw"})
    move = table_move("AC 2C 3C | 3D 3H JK=3S | JK=9D 9S 9H")
    assert "M5.6" in refused_unchanged(state, 0, move, IllegalMove)
    free = replace(state, options=replace(state.options, one_real_card_frees_one_joker=False))
    m.decide(free, 0, move)


def test_m5_8_a_joker_left_in_hand_counts_25() -> None:
    state = three("AC 2C 3C JK", stock="AH AD AS")
    state, _ = step(state, 0, {"type": "draw"})
    state, _ = step(state, 0, table_move("AC 2C 3C"))
    # JK + AH = 26 > 5: no knock; the turn passed
    assert m.to_act(state) == 1
    assert hand_points(state.hands[0]) == 26


# ---------------------------------------------------------------- M6 / I1-I6 from the engine


def _melding() -> m.State:
    state = with_table(three("4C 9H 9S KD", stock="4H 4D 4S"), "AC 2C 3C | 7D 8D 9D")
    state, _ = step(state, 0, {"type": "draw"})
    return state


def test_i1_nothing_leaves_the_table() -> None:
    assert "I1" in refused_unchanged(_melding(), 0, table_move("AC 2C 3C 4C"), IllegalMove)


def test_i1_at_least_one_card_from_the_hand() -> None:
    msg = refused_unchanged(_melding(), 0, table_move("AC 2C 3C | 7D 8D 9D"), IllegalMove)
    assert "I1" in msg


def test_i1_cards_must_come_from_the_mover_hand() -> None:
    move = table_move("AC 2C 3C | 7D 8D 9D TD")
    assert "I1" in refused_unchanged(_melding(), 0, move, IllegalMove)


def test_i2_every_meld_must_be_valid() -> None:
    move = table_move("AC 2C 3C | 7D 8D 9D | 9H 9S KD")
    assert "M2" in refused_unchanged(_melding(), 0, move, IllegalMove)
    move = table_move("KD AD 2D | AC 2C 3C 4C | 7D 8D 9D")
    refused_unchanged(_melding(), 0, move, IllegalMove)


def test_i3_a_table_joker_keeps_its_declared_card() -> None:
    state = with_table(three("4C KS QS", stock="4H 4D 4S"), "5C 6C JK=7C")
    state, _ = step(state, 0, {"type": "draw"})
    assert "I3" in refused_unchanged(state, 0, table_move("JK=3C 4C 5C 6C"), IllegalMove)
    state, _ = step(state, 0, table_move("4C 5C 6C JK=7C"))


def test_i4_a_new_joker_needs_a_declared_card() -> None:
    state, _ = step(three("AC 2C JK KH", stock="9D 9H 9S"), 0, {"type": "draw"})
    refused_unchanged(state, 0, {"type": "meld", "table": [["AC", "2C", "JK"]]}, InvalidCard)


def test_i5_only_the_final_table_counts() -> None:
    """Split a run, lend its end to a new meld, and still every final meld is valid."""
    state = with_table(three("6D 6H KD", stock="4H 4D 4S"), "AC 2C 3C 4C 5C 6C")
    state, _ = step(state, 0, {"type": "draw"})
    state, _ = step(state, 0, table_move("AC 2C 3C 4C 5C | 6C 6D 6H"))
    assert sorted(len(meld) for meld in state.table) == [3, 5]
    assert conserved(state)


def test_i6_the_first_meld_on_an_empty_table_comes_from_the_hand() -> None:
    state, _ = step(three("AC 2C 3C KH", stock="9D 9H 9S"), 0, {"type": "draw"})
    assert "M2.1" in refused_unchanged(state, 0, table_move("AC 2C"), IllegalMove)
    state, events = step(state, 0, table_move("AC 2C 3C"))
    assert events[0].data["table"] == [["AC", "2C", "3C"]]


def test_i6_option_initial_meld_per_player() -> None:
    options = {"initial_meld_per_player": True}
    state = with_table(three("4C 9H 9S 9D KD", stock="4H 4D 4S", options=options), "AC 2C 3C")
    state, _ = step(state, 0, {"type": "draw"})
    assert "I6" in refused_unchanged(state, 0, table_move("AC 2C 3C 4C"), IllegalMove)
    state, _ = step(state, 0, table_move("AC 2C 3C 4C | 9D 9H 9S"))
    assert state.opened[0]


# ---------------------------------------------------------------- M7 / M8 knock and going out


def _low_after_meld(options: dict[str, object] | None = None) -> m.State:
    state, _ = step(three(options=options or {}), 0, {"type": "draw"})
    state, _ = step(state, 0, table_move("AC 2C 3C"))  # AH AD AS left: 3 points
    return state


def test_m8_1_knock_with_five_or_less_at_the_end_of_the_turn() -> None:
    state = _low_after_meld()
    state, events = step(state, 0, {"type": "knock"})
    assert [(e.type, dict(e.data)) for e in events] == [("Knocked", {"seat": 0, "points": 3})]
    assert state.phase is Phase.SCORING


def test_m8_1_knock_limit_option() -> None:
    state = _low_after_meld({"knock_limit": 2})
    # 3 points > 2: the turn passes at once
    assert m.to_act(state) == 1
    state = three(stock="AS 9C 9D")
    state, _ = step(state, 0, {"type": "draw"})
    state, _ = step(state, 0, table_move("AC 2C 3C"))
    knock = replace(state, options=replace(state.options, knock_limit=2))
    assert "limit is 2" in refused_unchanged(knock, 0, {"type": "knock"}, IllegalMove)


def test_m8_1_knock_refused_above_the_limit() -> None:
    state = three("AC 2C 3C AH 5D", stock="AS 9C 9D", options={"knock_limit": 10})
    state, _ = step(state, 0, {"type": "draw"})
    state, _ = step(state, 0, table_move("AC 2C 3C"))  # AH 5D AS = 7
    capped = replace(state, options=replace(state.options, knock_limit=6))
    assert "counts 7" in refused_unchanged(capped, 0, {"type": "knock"}, IllegalMove)


def test_m8_1_a_mid_turn_knock_only_with_knock_timing_after_any_draw() -> None:
    state, _ = step(three("AC AH", stock="AD 9C 9D"), 0, {"type": "draw"})
    assert "A-M7" in refused_unchanged(state, 0, {"type": "knock"}, IllegalMove)
    early = three("AC AH", stock="AD 9C 9D", options={"knock_timing": "after_any_draw"})
    early, _ = step(early, 0, {"type": "draw"})
    assert {"type": "knock"} in m.legal_moves(early, 0)
    early, events = step(early, 0, {"type": "knock"})
    assert events[0].data == {"seat": 0, "points": 3}


def test_m8_1_a_knock_is_allowed_after_the_third_draw_a_m20() -> None:
    state = three("AC", stock="AH AD 2S")
    for _ in range(3):
        state, events = step(state, 0, {"type": "draw"})
    assert [e.type for e in events] == ["CardDrawn"]
    assert m.legal_moves(state, 0) == [{"type": "knock"}, {"type": "end_turn"}]
    state, _ = step(state, 0, {"type": "knock"})
    assert state.phase is Phase.SCORING


def test_m8_2_a_knock_ends_the_round_at_once_without_layoffs() -> None:
    state, _ = step(_low_after_meld({"target_score": 999}), 0, {"type": "knock"})
    assert m.to_act(state) is None
    assert all(m.legal_moves(state, s) == [] for s in range(3))
    refused_unchanged(state, 1, {"type": "draw"}, IllegalMove)
    assert m.pending(state) == {"type": "score_round"}
    events = m.decide(state, SYSTEM, {"type": "score_round"})
    assert [e.type for e in events] == ["RoundScored", "RoundDealt"]
    result: Any = events[0].data
    assert result["outcome"] == "knock" and result["knocker"] == 0
    assert result["hand_points"] == [3, 85, 85]
    assert result["points"] == [164, 0, 0] and result["winners"] == [0]
    assert result["hands"][0] == ["AD", "AH", "AS"]


def test_m8_3_going_out_ends_the_round_with_the_bonus() -> None:
    state = three("AC 2C 3C", stock="4C 9C 9D")
    state, _ = step(state, 0, {"type": "draw"})
    state, events = step(state, 0, table_move("AC 2C 3C 4C"))
    assert [e.type for e in events] == ["TableMelded"]
    assert state.phase is Phase.SCORING and state.hands[0] == ()
    state, events = m.autoplay_system(state)
    result = events[0].data
    assert result["outcome"] == "out" and result["knocker"] is None
    assert result["winners"] == [0] and result["points"] == [85 + 85 + 25, 0, 0]


def test_m8_3_going_out_bonus_option() -> None:
    state = three("AC 2C 3C", stock="4C 9C 9D", options={"going_out_bonus": 0})
    state, _ = step(state, 0, {"type": "draw"})
    state, _ = step(state, 0, table_move("AC 2C 3C 4C"))
    _, events = m.autoplay_system(state)
    assert events[0].data["points"] == [170, 0, 0]


# ---------------------------------------------------------------- M9 the stock runs out


def test_m9_1_exhausting_on_d1_may_still_meld_or_pass() -> None:
    state = three(stock="AS", exact_stock=True)
    state, events = step(state, 0, {"type": "draw"})
    assert [e.type for e in events] == ["CardDrawn", "StockExhausted"]
    assert state.exhausted_by == 0 and state.stock == ()
    kinds = {mv["type"] for mv in m.legal_moves(state, 0)}
    assert kinds == {"pass", "meld"}
    assert "M9" in refused_unchanged(state, 0, {"type": "draw"}, IllegalMove)
    melded, _ = step(state, 0, table_move("AC 2C 3C"))
    assert melded.phase is Phase.KNOCK_OR_END  # 3 points: may knock (M9.1.2)
    knocked, _ = step(melded, 0, {"type": "knock"})
    assert knocked.phase is Phase.SCORING


def test_m9_1_without_a_meld_the_owed_draw_is_skipped() -> None:
    state = three("AC 2C KH KD", stock="QS", exact_stock=True)
    state, _ = step(state, 0, {"type": "draw"})
    state, events = step(state, 0, {"type": "pass"})
    assert [e.type for e in events] == ["Passed", "TurnEnded"]
    assert state.phase is Phase.FINAL_TURNS and m.to_act(state) == 1


def test_m9_1_exhausting_on_d3_ends_the_turn_without_meld() -> None:
    state = three("AC 2C KH KD", stock="QS QH QD", exact_stock=True)
    for _ in range(2):
        state, _ = step(state, 0, {"type": "draw"})
    state, events = step(state, 0, {"type": "draw"})
    assert [e.type for e in events] == ["CardDrawn", "StockExhausted", "TurnEnded"]
    assert state.phase is Phase.FINAL_TURNS and m.to_act(state) == 1


def test_m9_2_last_lap_one_meld_only_turn_each_ending_with_the_exhauster() -> None:
    state = three("AC 2C KH KD", stock="QS", exact_stock=True)
    state, _ = step(state, 0, {"type": "draw"})
    state, _ = step(state, 0, {"type": "pass"})
    order = []
    while state.phase is Phase.FINAL_TURNS:
        seat = m.to_act(state)
        assert seat is not None
        order.append(seat)
        assert {mv["type"] for mv in m.legal_moves(state, seat)} <= {"pass", "meld"}
        refused_unchanged(state, seat, {"type": "draw"}, IllegalMove)
        refused_unchanged(state, seat, {"type": "knock"}, IllegalMove)
        state, _ = step(state, seat, {"type": "pass"})
    assert order == [1, 2, 0]
    assert state.phase is Phase.SCORING and state.ending == RoundEnd("exhausted", None)


def test_m9_2_no_knock_in_the_last_lap_unless_last_lap_knock() -> None:
    for allowed in (False, True):
        hands = ["KH KD QS", "AC 2C 3C AH", HIGH2]
        state = dealt(hands, "QH", exact_stock=True, options={"last_lap_knock": allowed})
        state, _ = step(state, 0, {"type": "draw"})
        state, _ = step(state, 0, {"type": "pass"})
        assert m.to_act(state) == 1
        state, events = step(state, 1, table_move("AC 2C 3C"))  # AH left: 1 point
        if allowed:
            assert [e.type for e in events] == ["TableMelded"]
            state, _ = step(state, 1, {"type": "knock"})
            assert state.ending == RoundEnd("knock", 1)
        else:
            assert [e.type for e in events] == ["TableMelded", "TurnEnded"]
            assert m.to_act(state) == 2


def test_m9_2_going_out_in_the_last_lap_ends_the_round_at_once() -> None:
    hands = ["KH KD QS", "AC 2C 3C", HIGH2]
    state = dealt(hands, "QH", exact_stock=True)
    state, _ = step(state, 0, {"type": "draw"})
    state, _ = step(state, 0, {"type": "pass"})
    state, _ = step(state, 1, table_move("AC 2C 3C"))
    assert state.ending == RoundEnd("out", 1)
    _, events = m.autoplay_system(state)
    assert events[0].data["outcome"] == "out"


def test_m9_3_after_the_lap_the_lowest_count_wins_without_bonus() -> None:
    hands = ["KH KD QS", "AC 2H", "AS 2D"]
    state = dealt(hands, "QH", exact_stock=True)
    state, _ = step(state, 0, {"type": "draw"})
    state, _ = step(state, 0, {"type": "pass"})
    for seat in (1, 2, 0):
        state, _ = step(state, seat, {"type": "pass"})
    _, events = m.autoplay_system(state)
    result = events[0].data
    assert result["outcome"] == "exhausted" and result["knocker"] is None
    assert result["hand_points"] == [40, 3, 3]
    assert result["winners"] == [1, 2] and result["points"] == [0, 37, 37]


def test_m9_4_never_a_draw_from_an_empty_stock() -> None:
    state = three(stock="AS", exact_stock=True)
    state, _ = step(state, 0, {"type": "draw"})
    assert {"type": "draw"} not in m.legal_moves(state, 0)


# ---------------------------------------------------------------- M10 / M11 through the engine


def test_m10_5_round_won_is_credited_and_m11_1_ends_the_game() -> None:
    state = _low_after_meld({"target_score": 100})
    state, _ = step(state, 0, {"type": "knock"})
    state, events = m.autoplay_system(state)
    assert [e.type for e in events] == ["RoundScored", "MatchFinished"]
    assert state.rounds_won == (1, 0, 0)
    assert events[1].data["round_scores"] == [164, 0, 0]
    assert events[1].data["scores"] == [264, 0, 0] and events[1].data["winners"] == [0]
    assert m.is_finished(state) and state.winners == (0,)
    assert m.pending(state) is None and m.to_act(state) is None


def test_m11_1_below_the_target_the_next_round_is_dealt() -> None:
    state = _low_after_meld({"target_score": 165})
    state, _ = step(state, 0, {"type": "knock"})
    state, events = m.autoplay_system(state)
    assert [e.type for e in events] == ["RoundScored", "RoundDealt"]
    assert state.round == 2 and state.scores == (164, 0, 0) and state.phase is Phase.DRAW
    assert state.dealer == 0 and m.to_act(state) == 1


# ---------------------------------------------------------------- options, moves, errors


def test_options_defaults_and_unknown_key_named() -> None:
    full = m.validate_options({})
    assert full["knock_limit"] == 5 and full["target_score"] == 150
    assert full["going_out_bonus"] == 25 and full["undercut_bonus"] == 10
    assert full["game_bonus"] == 100 and full["round_win_bonus"] == 25
    assert full["round_bonus_recipients"] == "others_only"
    assert full["next_dealer"] == "rotate_left"
    with pytest.raises(InvalidOptions, match="'gin_bonus'"):
        m.validate_options({"gin_bonus": 25})


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("knock_limit", -1),
        ("knock_limit", "5"),
        ("target_score", 0),
        ("target_score", True),
        ("round_bonus_recipients", "everyone"),
        ("next_dealer", "left"),
        ("last_lap_knock", 1),
        ("tie_handling", None),
    ],
)
def test_options_bad_values_are_refused_naming_the_key(key: str, value: JSON) -> None:
    with pytest.raises(InvalidOptions, match=repr(key)):
        m.validate_options({key: value})


def test_created_event_records_the_full_options_and_deal_key() -> None:
    created = m.create(players(2), {"knock_limit": 3}, None, "ab" * 32)[0]
    assert created.data["options"] == {**m.validate_options({}), "knock_limit": 3}
    assert created.data["seeded"] is False and created.data["seed"] is None
    assert created.data["deal_key"] == "ab" * 32


def test_moves_errors_by_class() -> None:
    state = three()
    refused_unchanged(state, 1, {"type": "draw"}, NotYourTurn)
    refused_unchanged(state, 0, {"type": "fly"}, MalformedMove)
    refused_unchanged(state, 0, {"type": "draw", "card": "AS"}, MalformedMove)
    refused_unchanged(state, 0, ["draw"], MalformedMove)  # type: ignore[arg-type]
    refused_unchanged(state, 0, {"type": "meld", "table": "AC 2C 3C"}, MalformedMove)
    refused_unchanged(state, 7, {"type": "draw"}, ForbiddenMove)
    refused_unchanged(state, 0, {"type": "score_round"}, ForbiddenMove)
    refused_unchanged(state, SYSTEM, {"type": "draw"}, ForbiddenMove)
    refused_unchanged(state, SYSTEM, {"type": "score_round"}, IllegalMove)
    drawn, _ = step(state, 0, {"type": "draw"})
    refused_unchanged(drawn, 0, {"type": "meld", "table": [["AC", "2C", "3X"]]}, InvalidCard)


# ---------------------------------------------------------------- views and event views


def test_view_has_the_api_keys_and_hides_other_hands() -> None:
    state = new_match(3, seed=4)
    seat = m.to_act(state)
    assert seat is not None
    view = m.view(state, seat)
    for key in [
        "variant",
        "version",
        "seeded",
        "status",
        "options",
        "round",
        "phase",
        "turn",
        "seats",
        "scores",
        "winners",
        "stock_size",
        "rounds",
        "deal_commitment",
        "you",
        "dealer",
        "table",
        "draws_this_turn",
    ]:
        assert key in view
    assert view["phase"] == "draw" and view["status"] == "active"
    assert view["stock_size"] == 76 and you_of(view)["legal_moves"] == [{"type": "draw"}]
    assert you_of(view)["hand"] == [str(c) for c in state.hands[seat]]
    assert [s["hand_size"] for s in view["seats"]] == [10, 10, 10]
    spectator = m.view(state, None)
    assert spectator["you"] is None
    assert not {"stock", "hands", "salt", "seed", "deal_key"} & set(spectator)
    assert spectator["deal_commitment"] == state.commitment


def test_event_view_hides_hands_drawn_cards_stock_salt_and_seed() -> None:
    events = m.create(players(3), {}, 8, "")
    state = m.initial_state()
    views = []
    for event in events:
        views.append(m.event_view(state, event, 1))
        state = m.evolve(state, event)
    assert views[0]["data"]["seed"] is None and views[0]["data"]["deal_key"] is None
    deal: Any = views[2]["data"]
    recorded: Any = events[2].data
    assert deal["hands"][1] == recorded["hands"][1]
    assert deal["hands"][0] == [None] * 10 and deal["hands"][2] == [None] * 10
    assert deal["stock"] == [None] * 76 and deal["salt"] is None
    assert deal["commitment"] == events[2].data["commitment"]
    seat = m.to_act(state)
    drawn = m.decide(state, seat, {"type": "draw"})[0]  # type: ignore[arg-type]
    assert m.event_view(state, drawn, seat)["data"]["card"] == drawn.data["card"]
    for other in {0, 1, 2, None} - {seat}:
        assert m.event_view(state, drawn, other)["data"]["card"] is None
    assert drawn.data["card"] is not None


def test_replay_equals_step_by_step() -> None:
    state = three()
    log: list[Event] = []
    moves: list[ManipulationMove] = [{"type": "draw"}, table_move("AC 2C 3C"), {"type": "knock"}]
    for move in moves:
        events = m.decide(state, 0, move)
        log.extend(events)
        state = fold(events, state)
    base = dealt([LOW0, HIGH1, HIGH2], "AS 9C 9D")
    assert fold(log, base) == state


# ---------------------------------------------------------------- M2, M7 and the joker options


def test_m2_4_ace_high_or_low_but_no_corner_through_the_engine() -> None:
    state, _ = step(three("QD KD AD 2D", stock="4H 4D 4S"), 0, {"type": "draw"})
    assert "K-A-2" in refused_unchanged(state, 0, table_move("KD AD 2D"), IllegalMove)
    state, events = step(state, 0, table_move("QD KD AD"))
    assert events[0].data["table"] == [["QD", "KD", "AD"]]


def test_m2_3_a_sequence_is_one_suit_through_the_engine() -> None:
    state, _ = step(three("7H 8H 9S KD", stock="4H 4D 4S"), 0, {"type": "draw"})
    assert "M2.3" in refused_unchanged(state, 0, table_move("7H 8H 9S"), IllegalMove)


def test_m7_a_round_ends_by_knock_going_out_or_exhaustion_only() -> None:
    knocked, _ = step(_low_after_meld(), 0, {"type": "knock"})
    assert knocked.ending == RoundEnd("knock", 0)
    out = three("AC 2C 3C", stock="4C 9C 9D")
    out, _ = step(out, 0, {"type": "draw"})
    out, _ = step(out, 0, table_move("AC 2C 3C 4C"))
    assert out.ending == RoundEnd("out", 0)
    ended = _low_after_meld()
    ended, _ = step(ended, 0, {"type": "end_turn"})
    assert ended.ending is None and ended.phase is Phase.DRAW  # a low hand alone ends nothing


def test_m5_7_joker_identity_respects_copy_count_option() -> None:
    """One pack for two players: a joker may not show a second 3C when the option is on."""
    for on in (False, True):
        state = dealt(
            ["JK 3D 3H KS", HIGH1], "4H 4D 4S", options={"joker_identity_respects_copy_count": on}
        )
        state = with_table(state, "AC 2C 3C")
        state, _ = step(state, 0, {"type": "draw"})
        move = table_move("AC 2C 3C | 3D 3H JK=3C")
        if on:
            assert "M5.7" in refused_unchanged(state, 0, move, IllegalMove)
        else:
            step(state, 0, move)
    # with two packs (3 players) a second 3C is a real possibility: accepted with the option
    state = with_table(
        three("JK 3D 3H KS", options={"joker_identity_respects_copy_count": True}), "AC 2C 3C"
    )
    state, _ = step(state, 0, {"type": "draw"})
    step(state, 0, table_move("AC 2C 3C | 3D 3H JK=3C"))


def test_a_m18_freed_joker_placement_option() -> None:
    options = {"freed_joker_placement": "new_meld_from_hand"}
    for opts in ({}, options):
        state = with_table(three("3C 9S 9H", options=opts), "AC 2C JK=3C | 5D 6D 7D")
        state, _ = step(state, 0, {"type": "draw"})
        onto_table = table_move("AC 2C 3C | 5D 6D 7D JK=8D")
        if opts:
            assert "A-M18" in refused_unchanged(state, 0, onto_table, IllegalMove)
        else:
            step(state, 0, onto_table)
        step(state, 0, table_move("AC 2C 3C | 5D 6D 7D | JK=9D 9S 9H"))


def test_legal_meld_moves_are_cheap_rules_and_the_best_move_is_the_solvers_m6() -> None:
    """legal_moves lists each new meld from hand and each one-card extension (no search);
    the solver's best move (31 points here, two cards at once) need not be listed, and
    `decide` accepts it all the same (any table passing I1-I6 is legal)."""
    from domain.manipulation.melds import best_move

    state = with_table(three("4C 9C 9H 9S KD", stock="QH 4D 4S"), "AC 2C 3C | 7D 8D 9D")
    state, _ = step(state, 0, {"type": "draw"})
    listed = [mv["table"] for mv in m.legal_moves(state, 0) if mv["type"] == "meld"]
    shapes = [sorted(sorted(meld) for meld in table) for table in listed]
    best = best_move(state.table, state.hands[0], state.options, decks=2)
    assert best is not None and best.points == 31
    best_codes = [[str(c) for c in meld] for meld in best.table]
    m.decide(state, 0, {"type": "meld", "table": best_codes})
    run, diamonds, nines = ["2C", "3C", "AC"], ["7D", "8D", "9D"], ["9C", "9H", "9S"]
    assert sorted([run, diamonds, nines]) in shapes  # a new meld from the hand alone
    assert sorted([["2C", "3C", "4C", "AC"], diamonds]) in shapes  # a one-card extension
    assert len(shapes) == len({str(s) for s in shapes})  # no duplicates
    for table in listed:
        m.decide(state, 0, {"type": "meld", "table": table})


def test_legal_meld_moves_list_joker_swaps_m5_2_m5_4() -> None:
    """A hand card equal to a table joker's card takes its place; the freed joker extends a
    meld or joins two hand cards (M5.4). Each listed swap is accepted by decide."""
    state = with_table(three("8S KD KC 2H", stock="QH 4D 4S"), "7S JK=8S 9S | 4H 5H 6H")
    state, _ = step(state, 0, {"type": "draw"})
    listed = [mv["table"] for mv in m.legal_moves(state, 0) if mv["type"] == "meld"]
    shapes = [sorted(sorted(meld) for meld in table) for table in listed]
    kings = [t for t in shapes if ["JK=KH", "KC", "KD"] in t or ["JK=KS", "KC", "KD"] in t]
    assert kings and all(["7S", "8S", "9S"] in t for t in kings)
    assert sorted([["7S", "8S", "9S"], ["4H", "5H", "6H", "JK=7H"]]) in shapes
    for table in listed:
        m.decide(state, 0, {"type": "meld", "table": table})
