"""Golden logs: recorded seeded Manipulation Rummy matches that must replay to their scores.

Each fixture is NDJSON, one event per line (`Event.to_json()`). The test replays the log to
the recorded final scores, and re-decides it: every move is rebuilt from its events (a draw
from CardDrawn, a meld from TableMelded, ...) and `decide` must return exactly the recorded
events, so a change to the rules, the deal or the event shapes cannot pass silently.

Regenerate (only after a deliberate rule change):
    .venv/bin/python -m tests.unit.test_golden_manip --write
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from domain import manipulation as m
from domain.events import SYSTEM, Event
from domain.manipulation.shapes import ManipulationMove
from domain.manipulation.state import State
from domain.replay import replay
from domain.shapes import json_str
from domain.upcast import upcast
from tests.support.manipulation_helpers import random_match

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"

# name: (seed, players, options, final scores, winners)
GOLDEN: dict[str, tuple[int, int, dict[str, Any], list[int], list[int]]] = {
    "manip_2p.ndjson": (2024, 2, {"target_score": 250}, [201, 379], [1]),
    "manip_3p.ndjson": (
        7,
        3,
        {"target_score": 300, "next_dealer": "round_winner"},
        [0, 0, 451],
        [2],
    ),
    "manip_5p.ndjson": (
        99,
        5,
        {"target_score": 300, "knock_timing": "after_any_draw"},
        [177, 233, 505, 171, 153],
        [2],
    ),
}


def load(name: str) -> list[Event]:
    lines = (FIXTURES / name).read_text().splitlines()
    events = [Event.from_json(json.loads(line)) for line in lines if line.strip()]
    variant = json_str(events[0].data["variant"])
    return [upcast(event, variant) for event in events]  # as the store reads (v1 MatchCreated)


def move_of(event: Event) -> tuple[int, ManipulationMove]:
    """The move that produced a decision whose first event is `event`."""
    data: Any = event.data  # recorded JSON, as a client would have sent it
    if event.type == "RoundScored":
        return SYSTEM, {"type": "score_round"}
    kinds: dict[str, ManipulationMove] = {
        "CardDrawn": {"type": "draw"},
        "Knocked": {"type": "knock"},
        "TurnEnded": {"type": "end_turn"},
        "Passed": {"type": "pass"},
    }
    if event.type == "TableMelded":
        return int(data["seat"]), {"type": "meld", "table": data["table"]}
    return int(data["seat"]), kinds[event.type]


def redecide(log: list[Event]) -> State:
    created: Any = log[0].data
    opening = m.create(created["players"], created["options"], created["seed"], "")
    assert list(opening) == log[:3]
    state = m.initial_state()
    for event in opening:
        state = m.evolve(state, event)
    k = 3
    while k < len(log):
        seat, move = move_of(log[k])
        events = m.decide(state, seat, move)
        assert list(events) == log[k : k + len(events)], f"event {k} ({log[k].type})"
        for event in events:
            state = m.evolve(state, event)
        k += len(events)
    return state


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_golden_log_replays_to_its_recorded_scores(name: str) -> None:
    seed, n, options, scores, winners = GOLDEN[name]
    log = load(name)
    final = replay(log)
    assert isinstance(final, State)
    assert m.is_finished(final) and final.n == n
    assert log[-1].type == "MatchFinished"
    assert list(final.scores) == log[-1].data["scores"] == scores
    assert list(final.winners) == log[-1].data["winners"] == winners
    legacy = {**m.validate_options(options), "max_rounds": None}  # recorded before it existed
    assert log[0].data["seed"] == seed and log[0].data["options"] == legacy


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_golden_log_is_what_decide_says_today(name: str) -> None:
    log = load(name)
    assert redecide(log) == replay(log)


def write() -> None:
    for name, (seed, n, options, _, _) in GOLDEN.items():
        final, log = random_match(seed, n, options)
        text = "".join(json.dumps(e.to_json(), separators=(",", ":")) + "\n" for e in log)
        (FIXTURES / name).write_text(text)
        print(name, len(log), "events, scores", list(final.scores), "winners", list(final.winners))


if __name__ == "__main__":
    if "--write" in sys.argv:
        write()
