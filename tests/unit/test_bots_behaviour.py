"""What the bots do in chosen positions, built as views (what an HTTP client sees).

A bot reads only the view, so a position is a small dict in the api.md view shape.
"""

from __future__ import annotations

import random
from typing import Any

from domain.bots.gin import basic as gin_basic
from domain.bots.gin import expert as gin_expert
from domain.bots.manipulation import basic as manip_basic
from domain.bots.manipulation import expert as manip_expert
from domain.bots.manipulation.eval import SeatView, hold_back, meld_chance

GIN_OPTIONS = {"knock_limit": 10, "gin_bonus": 25, "undercut_bonus": 10, "target_score": 100}


def gin_view(
    hand: str, top: str | None, phase: str, stock: int = 25, **extra: Any
) -> dict[str, Any]:
    cards = hand.split()
    if phase == "discard":
        legal = [{"type": "discard", "card": c} for c in cards]
        legal += [{"type": "knock", "card": c} for c in extra.pop("knocks", [])]
    elif phase == "draw":
        legal = [{"type": "draw", "from": "stock"}, {"type": "draw", "from": "discard"}]
    else:
        legal = [{"type": "take_upcard"}, {"type": "pass_upcard"}]
    return {
        "variant": "three-hand-gin",
        "phase": phase,
        "turn": 0,
        "roles": {"box": 0, "captain": 1, "advisor": 2},
        "discard_top": top,
        "discard_size": 3,
        "stock_size": stock,
        "scores": [0, 0, 0],
        "options": GIN_OPTIONS,
        "you": {"seat": 0, "role": "box", "hand": cards, "legal_moves": legal},
        **extra,
    }


def test_gin_bots_go_gin_when_they_can() -> None:
    """G6.4: with 0 deadwood after discarding 9C, both bots knock gin with 9C."""
    hand = "AS 2S 3S 4S 7H 7D 7C KD KH KC 9C"
    view = gin_view(hand, "5H", "discard", knocks=["AS", "4S", "9C"])
    for bot in (gin_basic, gin_expert):
        move, reason = bot.explain(view, view["you"]["legal_moves"], random.Random(1))
        assert move == {"type": "knock", "card": "9C"}
        assert "gin" in reason


def test_gin_bots_take_a_discard_that_completes_a_meld() -> None:
    """G5.2: 8H with 6H 7H in hand makes a run; both bots take it from the discard pile."""
    view = gin_view("6H 7H 2C 9C KD QS JD 4S 3D TC", "8H", "draw")
    for bot in (gin_basic, gin_expert):
        move, _ = bot.explain(view, view["you"]["legal_moves"], random.Random(1))
        assert move == {"type": "draw", "from": "discard"}


def test_gin_bots_leave_a_card_that_fits_nothing() -> None:
    """G5.1: an upcard that melds with nothing in the hand is passed."""
    view = gin_view("6H 7H 8H 2C 3C 4C KD KS 9D 5S", "QC", "upcard_offer")
    for bot in (gin_basic, gin_expert):
        move, _ = bot.explain(view, view["you"]["legal_moves"], random.Random(1))
        assert move == {"type": "pass_upcard"}


def test_gin_expert_keeps_a_pair_and_discards_the_lone_high_card() -> None:
    """G3.4: with one discard to make, the expert throws the card that fits nothing."""
    hand = "6H 7H 8H 2C 3C 4C 9D 9S KD 5S QC"
    view = gin_view(hand, "2H", "discard")
    move, reason = gin_expert.explain(view, view["you"]["legal_moves"], random.Random(1))
    assert move["type"] == "discard" and move["card"] in ("KD", "QC")
    assert move["card"] in reason


def test_gin_expert_knocks_early_against_a_fresh_hand() -> None:
    """G6.2, G7.2: 9 deadwood on the first turns wins on average: the expert knocks."""
    hand = "AS 2S 3S 7H 7D 7C KD KH KC 9C 5D"
    view = gin_view(hand, "4H", "discard", stock=30, knocks=["9C"])
    move, reason = gin_expert.explain(view, view["you"]["legal_moves"], random.Random(2))
    assert move == {"type": "knock", "card": "9C"}
    assert "undercut" in reason


