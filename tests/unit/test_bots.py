"""Built-in bots (issue 5): always legal, pure functions of one seat's view, deterministic.

Positions come from real matches driven by a mix of the bots themselves (so knocks, gin,
lay-offs, meld rounds and the last lap all occur), with small target scores to keep it short.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import json
import random
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain import bots
from domain.events import SYSTEM
from domain.variants import Variant, get_variant, move_from_json
from tests.support.views import you_of

GIN = "three-hand-gin"
MANIP = "manipulation-rummy"
NAMES = ("random", "basic", "expert")


def _apply(game: Variant, state: Any, seat: int, move: Mapping[str, Any]) -> Any:
    for event in game.decide(state, seat, move_from_json(move)):
        state = game.evolve(state, event)
    return state


def positions(
    variant: str, players: int, seed: int, steps: int, options: dict[str, Any]
) -> Iterator[tuple[Any, int]]:
    """(state, seat to act) along a match whose moves a seeded mix of the bots makes."""
    game = get_variant(variant)
    names = [{"name": f"p{i}", "bot": None} for i in range(players)]
    state = game.initial_state()
    for event in game.create(names, options, seed, ""):
        state = game.evolve(state, event)
    driver = random.Random(seed)
    for _ in range(steps):
        if game.is_finished(state):
            return
        due = game.pending(state)
        if due is not None:
            state = _apply(game, state, SYSTEM, due)
            continue
        seat = game.to_act(state)
        assert seat is not None
        yield state, seat
        view = game.view(state, seat)
        bot = driver.choice(("basic", "basic", "expert", "random"))
        move = bots.choose(variant, bot, view, you_of(view)["legal_moves"], driver)
        state = _apply(game, state, seat, move)


def assert_legal(variant: str, state: Any, seat: int, name: str, seed: int) -> None:
    """The bot's move is listed (gin, and manip non-melds) or accepted by decide (any)."""
    game = get_variant(variant)
    view = game.view(state, seat)
    legal = game.legal_moves(state, seat)
    move, reason = bots.explain(variant, name, view, legal, random.Random(seed))
    assert isinstance(reason, str) and reason and "\n" not in reason
    if variant == GIN or move["type"] != "meld":
        assert move in legal, f"{name} chose {move} not in {legal}"
    game.decide(state, seat, move_from_json(move))  # raises if the move is refused


@settings(max_examples=5)
@given(seed=st.integers(0, 10**6))
def test_gin_bot_moves_are_always_legal(seed: int) -> None:
    """G5-G6: every bot's move, in every phase reached, is one of the seat's legal moves."""
    for k, (state, seat) in enumerate(positions(GIN, 3, seed, 70, {"target_score": 40})):
        for name in NAMES:
            assert_legal(GIN, state, seat, name, seed + k)


@settings(max_examples=4)
@given(seed=st.integers(0, 10**6), players=st.integers(2, 4))
def test_manipulation_bot_moves_are_always_legal(seed: int, players: int) -> None:
    """M4-M9: every bot's move is legal; a meld table is accepted by decide (I1-I6)."""
    options = {"target_score": 40}
    for k, (state, seat) in enumerate(positions(MANIP, players, seed, 40, options)):
        for name in NAMES:
            assert_legal(MANIP, state, seat, name, seed + k)


def test_every_bot_takes_only_view_legal_moves_and_rng() -> None:
    """Bots cannot cheat: their only parameters are (view, legal_moves, rng)."""
    for variant, registry in bots.BOTS.items():
        assert set(registry) >= set(NAMES), variant
        for bot in registry.values():
            for function in (bot.choose, bot.explain):
                params = list(inspect.signature(function).parameters)
                assert params == ["view", "legal_moves", "rng"], (bot.name, variant, params)


def _sample_positions() -> Iterator[tuple[str, Any, int]]:
    for variant, players in ((GIN, 3), (MANIP, 3)):
        for k, (state, seat) in enumerate(positions(variant, players, 5, 40, {})):
            if k % 5 == 0:
                yield variant, state, seat


