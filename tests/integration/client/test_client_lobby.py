"""The lobby from the Python client and the CLI (issue 30), against a served API: `deadwood
new --open N --listed`, `deadwood lobby`, `deadwood join`, and the client's calls with their
typed refusals."""

from __future__ import annotations

import re
from typing import Any

import pytest

from cli.client import main
from deadwood_client import Client
from deadwood_client.errors import LobbyClosed, MatchStarted, SeatTaken, Unauthorized


def test_new_open_listed_then_lobby_and_join_from_the_command_line(
    live: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["--base-url", live.base_url]
    argv = ["new", *base, "--variant", "three-hand-gin", "--players", "ana", "--open", "2"]
    assert main([*argv, "--listed"]) == 0
    out = capsys.readouterr().out
    match_id = re.search(r"match (m_[A-Za-z0-9_-]+)", out).group(1)  # type: ignore[union-attr]
    assert out.count(": open (deadwood join") == 2
    assert main(["lobby", *base]) == 0
    listed = capsys.readouterr().out
    assert match_id in listed and "1: open" in listed and "0: ana" in listed
    assert main(["join", *base, "--match", match_id, "--name", "bo", "--seat", "2"]) == 0
    joined = capsys.readouterr().out
    assert "seat 2 of" in joined and "waiting for players" in joined
    assert main(["join", *base, "--match", match_id, "--name", "bo2", "--seat", "2"]) == 1
    assert "seat_taken" in capsys.readouterr().err
    assert main(["join", *base, "--match", match_id, "--name", "cy"]) == 0
    assert "the match has started" in capsys.readouterr().out
    assert main(["lobby", *base]) == 0
    assert "no match is waiting" in capsys.readouterr().out


def test_the_client_joins_leaves_and_gets_typed_refusals(live: Any) -> None:
    creator = live.client()
    created = creator.create_match(
        "manipulation-rummy", ["dee", {"open": True}, {"open": True}], listed=True
    )
    match_id = created["id"]
    assert created["lobby"] is not None and created["seats"][1]["token"] is None
    page = creator.lobby(variant="manipulation-rummy")
    assert [m["id"] for m in page["matches"]] == [match_id]
    first = creator.join(match_id, "eve", seat=1)
    assert first["token"] and first["match"]["you"]["seat"] == 1
    with pytest.raises(SeatTaken):
        creator.join(match_id, "fay", seat=1)
    eve: Client = live.client(first["token"])
    left = eve.leave(match_id)["match"]["lobby"]
    assert left is not None and left["open_seats"] == [1, 2]
    with pytest.raises(Unauthorized):
        eve.match(match_id)
    creator.join(match_id, "gus")
    creator.join(match_id, "hal")
    with pytest.raises(MatchStarted):
        creator.join(match_id, "ivy")
    other = creator.create_match("three-hand-gin", ["ana", {"open": True}, {"open": True}])
    live.client(other["seats"][0]["token"]).cancel(other["id"])
    with pytest.raises(LobbyClosed):
        creator.join(other["id"], "late")
