"""The worked examples E1-E7 of rules.md section 6 (three-handed gin), from explicit cards.

Seats: BOX 0, CAPTAIN 1, ADVISOR 2 unless a test says otherwise.
"""

from __future__ import annotations

import pytest

from domain import gin
from domain.errors import IllegalMove
from domain.gin.shapes import GinMove
from domain.gin.state import Phase, Roles
from tests.unit.test_gin_support import play, plays, position, result_of, score

BOX, CAPTAIN, ADVISOR = 0, 1, 2
TAKE: GinMove = {"type": "take_upcard"}
PASS: GinMove = {"type": "pass_upcard"}


def test_e1_captain_knock_wins_and_roles_shift() -> None:
    """E1 (G7.2, G1.5): CAPTAIN knocks with K = 6, BOX has O = 14 after lay-offs: CAPTAIN +8,
    BOX lost, so BOX = old CAPTAIN, CAPTAIN = old ADVISOR, ADVISOR = old BOX."""
    state = position(
        box="5C 7C 8S 9S TS 4D KD 2H 3H 4H",
        captain="2C 3C 4C 7D 7H 7S TH JH 6C KS",
        upcard="QH",
    )
    state = plays(state, (CAPTAIN, TAKE), (CAPTAIN, {"type": "knock", "card": "KS"}))
    state, events = score(state)
    result = result_of(events)
    assert result["outcome"] == "knock"
    assert result["deadwood"] == [14, 6, None]
    assert sorted(result["layoffs"]) == ["5C", "7C"]
    assert result["points"] == [0, 8, 0]
    assert result["winners"] == [CAPTAIN]
    assert state.scores == (0, 8, 0)
    assert state.roles == Roles(box=CAPTAIN, captain=ADVISOR, advisor=BOX)
    assert state.round == 2 and state.phase == Phase.UPCARD_OFFER


def test_e2_equal_counts_are_an_undercut() -> None:
    """E2 (G7.3): BOX knocks with K = 7, CAPTAIN has O = 7: an undercut, CAPTAIN scores
    0 + 10 = 10; BOX lost and the roles rotate as in E1."""
    state = position(
        box="AC 2C 3C 5D 5H 5S 9H TH 7S KC",
        captain="8C 8D 8S 2D 3D 4D JS QS KS 7D",
        upcard="JH",
    )
    state = plays(state, (CAPTAIN, PASS), (BOX, TAKE), (BOX, {"type": "knock", "card": "KC"}))
    state, events = score(state)
    result = result_of(events)
    assert result["outcome"] == "undercut"
    assert result["deadwood"] == [7, 7, None]
    assert result["points"] == [0, 10, 0]
    assert result["winners"] == [CAPTAIN]
    assert state.roles == Roles(box=CAPTAIN, captain=ADVISOR, advisor=BOX)


E3_BOX = "AC 2C 3C 4C 6D 6H 6S 9S TS KC"


def test_e3_gin_scores_deadwood_plus_25_and_allows_no_layoffs() -> None:
    """E3 (G6.6, G7.1, G1.5): BOX goes gin; CAPTAIN has 23 deadwood, holds 5C, 6C and QS that
    would lay off on a knock, but may not lay off: BOX scores 23 + 25 = 48, BOX won, so BOX
    stays and CAPTAIN and ADVISOR swap."""
    state = position(box=E3_BOX, captain="5C 6C QS 2H 7D 8D 9D JH QH KH", upcard="JS")
    state = plays(state, (CAPTAIN, PASS), (BOX, TAKE), (BOX, {"type": "knock", "card": "KC"}))
    assert state.knock is not None and state.knock.gin
    state, events = score(state)
    result = result_of(events)
    assert result["outcome"] == "gin"
    assert result["layoffs"] == []
    assert result["deadwood"] == [0, 23, None]
    assert result["points"] == [48, 0, 0]
    assert state.roles == Roles(box=BOX, captain=ADVISOR, advisor=CAPTAIN)


def test_e4_gin_against_zero_deadwood_scores_25_only() -> None:
    """E4 (G7.1): BOX goes gin and CAPTAIN also has 0 deadwood: BOX 25, CAPTAIN 0, BOX won."""
    state = position(box=E3_BOX, captain="7D 8D 9D JH QH KH 2S 3S 4S 5S", upcard="JS")
    state = plays(state, (CAPTAIN, PASS), (BOX, TAKE), (BOX, {"type": "knock", "card": "KC"}))
    state, events = score(state)
    result = result_of(events)
    assert result["deadwood"] == [0, 0, None]
    assert result["points"] == [25, 0, 0]
    assert result["winners"] == [BOX]
    assert state.roles == Roles(box=BOX, captain=ADVISOR, advisor=CAPTAIN)