def manip_view(
    hand: str,
    table: list[str],
    sizes: list[int],
    legal: list[dict[str, Any]],
    phase: str = "knock_or_end",
) -> dict[str, Any]:
    return {
        "variant": "manipulation-rummy",
        "phase": phase,
        "turn": 0,
        "seats": [{"seat": i, "hand_size": n} for i, n in enumerate(sizes)],
        "table": [meld.split() for meld in table],
        "stock_size": 20,
        "draws_this_turn": 1,
        "scores": [0] * len(sizes),
        "options": {"knock_limit": 5, "undercut_bonus": 10, "target_score": 150},
        "you": {"seat": 0, "hand": hand.split(), "legal_moves": legal},
    }


KNOCK_OR_END = [{"type": "knock"}, {"type": "end_turn"}]


def test_manipulation_bots_knock_against_big_hands() -> None:
    """M8.1, M10.1: one point against hands of 4+ cards always wins: both bots knock."""
    view = manip_view("AC", ["7H 8H 9H"], [1, 4, 6, 5], KNOCK_OR_END)
    for bot in (manip_basic, manip_expert):
        assert bot.choose(view, KNOCK_OR_END, random.Random(0)) == {"type": "knock"}


def test_manipulation_expert_declines_a_knock_a_lone_low_card_would_undercut() -> None:
    """M10.1 case 2, M10.4: with 5 points against one card, the knock loses on average
    (about 4 deals in 10 the card is 5 or less and scores the undercut bonus): the expert
    plays on, where basic knocks."""
    view = manip_view("2C 3D", ["7H 8H 9H"], [2, 1], KNOCK_OR_END)
    assert manip_basic.choose(view, KNOCK_OR_END, random.Random(0)) == {"type": "knock"}
    move, reason = manip_expert.explain(view, KNOCK_OR_END, random.Random(0))
    assert move == {"type": "end_turn"} and "lose" in reason


def test_manipulation_expert_goes_out_when_a_meld_empties_its_hand() -> None:
    """M8.3: going out beats any other meld."""
    out = {"type": "meld", "table": [["7H", "8H", "9H", "TH", "JH"]]}
    partial = {"type": "meld", "table": [["7H", "8H", "9H", "TH"]]}
    legal: list[dict[str, Any]] = [{"type": "draw"}, partial, out]
    view = manip_view("TH JH", ["7H 8H 9H"], [2, 7], legal, phase="meld_or_draw")
    for bot in (manip_basic, manip_expert):
        assert bot.choose(view, legal, random.Random(0)) == out


def test_manipulation_basic_lays_off_without_rearranging() -> None:
    """M6: basic lays TH onto 7H-8H-9H and lays down its own group, keeping the table melds."""
    legal: list[dict[str, Any]] = [
        {"type": "draw"},
        {"type": "meld", "table": [["7H", "8H", "9H", "TH"]]},
    ]
    view = manip_view("TH KC KD KS 2D", ["7H 8H 9H"], [5, 7], legal, phase="meld_or_draw")
    move = manip_basic.choose(view, legal, random.Random(0))
    assert move["type"] == "meld"
    table: Any = move["table"]
    assert sorted(table[0]) == sorted(["7H", "8H", "9H", "TH"])
    assert sorted(table[1]) == sorted(["KC", "KD", "KS"])


def test_manipulation_expert_holds_back_a_card_that_fits_next_turn() -> None:
    """M4: a turn without a meld costs three draws, so with a hand no drawn card is likely to
    meld, the expert keeps its cheapest card that the table will still take."""
    view = manip_view("2H KC KD KS QD", ["3H 4H 5H"], [5, 7], [], phase="meld_or_draw")
    seat = SeatView.of(view)
    held = hold_back(seat, 5)
    assert held is not None
    move, card, proven = held
    assert card == "2H"
    assert proven
    assert not any("2H" in meld for meld in _melds(move))
    assert meld_chance(seat, move) < 1


