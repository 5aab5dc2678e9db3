"""Tiny helpers for the Manipulation Rummy tests: build positions from events, play randomly.

Imported by the other test_manipulation*.py modules (pytest's default import mode puts this
directory on sys.path). It holds no tests of its own.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from domain import manipulation as m
from domain.cards import Card, TableCard
from domain.events import SYSTEM, Event
from domain.manipulation.shapes import ManipulationMove
from domain.manipulation.state import State, pack, table_cards
from domain.manipulation.table.meld import parse_table_text

Move = ManipulationMove


def players(n: int) -> list[dict[str, Any]]:
    return [{"name": f"p{i}", "bot": None} for i in range(n)]


def cards(text: str) -> list[Card]:
    return [Card.parse(c) for c in text.split()]


def fold(events: Iterable[Event], state: State | None = None) -> State:
    state = m.initial_state() if state is None else state
    for event in events:
        state = m.evolve(state, event)
    return state


def new_match(n: int = 3, options: Mapping[str, Any] | None = None, seed: int = 7) -> State:
    return fold(m.create(players(n), options or {}, seed, ""))


def dealt(
    hands: Sequence[str],
    stock: str = "",
    *,
    dealer: int | None = None,
    options: Mapping[str, Any] | None = None,
    exact_stock: bool = False,
) -> State:
    """A match whose first round deals `hands` (seat order) with `stock` on top of the stock.

    The rest of the pack follows the named stock cards (so every card is somewhere), unless
    `exact_stock`, where the stock is exactly the named cards (a short stock for M9 tests).
    """
    n = len(hands)
    dealer = n - 1 if dealer is None else dealer
    created = m.create(players(n), options or {}, 1, "")[0]
    held = [cards(h) for h in hands]
    top = cards(stock)
    rest = Counter(pack(n))
    rest.subtract(Counter([c for h in held for c in h] + top))
    assert all(v >= 0 for v in rest.values()), "more copies named than the pack holds"
    pile = top if exact_stock else top + sorted(rest.elements())
    deal = Event(
        "RoundDealt",
        {
            "round": 1,
            "dealer": dealer,
            "hands": [[str(c) for c in h] for h in held],
            "stock": [str(c) for c in pile],
            "salt": "00",
            "commitment": "test",
        },
    )
    return fold([created, Event("DealerChosen", {"round": 1, "dealer": dealer}), deal])


def with_table(state: State, text: str) -> State:
    """Put melds on the table, taking their cards out of the stock (conservation holds)."""
    table = parse_table_text(text)
    stock = Counter(state.stock)
    stock.subtract(Counter(table_cards(table)))
    assert all(v >= 0 for v in stock.values()), "table cards not in the stock"
    left = list(state.stock)
    for card in table_cards(table):
        left.remove(card)
    return replace(state, table=table, stock=tuple(left))


def step(state: State, seat: int, move: Move) -> tuple[State, tuple[Event, ...]]:
    events = m.decide(state, seat, move)
    return fold(events, state), events


def table_move(text: str) -> Move:
    return {"type": "meld", "table": [[str(tc) for tc in meld] for meld in parse_table_text(text)]}


def conserved(state: State) -> bool:
    """Every physical card of the pack in exactly one place: hands, stock, table (M1.3)."""
    where = Counter(state.stock)
    for hand in state.hands:
        where.update(hand)
    where.update(table_cards(state.table))
    return where == Counter(pack(state.n))


def table_is_valid(state: State) -> bool:
    from domain.manipulation.table.meld import meld_kind

    return all(meld_kind(meld) is not None for meld in state.table)


def choose(rng: random.Random, moves: Sequence[Move]) -> Move:
    """A random legal move, leaning towards melds and knocks so rounds end in every way."""
    kinds = {mv["type"] for mv in moves}
    if "knock" in kinds and rng.random() < 0.6:
        return {"type": "knock"}
    melds = [mv for mv in moves if mv["type"] == "meld"]
    if melds and rng.random() < 0.75:
        return rng.choice(melds)
    return rng.choice(moves)


Check = Callable[[State, int, Move, tuple[Event, ...], State], None]


def random_match(
    seed: int,
    n: int,
    options: Mapping[str, Any] | None = None,
    *,
    max_steps: int = 3000,
    check: Check | None = None,
) -> tuple[State, list[Event]]:
    """A whole match with random legal moves; `check` sees every step (system ones too)."""
    rng = random.Random(seed)
    events = list(m.create(players(n), dict(options or {}), seed, ""))
    state = fold(events)
    for _ in range(max_steps):
        if m.is_finished(state):
            return state, events
        pending = m.pending(state)
        if pending is not None:
            seat, move = SYSTEM, pending
        else:
            to_act = m.to_act(state)
            assert to_act is not None, "nobody to act and nothing due in an unfinished match"
            seat, move = to_act, choose(rng, m.legal_moves(state, to_act))
        new = m.decide(state, seat, move)
        after = fold(new, state)
        if check is not None:
            check(state, seat, move, new, after)
        events.extend(new)
        state = after
    raise AssertionError(f"match seed={seed} n={n} did not end in {max_steps} steps")


def joker(declared: str) -> TableCard:
    return TableCard.parse(f"JK={declared}")
