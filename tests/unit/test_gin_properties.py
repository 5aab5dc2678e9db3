"""Property tests over random full three-hand gin matches (issue 2, STYLE.md "Tests").

Each example plays a whole match with seeded random legal moves (test_gin_support.random_match:
mostly greedy so hands end by knocks, sometimes advice) under random options, with a small
target so the match ends quickly, then checks after every event:

- card conservation: each of the 52 cards in exactly one place (G2.1, G4);
- exactly one seat to act unless finished or a SYSTEM move is pending (G9);
- every listed legal move is accepted, and sampled unlisted moves are refused with the state
  unchanged;
- replay of every prefix of the JSON log equals the state built step by step;
- no view or event view shows a seat a card it may not see (G1.4);
- matches end within a step bound (random_match raises otherwise).
"""

from __future__ import annotations

import dataclasses
import json
import random
from typing import Any, cast

from hypothesis import given
from hypothesis import strategies as st

from domain import gin
from domain.cards import FULL_DECK
from domain.errors import RulesError
from domain.events import SYSTEM, Event
from domain.gin.shapes import GinMove
from domain.gin.state import GinState, Phase, card_places, codes
from domain.replay import replay
from tests.unit.test_gin_support import random_match

OPTIONS = st.fixed_dictionaries(
    {
        "target_score": st.sampled_from([25, 30]),
        "knock_limit": st.sampled_from([10, 10, 7, 4]),
        "no_discard_of_taken_card": st.booleans(),
        "advisor_sees_captain_hand": st.booleans(),
        "undercut_on_tie": st.booleans(),
        "layoff_chain": st.booleans(),
        "role_draw_tiebreak": st.sampled_from(["redraw", "suit_order"]),
        "knocker_arrangement": st.sampled_from(["player_choice_among_minimal", "auto_canonical"]),
    }
)
MATCH = st.tuples(st.integers(0, 2**31), st.integers(0, 2**31), OPTIONS)
ACTIVE = (Phase.UPCARD_OFFER, Phase.DRAW, Phase.DISCARD)
DECK = codes(FULL_DECK)
DECK_SET = frozenset(DECK)
KINDS = ["take_upcard", "pass_upcard", "draw", "discard", "knock", "advise", "score_round"]
KINDS += ["deal_round", "fly"]


def _play(match: tuple[int, int, dict[str, Any]]) -> tuple[list[Event], list[GinState]]:
    seed, rng_seed, options = match
    return random_match(seed, options, rng_seed=rng_seed, max_steps=3000)


@given(MATCH)
def test_cards_conserved_and_one_seat_to_act(match: tuple[int, int, dict[str, Any]]) -> None:
    """G2.1/G4: every card in one place after every event; G9: one seat to act, else a
    pending SYSTEM move, else finished."""
    events, states = _play(match)
    for event, state in zip(events, states, strict=True):
        if state.round > 0:
            places = card_places(state)
            held = sorted(c for cards in places.values() for c in cards)
            assert held == list(FULL_DECK), event.type
            assert len(state.hands[state.roles.advisor]) == 0  # type: ignore[union-attr]
        acting, due = gin.to_act(state), gin.pending(state)
        if gin.is_finished(state):
            assert acting is None and due is None
        else:
            assert (acting is None) != (due is None), (event.type, state.phase)
    assert events[-1].type == "MatchFinished"
    assert sum(1 for s in states if gin.is_finished(s)) == 1


def _random_move(rng: random.Random) -> GinMove:
    kind = rng.choice(KINDS)
    move: dict[str, Any] = {"type": kind}
    if kind == "draw":
        move["from"] = rng.choice(["stock", "discard", "hand"])
    if kind in ("discard", "knock"):
        move["card"] = rng.choice([*DECK, "JK", "ZZ"])
    return cast(GinMove, move)  # malformed on purpose at times ("from": "hand", "ZZ")


def _snapshot(state: GinState) -> tuple[GinState, str]:
    """The state's value: its frozen fields, and its round results (the only dicts) as JSON."""
    return dataclasses.replace(state, rounds=()), json.dumps(list(state.rounds))


def _listed(state: GinState, seat: int, move: GinMove) -> bool:
    return move in gin.legal_moves(state, seat)


