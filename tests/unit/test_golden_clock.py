"""The golden log of a clocked match (tests/fixtures/clock_manip_2p.ndjson, made by
tests/support/clock_golden.py): timeouts, their auto moves and replaced seats replay without a
clock, and `deadwood verify`'s check (domain/log_check.py) accepts every event of it."""

from __future__ import annotations

import json

import pytest

from domain.clock import clock_of
from domain.events import Event
from domain.log_check import LogRejected, replay_log
from domain.replay import replay
from tests.support.clock_golden import CLOCK, FIXTURE


def _log() -> list[Event]:
    return [Event.from_json(json.loads(line)) for line in FIXTURE.read_text().splitlines()]


def test_the_clocked_golden_log_replays_to_its_end() -> None:
    log = _log()
    state = replay(log)
    assert state.phase == "finished" and state.winners
    kinds = [e.type for e in log]
    assert kinds.count("TurnTimedOut") == 4 and kinds.count("SeatReplacedByBot") == 2
    clock = clock_of(log[0].data)
    assert clock is not None and clock.move_s == CLOCK["move_s"]
    assert [p.bot for p in state.players] == ["random", "random"]


def test_verify_accepts_timeouts_auto_moves_and_replaced_seats() -> None:
    log = _log()
    checked = replay_log(log)
    assert checked.state == replay(log)


def test_verify_refuses_a_timeout_of_a_seat_that_was_not_to_act() -> None:
    log = _log()
    at = next(i for i, e in enumerate(log) if e.type == "TurnTimedOut")
    seat = int(log[at].data["seat"])  # type: ignore[arg-type]
    bad = Event("TurnTimedOut", {**log[at].data, "seat": 1 - seat})
    with pytest.raises(LogRejected) as refused:
        replay_log([*log[:at], bad, *log[at + 1 :]])
    assert refused.value.seq == at + 1


def test_verify_refuses_an_auto_move_that_is_not_legal() -> None:
    log = _log()
    at = next(i for i, e in enumerate(log) if e.type == "TurnTimedOut")
    moved = log[at + 1]
    bad = Event(moved.type, {**moved.data, "seat": 1 - int(moved.data["seat"])})  # type: ignore[arg-type]
    with pytest.raises(LogRejected):
        replay_log([*log[: at + 1], bad, *log[at + 2 :]])