def test_gin_expert_reads_a_public_pile_and_picks_when_a_view_carries_them() -> None:
    """G1.4: the discard pile and the cards taken from it are public. api.md's view shows
    them as `discard_pile` and `picked` (per seat, the cards it took and still holds); the
    expert's model
    counts the pile as seen and puts the picked cards in every sampled opponent hand."""
    from domain.bots.gin.eval import OpponentModel, mask_of
    from domain.bots.gin.eval import SeatView as GinSeat

    view = gin_view("6H 7H 2C 9C KD QS JD 4S 3D TC", "8C", "draw", stock=20)
    plain = GinSeat.of(view)
    rich = GinSeat.of({**view, "discard_pile": ["5D", "AH", "8C"], "picked": [[], ["QH"], []]})
    assert plain.unseen & mask_of(["5D", "AH", "QH"]) == mask_of(["5D", "AH", "QH"])
    assert not rich.unseen & mask_of(["5D", "AH", "8C", "QH"])
    model = OpponentModel.sample(rich, random.Random(3))
    assert all(hand & mask_of(["QH"]) for hand in model.hands)
    assert not any(hand & mask_of(["5D", "AH", "8C"]) for hand in model.hands)
    assert all(hand.bit_count() == 10 for hand in model.hands)


def _captain_view(hand: str, top: str, phase: str, advice: dict[str, Any] | None) -> dict[str, Any]:
    view = gin_view(hand, top, phase)
    view["you"] = {**view["you"], "seat": 1, "role": "captain"}
    view["turn"] = 1
    if advice is not None:
        view["you"]["advice"] = advice
    return view


def test_gin_basic_captain_follows_legal_advice_and_ignores_the_rest() -> None:
    """G1.4: advice never binds CAPTAIN, but `basic` follows advice its view carries when the
    advised move is legal; advice of a move not listed is ignored (its own greedy move)."""
    hand = "6H 7H 2C 9C KD QS JD 4S 3D TC"
    plain = _captain_view(hand, "8H", "draw", None)
    own, _ = gin_basic.explain(plain, plain["you"]["legal_moves"], random.Random(1))
    assert own == {"type": "draw", "from": "discard"}
    told = {"text": "leave it", "move": {"type": "draw", "from": "stock"}}
    view = _captain_view(hand, "8H", "draw", told)
    move, reason = gin_basic.explain(view, view["you"]["legal_moves"], random.Random(1))
    assert move == {"type": "draw", "from": "stock"} and "advice" in reason
    bad = {"text": "?", "move": {"type": "discard", "card": "KD"}}
    view = _captain_view(hand, "8H", "draw", bad)
    assert gin_basic.choose(view, view["you"]["legal_moves"], random.Random(1)) == own


def test_gin_coach_plays_basic_but_advises_as_the_expert() -> None:
    """G1.3, G1.4: `coach` as ADVISOR sends the expert's suggested move for the captain's
    hand (here: take the 8H that completes a run); elsewhere it plays `basic`'s move."""
    from domain.bots.gin import coach

    captain_hand = "6H 7H 2C 9C KD QS JD 4S 3D TC"
    advisor = gin_view("", "8H", "draw")
    advisor["turn"] = 1
    advisor["you"] = {
        "seat": 2,
        "role": "advisor",
        "hand": [],
        "team_hand": captain_hand.split(),
        "legal_moves": [{"type": "advise"}],
    }
    move, _ = coach.explain(advisor, [{"type": "advise"}], random.Random(1))
    assert move["type"] == "advise" and move["move"] == {"type": "draw", "from": "discard"}
    assert move["text"]
    assert gin_basic.choose(advisor, [{"type": "advise"}], random.Random(1)) == {"type": "advise"}
    view = gin_view("6H 7H 8H 2C 3C 4C KD KS 9D 5S", "QC", "upcard_offer")
    legal = view["you"]["legal_moves"]
    assert coach.choose(view, legal, random.Random(1)) == gin_basic.choose(
        view, legal, random.Random(1)
    )


def test_gin_expert_stock_value_counts_only_outs() -> None:
    """G5.2: the expected stock draw re-values only cards that lower the deadwood; a hand
    whose every unseen card is useless expects exactly its own value."""
    from domain.bots.gin.eval import mask_of, value
    from domain.bots.gin.expert import _Memo, stock_value

    hand = mask_of(["AC", "2C", "3C", "5D", "6D", "7D", "9H", "TH", "JH", "KS"])
    useless = mask_of(["QD", "QC"])  # neither melds with the hand nor lowers its count
    memo = _Memo(useless, 1.5, {})
    assert stock_value(hand, memo) == value(hand, useless, 1.5)
    pool = mask_of(["4C", "QD", "QC", "KD"])  # 4C extends the clubs run: gin
    assert value(hand, pool, 1.5) == 10 - 1.5 * 10 / 4
    assert stock_value(hand, _Memo(pool, 1.5, {})) == (0 + 3 * value(hand, pool, 1.5)) / 4


