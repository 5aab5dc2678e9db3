"""The lobby's rules, pure (domain/lobby.py): open seats, joins, leaves, the start, a cancel,
and the golden log of a match that waited for its players (tests/fixtures/lobby_gin.ndjson).

Regenerate the golden log (only when a rule change is intended, and say so in the commit):

    .venv/bin/python -m tests.unit.test_lobby
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from domain import lobby as rules
from domain.events import SYSTEM, Event
from domain.lobby_shapes import LobbyCreated
from domain.log_check import LogRejected, replay_log
from domain.replay import fold
from domain.upcast import upcast
from domain.variants import State, Variant, get_variant

GOLDEN = Path(__file__).resolve().parents[1] / "fixtures" / "lobby_gin.ndjson"
SECRET = "5eed" * 16
LOBBY: LobbyCreated = {
    "listed": True,
    "ttl_s": 600,
    "expires_ms": 1_796_441_706_910,
    "expires_at": "2026-12-06T01:15:06.910Z",
    "creator_seats": [0],
    "rematch_of": None,
}


def _opened(variant: str = "three-hand-gin", open_seats: int = 2) -> tuple[Variant, State, Event]:
    game = get_variant(variant)
    players: list[dict[str, Any]] = [{"name": "ana", "bot": None}]
    players += [{"open": True} for _ in range(open_seats)]
    created = rules.open_match(game, players, game.validate_options({}), SECRET, LOBBY)
    return game, fold(game, [created]), created


def _apply(game: Variant, state: State, events: tuple[Event, ...]) -> State:
    return fold(game, events, state)


def test_nothing_is_due_while_a_match_waits() -> None:
    for variant, seats in (("three-hand-gin", 2), ("manipulation-rummy", 3)):
        game, state, _ = _opened(variant, seats)
        assert game.pending(state) is None and game.to_act(state) is None
        assert game.legal_moves(state, 0) == []
        view = game.view(state, 0)
        assert view["lobby"] is not None and view["lobby"]["status"] == "waiting"
        assert [s["open"] for s in view["seats"]] == [False, *[True] * seats]
        move: Any = {"type": "draw", "from": "stock"} if seats == 2 else {"type": "draw"}
        with pytest.raises(rules.NotStarted):
            game.decide(state, 0, move)


def test_the_last_join_starts_the_match_with_the_games_own_opening() -> None:
    game, state, _ = _opened()
    _, first = rules.join(game, state, None, "bo")
    state = _apply(game, state, first)
    seat, last = rules.join(game, state, None, "cy")
    assert seat == 2
    assert [e.type for e in last] == ["SeatJoined", "MatchStarted", "RolesDrawn", "RoundDealt"]
    made = game.create(
        [{"name": n, "bot": None} for n in ("ana", "bo", "cy")], game.validate_options({}), None,
        SECRET,
    )  # fmt: skip
    assert [e.data for e in last[2:]] == [e.data for e in made[1:]]


def test_a_taken_seat_a_full_match_and_a_started_one_are_refused() -> None:
    game, state, _ = _opened("manipulation-rummy", 1)
    with pytest.raises(rules.SeatTaken):
        rules.join(game, state, 0, "x")
    with pytest.raises(rules.SeatTaken):
        rules.leave(state, 1)
    _, events = rules.join(game, state, None, "bo")
    with pytest.raises(rules.AlreadyStarted):
        rules.join(game, _apply(game, state, events), None, "x")


def test_a_leave_opens_the_seat_and_a_cancel_ends_the_match() -> None:
    game, state, _ = _opened()
    state = _apply(game, state, rules.join(game, state, 1, "bo")[1])
    state = _apply(game, state, rules.leave(state, 1))
    assert state.players[1].open and state.lobby is not None and state.lobby.waiting
    state = _apply(game, state, rules.cancel(state, "cancelled_by_creator"))
    shown = game.view(state, None)["lobby"]
    assert game.is_finished(state) and shown is not None
    assert shown["cancelled"] == "cancelled_by_creator"
    with pytest.raises(rules.LobbyClosed):
        rules.join(game, state, None, "late")


def test_a_lobby_is_due_only_past_its_deadline_while_waiting() -> None:
    _, state, _ = _opened()
    assert not rules.is_due(state, LOBBY["expires_ms"] - 1)
    assert rules.is_due(state, LOBBY["expires_ms"])


def test_lobby_events_are_current_shapes_for_the_upcasters() -> None:
    for kind in sorted(rules.LOBBY_EVENTS):
        event = Event(kind, {"seat": 1}, 1)
        assert upcast(event, "three-hand-gin") is event


def test_the_log_check_refuses_a_join_of_a_taken_seat() -> None:
    game, state, created = _opened()
    _, joined = rules.join(game, state, 1, "bo")
    log = [created, *joined, Event("SeatJoined", {"seat": 1, "name": "cy"})]
    with pytest.raises(LogRejected) as refused:
        replay_log(log)
    assert refused.value.seq == 3


def _golden_match() -> list[Event]:
    """A gin match that waited: a join, a leave, two joins, then random play to 25."""
    game = get_variant("three-hand-gin")
    players: list[dict[str, Any]] = [{"name": "ana", "bot": None}, {"open": True}, {"open": True}]
    options = game.validate_options({"target_score": 25})
    created = rules.open_match(game, players, options, SECRET, LOBBY)
    log, state = [created], fold(game, [created])
    steps: list[Callable[[State], tuple[Event, ...]]] = [
        lambda s: rules.join(game, s, 1, "bo")[1],
        lambda s: rules.leave(s, 1),
        lambda s: rules.join(game, s, None, "cy")[1],
        lambda s: rules.join(game, s, None, "dee")[1],
    ]
    for step in steps:
        events = step(state)
        log += events
        state = fold(game, events, state)
    rng = random.Random(30)
    while not game.is_finished(state):
        seat = game.to_act(state)
        due = game.pending(state) if seat is None else rng.choice(game.legal_moves(state, seat))
        assert due is not None
        events = game.decide(state, SYSTEM if seat is None else seat, due)
        log += events
        state = fold(game, events, state)
    return log


def _read_golden() -> list[Event]:
    lines = GOLDEN.read_text().splitlines()
    return [Event.from_json(json.loads(line)) for line in lines]


def test_the_golden_lobby_log_replays_to_its_recorded_scores() -> None:
    log = _read_golden()
    types = [e.type for e in log]
    assert types[:7] == [
        "MatchCreated",
        "SeatJoined",
        "SeatLeft",
        "SeatJoined",
        "SeatJoined",
        "MatchStarted",
        "RolesDrawn",
    ]
    replayed = replay_log(log)
    view = replayed.variant.view(replayed.state, None)
    expected = json.loads(GOLDEN.with_suffix(".json").read_text())
    assert view["scores"] == expected["scores"] and view["winners"] == expected["winners"]
    assert len(log) == expected["events"]
    assert [e.to_json() for e in log] == [e.to_json() for e in _golden_match()]


if __name__ == "__main__":
    made = _golden_match()
    GOLDEN.write_text("".join(json.dumps(e.to_json(), separators=(",", ":")) + "\n" for e in made))
    final = replay_log(made)
    shown = final.variant.view(final.state, None)
    summary = {"scores": shown["scores"], "winners": shown["winners"], "events": len(made)}
    GOLDEN.with_suffix(".json").write_text(json.dumps(summary) + "\n")
    print(summary)


def test_the_lobby_events_are_their_declared_payloads() -> None:
    """The golden log's lobby events (and its MatchCreated with `lobby` and open players) fit
    the declarations of domain/shapes.py, as tests/unit/test_event_payloads.py checks a game's."""
    from domain.gin import shapes as gin_shapes
    from tests.unit.test_event_payloads import _check

    game, state, _ = _opened()
    state = _apply(game, state, rules.join(game, state, 1, "bo")[1])
    cancelled = rules.cancel(state, "lobby_expired")
    seen = _check([*_read_golden(), *cancelled], gin_shapes.PAYLOADS)
    assert seen >= {"MatchCreated", *rules.LOBBY_EVENTS}
