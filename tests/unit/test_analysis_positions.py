"""The analyser's judgments in hand-built positions (views, what a seat's client sees),
each with its exact cost (domain/analysis)."""

from __future__ import annotations

from typing import Any

import pytest

from domain.analysis.gin_judge import judge
from domain.analysis.judgment import GIN_THRESHOLDS, MANIPULATION_THRESHOLDS
from domain.analysis.manipulation import judge_knock, judge_meld, lost_knock
from domain.bots.gin.eval import DECK, mask_of, value
from domain.events import Event
from domain.gin.options import validate_options as gin_options
from domain.manipulation import validate_options as manip_options
from domain.manipulation.state import State as ManipState


def gin_view(hand: str, knocks: str = "", stock: int = 20, **extra: Any) -> dict[str, Any]:
    """BOX (seat 0) after its draw, CAPTAIN seat 1: discard any card, knock with `knocks`."""
    cards = hand.split()
    legal = [{"type": "discard", "card": c} for c in cards]
    legal += [{"type": "knock", "card": c} for c in knocks.split()]
    view = {
        "variant": "three-hand-gin",
        "round": 1,
        "phase": "discard",
        "turn": 0,
        "roles": {"box": 0, "captain": 1, "advisor": 2},
        "discard_top": "2C",
        "discard_pile": ["2C"],
        "discard_size": 1,
        "stock_size": stock,
        "scores": [0, 0, 0],
        "options": gin_options({}),
        "picked": [[], [], []],
        "you": {"seat": 0, "role": "box", "hand": cards, "legal_moves": legal},
    }
    view.update(extra)
    return view


GIN_HAND = "AS 2S 3S 4H 5H 6H 7C 8C 9C TC KD"  # discard KD: gin


def test_missed_gin_costs_the_gin_bonus_exactly() -> None:
    found = judge(gin_view(GIN_HAND, knocks="KD TC"), {"type": "discard", "card": "KD"}, 9)
    assert found is not None
    assert found.cost == 25.0
    assert found.judgment == "blunder"
    assert "missed_gin" in found.tags
    assert found.best == {"type": "knock", "card": "KD"}


def test_knock_with_deadwood_when_gin_was_in_hand_costs_bonus_plus_deadwood() -> None:
    found = judge(gin_view(GIN_HAND, knocks="KD TC"), {"type": "knock", "card": "TC"}, 9)
    assert found is not None
    assert found.cost == 25.0 + 10  # KD kept as deadwood
    assert "missed_gin" in found.tags


def test_gin_knock_is_best() -> None:
    found = judge(gin_view(GIN_HAND, knocks="KD TC"), {"type": "knock", "card": "KD"}, 9)
    assert found is not None
    assert (found.cost, found.judgment, found.tags) == (0.0, "best", ())


# The opponent's whole hand is known (all ten taken from the pile, G1.4), none of it melds
# or lays off: 81 deadwood. With the stock too low to play on, the knock is exact.
OPPONENT = ["KC", "QD", "JS", "TD", "9D", "7S", "5C", "2H", "8H", "QS"]
KNOCK_HAND = "AS 2S 3S 4H 5H 6H 7C 8C 9C 2D KH"  # knock discarding KH: 2 deadwood


def test_missed_knock_costs_the_knock_points_exactly() -> None:
    view = gin_view(KNOCK_HAND, knocks="KH 2D", stock=3, picked=[[], OPPONENT, []])
    found = judge(view, {"type": "discard", "card": "KH"}, 40)
    assert found is not None
    assert found.cost == 81 - 2
    assert found.judgment == "blunder"
    assert "missed_knock" in found.tags
    assert found.best == {"type": "knock", "card": "KH"}
    assert found.details["knock_points"] == 79.0


def test_knock_with_the_worse_card_costs_the_difference() -> None:
    view = gin_view(KNOCK_HAND, knocks="KH 2D", stock=3, picked=[[], OPPONENT, []])
    found = judge(view, {"type": "knock", "card": "2D"}, 40)
    assert found is not None
    assert found.cost == 10 - 2  # 71 points against 79
    assert found.judgment == "blunder"  # from 8 (judgment.GIN_THRESHOLDS)


def test_discard_that_melds_the_next_seats_known_cards_costs_their_deadwood() -> None:
    # The opponent took 9D and TD from the pile (public, G1.4): JD gives it a run and saves
    # it their 19 deadwood; JC gives nothing. The rest of the cost is our own hand's value.
    hand = "AS 2S 3S 4H 5H 6H 7S 8S 9S JC JD"
    view = gin_view(hand, picked=[[], ["9D", "TD"], []])
    fed = judge(view, {"type": "discard", "card": "JD"}, 12)
    assert fed is not None
    assert fed.details["feeds"] == {"JD": 19}
    pool = DECK & ~mask_of(hand.split()) & ~mask_of(["2C", "9D", "TD"])
    ours = value(mask_of(hand.split()) & ~mask_of(["JD"]), pool)
    other = value(mask_of(hand.split()) & ~mask_of(["JC"]), pool)
    assert fed.cost == pytest.approx(19 + ours - other)
    assert "feeds_meld" in fed.tags
    assert fed.best == {"type": "discard", "card": "JC"}


