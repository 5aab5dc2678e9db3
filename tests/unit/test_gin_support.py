"""Tiny helpers for the three-hand gin tests: positions from explicit card codes, random play.

Also a few checks of the helpers themselves, so a broken helper cannot pass silently.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from domain import gin
from domain.cards import FULL_DECK, codes
from domain.events import SYSTEM, Event
from domain.gin.melds import deadwood
from domain.gin.shapes import GinMove
from domain.gin.state import GinState, Phase
from domain.shuffle import commitment

PLAYERS = [{"name": "ana", "bot": None}, {"name": "ben", "bot": None}, {"name": "cy", "bot": None}]
KEY = "ab" * 32


def hand(text: str) -> list[str]:
    """`hand("AS 2S 3S")` -> ["AS", "2S", "3S"]."""
    return text.split()


def created(options: Mapping[str, Any] | None = None, seed: int | None = 7) -> Event:
    return Event(
        "MatchCreated",
        {
            "variant": "three-hand-gin",
            "players": PLAYERS,
            "options": gin.validate_options(options or {}),
            "seeded": seed is not None,
            "seed": seed,
            "deal_key": KEY,
        },
    )


def roles_drawn(box: int = 0, captain: int = 1, advisor: int = 2) -> Event:
    return Event(
        "RolesDrawn",
        {"draws": [], "tiebreak": "redraw", "box": box, "captain": captain, "advisor": advisor},
    )


def dealt(
    box: str,
    captain: str,
    upcard: str,
    stock_top: str = "",
    roles: tuple[int, int, int] = (0, 1, 2),
    round_no: int = 1,
) -> Event:
    """A RoundDealt with chosen hands, upcard and top of stock; the rest of the stock in deck
    order. The commitment is computed as the engine would (G4)."""
    b, c, up, top = hand(box), hand(captain), upcard, hand(stock_top)
    given = [*b, *c, up, *top]
    assert len(set(given)) == len(given), "a card is given twice"
    assert len(b) == len(c) == 10
    stock = top + [x for x in codes(FULL_DECK) if x not in given]
    hands: list[list[str] | None] = [None, None, None]
    hands[roles[0]], hands[roles[1]] = b, c
    deck = [x for pair in zip(c, b, strict=True) for x in pair] + [up, *stock]
    salt = "00" * 32
    return Event(
        "RoundDealt",
        {
            "round": round_no,
            "box": roles[0],
            "captain": roles[1],
            "advisor": roles[2],
            "hands": hands,
            "upcard": up,
            "stock": stock,
            "salt": salt,
            "commitment": commitment(deck, salt),
        },
    )


def fold(events: Sequence[Event], state: GinState | None = None) -> GinState:
    current = gin.initial_state() if state is None else state
    for event in events:
        current = gin.evolve(current, event)
    return current


def position(
    box: str,
    captain: str,
    upcard: str,
    stock_top: str = "",
    options: Mapping[str, Any] | None = None,
    roles: tuple[int, int, int] = (0, 1, 2),
) -> GinState:
    """The state right after a deal of the given cards; seats (box, captain, advisor)."""
    return fold(
        [created(options), roles_drawn(*roles), dealt(box, captain, upcard, stock_top, roles)]
    )


def play(state: GinState, seat: int, move: GinMove) -> tuple[GinState, list[Event]]:
    events = list(gin.decide(state, seat, move))
    return fold(events, state), events


def plays(state: GinState, *steps: tuple[int, GinMove]) -> GinState:
    for seat, move in steps:
        state, _ = play(state, seat, move)
    return state


def score(state: GinState) -> tuple[GinState, list[Event]]:
    """Run the due SYSTEM moves (score_round and the next deal or the end)."""
    assert gin.pending(state) is not None
    new, events = gin.autoplay_system(state)
    return new, list(events)


def result_of(events: Sequence[Event]) -> Mapping[str, Any]:
    return next(e.data for e in events if e.type == "RoundScored")


def choose(
    state: GinState, seat: int, rng: random.Random, greed: float = 0.85, knock_rate: float = 1.0
) -> GinMove:
    """A seeded random legal move; with probability `greed` a greedy one instead: knock when
    legal (gin always, other knocks with probability `knock_rate`), take a pile card that
    lowers the deadwood, discard to keep the least deadwood. So random matches still end in
    a few hands."""
    moves = gin.legal_moves(state, seat)
    if rng.random() >= greed or len(moves) == 1:
        return rng.choice(moves)
    held = state.hands[seat]
    knocks = [m for m in moves if m["type"] == "knock"]
    gins = [m for m in knocks if deadwood([c for c in held if str(c) != m["card"]]) == 0]
    if gins:
        return rng.choice(gins)
    if knocks and rng.random() < knock_rate:
        return rng.choice(knocks)
    if state.phase == Phase.DRAW and {"type": "draw", "from": "discard"} in moves:
        with_top = deadwood([*held, state.discard[-1]])
        return {"type": "draw", "from": "discard" if with_top < deadwood(held) else "stock"}
    discards = [m for m in moves if m["type"] == "discard"]
    if discards:
        return min(discards, key=lambda m: deadwood([c for c in held if str(c) != m["card"]]))
    return rng.choice(moves)


def _may_advise(state: GinState) -> bool:
    """The advisor may advise now (G1.4: at most 3 times per turn of the captain)."""
    assert state.roles is not None
    return bool(gin.legal_moves(state, state.roles.advisor))


def random_match(
    seed: int,
    options: Mapping[str, Any] | None = None,
    rng_seed: int = 0,
    max_steps: int = 5000,
    advise: bool = True,
    knock_rate: float = 1.0,
) -> tuple[list[Event], list[GinState]]:
    """A full match of seeded random legal play: the log and the state after every event."""
    rng = random.Random(rng_seed)
    events = list(gin.create(PLAYERS, options or {}, seed, ""))
    states = []
    state = gin.initial_state()
    for event in events:
        state = gin.evolve(state, event)
        states.append(state)
    for _ in range(max_steps):
        if gin.is_finished(state):
            return events, states
        seat = gin.to_act(state)
        if seat is None:
            seat = SYSTEM
            due = gin.pending(state)
            assert due is not None, "nobody to act and nothing due in an unfinished match"
            move = due
        elif advise and state.roles is not None and rng.random() < 0.05 and _may_advise(state):
            seat = state.roles.advisor
            move = {"type": "advise", "text": "hm"}
        else:
            move = choose(state, seat, rng, knock_rate=knock_rate)
        for event in gin.decide(state, seat, move):
            state = gin.evolve(state, event)
            events.append(event)
            states.append(state)
    raise AssertionError(f"match of seed {seed} did not end in {max_steps} steps")


def test_position_helper_deals_the_given_cards() -> None:
    """G4.2 / G4.3 through the helper: 10 + 10 cards, the upcard, 31 stock cards."""
    state = position(
        "AC 2C 3C 4C 5C 6C 7C 8C 9C TC", "AD 2D 3D 4D 5D 6D 7D 8D 9D TD", "KS", "QS JS"
    )
    assert codes(state.hands[0])[:2] == ["AC", "2C"]
    assert len(state.hands[1]) == 10 and state.hands[2] == ()
    assert codes(state.discard) == ["KS"]
    assert codes(state.stock[:2]) == ["QS", "JS"] and len(state.stock) == 31


def test_random_match_helper_ends_and_scores() -> None:
    """G8.1 through the helper: a random match reaches the target and names a winner."""
    events, states = random_match(3, {"target_score": 30})
    assert events[-1].type == "MatchFinished"
    assert max(states[-1].scores) >= 30
