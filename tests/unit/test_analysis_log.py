"""The analyser on whole logs: it never reads a card the seat could not see (the leak
test), it refuses a match in play, and its analysis of the golden logs is pinned.

Regenerate the pinned expectations (only after a deliberate change of the judgement, with
ANALYSIS_VERSION bumped):
    .venv/bin/python -m tests.unit.test_analysis_log --write
"""

from __future__ import annotations

import json
import random
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from domain import gin
from domain.analysis import MatchNotFinished, analyse
from domain.analysis import gin as gin_walk
from domain.analysis import manipulation as manip_walk
from domain.analysis.gin_judge import judge
from domain.events import Event
from domain.gin.shapes import GinMove
from domain.gin.state import evolve as gin_evolve
from domain.gin.state import initial_state as gin_initial
from domain.gin.views import view as gin_view
from domain.manipulation.state import State as ManipState
from domain.manipulation.state import evolve as manip_evolve
from domain.shapes import json_int
from tests.support.analysis_helpers import gin_hidden_shuffled, manip_hidden_shuffled

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
LOGS = (
    "gin_default_seed1.ndjson",
    "gin_classic_seed2.ndjson",
    "gin_bonuses_seed3.ndjson",
    "manip_2p.ndjson",
    "manip_3p.ndjson",
    "manip_5p.ndjson",
)
EXPECTED = FIXTURES / "analysis_expected.json"


def load(name: str) -> list[Event]:
    lines = (FIXTURES / name).read_text().splitlines()
    return [Event.from_json(json.loads(line)) for line in lines if line.strip()]


# --- the leak test ----------------------------------------------------------------------------


def test_gin_judgments_do_not_change_with_the_hidden_cards() -> None:
    events = load("gin_default_seed1.ndjson")
    rng = random.Random(1)
    state = gin_initial()
    checked = 0
    for index, event in enumerate(events):
        if event.type in gin_walk.MOVES and state.roles is not None:
            seat = json_int(event.data["seat"])
            move = gin_walk.played_move(event)
            real = judge(gin_view(state, seat), move, index + 1)
            other = gin_hidden_shuffled(state, seat, rng)
            assert other.hands != state.hands or other.stock != state.stock or not state.stock
            again = judge(gin_view(other, seat), move, index + 1)
            assert _json(again) == _json(real), f"event {index + 1}"
            checked += real is not None
        state = gin_evolve(state, event)
    assert checked > 100


def test_manipulation_judgments_do_not_change_with_the_hidden_cards() -> None:
    events = load("manip_3p.ndjson")
    rng = random.Random(2)
    state = ManipState()
    checked = 0
    for index, event in enumerate(events):
        real = manip_walk.judge_event(state, event, index + 1, 20_000)
        if real is not None:
            other = manip_hidden_shuffled(state, real.seat, rng)
            again = manip_walk.judge_event(other, event, index + 1, 20_000)
            assert _json(again) == _json(real), f"event {index + 1}"
            checked += 1
        state = manip_evolve(state, event)
    assert checked > 50


def _json(found: Any) -> Any:
    return None if found is None else found.as_json()


# --- refusals and the pinned analysis ---------------------------------------------------------