def test_gin_expert_samples_no_hand_that_could_have_knocked_g6_2() -> None:
    """G6.2, G5.4: once the opponent has played a turn and discarded instead of knocking,
    the expert's sampled opponent hands are redrawn until their deadwood is over the knock
    limit (a knock-at-once opponent would have knocked); before its first turn they are not."""
    from domain.bots.gin.eval import OpponentModel, deadwood, opponent_has_played
    from domain.bots.gin.eval import SeatView as GinSeat

    late = GinSeat.of(gin_view("6H 7H 2C 9C KD QS JD 4S 3D TC", "8C", "draw", stock=15))
    assert opponent_has_played(late)
    free = OpponentModel.sample(late, random.Random(5), samples=60, no_knock=False)
    assert any(deadwood(h) <= 10 for h in free.hands)  # a drawing opponent often could
    held = OpponentModel.sample(late, random.Random(5), samples=60, no_knock=True)
    low = sum(deadwood(h) <= 10 for h in held.hands)
    assert low < sum(deadwood(h) <= 10 for h in free.hands)
    offer = GinSeat.of(gin_view("6H 7H 2C 9C KD QS JD 4S 3D TC", "8C", "upcard_offer", 31))
    assert not opponent_has_played(offer)


def test_gin_expert_knock_counts_the_hand_won_beyond_its_points_g1_5() -> None:
    """G1.5, G7.2, G7.3: the winner of a hand plays the next and the loser sits out, so
    `win_weight` is added to each sampled won knock and taken from each undercut."""
    from domain.bots.gin.eval import OpponentModel, knock_value, mask_of
    from domain.bots.gin.eval import SeatView as GinSeat

    seat = GinSeat.of(gin_view("AC 2C 3C 5D 6D 7D 9H TH JH 4S", "8C", "discard"))
    kept = mask_of(["AC", "2C", "3C", "5D", "6D", "7D", "9H", "TH", "JH", "4S"])  # 4 deadwood
    # 70 deadwood, 8H laid off on 9H-TH-JH (G6.6): 62, so the knock wins 62 - 4 = 58
    beaten = mask_of(["KS", "KD", "QC", "QD", "8S", "8H", "2H", "2D", "5S", "5H"])
    # three sets and AH: 1 < 4, an undercut worth 4 - 1 + 10 = 13 to the opponent (G7.3)
    under = mask_of(["KS", "KH", "KC", "QC", "QD", "QH", "JS", "JD", "JC", "AH"])
    model = OpponentModel((beaten, under))
    assert knock_value(seat, kept, model) == ((58 - 13) / 2, 0.5)
    assert knock_value(seat, kept, model, win_weight=20) == ((58 - 13) / 2, 0.5)  # they cancel
    assert knock_value(seat, kept, OpponentModel((beaten,)), 20) == (58 + 20, 0.0)
    assert knock_value(seat, kept, OpponentModel((under,)), 20) == (-13 - 20, 1.0)


def test_gin_expert_threat_is_the_share_of_hands_a_discard_lets_knock_g6_2() -> None:
    """G5.2, G6.2: a discard that completes a meld for a sampled opponent hand and brings it
    to the knock limit is a threat in that hand; a card nobody can use threatens none."""
    from domain.bots.gin.eval import OpponentModel, mask_of

    near = mask_of(["5S", "6S", "7S", "KD", "KH", "KC", "2H", "3D", "4C", "QD"])
    far = mask_of(["AS", "3S", "9D", "JD", "KH", "2C", "4H", "6D", "8C", "TS"])
    model = OpponentModel((near, far))
    eight = mask_of(["8S"]).bit_length() - 1  # 5S-8S run: 19 deadwood -> 9 after QD goes
    assert model.threat(eight, 10) == 0.5
    assert model.threat(eight, 8) == 0.0  # 9 is over a knock limit of 8
    assert model.threat(mask_of(["8H"]).bit_length() - 1, 10) == 0.0


