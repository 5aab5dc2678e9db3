"""Property tests over random full Manipulation Rummy matches (2 to 5 players).

After every event: every physical card in exactly one place (M1.2, M1.3) and only valid melds
on the table (I2). After every step: exactly one seat to act unless finished or scoring is
pending; every listed legal move is accepted, a sample of unlisted moves is refused with the
state unchanged; no view and no event view shows a card its seat may not see. At the end:
replaying any prefix of the log gives the state built step by step, and every match ends.
"""

from __future__ import annotations

import builtins
import json
import os
import random
import time
from collections import Counter
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain import manipulation as m
from domain.cards import Card
from domain.errors import IllegalMove, NotYourTurn, RulesError
from domain.events import SYSTEM, Event
from domain.manipulation.state import Phase, State, table_codes
from domain.replay import replay
from tests.support.manipulation_helpers import Move, conserved, fold, random_match, table_is_valid

EXTRA_OPTIONS = st.sampled_from(
    [
        {},
        {"knock_timing": "after_any_draw"},
        {"last_lap_knock": True, "knock_limit": 10},
        {"next_dealer": "random", "tie_handling": "split_equally"},
        {"initial_meld_per_player": True},
        {"one_real_card_frees_one_joker": False, "next_dealer": "round_winner"},
    ]
)


def _check_events(before: State, events: tuple[Event, ...]) -> None:
    state = before
    for event in events:
        state = m.evolve(state, event)
        assert conserved(state), f"cards not conserved after {event.type}"
        assert table_is_valid(state), f"invalid meld on the table after {event.type}"


def _check_turn(state: State) -> None:
    if m.is_finished(state) or m.pending(state) is not None:
        assert m.to_act(state) is None
        assert all(m.legal_moves(state, s) == [] for s in range(state.n))
    else:
        seat = m.to_act(state)
        assert seat is not None and 0 <= seat < state.n
        assert m.legal_moves(state, seat), "the seat to act has no legal move"
        assert all(m.legal_moves(state, s) == [] for s in range(state.n) if s != seat)


def _refused(state: State, seat: int, move: Move, error: type[RulesError] = RulesError) -> None:
    copy = state
    with pytest.raises(error):
        m.decide(state, seat, move)
    assert state == copy


def _check_moves(state: State, seat: int, listed: list[Move]) -> None:
    for move in listed:
        m.decide(state, seat, move)  # every listed move is accepted
    plain: list[Move] = [{"type": t} for t in ("draw", "knock", "end_turn", "pass")]
    for move in plain:
        if move not in listed:
            _refused(state, seat, move, IllegalMove)
    other = (seat + 1) % state.n
    for move in listed[:2]:
        _refused(state, other, move, NotYourTurn)
    hand = Counter(state.hands[seat])
    stranger = next(Card(i) for i in range(52) if not hand[Card(i)])
    grown = [*table_codes(state.table), [str(stranger)] * 3]
    _refused(state, seat, {"type": "meld", "table": grown})
    _refused(state, seat, {"type": "meld", "table": table_codes(state.table)})
    plain_cards = [c for c in state.hands[seat] if not c.is_joker]
    if plain_cards:  # a one-card meld is never valid (M2.1), whatever the phase
        alone = [*table_codes(state.table), [str(plain_cards[0])]]
        _refused(state, seat, {"type": "meld", "table": alone})


def _twin(state: State, seat: int | None, rng: random.Random) -> State:
    """The same state with every card `seat` may not see dealt around differently."""
    hidden = [s for s in range(state.n) if s != seat]
    pool = [c for s in hidden for c in state.hands[s]] + list(state.stock)
    rng.shuffle(pool)
    hands = list(state.hands)
    for s in hidden:
        size = len(hands[s])
        hands[s], pool = tuple(sorted(pool[:size])), pool[size:]
    return replace(state, hands=tuple(hands), stock=tuple(pool))


def _check_views(state: State, rng: random.Random) -> None:
    if not state.hands:
        return
    for seat in [None, *range(state.n)]:
        assert m.view(state, seat) == m.view(_twin(state, seat, rng), seat)
        json.dumps(m.view(state, seat))


def _check_event_views(before: State, events: tuple[Event, ...]) -> None:
    state = before
    for event in events:
        for seat in [None, *range(state.n)]:
            seen = m.event_view(state, event, seat)
            json.dumps(seen)
            data: Any = seen["data"]
            recorded: Any = event.data
            if event.type == "RoundDealt":
                assert data["salt"] is None and set(data["stock"]) == {None}
                for s, hand in enumerate(data["hands"]):
                    assert (hand == recorded["hands"][s]) if s == seat else set(hand) == {None}
            if event.type == "CardDrawn" and event.data["seat"] != seat:
                assert data["card"] is None
            if event.type == "MatchCreated":
                assert data["seed"] is None and data["deal_key"] is None
        state = m.evolve(state, event)


@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    n=st.integers(2, 5),
    extra=EXTRA_OPTIONS,
    target=st.sampled_from([40, 40, 40, 120]),
)
def test_random_matches_keep_every_invariant(
    seed: int, n: int, extra: dict[str, Any], target: int
) -> None:
    """M1.2/M1.3 conservation, I2, one seat to act, legal moves, views, replay, M11 ends."""
    rng = random.Random(seed)
    states: list[State] = []

    def check(
        before: State, seat: int, move: Move, events: tuple[Event, ...], after: State
    ) -> None:
        _check_turn(before)
        if seat != SYSTEM:
            _check_moves(before, seat, m.legal_moves(before, seat))
        _check_events(before, events)
        _check_event_views(before, events)
        if rng.random() < 0.2:
            _check_views(before, rng)
        states.append(after)

    final, log = random_match(seed, n, {"target_score": target, **extra}, check=check)
    _check_turn(final)
    assert m.is_finished(final) and final.winners
    assert replay(log) == final
    versions = {s.version: s for s in states}
    for k in rng.sample(sorted(versions), min(5, len(versions))):
        assert replay(log[:k]) == versions[k]
    decoded = [Event.from_json(json.loads(json.dumps(e.to_json()))) for e in log]
    assert fold(decoded) == final


def test_the_domain_is_pure_a_match_needs_no_clock_random_or_files(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """architecture.md: no clock, no global random, no I/O anywhere in a whole match."""

    def forbidden(*args: object, **kwargs: object) -> None:
        raise AssertionError("the domain reached for the clock, global random or a file")

    for target, name in ((time, "time"), (random, "random"), (os, "urandom"), (builtins, "open")):
        monkeypatch.setattr(target, name, forbidden)
    final, _ = random_match(12345, 3, {"target_score": 40})
    assert m.is_finished(final)
    assert final.phase is Phase.FINISHED