@given(MATCH)
def test_listed_moves_accepted_and_unlisted_refused(match: tuple[int, int, dict[str, Any]]) -> None:
    """Every legal move listed is accepted (and folds); random unlisted moves raise a
    RulesError and leave the state as it was."""
    _, states = _play(match)
    rng = random.Random(match[0])
    seats = [0, 1, 2, SYSTEM]
    for state in states[:: max(1, len(states) // 40)]:
        for seat in seats:
            for move in gin.legal_moves(state, seat):
                produced = gin.decide(state, seat, move)
                assert produced
                for event in produced:
                    gin.evolve(state, event)
        for _ in range(6):
            seat, move = rng.choice(seats), _random_move(rng)
            if _listed(state, seat, move):
                continue
            snapshot = _snapshot(state)
            try:
                gin.decide(state, seat, move)
            except RulesError:
                pass
            else:
                raise AssertionError(f"unlisted move {move} by seat {seat} was accepted")
            assert _snapshot(state) == snapshot


@given(MATCH)
def test_replay_of_every_prefix_equals_the_state_step_by_step(
    match: tuple[int, int, dict[str, Any]],
) -> None:
    """Chance is data: folding the JSON-roundtripped log gives the same state at every k."""
    events, states = _play(match)
    decoded = [Event.from_json(json.loads(json.dumps(e.to_json()))) for e in events]
    state = gin.initial_state()
    for k, event in enumerate(decoded):
        state = gin.evolve(state, event)
        assert state == states[k]
        assert state.version == k + 1
    rng = random.Random(match[1])
    for k in rng.sample(range(1, len(events) + 1), 3):
        assert replay(decoded[:k]) == states[k - 1]


def _sees(state: GinState, viewer: int | None, owner: int) -> bool:
    """G1.4, written independently of the engine: own cards; ADVISOR sees CAPTAIN's."""
    roles = state.roles
    if viewer is None or roles is None:
        return False
    captain_shown = state.options.advisor_sees_captain_hand
    return viewer == owner or (viewer == roles.advisor and owner == roles.captain and captain_shown)


def _secret(state: GinState, viewer: int | None) -> set[str]:
    """The cards `viewer` may not see in this state (the cards a seat took from the discard
    pile and still holds are public, G1.4: `picked`)."""
    roles = state.roles
    if roles is None or state.round == 0:
        return set()
    hidden = set(codes(state.stock))
    knock = state.knock
    if knock is not None and not _sees(state, viewer, knock.seat):
        hidden.add(str(knock.card))
    if state.phase in (Phase.DEALING, Phase.FINISHED):
        return hidden  # the round result showed both hands
    for owner in (roles.box, roles.captain):
        spread = knock is not None and knock.seat == owner
        if not spread and not _sees(state, viewer, owner):
            hidden |= set(codes(state.hands[owner])) - set(codes(state.picked[owner]))
    return hidden


def _cards_in(value: Any, found: set[str] | None = None) -> set[str]:
    """Every card code anywhere in JSON-ready data."""
    found = set() if found is None else found
    kind = type(value)
    if kind is str:
        if value in DECK_SET:
            found.add(value)
    elif kind is dict:
        for v in value.values():
            _cards_in(v, found)
    elif kind is list or kind is tuple:
        for v in value:
            _cards_in(v, found)
    return found


@given(MATCH)
def test_views_and_event_views_leak_nothing(match: tuple[int, int, dict[str, Any]]) -> None:
    """G1.4: no view or event view holds a card of another seat's hand, the stock or a
    face-down knock card, beyond what the seat may see; spectators see no hand."""
    events, states = _play(match)
    viewers: list[int | None] = [0, 1, 2, None]
    before = gin.initial_state()
    for event, after in zip(events, states, strict=True):
        for seat in viewers:
            shown = {k: v for k, v in gin.view(after, seat).items() if k != "rounds"}
            leaked = _cards_in(shown) & _secret(after, seat)
            assert not leaked, (seat, after.phase, leaked)
            redacted = gin.event_view(before, event, seat)
            secret = _secret(after, seat)
            if event.type != "RoundDealt":
                secret &= _secret(before, seat)
            leaked = _cards_in(redacted["data"]) & secret
            assert not leaked, (seat, event.type, leaked)
            if event.type == "MatchCreated":
                assert redacted["data"]["deal_key"] is None and redacted["data"]["seed"] is None
        spectator = gin.view(after, None)
        assert spectator["you"] is None
        before = after
