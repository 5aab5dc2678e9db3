"""An HTTP bot process killed mid-match: its match still finishes by timeouts (issue 31).

gunicorn and an rq worker (with its scheduler) on a private Redis; a three-hand gin match with
a 1 s per-move clock and `max_timeouts` 2, seat 0 played by the example bot
(examples/simple_bot.py, a separate process speaking HTTP), seats 1 and 2 by `basic`. Once the
example bot has moved, it gets SIGKILL. Its seat then times out on the scheduler's deadline
jobs (each timeout's auto move by the autoplay bot), the second timeout puts the bot in its
seat, and the match finishes.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import urllib.request
from pathlib import Path
from typing import Any

from tests.support.reliability_procs import Stack, spawn
from tests.support.waiting import wait_until

PLAYERS = [{"name": "ana"}, {"name": "ben", "bot": "basic"}, {"name": "cy", "bot": "basic"}]
CLOCK = {"mode": "per_move", "move_s": 1, "max_timeouts": 2, "autoplay_bot": "basic"}


def _call(base: str, path: str, body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method="POST" if data else "GET")
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())


def _types(base: str, match_id: str) -> list[dict[str, Any]]:
    page = _call(base, f"/v1/matches/{match_id}/events?limit=1000")
    return list(page["events"])


def test_a_killed_http_bot_s_match_finishes_by_timeouts(stack: Stack, tmp_path: Path) -> None:
    stack.start_api()
    stack.start_worker()
    base = stack.base_url
    body = {
        "variant": "three-hand-gin",
        "players": PLAYERS,
        "seed": 21,
        "options": {"target_score": 10},
        "clock": CLOCK,
    }
    created = _call(base, "/v1/matches", body)
    match_id, token = created["id"], created["seats"][0]["token"]
    example = Path(__file__).resolve().parents[2] / "examples" / "simple_bot.py"
    command = [sys.executable, str(example), "--base-url", base, "--match", match_id]
    bot = spawn([*command, "--token", token], tmp_path / "bot.log", stack.env)
    try:

        def moved() -> bool:
            events = _types(base, match_id)
            return any(
                e["data"].get("seat") == 0 and e["type"] not in ("RolesDrawn", "RoundDealt")
                for e in events
            )

        wait_until(moved, 60.0, "the example bot's first move")
    finally:
        os.killpg(bot.pid, signal.SIGKILL)
        bot.wait(timeout=10)

    def finished() -> bool:
        return bool(_call(base, f"/v1/matches/{match_id}")["status"] == "finished")

    wait_until(finished, 180.0, "the match to finish by timeouts")
    events = _types(base, match_id)
    timeouts = [e for e in events if e["type"] == "TurnTimedOut"]
    replaced = [e for e in events if e["type"] == "SeatReplacedByBot"]
    assert timeouts and all(e["data"]["seat"] == 0 for e in timeouts)
    assert [e["data"] for e in replaced] == [{"seat": 0, "bot": "basic", "reason": "timeouts"}]
    assert events[-1]["type"] == "MatchFinished"
