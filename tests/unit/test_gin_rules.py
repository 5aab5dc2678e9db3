"""One or more tests per numbered rule of rules.md section 1 (G1-G9) for three-handed gin.

Seats: BOX 0, CAPTAIN 1, ADVISOR 2 unless a test says otherwise. Positions come from explicit
card codes (test_gin_support.position).
"""

from __future__ import annotations

import dataclasses
from typing import Any, cast

import pytest

from domain import gin
from domain.cards import FULL_DECK, Card, codes
from domain.errors import (
    AdviceLimit,
    ForbiddenMove,
    IllegalMove,
    InvalidCard,
    InvalidOptions,
    MalformedMove,
    NotYourTurn,
)
from domain.events import SYSTEM
from domain.gin import melds
from domain.gin.deal import _rank_seats, dealt_deck, next_roles
from domain.gin.shapes import GinMove, GinRoundResult
from domain.gin.state import GinState, Phase, Roles
from domain.shuffle import DealRng, commitment, seed_key
from tests.support.views import you_of
from tests.unit.test_gin_support import (
    PLAYERS,
    created,
    dealt,
    fold,
    hand,
    play,
    plays,
    position,
    random_match,
    result_of,
    roles_drawn,
    score,
)

BOX, CAPTAIN, ADVISOR = 0, 1, 2
TAKE: GinMove = {"type": "take_upcard"}
PASS: GinMove = {"type": "pass_upcard"}
STOCK: GinMove = {"type": "draw", "from": "stock"}
PILE: GinMove = {"type": "draw", "from": "discard"}

# Hands without melds: nobody can knock, so turns just go round.
DRY_BOX = "AC 3C 5C 7C 9C JC KD QH 2S 4S"
DRY_CAPTAIN = "AD 3D 5D 7D 9D JD KC QS 2H 4H"


def dry(upcard: str = "6S", stock_top: str = "", **options: Any) -> GinState:
    return position(DRY_BOX, DRY_CAPTAIN, upcard, stock_top, options=options)


def discard(card: str) -> GinMove:
    return {"type": "discard", "card": card}


def knock(card: str, named: list[list[str]] | None = None) -> GinMove:
    move: GinMove = {"type": "knock", "card": card}
    if named is not None:
        move["melds"] = named
    return move


# --- G1 seats and roles ---------------------------------------------------------------------


def test_g1_1_exactly_three_players_and_only_box_and_captain_hold_cards() -> None:
    """G1.1: three players; in each hand only BOX and CAPTAIN hold cards."""
    assert (gin.VARIANT.min_players, gin.VARIANT.max_players) == (3, 3)
    wrong: tuple[list[dict[str, str | None]], ...] = (PLAYERS[:2], [*PLAYERS, {"name": "dan"}])
    for players in wrong:
        with pytest.raises(InvalidOptions, match=r"exactly 3 players.*G1\.1"):
            gin.create(players, {}, 1, "")
    state = fold(gin.create(PLAYERS, {}, 1, ""))
    roles = state.roles
    assert roles is not None and {roles.box, roles.captain, roles.advisor} == {0, 1, 2}
    assert len(state.hands[roles.box]) == len(state.hands[roles.captain]) == 10
    assert state.hands[roles.advisor] == ()


class _Deck:
    def __init__(self, text: str) -> None:
        self._cards = iter(Card.parse(c) for c in text.split())

    def next(self) -> Card:
        return next(self._cards)


def test_g1_2_highest_card_box_middle_captain_lowest_advisor_king_high_ace_low() -> None:
    """G1.2: K ranks highest and A lowest in the role draw."""
    draws: list[Any] = []
    order = _rank_seats([0, 1, 2], _Deck("AS KD 5H"), "redraw", draws)  # type: ignore[arg-type]
    assert order == [1, 2, 0]
    assert draws == [
        [{"seat": 0, "card": "AS"}, {"seat": 1, "card": "KD"}, {"seat": 2, "card": "5H"}]
    ]


def test_g1_2_only_tied_players_redraw_and_every_card_is_recorded() -> None:
    """G1.2 (A-G17): a tie that matters is redrawn by the tied players only."""
    draws: list[Any] = []
    deck = _Deck("KS KD 2C 3H 9C")
    order = _rank_seats([0, 1, 2], deck, "redraw", draws)  # type: ignore[arg-type]
    assert order == [1, 0, 2]
    assert draws[1] == [{"seat": 0, "card": "3H"}, {"seat": 1, "card": "9C"}]
    draws = []
    order = _rank_seats([0, 1, 2], _Deck("7S 7D 7C 2C 2D 4H 2H 9S"), "redraw", draws)  # type: ignore[arg-type]
    assert [len(d) for d in draws] == [3, 3, 2]
    assert order == [2, 1, 0]


def test_g1_2_suit_order_tiebreak_needs_no_redraw() -> None:
    """G1.2 option role_draw_tiebreak = suit_order: S > H > D > C breaks a rank tie."""
    draws: list[Any] = []
    order = _rank_seats([0, 1, 2], _Deck("KD KS 2C"), "suit_order", draws)  # type: ignore[arg-type]
    assert order == [1, 0, 2] and len(draws) == 1


@pytest.mark.parametrize("tiebreak", ["redraw", "suit_order"])
def test_g1_2_recorded_draws_decide_the_roles_for_many_seeds(tiebreak: str) -> None:
    """G1.2: over many seeds, the RolesDrawn record is consistent: ordering the seats by the
    sequence of their drawn ranks (suit too under suit_order) gives BOX, CAPTAIN, ADVISOR."""
    ties = 0
    for seed in range(150):
        events = gin.create(PLAYERS, {"role_draw_tiebreak": tiebreak}, seed, "")
        data: Any = events[1].data
        assert events[1].type == "RolesDrawn"
        keys: dict[int, list[tuple[int, ...]]] = {0: [], 1: [], 2: []}
        for rnd in data["draws"]:
            for d in rnd:
                c = Card.parse(d["card"])
                keys[d["seat"]].append((c.rank, c.suit) if tiebreak == "suit_order" else (c.rank,))
        ties += len(data["draws"]) > 1
        order = sorted(keys, key=lambda s: keys[s], reverse=True)
        assert [data["box"], data["captain"], data["advisor"]] == order
        assert len({tuple(k) for k in keys.values()}) == 3
    assert (ties > 0) == (tiebreak == "redraw")