@pytest.mark.parametrize("name", ["gin_default_seed1.ndjson", "manip_2p.ndjson"])
def test_a_match_in_play_has_no_analysis(name: str) -> None:
    events = load(name)
    with pytest.raises(MatchNotFinished):
        analyse(events[: len(events) // 2])


def pinned(events: Sequence[Event]) -> dict[str, Any]:
    """What is pinned of a log's analysis: the summaries, the judgment of every decision
    (seq, class, cost) and the hindsight facts."""
    found: Any = analyse(events).as_json()
    return {
        "seats": found["seats"],
        "decisions": [[d["seq"], d["judgment"], d["cost"]] for d in found["decisions"]],
        "hindsight": [[h["seq"], h["kind"], h["points"]] for h in found["hindsight"]],
    }


@pytest.mark.parametrize("name", LOGS)
def test_golden_log_analysis_is_pinned(name: str) -> None:
    expected = json.loads(EXPECTED.read_text())[name]
    assert pinned(load(name)) == expected


def test_analysis_names_every_seat_and_sums_its_decisions() -> None:
    found = analyse(load("gin_default_seed1.ndjson"))
    assert [s.name for s in found.seats] == ["ana", "ben", "cy"]
    assert sum(s.decisions for s in found.seats) == len(found.decisions)
    for summary in found.seats:
        mine = [d.cost for d in found.decisions if d.seat == summary.seat]
        assert summary.total_cost == pytest.approx(sum(mine))


if __name__ == "__main__" and "--write" in sys.argv:
    table = {name: pinned(load(name)) for name in LOGS}
    text = json.dumps(table, indent=1, sort_keys=True)
    flat = re.sub(
        r"\[\s*([^\[\]{}]*?)\s*\]", lambda m: "[" + " ".join(m.group(1).split()) + "]", text
    )
    EXPECTED.write_text(flat + "\n")
    print(f"wrote {EXPECTED}")


def test_the_advisors_suggestion_is_priced_on_the_captains_next_decision() -> None:
    created = gin.create([{"name": n} for n in ("ana", "ben", "cy")], {}, 5, "0" * 64)
    state = gin_initial()
    for event in created:
        state = gin_evolve(state, event)
    assert state.roles is not None and state.phase == "upcard_offer"
    roles = state.roles
    events = list(created)
    steps: tuple[tuple[int, GinMove], ...] = (
        (roles.advisor, {"type": "advise", "text": "take it", "move": {"type": "take_upcard"}}),
        (roles.captain, {"type": "pass_upcard"}),
    )
    for seat, move in steps:
        for event in gin.decide(state, seat, move):
            state = gin_evolve(state, event)
            events.append(event)
    decisions, _ = gin_walk.walk(events)
    (passed,) = decisions
    advice: Any = passed.details["advice"]
    assert passed.seat == roles.captain and passed.kind == "upcard"
    assert advice["move"] == {"type": "take_upcard"} and advice["followed"] is False
    assert advice["would_save"] == pytest.approx(
        passed.cost - advice["cost"], abs=0.011
    )  # both rounded to 0.01
    assert "advice_ignored" in passed.tags


def test_advice_given_during_the_box_turn_waits_for_the_captains_move() -> None:
    created = gin.create([{"name": n} for n in ("ana", "ben", "cy")], {}, 5, "0" * 64)
    state = gin_initial()
    events = list(created)
    for event in created:
        state = gin_evolve(state, event)
    assert state.roles is not None
    roles = state.roles

    def play(seat: int, move: GinMove) -> None:
        nonlocal state
        for event in gin.decide(state, seat, move):
            state = gin_evolve(state, event)
            events.append(event)

    def first(seat: int, kind: str) -> GinMove:
        return next(m.copy() for m in gin.legal_moves(state, seat) if m["type"] == kind)

    play(roles.captain, {"type": "take_upcard"})
    play(roles.captain, first(roles.captain, "discard"))
    play(roles.advisor, {"type": "advise", "move": {"type": "draw", "from": "discard"}})
    play(roles.box, {"type": "draw", "from": "stock"})
    play(roles.box, first(roles.box, "discard"))
    play(roles.captain, {"type": "draw", "from": "stock"})
    decisions, _ = gin_walk.walk(events)
    box_draw, captain_draw = [d for d in decisions if d.kind == "draw"]
    assert box_draw.seat == roles.box and "advice" not in box_draw.details
    assert captain_draw.seat == roles.captain
    captain_advice: Any = captain_draw.details["advice"]
    assert captain_advice["move"] == {"type": "draw", "from": "discard"}
