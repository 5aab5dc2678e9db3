"""The gin expert reads the opponent (domain/bots/gin/reading.py): against one that shows no
sign of coming near a knock (G6.2) it plays on for gin (G6.4, G7.1), keeping the most gin
outs, and (with `last_turn`) knocks before the hand would be drawn (G5.6)."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

from domain.bots.gin import expert as gin_expert
from domain.bots.gin.eval import SeatView, mask_of
from domain.bots.gin.reading import WEAK_AT, can_meld, opponent_weak, plays_weak

GIN_OPTIONS = {"knock_limit": 10, "gin_bonus": 25, "undercut_bonus": 10, "target_score": 100}
HIGH = ["KS", "QH", "JD", "9C", "8S", "6H", "4D", "2C", "TS", "7D"]  # no meld, 76 deadwood
LOW = ["AS", "2S", "3S", "7H", "7D", "7C", "KD", "KH", "KC", "5D"]  # 5 deadwood
KNOCKER = "AS 2S 3S 7H 7D 7C KD KH KC 9C 5D"  # knocks with 9C: 5 deadwood


def _round(hands: list[list[str] | None], winners: list[int]) -> dict[str, Any]:
    return {"hands": hands, "winners": winners, "box": 1, "captain": 2, "advisor": 0}


def _view(
    rounds: list[dict[str, Any]], stock: int = 25, hand: str = KNOCKER, **extra: Any
) -> dict[str, Any]:
    cards = hand.split()
    legal = [{"type": "discard", "card": c} for c in cards]
    legal += [{"type": "knock", "card": c} for c in ("9C", "5D")]
    return {
        "variant": "three-hand-gin",
        "phase": "discard",
        "turn": 0,
        "roles": {"box": 0, "captain": 1, "advisor": 2},
        "discard_top": "4H",
        "discard_size": 3,
        "stock_size": stock,
        "scores": [0, 0, 0],
        "options": GIN_OPTIONS,
        "rounds": rounds,
        "you": {"seat": 0, "role": "box", "hand": cards, "legal_moves": legal},
        **extra,
    }


def test_an_opponent_is_weak_only_by_earlier_hands_it_lost_with_a_large_count() -> None:
    assert WEAK_AT == 30
    assert not opponent_weak(_view([]), 1)  # nothing to read
    lost = _round([None, HIGH, LOW], [2])
    assert opponent_weak(_view([lost]), 1)
    assert not opponent_weak(_view([lost]), 1, weak_at=0)  # off
    assert not opponent_weak(_view([lost]), 1, weak_at=80)  # 76 is under 80
    assert not opponent_weak(_view([lost]), 0)  # seat 0 held no cards
    near = _round([None, LOW, HIGH], [2])  # 5 deadwood at the end: it came near
    assert not opponent_weak(_view([lost, near]), 1)
    won = _round([None, HIGH, LOW], [1])
    assert not opponent_weak(_view([lost, won]), 1)


def test_gin_expert_plays_on_for_gin_against_a_weak_opponent_g6_4() -> None:
    """The same knock (5 deadwood, G6.2) is made against an unknown opponent, and not made
    against one that lost its earlier hand with 76 deadwood while the stock lasts (G5.6)."""
    rng = random.Random(2)
    fresh = _view([], stock=30)
    move, _ = gin_expert.explain(fresh, fresh["you"]["legal_moves"], rng)
    assert move["type"] == "knock"
    weak = _view([_round([None, HIGH, LOW], [2])], stock=30)
    move, reason = gin_expert.explain(weak, weak["you"]["legal_moves"], rng)
    assert move["type"] == "discard" and "play on for gin" in reason
    last = _view([_round([None, HIGH, LOW], [2])], stock=2)
    move, _ = gin_expert.explain(last, last["you"]["legal_moves"], rng)
    assert move["type"] == "discard"  # last_turn 0: a drawn hand is dealt again (G5.6)
    params = replace(gin_expert.PARAMS, last_turn=2)
    move, _ = gin_expert.decide(last, last["you"]["legal_moves"], rng, params)
    assert move["type"] == "knock"
    off = replace(gin_expert.PARAMS, weak_at=0)
    move, _ = gin_expert.decide(weak, weak["you"]["legal_moves"], rng, off)
    assert move["type"] == "knock"


def test_gin_expert_playing_on_for_gin_keeps_the_most_gin_outs() -> None:
    """AS-3S, three 7s, three kings, 4C 5C: throwing 5C keeps 4 deadwood, and 4S, 7S or KS
    (all unseen) makes gin by throwing 4C; throwing AS keeps no gin out at all."""
    hand = "AS 2S 3S 7H 7D 7C KD KH KC 4C 5C"
    view = _view([_round([None, HIGH, LOW], [2])], hand=hand)
    view["you"]["legal_moves"] += [{"type": "knock", "card": c} for c in ("4C", "5C")]
    move, reason = gin_expert.explain(view, view["you"]["legal_moves"], random.Random(3))
    assert move == {"type": "discard", "card": "5C"}
    assert "(3 unseen cards make gin)" in reason
    seat = SeatView.of(view)
    assert gin_expert.gin_outs(seat, seat.hand & ~mask_of(["5C"])) == 3
    assert gin_expert.gin_outs(seat, seat.hand & ~mask_of(["AS"])) == 0


def test_a_fresh_opponent_reads_weak_by_a_low_discard_or_a_dead_pick() -> None:
    """With no earlier hand: a card worth 4 or less above the upcard, or a picked card worth
    5 or more that can meld with nothing the opponent may hold (G3.1, G3.2)."""
    plain = _view([], discard_pile=["3C", "KH", "QS"], picked=[[], [], []])
    assert not plays_weak(plain, SeatView.of(plain))  # a low upcard says nothing
    low = _view([], discard_pile=["KH", "3C", "QS"], picked=[[], [], []])
    assert plays_weak(low, SeatView.of(low))
    # 9D: the other nines and 7D 8D TD JD all seen by seat 0 (hand or pile)
    pile = ["9H", "9S", "8D", "TD", "QS"]
    dead = _view([], discard_pile=pile, picked=[[], ["9D"], []])
    assert plays_weak(dead, SeatView.of(dead))
    live = _view([], discard_pile=pile[2:], picked=[[], ["9D"], []])
    assert not plays_weak(live, SeatView.of(live))
    assert not plays_weak(dead, SeatView.of(dead), weak_at=0)
    hist = _view([_round([None, LOW, HIGH], [2])], discard_pile=pile, picked=[[], ["9D"], []])
    assert not plays_weak(hist, SeatView.of(hist))  # its earlier hand came near a knock


def test_can_meld_reads_sets_and_runs() -> None:
    nine = mask_of(["9D"])
    card = nine.bit_length() - 1
    assert can_meld(card, mask_of(["9H", "9S"]))
    assert can_meld(card, mask_of(["8D", "TD"]))
    assert can_meld(card, mask_of(["TD", "JD"]))
    assert can_meld(card, mask_of(["7D", "8D"]))
    assert not can_meld(card, mask_of(["9H", "8D", "JD", "7C"]))


def test_gin_expert_knocks_gin_against_a_weak_opponent() -> None:
    hand = "AS 2S 3S 4S 7H 7D 7C KD KH KC 9C"
    view = _view([_round([None, HIGH, LOW], [2])], hand=hand)
    view["you"]["legal_moves"] += [{"type": "knock", "card": c} for c in ("AS", "4S")]
    move, reason = gin_expert.explain(view, view["you"]["legal_moves"], random.Random(1))
    assert move == {"type": "knock", "card": "9C"} and "gin" in reason


def test_gin_expert_play_on_counts_the_hand_won_when_the_opponent_knocks_g1_5() -> None:
    """G1.5, G7.1: the sampled hand is all melded and goes gin on its next turn whatever it
    draws; playing on then loses the gin's points and, with `win_weight`, the hand won too."""
    from domain.bots.gin.eval import OpponentModel

    hand = "5D 6D 7D 9H TH JH KS KH KC AS 2C"
    seat = SeatView.of(_view([], hand=hand, stock=20))
    kept = seat.hand & ~mask_of(["2C"])
    dropped = mask_of(["2C"]).bit_length() - 1
    model = OpponentModel((mask_of(["6C", "7C", "8C", "QS", "QD", "QC", "2H", "3H", "4H", "5H"]),))
    plain = gin_expert.play_on(seat, kept, dropped, model, 0.0, gin_expert.PARAMS)
    weighted = replace(gin_expert.PARAMS, win_weight=20.0)
    counted = gin_expert.play_on(seat, kept, dropped, model, 0.0, weighted)
    assert plain is not None and counted is not None
    assert plain[0] == counted[0] == pytest.approx(1.0)  # it knocks on every draw
    assert counted[1] == pytest.approx(plain[1] - 20.0)