def test_g1_3_advisor_may_only_advise() -> None:
    """G1.3: CAPTAIN decides for the team; the ADVISOR's play moves are ForbiddenMove."""
    state = dry()
    for move in (TAKE, PASS, STOCK, discard("AD"), knock("AD")):
        with pytest.raises(ForbiddenMove, match=r"G1\.3"):
            gin.decide(state, ADVISOR, move)
    assert gin.legal_moves(state, ADVISOR) == [{"type": "advise"}]
    state, _ = play(state, CAPTAIN, PASS)
    with pytest.raises(ForbiddenMove):
        gin.decide(state, ADVISOR, TAKE)


def test_g1_4_advisor_sees_the_captains_hand_but_never_the_box_hand_or_stock() -> None:
    """G1.4: `you.team_hand` is CAPTAIN's hand for the ADVISOR; BOX's cards never show."""
    state = dry()
    seen = gin.view(state, ADVISOR)
    assert you_of(seen)["team_hand"] == hand(DRY_CAPTAIN)
    assert you_of(seen)["hand"] == []
    text = repr({k: v for k, v in seen.items() if k != "options"})
    for card in hand(DRY_BOX) + codes(state.stock):
        assert f"'{card}'" not in text
    assert "team_hand" not in you_of(gin.view(state, BOX))


def test_g1_4_option_advisor_sees_captain_hand_false_hides_it() -> None:
    """G1.4 [opt advisor_sees_captain_hand]: off, the ADVISOR sees no hand at all."""
    state = dry(advisor_sees_captain_hand=False)
    assert you_of(gin.view(state, ADVISOR))["team_hand"] is None
    before = fold([created({"advisor_sees_captain_hand": False}), roles_drawn()])
    deal = dealt(DRY_BOX, DRY_CAPTAIN, "6S")
    hands: Any = gin.event_view(before, deal, ADVISOR)["data"]["hands"]
    assert hands[CAPTAIN] == [None] * 10
    shown: Any = gin.event_view(fold([created(), roles_drawn()]), deal, ADVISOR)["data"]["hands"]
    assert shown[CAPTAIN] == hand(DRY_CAPTAIN) and shown[BOX] == [None] * 10


def test_g1_4_stock_draws_shown_to_the_drawer_and_the_captains_advisor_only() -> None:
    """G1.4: a card CAPTAIN draws from the stock is seen by CAPTAIN and ADVISOR only."""
    state = plays(dry(), (CAPTAIN, PASS), (BOX, PASS))
    _, events = play(state, CAPTAIN, STOCK)
    drawn = events[0]
    assert gin.event_view(state, drawn, CAPTAIN)["data"]["card"] == drawn.data["card"]
    assert gin.event_view(state, drawn, ADVISOR)["data"]["card"] == drawn.data["card"]
    assert gin.event_view(state, drawn, BOX)["data"]["card"] is None
    assert gin.event_view(state, drawn, None)["data"]["card"] is None


def test_g1_4_the_whole_discard_pile_and_the_cards_taken_from_it_are_public() -> None:
    """G1.4: every seat and a spectator see the discard pile bottom to top (`discard_pile`)
    and, per seat, the cards it took from the pile and still holds (`picked`); a picked card
    discarded again leaves `picked`, and a new deal clears it."""
    state = plays(dry(), (CAPTAIN, TAKE), (CAPTAIN, discard("AD")))
    for seat in (BOX, CAPTAIN, ADVISOR, None):
        shown = gin.view(state, seat)
        assert shown["discard_pile"] == ["AD"] and shown["discard_top"] == "AD"
        assert shown["picked"] == [[], ["6S"], []]
    state = plays(state, (BOX, PILE), (BOX, discard("KD")), (CAPTAIN, STOCK))
    state = plays(state, (CAPTAIN, discard("6S")))
    shown = gin.view(state, None)
    assert shown["discard_pile"] == ["KD", "6S"]
    assert shown["picked"] == [["AD"], [], []]


def test_g1_4_advice_reaches_captain_and_advisor_only_and_binds_nobody() -> None:
    """G1.4: the advice channel; AdviceGiven is redacted for BOX and spectators; no state
    changes but the version and the advice counter."""
    state = dry()
    advice: GinMove = {"type": "advise", "text": "take it", "move": {"type": "take_upcard"}}
    after, events = play(state, ADVISOR, advice)
    assert [e.type for e in events] == ["AdviceGiven"]
    assert dataclasses.replace(after, version=state.version, advice=0) == state
    event = events[0]
    assert gin.event_view(state, event, CAPTAIN)["data"]["text"] == "take it"
    assert gin.event_view(state, event, ADVISOR)["data"]["move"] == {"type": "take_upcard"}
    for seat in (BOX, None):
        data: Any = gin.event_view(state, event, seat)["data"]
        assert data["text"] is None and data["move"] is None
    after, _ = play(after, CAPTAIN, PASS)  # not bound by the advice
    assert after.turn == BOX


def test_g1_4_at_most_three_pieces_of_advice_per_turn_of_the_captain() -> None:
    """G1.4 (issue 11): the fourth advice before the CAPTAIN's turn ends is refused with
    AdviceLimit (`advice_limit`) and is no longer listed; the count starts again once the
    CAPTAIN has passed the upcard."""
    state = dry()
    advice: GinMove = {"type": "advise", "text": "hm"}
    for _ in range(3):
        state, _ = play(state, ADVISOR, advice)
    assert gin.legal_moves(state, ADVISOR) == []
    with pytest.raises(AdviceLimit, match="at most 3 per turn of the CAPTAIN") as refused:
        gin.decide(state, ADVISOR, advice)
    assert refused.value.code == "advice_limit"
    state, _ = play(state, CAPTAIN, PASS)
    assert gin.legal_moves(state, ADVISOR) == [{"type": "advise"}]
    state, events = play(state, ADVISOR, advice)
    assert [e.type for e in events] == ["AdviceGiven"]


def test_g1_4_only_the_advisor_advises_and_advice_can_be_switched_off() -> None:
    """G1.4 [opt advice_enabled]; A-G4 [opt advice_window after_knock_only]."""
    state = dry()
    for seat in (BOX, CAPTAIN):
        with pytest.raises(ForbiddenMove, match="ADVISOR"):
            gin.decide(state, seat, {"type": "advise", "text": "x"})
    off = dry(advice_enabled=False)
    assert gin.legal_moves(off, ADVISOR) == []
    with pytest.raises(ForbiddenMove, match="advice_enabled"):
        gin.decide(off, ADVISOR, {"type": "advise"})
    late = dry(advice_window="after_knock_only")
    with pytest.raises(IllegalMove, match="after_knock_only"):
        gin.decide(late, ADVISOR, {"type": "advise"})
    with pytest.raises(MalformedMove):
        gin.decide(state, ADVISOR, {"type": "advise", "text": 5})  # type: ignore[typeddict-item]
    with pytest.raises(MalformedMove):
        gin.decide(state, ADVISOR, {"type": "advise", "move": {"type": "fly"}})