def test_manipulation_draw_cost_prices_the_forced_second_and_third_draws_m4() -> None:
    """M4 D2, D3: a sure meld at the first draw costs nothing more; a hand that never melds
    draws two more cards; in between, D2 with the miss chance and D3 with its cube."""
    from domain.bots.manipulation.eval import draw_cost

    assert draw_cost(1.0, 7.0) == 0.0
    assert draw_cost(0.0, 7.0) == 14.0
    assert draw_cost(0.5, 8.0) == 8.0 * (0.5 + 0.125)


def test_manipulation_expert_planner_holds_a_card_the_draw_cost_pays_for_m4() -> None:
    """M4, M6: melding everything leaves QD, which one drawn card rarely melds with: the
    forced draws cost more than the 2 points of 2H, which still fits 3H-4H-5H next turn,
    so the expert melds the kings and holds 2H back; with 2H worth nothing to hold (the
    planner off) it plays the solver's full meld."""
    from dataclasses import replace

    full = {"type": "meld", "table": [["2H", "3H", "4H", "5H"], ["KC", "KD", "KS"]]}
    legal: list[dict[str, Any]] = [{"type": "draw"}, full]
    view = manip_view("2H KC KD KS QD", ["3H 4H 5H"], [5, 7], legal, phase="meld_or_draw")
    move, reason = manip_expert.explain(view, legal, random.Random(0))
    assert move["type"] == "meld" and "holding 2H back" in reason
    assert not any("2H" in meld for meld in _melds(move))
    assert any(sorted(meld) == ["KC", "KD", "KS"] for meld in _melds(move))
    off = replace(manip_expert.PARAMS, hold=False)
    assert manip_expert.decide(view, legal, random.Random(0), off)[0] == full


def test_gin_expert_plays_on_for_gin_only_when_it_is_worth_more_than_the_knock_g6_4() -> None:
    """G6.4, G7.1: with 1 deadwood (AS) five unseen cards (4D 8D 8H QH KD) make gin next
    draw, worth the bonus and the opponent's whole count. Against a knock worth little now
    the expert plays on; against a rich knock, or with the knob off, it does not."""
    from dataclasses import replace

    from domain.bots.gin.eval import OpponentModel, mask_of
    from domain.bots.gin.eval import SeatView as GinSeat
    from domain.bots.gin.expert import PARAMS, gin_hunt

    hand = "5D 6D 7D 9H TH JH KS KH KC AS 2C"
    seat = GinSeat.of(gin_view(hand, "4C", "discard", stock=20))
    kept = mask_of(hand.split()[:10])
    model = OpponentModel((mask_of(["QS", "QC", "JC", "TC", "8S", "7S", "6C", "4H", "3H", "2S"]),))
    params = replace(PARAMS, hunt=0.8, win_weight=0.0)
    found = gin_hunt(seat, kept, model, 5.0, params)
    assert found is not None
    chance, worth = found
    unseen = seat.unseen.bit_count()
    assert chance == 5 / unseen
    assert worth == chance * (25 + 40) + (1 - chance) * 0.8 * 5.0  # TC-JC-QC melded: 40
    assert gin_hunt(seat, kept, model, 60.0, params) is None
    assert gin_hunt(seat, kept, model, 5.0, replace(params, hunt=0.0)) is None


def test_gin_expert_plays_on_when_the_opponents_next_turn_is_worth_more_g7_3() -> None:
    """G6.2, G7.3: discarding 2C instead of knocking with 1 deadwood (AS), priced by the
    opponent's next turn. A knock-at-once opponent holding 3C 4C takes 2C and knocks with
    6 (9S set aside): our 1 undercuts it, 6 - 1 + 10 = 15 points. That beats a knock worth
    5 now, not one worth 20. An opponent that cannot knock next turn leaves us the gin
    chance and `hunt` times the knock's worth, as in the gin hunt."""
    from dataclasses import replace

    from domain.bots.gin.eval import OpponentModel, mask_of
    from domain.bots.gin.eval import SeatView as GinSeat
    from domain.bots.gin.expert import PARAMS, play_on

    hand = "5D 6D 7D 9H TH JH KS KH KC AS 2C"
    seat = GinSeat.of(gin_view(hand, "4C", "discard", stock=20))
    kept, two = mask_of(hand.split()[:10]), mask_of(["2C"]).bit_length() - 1
    params = replace(PARAMS, hunt=0.8, win_weight=0.0)
    knocker = mask_of(["3C", "4C", "8S", "8C", "8H", "2H", "3H", "4H", "6S", "9S"])
    assert play_on(seat, kept, two, OpponentModel((knocker,)), 5.0, params) == (1.0, 15.0)
    far = mask_of(["QS", "QC", "JC", "TC", "8S", "7S", "6C", "4H", "3H", "2S"])  # 40 deadwood
    found = play_on(seat, kept, two, OpponentModel((far,)), 5.0, params)
    chance = 5 / seat.unseen.bit_count()  # 4D 8D 8H QH KD make gin
    assert found == (0.0, chance * (25 + 40) + (1 - chance) * 0.8 * 5.0)
    low = replace(seat, stock_size=3)
    assert play_on(low, kept, two, OpponentModel((far,)), 5.0, params) is None


