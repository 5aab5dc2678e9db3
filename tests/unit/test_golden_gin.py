"""Golden logs of three-hand gin: recorded matches that must replay to their recorded scores.

Each `tests/fixtures/gin_*.ndjson` holds one match, one event per line as
`{"type", "v", "data"}` (the unredacted log). `tests/fixtures/gin_expected.json` holds, per
file, how it was made (seed, options, the seed of the random move chooser) and what it must
give (final scores, winners, number of rounds and events).

The tests do more than fold the log (a fold trusts the recorded RoundScored points, so a
scoring change would pass): they rebuild every move from its event and ask `decide` again,
so the rules must produce exactly the recorded events, scores included.

Regenerate (only when a rule change is intended, and say so in the commit):

    .venv/bin/python -m tests.unit.test_golden_gin

Generation is deterministic: seeded deals, and test_gin_support.random_match's seeded chooser.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from domain import gin
from domain.events import SYSTEM, Event
from domain.gin.shapes import GinMove
from domain.gin.state import GinState
from domain.replay import replay
from domain.shapes import json_str
from domain.upcast import upcast
from tests.unit.test_gin_support import PLAYERS, fold, random_match

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
EXPECTED = FIXTURES / "gin_expected.json"

GOLDEN: dict[str, dict[str, Any]] = {
    "gin_default_seed1.ndjson": {"seed": 1, "rng_seed": 138, "knock_rate": 0.15, "options": {}},
    "gin_classic_seed2.ndjson": {
        "seed": 2,
        "rng_seed": 7,
        "knock_rate": 0.15,
        "options": {
            "gin_bonus": 20,
            "undercut_bonus": 25,
            "layoff_chain": False,
            "target_score": 60,
            "role_draw_tiebreak": "suit_order",
        },
    },
    "gin_bonuses_seed3.ndjson": {
        "seed": 3,
        "rng_seed": 36,
        "knock_rate": 0.15,
        "options": {
            "knock_limit": 7,
            "no_discard_of_taken_card": False,
            "undercut_on_tie": False,
            "advisor_sees_captain_hand": False,
            "game_bonus": 100,
            "box_bonus_per_hand": 20,
            "target_score": 50,
        },
    },
}


def load(name: str) -> list[Event]:
    lines = (FIXTURES / name).read_text().splitlines()
    events = [Event.from_json(json.loads(line)) for line in lines if line.strip()]
    variant = json_str(events[0].data["variant"])
    return [upcast(event, variant) for event in events]  # as the store reads (v1 MatchCreated)


def move_of(event: Event) -> tuple[int, GinMove]:
    """The move that produced a recorded event (the first event of each decide batch)."""
    data: Any = event.data  # recorded JSON, as a client would have sent it
    if event.type == "UpcardTaken":
        return data["seat"], {"type": "take_upcard"}
    if event.type == "UpcardPassed":
        return data["seat"], {"type": "pass_upcard"}
    if event.type == "CardDrawn":
        return data["seat"], {"type": "draw", "from": data["from"]}
    if event.type == "CardDiscarded":
        return data["seat"], {"type": "discard", "card": data["card"]}
    if event.type == "Knocked":
        return data["seat"], {"type": "knock", "card": data["card"]}
    if event.type == "AdviceGiven":
        advice: GinMove = {"type": "advise", "text": data["text"]}
        if data["move"] is not None:
            advice["move"] = data["move"]
        return data["seat"], advice
    if event.type == "RoundScored":
        return SYSTEM, {"type": "score_round"}
    raise AssertionError(f"{event.type} does not start a move")


def redecide(events: Sequence[Event]) -> None:
    """Create the match again from MatchCreated, then re-decide every move of the log and
    require the very events recorded."""
    first: Any = events[0].data
    opening = gin.create(first["players"], first["options"], first["seed"], "")
    assert list(opening) == list(events[: len(opening)])
    state = fold(opening)
    at = len(opening)
    while at < len(events):
        seat, move = move_of(events[at])
        produced = list(gin.decide(state, seat, move))
        assert produced == list(events[at : at + len(produced)]), f"event {at + 1} differs"
        state = fold(produced, state)
        at += len(produced)


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_golden_log_replays_to_its_recorded_scores(name: str) -> None:
    """G1-G8 golden log: the fold and a full re-decision both reach the recorded result."""
    expected = json.loads(EXPECTED.read_text())[name]
    events = load(name)
    assert len(events) == expected["events"]
    state = replay(events)
    assert isinstance(state, GinState)
    assert gin.is_finished(state)
    assert list(state.scores) == expected["scores"]
    assert list(state.winners) == expected["winners"]
    assert len(state.rounds) == expected["rounds"]
    assert events[-1].data["scores"] == expected["scores"]
    redecide(events)


def test_golden_fixture_set_is_complete() -> None:
    """Every golden fixture on disk is listed, with its recipe."""
    on_disk = {p.name for p in FIXTURES.glob("gin_*.ndjson")}
    recorded = json.loads(EXPECTED.read_text())
    assert on_disk == set(GOLDEN) == set(recorded)
    for name, recipe in GOLDEN.items():
        assert {k: recorded[name][k] for k in recipe} == recipe


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_golden_logs_cover_every_outcome(name: str) -> None:
    """G5.6, G7.1-G7.3: each golden match holds a knock, a gin, an undercut and a draw."""
    outcomes = {e.data["outcome"] for e in load(name) if e.type == "RoundScored"}
    assert outcomes == {"knock", "gin", "undercut", "draw"}


def generate() -> None:
    """Write every golden fixture and gin_expected.json (deterministic)."""
    expected: dict[str, Any] = {}
    for name, recipe in GOLDEN.items():
        events, states = random_match(
            recipe["seed"], recipe["options"], recipe["rng_seed"], knock_rate=recipe["knock_rate"]
        )
        assert events[0].data["players"] == PLAYERS
        lines = [json.dumps(e.to_json(), separators=(",", ":")) for e in events]
        (FIXTURES / name).write_text("\n".join(lines) + "\n")
        final = states[-1]
        expected[name] = {
            **recipe,
            "scores": list(final.scores),
            "winners": list(final.winners),
            "rounds": len(final.rounds),
            "events": len(events),
        }
    EXPECTED.write_text(json.dumps(expected, indent=2, sort_keys=True) + "\n")


if __name__ == "__main__":
    generate()