def test_g1_4_after_knock_only_window_opens_once_a_knock_is_spread() -> None:
    """A-G4 advice_window after_knock_only: advice is possible while the knock is scored."""
    state = position(
        box="5C 7C 8S 9S TS 4D KD 2H 3H 4H",
        captain="2C 3C 4C 7D 7H 7S TH JH 6C KS",
        upcard="QH",
        options={"advice_window": "after_knock_only"},
    )
    state = plays(state, (CAPTAIN, TAKE), (CAPTAIN, knock("KS")))
    assert gin.legal_moves(state, ADVISOR) == [{"type": "advise"}]
    after, events = play(state, ADVISOR, {"type": "advise", "text": "well done"})
    assert events[0].type == "AdviceGiven" and gin.pending(after) == {"type": "score_round"}


@pytest.mark.parametrize(
    ("winner", "expected"),
    [
        ("box", Roles(box=0, captain=2, advisor=1)),
        ("captain", Roles(box=1, captain=2, advisor=0)),
        ("draw", Roles(box=0, captain=1, advisor=2)),
    ],
)
def test_g1_5_rotation_table(winner: str, expected: Roles) -> None:
    """G1.5: BOX won -> BOX stays, CAPTAIN = old ADVISOR; BOX lost -> shift one place;
    drawn hand -> unchanged."""
    state = dry()
    if winner == "draw":
        result: dict[str, Any] = {"outcome": "draw", "winners": []}
    else:
        result = {"outcome": "knock", "winners": [BOX if winner == "box" else CAPTAIN]}
    assert (
        next_roles(dataclasses.replace(state, rounds=(cast("GinRoundResult", result),))) == expected
    )


# --- G2 cards and values --------------------------------------------------------------------


def test_g2_1_one_deck_of_52_without_jokers() -> None:
    """G2.1: a deal holds each of the 52 plain cards once; JK is refused in a move."""
    state = fold(gin.create(PLAYERS, {}, 5, ""))
    every = [*state.hands[0], *state.hands[1], *state.hands[2], *state.stock, *state.discard]
    assert sorted(every) == list(FULL_DECK)
    state, _ = play(state, state.roles.captain, TAKE)  # type: ignore[union-attr]
    with pytest.raises(InvalidCard, match=r"G2\.1"):
        gin.decide(state, state.roles.captain, discard("JK"))  # type: ignore[union-attr]


G2_BOX = "2C 4C 6C 8C TC QS 2S 4S 6S 8S"


def test_g2_2_ace_is_low_only() -> None:
    """G2.2: A-2-3 is a run, Q-K-A is not: QH KH AH stays 21 deadwood, AH 2H 3H is gin."""
    high = plays(position(G2_BOX, "QH KH AH 7C 7D 7S 3D 4D 5D 9C", "6D"), (CAPTAIN, TAKE))
    assert all(m["type"] == "discard" for m in gin.legal_moves(high, CAPTAIN))
    with pytest.raises(IllegalMove, match="21 deadwood after discarding 9C"):
        gin.decide(high, CAPTAIN, knock("9C"))
    low = plays(position(G2_BOX, "AH 2H 3H 7C 7D 7S 3D 4D 5D 9C", "6D"), (CAPTAIN, TAKE))
    after, _ = play(low, CAPTAIN, knock("9C"))
    assert after.knock is not None and after.knock.gin
    sets = plays(position(G2_BOX, "QC QD QH KC KD KH AH 2H 3H 9C", "4D"), (CAPTAIN, TAKE))
    with pytest.raises(IllegalMove, match=r"\[QH KH AH\] is not a set \(G3\.1\) or a run"):
        gin.decide(sets, CAPTAIN, knock("9C", [["QH", "KH", "AH"], ["QC", "QD", "KC"]]))


G2_3_BOX = "2D 4D 6D 8D TD QD 3S 5S JS 8H"


def test_g2_3_card_values_ace_1_pips_faces_10() -> None:
    """G2.3: 9C + AS = 10 deadwood knocks at the limit; AS + KS (11) or 9C + KS (19) do
    not; 2S instead of AS makes 11."""
    melded = "2C 3C 4C 5C 7C 7D 7H 7S"
    state = position(G2_3_BOX, f"{melded} 9C AS", "6H", stock_top="KS")
    state = plays(state, (CAPTAIN, PASS), (BOX, PASS), (CAPTAIN, STOCK))
    knocks = [m for m in gin.legal_moves(state, CAPTAIN) if m["type"] == "knock"]
    assert knocks == [knock("KS")]
    after, _ = play(state, CAPTAIN, knock("KS"))
    assert after.knock is not None and after.knock.count == 10
    two = position(G2_3_BOX, f"{melded} 9C 2S", "6H", stock_top="KS")
    two = plays(two, (CAPTAIN, PASS), (BOX, PASS), (CAPTAIN, STOCK))
    with pytest.raises(IllegalMove, match="11 deadwood after discarding KS"):
        gin.decide(two, CAPTAIN, knock("KS"))


# --- G3 melds and deadwood ------------------------------------------------------------------

G3_CAPTAIN = "7C 7D 7H 7S 8S 9S 2D 3D 4D KH"


G3_BOX = "AC 3C 5C 9C JC KD QH QC 4S 2S"


def _g3_state() -> GinState:
    state = position(box=G3_BOX, captain=G3_CAPTAIN, upcard="AH")
    return plays(state, (CAPTAIN, TAKE))


def test_g3_1_sets_of_three_or_four_cards_of_one_rank() -> None:
    """G3.1: 7C 7D 7H is a set; a two-card 'set' is refused."""
    state = _g3_state()
    after, _ = play(
        state, CAPTAIN, knock("KH", [["7C", "7D", "7H"], ["7S", "8S", "9S"], ["2D", "3D", "4D"]])
    )
    assert after.knock is not None and after.knock.count == 1
    with pytest.raises(IllegalMove, match="not a set"):
        gin.decide(
            state, CAPTAIN, knock("KH", [["7C", "7D"], ["7S", "8S", "9S"], ["2D", "3D", "4D"]])
        )