@pytest.mark.parametrize("name", NAMES)
def test_bots_need_only_the_json_view(name: str) -> None:
    """A bot given the view as plain JSON (what an HTTP client gets) plays the same move,
    and leaves the view it was given unchanged: it needs nothing from the state."""
    for variant, state, seat in _sample_positions():
        game = get_variant(variant)
        view = game.view(state, seat)
        before = copy.deepcopy(view)
        wire = json.loads(json.dumps(view))
        legal = wire["you"]["legal_moves"]
        direct = bots.choose(variant, name, view, legal, random.Random(3))
        assert view == before
        assert bots.choose(variant, name, wire, legal, random.Random(3)) == direct


def test_gin_bots_ignore_what_the_seat_cannot_see() -> None:
    """G1.4: two states that differ only in hidden cards (the opponent's hand, the stock
    order) give the seat the same view, so every bot makes the same move in both."""
    game = get_variant(GIN)
    checked = 0
    for state, seat in positions(GIN, 3, 9, 45, {}):
        roles = state.roles
        other = roles.other(seat)
        if not state.stock or not state.hands[other]:
            continue
        hand, stock = list(state.hands[other]), list(state.stock)
        hand[0], stock[-1] = stock[-1], hand[0]
        hands = list(state.hands)
        hands[other] = tuple(hand)
        twin = dataclasses.replace(state, hands=tuple(hands), stock=tuple(stock))
        view = game.view(state, seat)
        if view != game.view(twin, seat):
            continue
        for name in NAMES:
            legal = you_of(view)["legal_moves"]
            one = bots.choose(GIN, name, view, legal, random.Random(1))
            two = bots.choose(GIN, name, game.view(twin, seat), legal, random.Random(1))
            assert one == two
        checked += 1
    assert checked > 10


@pytest.mark.parametrize("name", NAMES)
def test_bots_are_deterministic_for_a_seed(name: str) -> None:
    """The same view, legal moves and rng seed give the same move (a rerun job agrees)."""
    for variant, state, seat in _sample_positions():
        game = get_variant(variant)
        view = game.view(state, seat)
        legal = you_of(view)["legal_moves"]
        moves = {
            json.dumps(bots.choose(variant, name, view, legal, random.Random(42)), sort_keys=True)
            for _ in range(2)
        }
        assert len(moves) == 1


def test_a_bot_with_no_legal_move_refuses() -> None:
    """Bots are only asked when the seat has a move; with none they raise ValueError."""
    game = get_variant(GIN)
    state, seat = next(positions(GIN, 3, 1, 5, {}))
    view = game.view(state, seat)
    for variant in (GIN, MANIP):
        for name in NAMES:
            with pytest.raises(ValueError):
                bots.choose(variant, name, view, [], random.Random(0))


def test_expert_advises_the_captain_with_an_accepted_advise_move() -> None:
    """G1.3/G1.4: the ADVISOR's only move is advise; expert's advice is accepted by decide."""
    game = get_variant(GIN)
    seen = 0
    for state, _ in positions(GIN, 3, 4, 40, {}):
        advisor = state.roles.advisor
        legal = game.legal_moves(state, advisor)
        if legal != [{"type": "advise"}]:
            continue
        view = game.view(state, advisor)
        move, reason = bots.explain(GIN, "expert", view, legal, random.Random(0))
        assert move["type"] == "advise" and reason
        game.decide(state, advisor, move_from_json(move))
        for name in ("random", "basic"):
            assert bots.choose(GIN, name, view, legal, random.Random(0)) == {"type": "advise"}
        seen += 1
    assert seen > 5


def test_best_bot_and_hint() -> None:
    """GET /hint uses the strongest bot: `expert`, with its move and a reason."""
    for variant, state, seat in _sample_positions():
        assert bots.best_bot(variant) == "expert"
        game = get_variant(variant)
        view = game.view(state, seat)
        move, reason = bots.hint(variant, view, you_of(view)["legal_moves"], random.Random(0))
        assert move == bots.choose(variant, "expert", view, you_of(view)["legal_moves"],
                                   random.Random(0))  # fmt: skip
        assert reason


def test_catalogue_lists_every_bot_of_both_games() -> None:
    """GET /v1/bots: name, variant, description for random, basic and expert of each game."""
    listed = {(b["variant"], b["name"]) for b in bots.catalogue()}
    assert listed >= {(v, n) for v in (GIN, MANIP) for n in NAMES}
    assert all(b["description"] for b in bots.catalogue())
