"""The gin fast paths (issue 14) give exactly what the slow ones give.

- `decide` first tries `accepted_play`, which accepts the common moves of the seat to act
  with fewer checks: whatever it accepts, `decide_in_full` accepts with the same events, and
  whatever `decide_in_full` refuses, it leaves to it (G1.3, G5.1, G5.2, G5.3).
- `view` with the game's cache (`gin.VIEWS`) shares its read-only parts between the views of
  one match (views._Shown): every view equals, key order included, the view rendered with
  no cache (`views.view(state, seat)`).
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from domain import gin
from domain.errors import RulesError
from domain.gin import views
from domain.gin.fast_play import accepted_play
from domain.gin.moves import decide_in_full
from domain.gin.state import CODE, GinState
from tests.support.views import you_of
from tests.unit.test_gin_support import random_match

OTHER_MOVES: list[Any] = [
    {"type": "take_upcard"},
    {"type": "pass_upcard"},
    {"type": "pass_upcard", "card": "AS"},
    {"type": "draw", "from": "stock"},
    {"type": "draw", "from": "discard"},
    {"type": "draw", "from": "table"},
    {"type": "draw", "from": ["stock"]},
    {"type": "draw"},
    {"type": "draw", "from": "stock", "extra": 1},
    {"type": "discard"},
    {"type": "discard", "card": ["AS"]},
    {"type": "discard", "card": "JK"},
    {"type": "discard", "card": "as"},
    {"type": "discard", "card": "AS", "melds": []},
    {"type": ["discard"], "card": "AS"},
    {"type": "knock", "card": "AS"},
    {"type": "advise"},
    {"type": "score_round"},
    ["discard", "AS"],
    None,
]


def _candidates(state: GinState) -> list[Any]:
    """Every listed move of every seat, every discard of every card, and malformed moves."""
    listed = [m for seat in range(3) for m in gin.legal_moves(state, seat)]
    discards = [{"type": "discard", "card": code} for code in CODE]
    return [*listed, *discards, *OTHER_MOVES]


def _full(state: GinState, seat: Any, move: Any) -> tuple[Any, ...] | None:
    try:
        return decide_in_full(state, seat, move)
    except RulesError:
        return None


@pytest.mark.parametrize("seed", [3, 8])
def test_fast_decide_accepts_only_what_the_full_checks_accept(seed: int) -> None:
    """G1.3 / G5.1-G5.3: same events for every accepted move; no move the rules refuse."""
    _, states = random_match(seed, {"target_score": 100, "no_discard_of_taken_card": True})
    accepted = 0
    for state in states:
        for seat in (0, 1, 2, True, -1, None):
            for move in _candidates(state):
                fast = accepted_play(state, seat, move)  # type: ignore[arg-type]
                if fast is not None:
                    assert fast == _full(state, seat, move), (state.phase, seat, move)
                    accepted += 1
    assert accepted > 100  # the fast path did serve the common moves


def test_fast_decide_serves_every_listed_upcard_draw_and_discard_move() -> None:
    """Each listed move of these kinds is accepted by the fast path with the full events."""
    _, states = random_match(5, {"target_score": 30})
    for state in states:
        seat = gin.to_act(state)
        if seat is None:
            continue
        for move in gin.legal_moves(state, seat):
            if move["type"] != "knock":
                assert accepted_play(state, seat, move) == decide_in_full(state, seat, move)


def _views_along(states: list[GinState]) -> list[str]:
    return [json.dumps(gin.view(state, seat)) for state in states for seat in (0, 1, 2, None)]


def test_shared_view_parts_render_as_a_fresh_view() -> None:
    """Views with parts remembered from earlier states equal views rendered afresh, key
    order included (json text), along two matches played in turn."""
    _, first = random_match(11, {"target_score": 100})
    _, second = random_match(12, {"target_score": 100, "advisor_sees_captain_hand": False})
    interleaved = [s for pair in zip(first, second, strict=False) for s in pair]
    remembered = _views_along(interleaved)
    fresh = []
    for state in interleaved:
        for seat in (0, 1, 2, None):
            fresh.append(json.dumps(views.view(state, seat)))
    assert remembered == fresh


def _fresh_views(states: list[GinState]) -> list[str]:
    fresh = []
    for state in states:
        for seat in (0, 1, 2, None):
            fresh.append(json.dumps(views.view(state, seat)))
    return fresh


def test_view_parts_remembered_out_of_play_order_render_as_a_fresh_view() -> None:
    """A view's remembered parts come from whatever state of the match was viewed before: in
    reverse order (every discard undone, G5.2) and in a shuffled order, every view equals a
    fresh one."""
    _, states = random_match(13, {"target_score": 60})
    mixed = states[::-1] + random.Random(13).sample(states, len(states))
    gin.VIEWS.clear()
    assert _views_along(mixed) == _fresh_views(mixed)


def test_shared_view_parts_are_read_only_and_you_is_the_views_own() -> None:
    """A reader cannot change another view through a shared part; `you` may be changed."""
    _, states = random_match(4, {"target_score": 60})
    state = next(s for s in states if s.rounds and gin.to_act(s) is not None)
    shown = gin.view(state, gin.to_act(state))
    parts: tuple[Any, ...] = (  # each shared part is frozen: clear() raises whatever it is
        shown["seats"],
        shown["scores"],
        shown["rounds"],
        shown["discard_pile"],
        shown["picked"],
        shown["options"],
        shown["roles"],
    )
    for part in parts:
        with pytest.raises(TypeError):
            part.clear()
    you = you_of(shown)
    with pytest.raises(TypeError):
        you["legal_moves"][0]["type"] = "pass"
    you["hand"] = []
    you["legal_moves"].clear()
    again = you_of(gin.view(state, gin.to_act(state)))
    assert again["hand"] and again["legal_moves"]


def test_views_of_one_hand_share_the_round_results() -> None:
    """Views are O(1) in the rounds played: the round results are one shared list."""
    _, states = random_match(6, {"target_score": 60})
    later = [s for s in states if len(s.rounds) >= 2 and gin.to_act(s) is not None]
    a, b = later[0], later[1]
    assert a.rounds is b.rounds
    assert gin.view(a, None)["rounds"] is gin.view(b, 0)["rounds"]