def test_advice_is_priced_beside_the_played_move() -> None:
    found = judge(
        gin_view(GIN_HAND, knocks="KD TC"),
        {"type": "discard", "card": "KD"},
        9,
        advice={"type": "knock", "card": "KD"},
    )
    assert found is not None
    assert found.details["advice"] == {
        "move": {"type": "knock", "card": "KD"},
        "cost": 0.0,
        "followed": False,
        "would_save": 25.0,  # the gin bonus the captain's discard gave up
    }
    assert "advice_ignored" in found.tags


def manip_view(hand: str, table: list[list[str]], draws: int = 1) -> dict[str, Any]:
    cards = hand.split()
    return {
        "variant": "manipulation-rummy",
        "round": 1,
        "phase": "meld_or_draw",
        "turn": 0,
        "options": manip_options({}),
        "seats": [{"seat": s, "hand_size": len(cards) if s == 0 else 10} for s in range(3)],
        "stock_size": 40,
        "table": table,
        "scores": [0, 0, 0],
        "draws_this_turn": draws,
        "you": {"seat": 0, "hand": cards, "legal_moves": []},
    }


def meld(table: list[list[str]], played: str) -> dict[str, Any]:
    return {"type": "meld", "table": table, "played": played.split()}


OUT_HAND = "5H 6H 7H 9S 9D 9C"  # 18 + 27 points, all of it melds: going out


def test_manipulation_turn_that_could_have_gone_out() -> None:
    found = judge_meld(manip_view(OUT_HAND, []), meld([["5H", "6H", "7H"]], "5H 6H 7H"), 5)
    assert found is not None
    assert found.cost == (45 - 18) + 25  # the points kept and the going-out bonus (M10.4)
    assert found.judgment == "blunder"
    assert "missed_going_out" in found.tags
    assert found.details["most"] == 45


def test_manipulation_going_out_is_best() -> None:
    table = [["5H", "6H", "7H"], ["9C", "9D", "9S"]]
    found = judge_meld(manip_view(OUT_HAND, []), meld(table, OUT_HAND), 5)
    assert found is not None
    assert (found.cost, found.judgment) == (0.0, "best")


def test_manipulation_third_draw_taken_over_a_meld() -> None:
    found = judge_meld(manip_view("2H 3H 4H KS", [], draws=2), {"type": "draw"}, 7)
    assert found is not None
    assert found.cost == 9  # 2H 3H 4H could have left the hand (M4 D3: none after the third)
    assert found.judgment == "mistake"
    assert found.tags == ("third_draw_over_meld",)


def test_manipulation_lay_off_onto_the_table_counts() -> None:
    table = [["9C", "9D", "9S"]]
    found = judge_meld(manip_view("9H 2C KD", table), {"type": "draw"}, 7)
    assert found is not None
    assert found.cost == 9
    assert found.tags == ("declined_meld",)


def test_manipulation_no_meld_possible_is_no_decision() -> None:
    assert judge_meld(manip_view("2C 9H KD", []), {"type": "draw"}, 7) is None


def test_manipulation_knock_with_the_lowest_possible_hand_is_missed_when_not_taken() -> None:
    view = manip_view("AC", [], draws=1)
    view["phase"] = "knock_or_end"
    found = judge_knock(view, {"type": "end_turn"}, 30)
    assert found.best == {"type": "knock"}
    assert found.cost == pytest.approx(found.details["knock_points"], abs=0.01)
    assert found.details["win_share"] == 1.0  # an ace alone: no other hand of 10 is lower
    assert "missed_knock" in found.tags


@pytest.mark.parametrize(
    ("thresholds", "cost", "expected"),
    [
        (GIN_THRESHOLDS, 0.0, "best"),
        (GIN_THRESHOLDS, 0.5, "good"),
        (GIN_THRESHOLDS, 1.0, "inaccuracy"),
        (GIN_THRESHOLDS, 3.0, "mistake"),
        (GIN_THRESHOLDS, 8.0, "blunder"),
        (MANIPULATION_THRESHOLDS, 5.9, "inaccuracy"),
        (MANIPULATION_THRESHOLDS, 6.0, "mistake"),
        (MANIPULATION_THRESHOLDS, 15.0, "blunder"),
    ],
)
def test_judgment_classes_follow_the_documented_thresholds(
    thresholds: Any, cost: float, expected: str
) -> None:
    assert thresholds.classify(cost) == expected


def test_a_manipulation_knock_undercut_is_hindsight() -> None:
    events = [
        Event("Knocked", {"seat": 0, "points": 5}),
        Event(
            "RoundScored",
            {
                "outcome": "knock",
                "knocker": 0,
                "winners": [1],
                "points": [0, 27, 0],
                "hand_points": [5, 3, 20],
            },
        ),
    ]
    (fact,) = lost_knock(events, 1, ManipState())
    assert (fact.seq, fact.seat, fact.kind, fact.points) == (1, 0, "undercut", -27)
    assert "held 3" in fact.note
    won = Event("RoundScored", {"outcome": "knock", "knocker": 0, "winners": [0], "points": [9]})
    assert lost_knock([events[0], won], 1, ManipState()) == []
