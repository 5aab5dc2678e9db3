"""Two bot processes that only call the API end up playing each other (issue 32).

gunicorn and an rq worker (with its scheduler: the pairing job also runs on a timer) on a
private Redis. Two bot accounts, each with the key its creation shows once; two example-bot
processes (examples/simple_bot.py twice, and the TypeScript bot of examples/typescript
against the Python one when node and npm are there), each started with its key and `--seek
--games 1` for a two-seat manipulation-rummy match. Nobody arranges anything: each process
seeks, is paired, joins the seat reserved for it, plays, and exits 0. They were paired with
each other (one match, both accounts seated, no built-in bot: the pairing's bot-fill delay
is far longer than the test), the match finished, was rated, and both accounts are on the
ladder with one game. And a lone bot author: one seeker of three-hand gin, with a 1 s
bot-fill delay, is completed with two built-in bots and plays a rated match all the same.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from deadwood_client import Client
from tests.e2e.conftest import BOT, NODE, NPM
from tests.support.reliability_procs import ROOT, Stack, spawn
from tests.support.waiting import wait_until

VARIANT = "manipulation-rummy"
SEEK = ["--seek", "--games", "1", "--variant", VARIANT, "--seats", "2", "--target-score", "10"]
FILL_ENV = {"DEADWOOD_SEEK_BOT_DELAY_S": "600"}
"""Pairing fills a lone seek with built-in bots only after this long: never in this test."""


def _start(stack: Stack, fill: dict[str, str] = FILL_ENV) -> Client:
    stack.env.update(fill)
    stack.start_api()
    stack.start_worker()
    return Client(stack.base_url)


def _key(anonymous: Client, handle: str) -> str:
    made = anonymous.accounts.create(handle, "bot")
    key: str = made["key"]["key"]
    return key


def _python_bot(
    stack: Stack, key: str, log: Path, seek: list[str] = SEEK
) -> subprocess.Popen[bytes]:
    example = str(ROOT / "examples" / "simple_bot.py")
    command = [sys.executable, example, "--base-url", stack.base_url, "--key", key, *seek]
    return spawn(command, log, stack.env)


def _finish(bots: list[tuple[subprocess.Popen[bytes], Path]]) -> list[str]:
    """Each bot's output once it exited 0."""
    outputs = []
    for proc, log in bots:
        try:
            code = proc.wait(timeout=240)
        finally:
            if proc.poll() is None:
                proc.kill()
        outputs.append(log.read_text())
        assert code == 0, f"{log.name} exited {code}:\n{outputs[-1]}"
    return outputs


def _joined(output: str) -> str:
    found = re.findall(r"joined (m_[A-Za-z0-9_-]+) as seat", output)
    assert len(found) == 1, output
    return str(found[0])


def _check_rated_match(anonymous: Client, match_id: str, handles: set[str]) -> None:
    view = anonymous.match(match_id)
    assert view["status"] == "finished" and view["options"]["rated"] is True
    assert {s["account"] for s in view["seats"]} == handles
    assert all(s["bot"] is None and s["account_bot"] for s in view["seats"])

    def rated() -> bool:
        ratings = [anonymous.accounts.get(h)["ratings"].get(VARIANT) for h in handles]
        return all(r and r["games"] == 1 for r in ratings)

    wait_until(rated, 60.0, "the rating job to rate the match", every=0.1)
    ladder = anonymous.accounts.ladder(VARIANT)
    assert handles <= {row["handle"] for row in ladder["rows"]}


def test_two_python_bots_seek_and_play_each_other(stack: Stack, tmp_path: Path) -> None:
    anonymous = _start(stack)
    handles = ("ana-bot", "ben-bot")
    bots = [
        (_python_bot(stack, _key(anonymous, h), tmp_path / f"{h}.log"), tmp_path / f"{h}.log")
        for h in handles
    ]
    outputs = _finish(bots)
    match_id = _joined(outputs[0])
    assert _joined(outputs[1]) == match_id
    _check_rated_match(anonymous, match_id, set(handles))
    anonymous.close()


def test_a_lone_python_bot_is_paired_with_built_in_bots(stack: Stack, tmp_path: Path) -> None:
    """Three-hand gin with one seeker: after the bot-fill delay (here 1 s; the pairing's
    ticks run on the worker's rq scheduler) the pairing completes it with two built-in bots
    (their own ladder accounts), and the match is rated for all three."""
    anonymous = _start(stack, {"DEADWOOD_SEEK_BOT_DELAY_S": "1"})
    log = tmp_path / "ana-bot.log"
    gin = ["--seek", "--games", "1", "--variant", "three-hand-gin", "--target-score", "10"]
    (output,) = _finish([(_python_bot(stack, _key(anonymous, "ana-bot"), log, gin), log)])
    view = anonymous.match(_joined(output))
    assert view["status"] == "finished" and view["options"]["rated"] is True
    mine = [s for s in view["seats"] if s["account"] == "ana-bot"]
    fillers = [s for s in view["seats"] if s["account"] != "ana-bot"]
    assert len(mine) == 1 and mine[0]["bot"] is None
    assert len(fillers) == 2 and all(s["bot"] for s in fillers), view["seats"]

    def rated() -> bool:
        found = anonymous.accounts.get("ana-bot")["ratings"].get("three-hand-gin")
        return bool(found and found["games"] == 1)

    wait_until(rated, 60.0, "the rating job to rate the match", every=0.1)
    for filler in fillers:  # each built-in bot plays for its own ladder account
        ratings = anonymous.accounts.get(f"deadwood-{filler['bot']}")["ratings"]
        assert ratings["three-hand-gin"]["games"] >= 1
    anonymous.close()


@pytest.mark.skipif(NODE is None or NPM is None, reason="TypeScript bot NOT run: no node + npm")
def test_the_typescript_bot_seeks_and_plays_the_python_bot(
    stack: Stack, tmp_path: Path, compiled: Any
) -> None:
    anonymous = _start(stack)
    assert NODE is not None
    ts_log = tmp_path / "ts-bot.log"
    command = [NODE, "build/bot.js", "--base-url", stack.base_url]
    command += ["--key", _key(anonymous, "ts-bot"), *SEEK]
    handle = ts_log.open("ab")
    try:
        ts_bot = subprocess.Popen(
            command, cwd=BOT, env={**os.environ, **stack.env}, stdout=handle, stderr=handle
        )
    finally:
        handle.close()
    py_log = tmp_path / "py-bot.log"
    py_bot = _python_bot(stack, _key(anonymous, "py-bot"), py_log)
    ts_out, py_out = _finish([(ts_bot, ts_log), (py_bot, py_log)])
    match_id = _joined(py_out)
    reported = [line for line in ts_out.splitlines() if line.startswith("{")]
    assert len(reported) == 1 and f'"id":"{match_id}"' in reported[0], ts_out
    assert '"status":"finished"' in reported[0]
    _check_rated_match(anonymous, match_id, {"ts-bot", "py-bot"})
    anonymous.close()
