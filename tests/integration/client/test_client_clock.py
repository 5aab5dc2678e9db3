"""The client and `deadwood` on clocked matches (issue 31): `new --clock`, abort, resign and
claim (an early claim says the seconds left), and `play` on a clock."""

from __future__ import annotations

from typing import Any

import pytest

from cli.client import main
from cli.conduct import parse_clock
from deadwood_client import Client
from deadwood_client.errors import ClaimNotAvailable, MatchFinished

HUMANS = [{"name": "ana"}, {"name": "ben"}]


def test_clock_flags_make_the_create_clock() -> None:
    assert parse_clock("per_move:30", ["claim_after_s=10", "on_timeout=forfeit"]) == {
        "mode": "per_move",
        "move_s": 30,
        "claim_after_s": 10,
        "on_timeout": "forfeit",
    }
    assert parse_clock("fischer:300+5", []) == {
        "mode": "fischer",
        "initial_s": 300,
        "increment_s": 5,
    }
    assert parse_clock(None, []) is None


def test_client_abort_resign_and_an_early_claim(live: Any) -> None:
    clock = {"mode": "per_move", "move_s": 600, "claim_after_s": 600}
    created = live.client().create_match("manipulation-rummy", HUMANS, seed=3, clock=clock)
    match_id = created["id"]
    tokens = [seat["token"] for seat in created["seats"]]
    view = Client(live.base_url, tokens[0]).match(match_id)
    assert view["clock"]["options"]["move_s"] == 600
    turn = view["turn"]
    assert turn is not None
    other = 1 - turn
    with pytest.raises(ClaimNotAvailable) as early:
        Client(live.base_url, tokens[other]).claim(match_id)
    assert early.value.seconds_left is not None and early.value.seconds_left > 590
    result = Client(live.base_url, tokens[0]).resign(match_id)
    assert result["match"]["winners"] == [1]
    with pytest.raises(MatchFinished):
        Client(live.base_url, tokens[1]).abort(match_id)


def test_deadwood_new_with_a_clock_and_deadwood_abort(
    live: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["new", "--base-url", live.base_url, "--variant", "manipulation-rummy"]
    argv += ["--players", "ana,ben", "--clock", "per_move:60", "--json"]
    assert main(argv) == 0
    import json

    created = json.loads(capsys.readouterr().out)
    token = created["seats"][0]["token"]
    args = ["abort", "--base-url", live.base_url, "--match", created["id"], "--token", token]
    assert main(args) == 0
    assert "MatchAborted" in capsys.readouterr().out