def test_g3_2_runs_three_or_more_of_one_suit_in_sequence() -> None:
    """G3.2: 2D 3D 4D is a run; 2D 3D 4H (mixed suits) is not."""
    state = _g3_state()
    with pytest.raises(IllegalMove, match=r"G3\.2"):
        gin.decide(state, CAPTAIN, knock("KH", [["7C", "7D", "7H"], ["2D", "3D", "AH"]]))


def test_g3_3_a_card_belongs_to_one_meld_only() -> None:
    """G3.3: 7S cannot be in the set and the run at once."""
    state = _g3_state()
    with pytest.raises(IllegalMove, match=r"7S is in two of your melds \(G3\.3\)"):
        gin.decide(
            state,
            CAPTAIN,
            knock("KH", [["7C", "7D", "7H", "7S"], ["7S", "8S", "9S"], ["2D", "3D", "4D"]]),
        )


def test_g3_4_deadwood_count_is_the_value_of_unmelded_cards() -> None:
    """G3.4: the Knocked event lists the deadwood cards and their count."""
    state = _g3_state()
    _, events = play(state, CAPTAIN, knock("KH"))
    data: Any = events[0].data
    assert data["deadwood_cards"] == ["AH"] and data["count"] == 1
    assert sum(Card.parse(c).value for c in data["deadwood_cards"]) == data["count"]


def test_g3_5_melds_stay_hidden_until_a_knock() -> None:
    """G3.5: before a knock no view shows melds or the other hand; after it the spread is
    public to every seat and spectators."""
    state = _g3_state()
    assert gin.view(state, BOX)["knock"] is None
    after, _ = play(state, CAPTAIN, knock("KH"))
    for seat in (BOX, ADVISOR, None):
        shown = gin.view(after, seat)["knock"]
        assert shown is not None
        assert shown["seat"] == CAPTAIN and shown["deadwood_cards"] == ["AH"]
        assert "card" not in shown


# --- G4 deal ------------------------------------------------------------------------------


def test_g4_1_box_deals_and_captain_is_the_non_dealer() -> None:
    """G4.1: the upcard is offered to CAPTAIN (the non-dealer) first, every hand."""
    events, states = random_match(11, {"target_score": 30})
    for event, state in zip(events, states, strict=True):
        if event.type == "RoundDealt":
            assert state.turn == event.data["captain"] and state.phase == Phase.UPCARD_OFFER


def test_g4_2_ten_cards_each_one_at_a_time_captain_first_advisor_none() -> None:
    """G4.2: the shuffled deck goes CAPTAIN, BOX, CAPTAIN, ...; ADVISOR gets no cards."""
    events = gin.create(PLAYERS, {}, 42, "")
    data: Any = events[2].data
    deck = list(FULL_DECK)
    DealRng(seed_key(42), "deal:1").shuffle(deck)
    assert data["hands"][data["captain"]] == codes(deck[0:20:2])
    assert data["hands"][data["box"]] == codes(deck[1:20:2])
    assert data["hands"][data["advisor"]] is None


def test_g4_3_upcard_and_31_stock_cards_committed() -> None:
    """G4.3: the next card is the upcard, the other 31 the stock; api.md fair deal: the
    commitment is sha256 of the salt and the full deck order as dealt."""
    events = gin.create(PLAYERS, {}, 42, "")
    data: Any = events[2].data
    assert len(data["stock"]) == 31 and isinstance(data["upcard"], str)
    assert commitment(dealt_deck(data), data["salt"]) == data["commitment"]
    assert gin.view(fold(events), None)["deal_commitment"] == data["commitment"]


def test_g4_seeded_deals_repeat_and_unseeded_deals_follow_the_secret() -> None:
    """G4 / api.md: the same seed deals the same cards; a secret key deals by that key."""
    assert gin.create(PLAYERS, {}, 9, "") == gin.create(PLAYERS, {}, 9, "")
    one, two = gin.create(PLAYERS, {}, None, "11" * 32), gin.create(PLAYERS, {}, None, "22" * 32)
    assert one[2].data["stock"] != two[2].data["stock"]
    assert one[0].data["seeded"] is False and one[0].data["deal_key"] == "11" * 32


# --- G5 play ------------------------------------------------------------------------------


def test_g5_1_captain_takes_upcard_then_discards_and_box_plays_normally() -> None:
    """G5.1.1-2: CAPTAIN takes the upcard, finishes with a discard; BOX then draws."""
    state = plays(dry(), (CAPTAIN, TAKE))
    assert state.phase == Phase.DISCARD and len(state.hands[CAPTAIN]) == 11
    state, _ = play(state, CAPTAIN, discard("KC"))
    assert state.turn == BOX and state.phase == Phase.DRAW
    assert gin.legal_moves(state, BOX) == [STOCK, PILE]


def test_g5_1_box_takes_after_captain_passes_and_captain_plays_next() -> None:
    """G5.1.3: CAPTAIN passes, BOX takes, discards; CAPTAIN then plays a normal turn."""
    state = plays(dry(), (CAPTAIN, PASS))
    assert state.turn == BOX and state.phase == Phase.UPCARD_OFFER
    with pytest.raises(NotYourTurn):
        gin.decide(state, CAPTAIN, TAKE)
    state = plays(state, (BOX, TAKE), (BOX, discard("KD")))
    assert state.turn == CAPTAIN and gin.legal_moves(state, CAPTAIN) == [STOCK, PILE]


def test_g5_1_both_pass_captain_must_draw_from_the_stock() -> None:
    """G5.1.4: after both pass CAPTAIN opens from the stock; the upcard is no longer his."""
    state = plays(dry(), (CAPTAIN, PASS), (BOX, PASS))
    assert state.turn == CAPTAIN and gin.legal_moves(state, CAPTAIN) == [STOCK]
    with pytest.raises(IllegalMove, match=r"G5\.1\.4"):
        gin.decide(state, CAPTAIN, PILE)
    state = plays(state, (CAPTAIN, STOCK), (CAPTAIN, discard("KC")))
    assert gin.legal_moves(state, BOX) == [STOCK, PILE]


