"""Every match ends (issue 28 item 3): `max_rounds` bounds a match of either game.

Gin with `knock_limit` 0 and a target of 1000 never ended with random bots (every hand a
draw); a Manipulation round can score nothing too. After `max_rounds` rounds the standing
scores decide (G8.3, M11.5: this project's rulings), and MatchFinished says so."""

from __future__ import annotations

from typing import Any

import pytest

from arena.harness import MatchSpec, play_match
from domain.errors import InvalidOptions
from domain.events import Event
from domain.gin import VARIANT as GIN
from domain.gin.knock import rounds_exhausted
from domain.gin.state import GinState
from domain.replay import replay
from domain.upcast import upcast

ENDLESS = {"knock_limit": 0, "target_score": 1000}


def test_random_bots_with_endless_gin_options_stop_after_max_rounds() -> None:
    """The arena plays the rules' bound: 30 hands, then the highest score (shared) wins."""
    record = play_match(
        "three-hand-gin", MatchSpec(0, 28, ("random",) * 3), {**ENDLESS, "max_rounds": 30}
    )
    assert len(record.round_points) == 30
    top = max(record.scores)
    assert max(record.scores) < 1000
    assert record.winners == tuple(s for s, score in enumerate(record.scores) if score == top)


def test_the_default_bound_follows_the_target_and_ends_the_endless_match() -> None:
    record = play_match("three-hand-gin", MatchSpec(0, 5, ("random",) * 3), dict(ENDLESS))
    assert len(record.round_points) == GIN.validate_options(ENDLESS)["max_rounds"] == 500


def test_the_arena_refuses_a_match_without_a_bound() -> None:
    with pytest.raises(InvalidOptions, match="max_rounds"):
        play_match("three-hand-gin", MatchSpec(0, 1, ("random",) * 3), {"max_rounds": None})


def test_a_manipulation_match_stops_after_max_rounds() -> None:
    options = {"target_score": 1500, "max_rounds": 2}
    record = play_match("manipulation-rummy", MatchSpec(0, 3, ("random",) * 3), options)
    assert len(record.round_points) == 2 and record.winners


def test_a_match_recorded_before_max_rounds_has_no_bound() -> None:
    """A v1 MatchCreated (no `max_rounds`) reads as `max_rounds: None`: no bound, so the old
    match replays as it was played (the golden logs check the whole replay)."""
    opening = GIN.create([{"name": f"p{i}"} for i in range(3)], dict(ENDLESS), 1, "k" * 64)
    created = opening[0]
    recorded: Any = created.data
    assert created.v == 2 and recorded["options"]["max_rounds"] == 500
    options = {k: v for k, v in recorded["options"].items() if k != "max_rounds"}
    old = Event("MatchCreated", {**created.data, "options": options}, 1)
    read = upcast(old, "three-hand-gin")
    upcast_data: Any = read.data
    assert read.v == 2 and upcast_data["options"]["max_rounds"] is None
    state = replay([read, *opening[1:]])
    assert isinstance(state, GinState)
    assert state.options.max_rounds is None and not rounds_exhausted(state)
    assert GIN.create(recorded["players"], upcast_data["options"], 1, "k" * 64)[0] == read
