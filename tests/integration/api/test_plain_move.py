"""The move POST skips MoveSchema's load for the bodies `plain_move` recognises (issue 14):
every such body must be one the schema accepts, and the common moves must be recognised.
Any other body is loaded by the schema, which gives the 422 (test_hostile_input.py)."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from api.moves import MOVE_SCHEMA
from api.schemas import MOVE_TYPES, plain_move
from domain import gin
from domain.events import SYSTEM
from tests.unit.test_gin_support import fold

VALUES = st.one_of(
    st.sampled_from([*MOVE_TYPES, "stock", "discard", "7H", "JK", "", "x" * 16, "x" * 17]),
    st.text(max_size=20),
    st.integers(),
    st.none(),
    st.booleans(),
    st.lists(st.text(max_size=3), max_size=3),
    st.dictionaries(st.text(max_size=5), st.text(max_size=5), max_size=2),
)
NEAR = st.one_of(
    st.sampled_from(["7H", "", "x" * 16, "x" * 17, "stock", "discard", "Stock", "draw"]), VALUES
)
BODIES = st.fixed_dictionaries(
    {"type": st.one_of(st.sampled_from([*MOVE_TYPES, "nope"]), VALUES)},
    optional={"card": NEAR, "from": NEAR, "from_": NEAR, "melds": VALUES, "text": VALUES},
)


@given(st.one_of(BODIES, VALUES))
def test_a_plain_move_is_one_the_schema_accepts(body: Any) -> None:
    if plain_move(body):
        assert MOVE_SCHEMA.validate(body) == {}


ABSENT = object()
EDGES: list[Any] = [ABSENT, "7H", "", "x" * 16, "x" * 17, "stock", "discard", "Stock", 7, None]


def test_plain_moves_at_the_edges_of_each_field_are_ones_the_schema_accepts() -> None:
    """Every known type (and a wrong one) with every edge value of `card` and `from`."""
    plain = 0
    for kind in [*MOVE_TYPES, "nope", 3]:
        for card in EDGES:
            for source in EDGES:
                body = {"type": kind, "card": card, "from": source}
                body = {k: v for k, v in body.items() if v is not ABSENT}
                if plain_move(body):
                    plain += 1
                    assert MOVE_SCHEMA.validate(body) == {}, body
    # card: absent or one of the five strings of 1 to 16 characters; from: absent or a source
    assert plain == len(MOVE_TYPES) * 6 * 3


def test_every_listed_gin_move_but_advice_is_plain() -> None:
    """The moves the views list (G5.1, G5.2, G6.1) take the short path."""
    rng = random.Random(3)
    players = [{"name": n} for n in "abc"]
    state = fold(gin.create(players, {"target_score": 30}, 3, "0" * 64))
    seen = 0
    while not gin.is_finished(state):
        seat = gin.to_act(state)
        if seat is None:
            seat, move = SYSTEM, gin.pending(state)
        else:
            listed = gin.legal_moves(state, seat)
            assert all(plain_move(dict(m)) for m in listed)
            seen += len(listed)
            move = rng.choice(listed)
        assert move is not None
        for event in gin.decide(state, seat, move):
            state = gin.evolve(state, event)
    assert seen > 100