def test_gin_expert_knock_or_play_on_by_the_opponents_next_turn_g6_2_g7_3() -> None:
    """G6.2, G7: with 1 deadwood (AS) after discarding 2C, against one sampled hand each:
    - 6 deadwood (6S): a knock wins 6 - 1 = 5 now, but that hand knocks next turn into our
      undercut (+10) unless its draw makes gin: playing on is worth more, 2C goes;
    - 40 deadwood: the knock's 39 beats playing on: knock;
    - all melded: the knock is undercut (-11), and next turn it goes gin (-26): knock
      anyway, the smaller loss (`knock_worse`; off, it discards as usual)."""
    from dataclasses import replace

    from domain.bots.gin.eval import OpponentModel, mask_of
    from domain.bots.gin.eval import SeatView as GinSeat
    from domain.bots.gin.expert import PARAMS, knock_choice

    hand = "5D 6D 7D 9H TH JH KS KH KC AS 2C"
    seat = GinSeat.of(gin_view(hand, "4C", "discard", stock=20))
    cards = [mask_of([c]).bit_length() - 1 for c in hand.split()]
    knocks = cards[-2:]

    def choice(opponent: str, **knobs: Any) -> tuple[dict[str, Any], str] | None:
        model = OpponentModel((mask_of(opponent.split()),))
        return knock_choice(seat, cards, knocks, model, replace(PARAMS, **knobs))

    waits = choice("6C 7C 8C QS QD QC 2H 3H 4H 6S")
    assert waits is not None and waits[0] == {"type": "discard", "card": "2C"}
    assert "play on" in waits[1] and "+5.0 for knocking now" in waits[1]
    rich = choice("QS QC JC TC 8S 7S 6C 4H 3H 2S")
    assert rich is not None and rich[0] == {"type": "knock", "card": "2C"}
    melded = "6C 7C 8C QS QD QC 2H 3H 4H 5H"
    lost = choice(melded)
    assert lost is not None and lost[0] == {"type": "knock", "card": "2C"}
    assert "-11.0 points" in lost[1]
    assert choice(melded, knock_worse=False) is None


def test_gin_expert_match_worth_counts_points_that_end_the_match_g8_1() -> None:
    """G8.1: points that take us to the target gain `finish`, points that take the opponent
    there lose it; other points are as they are."""
    from domain.bots.gin.eval import SeatView as GinSeat
    from domain.bots.gin.eval import match_worth

    seat = GinSeat.of(gin_view("AS 2S 3S 7H 7D 7C KD KH KC 9C", None, "draw", scores=[90, 70, 0]))
    assert (seat.seat, seat.opponent) == (0, 1)
    assert match_worth(seat, 12, 40) == 52
    assert match_worth(seat, 8, 40) == 8
    assert match_worth(seat, -30, 40) == -70
    assert match_worth(seat, -29, 40) == -29
    assert match_worth(seat, 12, 0) == 12


