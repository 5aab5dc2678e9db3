"""`deadwood arena --clock`: arena matches through the service with clocks (issue 31)."""

from __future__ import annotations

import argparse
import io
import time

import redis

from arena import harness as arena
from cli import arena as arena_cli
from cli.arena_clock import VirtualTime, play_clocked
from store.service import MatchService

VARIANT = "manipulation-rummy"
OPTIONS = {"max_rounds": 1}


def _service(client: redis.Redis) -> tuple[MatchService, VirtualTime]:
    now = VirtualTime(time.time())
    return MatchService(client, pepper=b"test-pepper", clock=now), now


def _types(service: MatchService, match_id: str) -> list[str]:
    return [e.event.type for e in service.events(match_id, 0, 10_000)]


def test_instant_bots_never_time_out_and_their_clock_runs(redis_client: redis.Redis) -> None:
    service, now = _service(redis_client)
    spec = arena.plan(["basic", "random"], 1, 5)[0]
    clock = {"mode": "fischer", "initial_s": 60, "increment_s": 0}
    played = play_clocked(service, now, VARIANT, spec, OPTIONS, clock, think_s=0.25)
    assert played.timeouts == 0
    assert played.record.moves > 0 and played.record.winners
    mid = played.match_id
    turn = service.load(mid).turn
    assert turn is not None  # the bank was charged the think time of each move
    assert sum(turn.banks) == 2 * 60_000 - round(played.record.moves * 250)
    assert "TurnTimedOut" not in _types(service, mid)


def test_slow_bots_time_out_every_turn_and_the_match_still_ends(
    redis_client: redis.Redis,
) -> None:
    service, now = _service(redis_client)
    spec = arena.plan(["basic", "random"], 1, 5)[0]
    clock = {"mode": "per_move", "move_s": 2, "max_timeouts": 10_000}
    played = play_clocked(service, now, VARIANT, spec, OPTIONS, clock, think_s=3.0)
    assert played.record.moves == 0  # no bot's move came in time: the clock's bot played
    assert played.timeouts > 0 and played.record.winners
    mid = played.match_id
    assert _types(service, mid).count("TurnTimedOut") == played.timeouts


def test_the_cli_plays_through_the_service_with_the_clock(redis_url: str) -> None:
    parser = argparse.ArgumentParser()
    arena_cli._arguments(parser)
    argv = ["--variant", VARIANT, "--bots", "basic,random", "--matches", "2", "--seed", "3"]
    argv += ["--option", "max_rounds=1", "--clock", "per_move:2", "--think", "3"]
    argv += ["--clock-option", "max_timeouts=10000", "--no-progress", "--redis-url", redis_url]
    out, err = io.StringIO(), io.StringIO()
    assert arena_cli.handle(parser.parse_args(argv), out, err) == 0
    text = out.getvalue()
    assert '"per_move"' in text and "(through the service)" in text
    assert "clock: 0 timeouts" not in text and " timeouts over 0 bot moves" in text


def test_advice_is_not_played_with_a_clock() -> None:
    parser = argparse.ArgumentParser()
    arena_cli._arguments(parser)
    argv = ["--variant", "three-hand-gin", "--bots", "coach,basic,basic", "--advice"]
    argv += ["--clock", "per_move:2"]
    err = io.StringIO()
    assert arena_cli.handle(parser.parse_args(argv), io.StringIO(), err) == 2
    assert "--advice" in err.getvalue()