def test_g5_2_normal_turn_draw_then_discard_or_knock() -> None:
    """G5.2: one draw, then one discard; no discard before drawing, no second draw."""
    state = plays(dry(), (CAPTAIN, TAKE), (CAPTAIN, discard("KC")))
    with pytest.raises(IllegalMove, match=r"G5\.2"):
        gin.decide(state, BOX, discard("KD"))
    state, events = play(state, BOX, PILE)
    assert events[0].data == {"seat": BOX, "from": "discard", "card": "KC"}
    with pytest.raises(IllegalMove, match=r"G5\.2"):
        gin.decide(state, BOX, STOCK)
    kinds = {m["type"] for m in gin.legal_moves(state, BOX)}
    assert kinds == {"discard"}  # these hands cannot knock
    state, _ = play(state, BOX, discard("KD"))
    assert state.turn == CAPTAIN and len(state.hands[BOX]) == 10


def test_g5_3_card_taken_from_the_pile_not_discarded_same_turn_option() -> None:
    """G5.3 [opt no_discard_of_taken_card]: refused by default, allowed when off; a card
    drawn from the stock may be discarded at once."""
    state = plays(dry(), (CAPTAIN, TAKE), (CAPTAIN, discard("KC")), (BOX, PILE))
    with pytest.raises(IllegalMove, match=r"G5\.3"):
        gin.decide(state, BOX, discard("KC"))
    free = plays(dry(no_discard_of_taken_card=False), (CAPTAIN, TAKE))
    after, _ = play(free, CAPTAIN, discard("6S"))
    assert codes(after.discard) == ["6S"]
    state = plays(dry(stock_top="8H"), (CAPTAIN, PASS), (BOX, PASS), (CAPTAIN, STOCK))
    assert {"type": "discard", "card": "8H"} in gin.legal_moves(state, CAPTAIN)


KNOCKABLE = "2C 3C 4C 7D 7H 7S TH JH 6C KS"
KBOX = "5C 7C 8S 9S TS 4D KD 2H 3H 4H"


def test_g5_4_never_obliged_to_knock() -> None:
    """G5.4: with a knock available, every discard is still listed and accepted."""
    state = plays(position(KBOX, KNOCKABLE, "QH"), (CAPTAIN, TAKE))
    moves = gin.legal_moves(state, CAPTAIN)
    assert knock("KS") in moves and discard("KS") in moves
    after, _ = play(state, CAPTAIN, discard("KS"))
    assert after.knock is None and after.turn == BOX


def test_g5_5_illegal_knock_refused_with_a_clear_message_and_no_penalty() -> None:
    """G5.5: a knock over the limit is an IllegalMove naming the count and the limit."""
    state = plays(dry(), (CAPTAIN, TAKE))
    with pytest.raises(IllegalMove, match=r"cannot knock: \d+ deadwood after discarding KC, "):
        gin.decide(state, CAPTAIN, knock("KC"))
    assert all(m["type"] == "discard" for m in gin.legal_moves(state, CAPTAIN))
    after, _ = play(state, CAPTAIN, discard("KC"))
    assert after.scores == (0, 0, 0)


def _to_third_last(state: GinState) -> GinState:
    """Draw and discard the drawn card until the stock holds 3 cards."""
    while len(state.stock) > 3:
        seat = gin.to_act(state)
        assert seat is not None
        state, _ = play(state, seat, STOCK)
        state, _ = play(state, seat, discard(str(state.hands[seat][-1])))
    return state


def test_g5_6_drawn_hand_at_two_stock_cards_but_a_knock_is_still_allowed() -> None:
    """G5.6 (A-G15): a discard leaving two stock cards draws the hand; the player who drew
    the third-last card (here CAPTAIN, drawing QH) may knock instead."""
    given = [*hand(KBOX), *hand(KNOCKABLE), "AH", "QH"]
    filler = [c for c in codes(FULL_DECK) if c not in given][:28]
    state = position(KBOX, KNOCKABLE, "AH", " ".join([*filler, "QH"]))
    state = _to_third_last(plays(state, (CAPTAIN, PASS), (BOX, PASS)))
    assert gin.to_act(state) == CAPTAIN and len(state.stock) == 3
    state, events = play(state, CAPTAIN, STOCK)
    assert events[0].data["card"] == "QH"
    assert knock("KS") in gin.legal_moves(state, CAPTAIN)
    knocked, _ = play(state, CAPTAIN, knock("KS"))
    assert knocked.knock is not None and knocked.phase == Phase.SCORING
    drawn, _ = play(state, CAPTAIN, discard("KS"))
    assert len(drawn.stock) == 2 and drawn.phase == Phase.SCORING and drawn.knock is None
    assert gin.pending(drawn) == {"type": "score_round"} and gin.to_act(drawn) is None


# --- G6 knocking, gin, lay-offs -------------------------------------------------------------


def test_g6_1_knock_on_the_first_turn_after_taking_the_upcard_never_before_drawing() -> None:
    """G6.1 / A-G13: taking the upcard counts as the draw; no knock in the draw phase."""
    state = position(KBOX, KNOCKABLE, "QH")
    with pytest.raises(IllegalMove, match=r"G6\.1"):
        gin.decide(state, CAPTAIN, knock("KS"))
    state = plays(state, (CAPTAIN, TAKE), (CAPTAIN, knock("KS")))
    assert state.knock is not None and state.knock.count == 6


def test_g6_2_knock_limit_option_zero_means_gin_only() -> None:
    """G6.2 [opt knock_limit]: with 0, a 6-point hand cannot knock."""
    state = plays(
        position(KBOX, KNOCKABLE, "QH", options={"knock_limit": 0}),
        (CAPTAIN, TAKE),
    )
    assert all(m["type"] == "discard" for m in gin.legal_moves(state, CAPTAIN))
    with pytest.raises(IllegalMove, match="the limit is 0"):
        gin.decide(state, CAPTAIN, knock("KS"))
    five = plays(
        position(KBOX, KNOCKABLE, "QH", options={"knock_limit": 6}),
        (CAPTAIN, TAKE),
    )
    assert knock("KS") in gin.legal_moves(five, CAPTAIN)


def test_g6_3_knock_card_is_face_down_and_hidden_from_the_others() -> None:
    """G6.3.1: the knock discard leaves play, hidden from BOX and spectators (the captain's
    advisor sees it, G1.4); the spread is public."""
    state = plays(position(KBOX, KNOCKABLE, "QH"), (CAPTAIN, TAKE))
    after, events = play(state, CAPTAIN, knock("KS"))
    event = events[0]
    assert codes(after.discard) == [] and len(after.hands[CAPTAIN]) == 10
    assert gin.event_view(state, event, CAPTAIN)["data"]["card"] == "KS"
    assert gin.event_view(state, event, ADVISOR)["data"]["card"] == "KS"
    for seat in (BOX, None):
        data: Any = gin.event_view(state, event, seat)["data"]
        assert data["card"] is None and data["melds"] == event.data["melds"]