def test_gin_expert_sheds_deadwood_when_the_opponent_can_knock_next_turn_g6_2() -> None:
    """G6.2, G7.2: against a sampled hand that is all melded, every draw lets it knock
    (knock risk 1; a 40-deadwood hand: 0). Weighing our deadwood by that risk
    (`exposure`), the expert throws JS (27 deadwood left) rather than 8H, which it keeps
    for its chances (29 left); with no knock in sight the weight changes nothing."""
    from dataclasses import replace

    from domain.bots.gin.eval import OpponentModel, mask_of
    from domain.bots.gin.eval import SeatView as GinSeat
    from domain.bots.gin.expert import PARAMS, _discard, knock_risk

    hand = "9C 7S TC 8H 3D 2C AH JC JS 5S AS"
    seat = GinSeat.of(gin_view(hand, "6S", "discard", stock=15))
    melded = OpponentModel((mask_of(["6C", "7C", "8C", "QS", "QD", "QC", "2H", "3H", "4H", "5H"]),))
    far = OpponentModel((mask_of(["QS", "QC", "JD", "TD", "8S", "7D", "6C", "4H", "3H", "2S"]),))
    assert knock_risk(seat, melded) == 1.0
    assert knock_risk(seat, far) == 0.0
    cards = [mask_of([c]).bit_length() - 1 for c in hand.split()]
    off = replace(PARAMS, exposure=0.0)
    on = replace(PARAMS, exposure=1.0)
    assert _discard(seat, cards, melded, off)[0] == {"type": "discard", "card": "8H"}
    assert _discard(seat, cards, melded, on)[0] == {"type": "discard", "card": "JS"}
    assert _discard(seat, cards, far, on) == _discard(seat, cards, far, off)


def test_gin_expert_defends_a_knock_by_the_points_of_g7() -> None:
    """G7.1-G7.3 from the defender's side, lay-offs left out: gin costs 25 and our count, a
    lower count than ours costs the difference, and ours at or under it undercuts (+10)."""
    from domain.bots.gin.eval import SeatView as GinSeat
    from domain.bots.gin.expert import _defend

    seat = GinSeat.of(gin_view("AS 2S 3S 7H 7D 7C KD KH KC 9C", None, "draw"))
    assert _defend(seat, 0, 4) == -29
    assert _defend(seat, 3, 8) == -5
    assert _defend(seat, 8, 3) == 15
    assert _defend(seat, 5, 5) == 10


def test_manipulation_hold_back_survives_the_solver_budget_running_out(monkeypatch: Any) -> None:
    """M6: when the solver's work budget runs out it falls back on the listed meld moves
    (not proven best); the planner's solver call gives it frozen options, so a view's
    options dict works there too (it raised TypeError: unhashable dict)."""
    from functools import partial

    from domain.bots.manipulation import eval as manip_eval
    from domain.manipulation.melds import best_move

    monkeypatch.setattr(manip_eval, "best_move", partial(best_move, budget=1))
    view = manip_view("2H KC KD KS QD", ["3H 4H 5H"], [5, 7], [], phase="meld_or_draw")
    held = hold_back(SeatView.of(view), 5)
    assert held is not None
    move, card, proven = held
    assert card == "2H" and not proven
    assert not any("2H" in meld for meld in _melds(move))


def test_gin_expert_values_only_the_least_deadwood_discards_after_taking_the_top_g5_2() -> None:
    """G5.2: after taking 8H (6H 7H 8H), the best hand keeps the run and throws a high loner;
    valuing only the 5 least-deadwood discards (`draw_candidates`) gives the same answer
    and worth as valuing all 10, and a card that only pairs is still taken or not alike."""
    from dataclasses import replace

    from domain.bots.gin.eval import SeatView as GinSeat
    from domain.bots.gin.expert import PARAMS, draw_choice

    for hand, top in (
        ("6H 7H 2C 9C KD QS JD 4S 3D TC", "8H"),
        ("6H 7H 2C 9C KD QS JD 4S 3D TC", "9D"),
    ):
        seat = GinSeat.of(gin_view(hand, top, "draw"))
        every = draw_choice(seat, replace(PARAMS, draw_candidates=11))
        assert draw_choice(seat, replace(PARAMS, draw_candidates=5)) == every
    seat = GinSeat.of(gin_view("6H 7H 2C 9C KD QS JD 4S 3D TC", "8H", "draw"))
    assert draw_choice(seat, PARAMS)[0] is True


def _melds(move: object) -> list[list[str]]:
    """The melds a Manipulation meld move lays down (a move read at the JSON edge)."""
    table: Any = move["table"] if isinstance(move, dict) else []
    return [list(meld) for meld in table]