def test_e5_discard_leaving_two_stock_cards_draws_the_hand() -> None:
    """E5 (G5.6, G1.5): a discard leaving two stock cards, nobody knocked: the hand is drawn,
    nobody scores, the roles stay and BOX deals again."""
    state = position(
        box="AC 3C 5C 7C 9C JC KD QH 2S 4S",
        captain="AD 3D 5D 7D 9D JD KC QS 2H 4H",
        upcard="6S",
    )
    state = plays(state, (CAPTAIN, PASS), (BOX, PASS))
    while state.phase != Phase.SCORING:
        seat = gin.to_act(state)
        assert seat is not None
        state, _ = play(state, seat, {"type": "draw", "from": "stock"})
        state, _ = play(state, seat, {"type": "discard", "card": str(state.hands[seat][-1])})
    assert len(state.stock) == 2
    state, events = score(state)
    result = result_of(events)
    assert result["outcome"] == "draw"
    assert result["points"] == [0, 0, 0] and result["winners"] == []
    assert state.scores == (0, 0, 0)
    assert state.roles == Roles(box=BOX, captain=CAPTAIN, advisor=ADVISOR)
    dealt = next(e for e in events if e.type == "RoundDealt")
    assert dealt.data["box"] == BOX and dealt.data["round"] == 2


def test_e6_taken_upcard_may_not_be_discarded() -> None:
    """E6 (G5.3): CAPTAIN takes the upcard 7H and may not discard 7H on that turn."""
    state = position(
        box="AC 3C 5C 7C 9C JC KD QH 2S 4S", captain="AD 3D 5D 7D 9D JD KC QS 2H 4H", upcard="7H"
    )
    state = plays(state, (CAPTAIN, TAKE))
    moves = gin.legal_moves(state, CAPTAIN)
    assert {"type": "discard", "card": "7H"} not in moves
    assert {"type": "discard", "card": "KC"} in moves
    with pytest.raises(IllegalMove, match=r"7H.*G5\.3"):
        gin.decide(state, CAPTAIN, {"type": "discard", "card": "7H"})


E7_BOX = "6S 7S 8S KD KC KH AC 2H 3D QD"
E7_CAPTAIN = "9S TS KS AH 3H 5C 6C 7C 8C 9C"


def test_e7_layoff_chain_on_a_run_and_a_set() -> None:
    """E7 (G6.6): BOX knocks showing 6S7S8S and KD KC KH; CAPTAIN lays off 9S, then TS on
    the card just laid off, and KS; his AH 3H stay deadwood although BOX's 2H deadwood would
    join them: no combining with the knocker's deadwood."""
    state = position(box=E7_BOX, captain=E7_CAPTAIN, upcard="4H")
    state = plays(
        state,
        (CAPTAIN, PASS),
        (BOX, TAKE),
        (BOX, {"type": "knock", "card": "QD", "melds": [["6S", "7S", "8S"], ["KD", "KC", "KH"]]}),
    )
    assert state.knock is not None and state.knock.count == 10
    state, events = score(state)
    result = result_of(events)
    assert sorted(result["layoffs"]) == ["9S", "KS", "TS"]
    assert result["deadwood"] == [10, 4, None]
    assert result["outcome"] == "undercut" and result["points"] == [0, 16, 0]


def test_e7_without_layoff_chain_only_the_first_card_extends_the_run() -> None:
    """E7 with `layoff_chain` false (A-G10): 9S and KS lay off, TS does not."""
    state = position(box=E7_BOX, captain=E7_CAPTAIN, upcard="4H", options={"layoff_chain": False})
    state = plays(state, (CAPTAIN, PASS), (BOX, TAKE), (BOX, {"type": "knock", "card": "QD"}))
    state, events = score(state)
    result = result_of(events)
    assert sorted(result["layoffs"]) == ["9S", "KS"]
    assert result["deadwood"] == [10, 14, None]
    assert result["outcome"] == "knock" and result["points"] == [4, 0, 0]