def test_g6_3_named_melds_must_be_own_disjoint_and_minimal() -> None:
    """G6.3.3: the knocker chooses among the least-deadwood arrangements only."""
    state = _g3_state()  # 7C 7D 7H 7S 8S 9S 2D 3D 4D KH + AH
    with pytest.raises(IllegalMove, match="not among your 10 cards"):
        gin.decide(state, CAPTAIN, knock("KH", [["5S", "6S", "7S"]]))
    with pytest.raises(IllegalMove, match=r"leave 18 deadwood.*allow 1.*G6\.3"):
        gin.decide(state, CAPTAIN, knock("KH", [["7C", "7D", "7H", "7S"], ["2D", "3D", "4D"]]))
    with pytest.raises(MalformedMove):
        gin.decide(state, CAPTAIN, {"type": "knock", "card": "KH", "melds": "7C 7D 7H"})  # type: ignore[typeddict-item]
    with pytest.raises(InvalidCard, match="ZZ"):
        gin.decide(state, CAPTAIN, knock("KH", [["ZZ", "7D", "7H"]]))


def test_g6_3_the_knocker_picks_which_minimal_arrangement_to_show() -> None:
    """G6.3.3 / A-G11: 2D..7D as one run or as two runs of three are both minimal; the named
    one is spread. Without melds the engine shows `choose_knock_arrangement` against the
    real defender hand."""
    state = position(
        box="6H 8H 5C 6C TD JD QS KS QC JC",
        captain="2D 3D 4D 5D 6D 7D 9C 9H 9S KH",
        upcard="AH",
    )
    state = plays(state, (CAPTAIN, TAKE))
    named = [["2D", "3D", "4D"], ["5D", "6D", "7D"], ["9C", "9H", "9S"]]
    with pytest.raises(IllegalMove, match="8H"):
        gin.decide(state, CAPTAIN, knock("KH", [["6H", "7H", "8H"]]))
    shown, _ = play(state, CAPTAIN, knock("KH", named))
    assert shown.knock is not None and shown.knock.count == 1
    assert [codes(m) for m in shown.knock.melds] == named
    auto, _ = play(state, CAPTAIN, knock("KH"))
    keep = [c for c in codes(state.hands[CAPTAIN]) if c != "KH"]
    expected = melds.choose_knock_arrangement(keep, codes(state.hands[BOX]))
    assert len(melds.minimal_arrangements(keep)) >= 2
    assert auto.knock is not None and auto.knock.melds == expected.melds


def test_g6_3_auto_canonical_refuses_named_melds() -> None:
    """G6.3 [opt knocker_arrangement auto_canonical]: the engine shows best_melds."""
    state = plays(
        position(
            KBOX,
            KNOCKABLE,
            "QH",
            options={"knocker_arrangement": "auto_canonical"},
        ),
        (CAPTAIN, TAKE),
    )
    with pytest.raises(IllegalMove, match="auto_canonical"):
        gin.decide(state, CAPTAIN, knock("KS", [["2C", "3C", "4C"]]))
    after, _ = play(state, CAPTAIN, knock("KS"))
    keep = [c for c in codes(state.hands[CAPTAIN]) if c != "KS"]
    assert after.knock is not None and after.knock.melds == melds.best_melds(keep).melds


GIN_CAPTAIN = "AC 2C 3C 4C 6D 6H 6S 9S TS KC"
GIN_BOX = "5D 7D 9D JD QH 2S 4S 8C TC QC"


def test_g6_4_a_hand_that_can_be_gin_is_gin() -> None:
    """G6.4: any arrangement with 0 deadwood makes the knock gin; naming melds that leave
    deadwood when 0 is possible is refused."""
    state = plays(position(GIN_BOX, GIN_CAPTAIN, "JS"), (CAPTAIN, TAKE))
    with pytest.raises(IllegalMove, match="allow 0"):
        gin.decide(
            state,
            CAPTAIN,
            knock("KC", [["AC", "2C", "3C"], ["6D", "6H", "6S"], ["9S", "TS", "JS"]]),
        )
    after, events = play(state, CAPTAIN, knock("KC"))
    assert events[0].data["gin"] is True and events[0].data["count"] == 0
    assert after.knock is not None and after.knock.gin


def test_g6_5_defender_spreads_own_melds() -> None:
    """G6.5: the round result shows the defender's own melds and deadwood."""
    state = position(box=KBOX, captain=KNOCKABLE, upcard="QH")
    state, events = score(plays(state, (CAPTAIN, TAKE), (CAPTAIN, knock("KS"))))
    result = result_of(events)
    assert sorted(map(sorted, result["melds"][BOX])) == [["2H", "3H", "4H"], ["8S", "9S", "TS"]]
    assert result["melds"][ADVISOR] is None and result["hands"][ADVISOR] is None
    assert result["hands"][CAPTAIN] == [c for c in KNOCKABLE.split() if c != "KS"] + ["QH"]


def test_g6_6_layoffs_only_extend_knocker_melds_and_never_after_gin() -> None:
    """G6.6: after gin nothing is laid off: 5C would extend AC-4C but stays deadwood."""
    state = plays(
        position(box="5C 7C 5D 7D 8H 9H TH JC QC QD", captain=GIN_CAPTAIN, upcard="JS"),
        (CAPTAIN, TAKE),
        (CAPTAIN, knock("KC")),
    )
    _, events = score(state)
    result = result_of(events)
    assert result["outcome"] == "gin" and result["layoffs"] == []
    assert result["deadwood"][BOX] == melds.deadwood(state.hands[BOX]) == 54


def test_g6_7_defender_count_is_the_least_over_melds_and_layoffs() -> None:
    """G6.7: O equals the exact optimum of domain.gin.melds.layoffs, over random knocks."""
    checked = 0
    for seed in range(40):
        events, states = random_match(seed, {"target_score": 30}, rng_seed=seed, advise=False)
        for before, event in zip(states, events[1:], strict=False):
            if event.type != "RoundScored" or event.data["outcome"] == "draw":
                continue
            knocker: Any = event.data["knocker"]
            defender = before.roles.other(knocker)  # type: ignore[union-attr]
            knock_ = before.knock
            assert knock_ is not None
            if knock_.gin:
                expected = melds.deadwood(before.hands[defender])
            else:
                expected = melds.layoffs(before.hands[defender], knock_.melds).count
            deadwood: Any = event.data["deadwood"]
            assert deadwood[defender] == expected
            checked += 1
    assert checked >= 20


# --- G7 scoring -----------------------------------------------------------------------------


def _e3(**options: Any) -> dict[str, Any]:
    state = position(
        box="AC 2C 3C 4C 6D 6H 6S 9S TS KC",
        captain="5C 6C QS 2H 7D 8D 9D JH QH KH",
        upcard="JS",
        options=options,
    )
    state = plays(state, (CAPTAIN, PASS), (BOX, TAKE), (BOX, knock("KC")))
    return dict(result_of(score(state)[1]))


def test_g7_1_gin_bonus_and_gin_scores_opponent_deadwood_options() -> None:
    """G7.1 [opt gin_bonus 25 / 20, gin_scores_opponent_deadwood]."""
    assert _e3()["points"] == [48, 0, 0]
    assert _e3(gin_bonus=20)["points"] == [43, 0, 0]
    assert _e3(gin_scores_opponent_deadwood=False)["points"] == [25, 0, 0]


def _knock6(box: str, **options: Any) -> dict[str, Any]:
    state = position(box=box, captain=KNOCKABLE, upcard="QH", options=options)
    state = plays(state, (CAPTAIN, TAKE), (CAPTAIN, knock("KS")))
    return dict(result_of(score(state)[1]))


def test_g7_2_knock_wins_the_difference() -> None:
    """G7.2: K = 6 < O = 14: the knocker scores 8 (E1)."""
    result = _knock6(KBOX)
    assert result["outcome"] == "knock" and result["points"] == [0, 8, 0]


def test_g7_3_undercut_scores_difference_plus_bonus_and_ties_per_option() -> None:
    """G7.3 [opt undercut_bonus, undercut_on_tie]: O = 2 < K = 6: BOX scores 4 + 10; a tie
    K = O = 6 is an undercut worth 10, or with undercut_on_tie false a won knock worth 0."""
    low = "8S 9S TS 2H 3H 4H 8D 8C 8H AD"  # O = 1 (AD), nothing to lay off
    result = _knock6(low)
    assert result["outcome"] == "undercut" and result["deadwood"] == [1, 6, None]
    assert result["points"] == [5 + 10, 0, 0]
    assert _knock6(low, undercut_bonus=25)["points"] == [5 + 25, 0, 0]
    tie = "8S 9S TS 2H 3H 4H 8D 8C 8H 6D"
    assert _knock6(tie)["points"] == [10, 0, 0]
    strict = _knock6(tie, undercut_on_tie=False)
    assert strict["outcome"] == "knock" and strict["points"] == [0, 0, 0]
    assert strict["winners"] == [CAPTAIN]


def test_g7_4_only_one_player_scores_and_the_advisor_never() -> None:
    """G7.4: in every scored hand of random matches one seat at most gains, never ADVISOR."""
    for seed in range(10):
        events, _ = random_match(seed, {"target_score": 40}, rng_seed=seed)
        for event in events:
            if event.type == "RoundScored":
                points: Any = event.data["points"]
                assert sum(p > 0 for p in points) <= 1
                assert points[event.data["advisor"]] == 0


def test_g7_5_individual_running_totals_follow_the_player_across_roles() -> None:
    """G7.5: a seat's total is the sum of what it scored, whichever role it held."""
    events, states = random_match(4, {"target_score": 60}, rng_seed=2)
    totals = [0, 0, 0]
    for event in events:
        if event.type == "RoundScored":
            points: Any = event.data["points"]
            totals = [t + p for t, p in zip(totals, points, strict=True)]
            assert event.data["scores"] == totals
    assert list(states[-1].scores) == totals  # no G8.2 bonus by default


def test_g7_6_box_won_means_box_scored() -> None:
    """G7.6: BOX won iff BOX scored, and the next deal keeps him as BOX (G1.5)."""
    events, _ = random_match(8, {"target_score": 60}, rng_seed=8)
    for i, event in enumerate(events):
        if event.type == "RoundScored" and events[i + 1].type == "RoundDealt":
            box_won = event.data["winners"] == [event.data["box"]]
            kept = events[i + 1].data["box"] == event.data["box"]
            assert kept == (box_won or event.data["outcome"] == "draw")


# --- G8 end of the game ---------------------------------------------------------------------


def test_g8_1_match_ends_when_the_scorer_reaches_the_target() -> None:
    """G8.1 [opt target_score]: the first hand to take a total to the target ends it."""
    state = position(
        box="AC 2C 3C 4C 6D 6H 6S 9S TS KC",
        captain="5C 6C QS 2H 7D 8D 9D JH QH KH",
        upcard="JS",
        options={"target_score": 48},
    )
    state = plays(state, (CAPTAIN, PASS), (BOX, TAKE), (BOX, knock("KC")))
    state, events = score(state)
    assert [e.type for e in events] == ["RoundScored", "MatchFinished"]
    assert events[1].data["winners"] == [BOX] and events[1].data["scores"] == [48, 0, 0]
    assert gin.is_finished(state) and gin.view(state, None)["status"] == "finished"
    assert gin.to_act(state) is None and gin.pending(state) is None
    with pytest.raises(IllegalMove, match=r"finished"):
        gin.decide(state, CAPTAIN, STOCK)
    assert all(gin.legal_moves(state, s) == [] for s in (0, 1, 2, SYSTEM))


def test_g8_2_bonuses_off_by_default_and_added_at_the_end_when_on() -> None:
    """G8.2 [opt game_bonus, box_bonus_per_hand, shutout_rule]."""
    base = {"target_score": 48}
    plain = _e3_finish(base)
    assert plain["bonuses"] == [0, 0, 0] and plain["scores"] == [48, 0, 0]
    on = _e3_finish({**base, "game_bonus": 100, "box_bonus_per_hand": 20})
    assert on["bonuses"] == [120, 0, 0] and on["scores"] == [168, 0, 0]
    shut = _e3_finish({**base, "game_bonus": 100, "shutout_rule": "double_game_bonus"})
    assert shut["scores"] == [248, 0, 0]
    double = _e3_finish({**base, "game_bonus": 100, "shutout_rule": "double_score"})
    assert double["scores"] == [296, 0, 0]


def _e3_finish(options: dict[str, Any]) -> dict[str, Any]:
    state = position(
        box="AC 2C 3C 4C 6D 6H 6S 9S TS KC",
        captain="5C 6C QS 2H 7D 8D 9D JH QH KH",
        upcard="JS",
        options=options,
    )
    state = plays(state, (CAPTAIN, PASS), (BOX, TAKE), (BOX, knock("KC")))
    _, events = score(state)
    return dict(events[-1].data)


# --- G9 state machine -----------------------------------------------------------------------


def test_g9_phase_sequence_of_a_hand() -> None:
    """G9: ROLE_DRAW -> DEAL -> UPCARD_OFFER -> TURN (DRAW -> DISCARD | KNOCK) -> SCORE ->
    DEAL or GAME_OVER, with SYSTEM moves between hands."""
    events = gin.create(PLAYERS, {}, 3, "")
    assert [e.type for e in events] == ["MatchCreated", "RolesDrawn", "RoundDealt"]
    states = [fold(events[:k]) for k in range(1, 4)]
    assert [s.phase for s in states] == [Phase.ROLE_DRAW, Phase.DEALING, Phase.UPCARD_OFFER]
    assert [gin.pending(s) for s in states[:2]] == [{"type": "draw_roles"}, {"type": "deal_round"}]
    seen: set[str] = set()
    _, states2 = random_match(5, {"target_score": 30}, rng_seed=1)
    for state in states2:
        seen.add(str(state.phase))
        if state.phase in (Phase.UPCARD_OFFER, Phase.DRAW, Phase.DISCARD):
            assert gin.to_act(state) is not None and gin.pending(state) is None
        elif state.phase != Phase.FINISHED:
            assert gin.to_act(state) is None and gin.pending(state) is not None
    assert {"upcard_offer", "draw", "discard", "scoring", "dealing", "finished"} <= seen


def test_g9_system_moves_only_by_the_service_and_only_when_due() -> None:
    """G9: score_round is a SYSTEM move; a seat gets ForbiddenMove, an early one IllegalMove."""
    state = dry()
    with pytest.raises(ForbiddenMove):
        gin.decide(state, CAPTAIN, {"type": "score_round"})
    with pytest.raises(IllegalMove, match="nothing is due"):
        gin.decide(state, SYSTEM, {"type": "score_round"})
    with pytest.raises(ForbiddenMove):
        gin.decide(state, SYSTEM, STOCK)


# --- moves and options ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "move",
    [
        None,
        "draw",
        {"type": "fly"},
        {"type": "draw"},
        {"type": "draw", "from": "hand"},
        {"type": "discard"},
        {"type": "discard", "card": "7H", "extra": 1},
        {"type": "take_upcard", "card": "7H"},
    ],
)
def test_malformed_moves_are_refused_by_shape(move: Any) -> None:
    """api.md moves: a bad shape is MalformedMove (validation_error)."""
    with pytest.raises(MalformedMove):
        gin.decide(dry(), CAPTAIN, move)


@pytest.mark.parametrize("code", ["7h", "10H", "X", 7, "JK"])
def test_bad_card_codes_are_invalid_card(code: Any) -> None:
    """api.md cards: anything but a plain card code is InvalidCard naming it."""
    state = plays(dry(), (CAPTAIN, TAKE))
    with pytest.raises(InvalidCard):
        gin.decide(state, CAPTAIN, {"type": "discard", "card": code})


def test_not_your_turn_and_cards_not_held() -> None:
    """G5.2: only the seat in `turn` moves, with its own cards."""
    state = plays(dry(), (CAPTAIN, TAKE))
    with pytest.raises(NotYourTurn, match="seat 1"):
        gin.decide(state, BOX, discard("AC"))
    with pytest.raises(IllegalMove, match="not in your hand"):
        gin.decide(state, CAPTAIN, discard("AC"))
    for seat in (7, None):
        with pytest.raises(ForbiddenMove):
            gin.decide(state, seat, discard("AC"))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("options", "names"),
    [
        ({"gin_bonuss": 20}, "gin_bonuss"),
        ({"gin_bonus": "20"}, "gin_bonus"),
        ({"gin_bonus": True}, "gin_bonus"),
        ({"knock_limit": 11}, "knock_limit"),
        ({"knock_limit": -1}, "knock_limit"),
        ({"target_score": 0}, "target_score"),
        ({"undercut_on_tie": 1}, "undercut_on_tie"),
        ({"advice_window": "never"}, "advice_window"),
        ({"team_scoring": "chouette_settlement"}, "team_scoring"),
        ({"opponent_layoffs": "manual"}, "opponent_layoffs"),
        ({"big_gin_bonus": 31}, "big_gin_bonus"),
    ],
)
def test_options_validated_naming_the_key(options: dict[str, Any], names: str) -> None:
    """Section 5: unknown keys, wrong types and out-of-range values are InvalidOptions."""
    with pytest.raises(InvalidOptions, match=names):
        gin.validate_options(options)
    with pytest.raises(InvalidOptions):
        gin.create(PLAYERS, options, 1, "")


def test_options_defaults_recorded_in_match_created() -> None:
    """Section 5: MatchCreated records every option with its default filled in."""
    options: Any = gin.create(PLAYERS, {"gin_bonus": 20}, 1, "")[0].data["options"]
    assert options["gin_bonus"] == 20 and options["undercut_bonus"] == 10
    assert options["knock_limit"] == 10 and options["target_score"] == 100
    assert options["undercut_on_tie"] is True and options["advisor_sees_captain_hand"] is True
    assert set(options) == set(gin.GinOptions().as_dict())


def test_views_have_the_api_shape() -> None:
    """api.md views: the common keys plus roles, discard_top, discard_size; spectators no
    hand; MatchCreated's seed and deal key hidden in every event view."""
    events = gin.create(PLAYERS, {}, 3, "")
    state = fold(events)
    seen = gin.view(state, None)
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
        "roles",
        "discard_top",
        "discard_size",
    ]:
        assert key in seen
    assert seen["you"] is None and seen["phase"] == "upcard_offer" and seen["stock_size"] == 31
    assert {s["role"] for s in seen["seats"]} == {"box", "captain", "advisor"}
    created = gin.event_view(gin.initial_state(), events[0], 0)["data"]
    assert created["seed"] is None and created["deal_key"] is None
    captain = state.roles.captain  # type: ignore[union-attr]
    assert you_of(gin.view(state, captain))["legal_moves"] == [TAKE, PASS]
    dealt: Any = gin.event_view(fold(events[:2]), events[2], None)["data"]
    assert dealt["stock"] == [None] * 31 and dealt["salt"] is None
    assert all(h is None or h == [None] * 10 for h in dealt["hands"])
