"""Seeks and rated pairing from the Python client and the CLI (issue 32), against the served
API with its jobs (the pairing job among them) run by a real rq worker: `client.seek`,
`get_seek`, `cancel_seek`, `seeks`, the keyed join, `play_seeking` (two seeking bots meet and
play a rated match), `deadwood seek ...` and `deadwood play --seek`."""

from __future__ import annotations

import re
import threading
from typing import Any

import pytest

from cli.client import load_bot, main
from deadwood_client import Client, View, play_seeking
from deadwood_client.errors import (
    AlreadySeated,
    RatedSeatNeedsKey,
    SeatReserved,
    SeekOpen,
    SeekPaired,
    UnknownSeek,
)
from deadwood_client.play import play
from deadwood_client.seeking import SeekSpec, open_seek
from deadwood_client.types import Player
from tests.support.waiting import wait_until

VARIANT = "manipulation-rummy"
CLOCK = {"mode": "per_move", "move_s": 30}
OPTIONS = {"max_rounds": 1}
"""Two seats, one round: a short rated match."""


def _account(live: Any, handle: str) -> Client:
    """A new bot account's client, with the key its creation shows once (every scope)."""
    made = live.client().accounts.create(handle, "bot")
    keyed: Client = live.client(key=made["key"]["key"])
    return keyed


def _seek(me: Client, **given: Any) -> Any:
    return me.seek(VARIANT, clock=CLOCK, seats=2, options=OPTIONS, **given)


def _play_seat(me: Client, match_id: str, token: str, finals: dict[str, View]) -> None:
    finals[token] = play(me.with_token(token), match_id, load_bot("basic", VARIANT, 3))


def test_a_keyed_join_takes_the_reserved_rated_seat_as_the_account(live: Any) -> None:
    """The client's join with a key and no name (issue 32): the seat reserved for the account
    is its, named after its handle; others are refused with typed errors; the match, played
    by both keyed clients with `play`, is rated for both accounts."""
    ana, ben, cy = (_account(live, h) for h in ("ana-bot", "ben-bot", "cy-bot"))
    players: list[Player] = [
        {"name": "ana-bot", "account": "ana-bot"},
        {"open": True, "account": "ben-bot"},
    ]
    created = ana.create_match(
        VARIANT, players, seed=None, options={**OPTIONS, "rated": True}, clock=CLOCK
    )
    match_id = created["id"]
    with pytest.raises(RatedSeatNeedsKey):
        live.client().join(match_id, "someone")
    with pytest.raises(SeatReserved):
        cy.join(match_id, seat=1)
    with pytest.raises(AlreadySeated):
        ana.join(match_id)
    joined = ben.join(match_id)
    seat = joined["match"]["seats"][1]
    assert joined["seat"] == 1 and joined["token"]
    assert (seat["name"], seat["account"], seat["account_bot"]) == ("ben-bot", "ben-bot", True)
    tokens = [created["seats"][0]["token"], joined["token"]]
    finals: dict[str, View] = {}
    threads = [
        threading.Thread(target=_play_seat, args=(me, match_id, token, finals))
        for me, token in zip((ana, ben), tokens, strict=True)
        if token is not None
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert len(finals) == 2 and all(f["status"] == "finished" for f in finals.values())
    _wait_rated(live, "ana-bot", 1)
    _wait_rated(live, "ben-bot", 1)


def test_a_seek_is_made_read_listed_refused_twice_and_cancelled(live: Any) -> None:
    ana, ben = _account(live, "ana-bot"), _account(live, "ben-bot")
    seek = _seek(ana)
    assert seek["status"] == "open" and seek["account"] == "ana-bot" and seek["bot"] is True
    assert seek["rated"] is True and seek["seats"] == 2 and seek["id"].startswith("s_")
    assert ana.get_seek(seek["id"])["status"] == "open"
    listed = live.client().seeks(VARIANT)
    assert [s["id"] for s in listed] == [seek["id"]] and "match" not in listed[0]
    assert live.client().seeks("three-hand-gin") == []
    with pytest.raises(SeekOpen) as twice:
        _seek(ana)
    assert twice.value.seek_id == seek["id"]
    with pytest.raises(UnknownSeek):
        ben.get_seek(seek["id"])
    assert ana.cancel_seek(seek["id"])["status"] == "cancelled"
    assert ana.cancel_seek(seek["id"])["status"] == "cancelled"
    assert live.client().seeks(VARIANT) == []


def test_two_seeks_are_paired_and_a_paired_seek_is_not_cancelled(live: Any) -> None:
    ana, ben = _account(live, "ana-bot"), _account(live, "ben-bot")
    first, second = _seek(ana), _seek(ben)

    def paired() -> Any:
        found = ana.get_seek(first["id"])
        return found if found["status"] == "paired" else None

    mine = wait_until(paired, 30.0, "the pairing job to pair the two seeks", every=0.05)
    theirs = ben.get_seek(second["id"])
    assert mine["match"] and theirs["match"] and mine["match"]["id"] == theirs["match"]["id"]
    assert {mine["match"]["seat"], theirs["match"]["seat"]} == {0, 1}
    with pytest.raises(SeekPaired):
        ana.cancel_seek(first["id"])
    match_id = mine["match"]["id"]
    joined = ana.join(match_id, seat=mine["match"]["seat"])  # no name: the handle
    seat = joined["match"]["seats"][joined["seat"]]
    assert joined["token"] and seat["name"] == "ana-bot"


def test_an_open_seek_left_behind_is_cancelled_and_replaced(live: Any) -> None:
    ana = _account(live, "ana-bot")
    stale = _seek(ana)
    lines: list[str] = []
    fresh = open_seek(ana, SeekSpec(VARIANT, CLOCK, True, 2, OPTIONS), lines.append)
    assert fresh["id"] != stale["id"] and fresh["status"] == "open"
    assert ana.get_seek(stale["id"])["status"] == "cancelled"
    assert any("left open" in line for line in lines), lines


def test_stopping_a_lone_seeker_cancels_its_seek(live: Any) -> None:
    ana = _account(live, "ana-bot")
    stop = threading.Event()

    def say(line: str) -> None:
        if " open:" in line:
            stop.set()  # stop as soon as the seek is made

    choose = load_bot("basic", VARIANT, 1)
    assert play_seeking(ana, VARIANT, CLOCK, choose, stop=stop, seats=2, say=say) == []
    assert live.client().seeks(VARIANT) == []


def _seeker(
    live: Any,
    me: Client,
    finals: dict[str, list[View]],
    handle: str,
    stop: threading.Event | None = None,
) -> None:
    """`play_seeking` for one match (`games=1`), or, given `stop`, until it is set."""
    choose = load_bot("basic", VARIANT, 7)
    games = 1 if stop is None else None
    finals[handle] = play_seeking(
        me, VARIANT, CLOCK, choose, games=games, stop=stop, seats=2, options=OPTIONS
    )


def test_two_seeking_bots_meet_and_play_one_rated_match(live: Any) -> None:
    """The issue's promise, in-process: two bots that only call the API are paired with each
    other, join, play the match to the end, and the match is rated. One plays one game; the
    other is stopped as soon as its match is under way, which it still plays to the end."""
    ana, ben = _account(live, "ana-bot"), _account(live, "ben-bot")
    finals: dict[str, list[View]] = {}
    stop = threading.Event()
    started = threading.Event()

    def stop_once_joined() -> None:
        started.wait(120)
        stop.set()

    original = ben.join

    def join(*args: Any, **kwargs: Any) -> Any:
        joined = original(*args, **kwargs)
        started.set()
        return joined

    ben.join = join  # type: ignore[method-assign]  # the stop arrives mid-match
    threads = [
        threading.Thread(target=_seeker, args=(live, ana, finals, "ana-bot")),
        threading.Thread(target=_seeker, args=(live, ben, finals, "ben-bot", stop)),
        threading.Thread(target=stop_once_joined),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(t.is_alive() for t in threads) and set(finals) == {"ana-bot", "ben-bot"}
    (a,), (b,) = finals["ana-bot"], finals["ben-bot"]
    assert a["id"] == b["id"] and a["status"] == "finished"
    assert sorted(s["name"] for s in a["seats"]) == ["ana-bot", "ben-bot"]
    assert a["options"]["rated"] is True
    _wait_rated(live, "ana-bot", 1)


def test_an_expired_seek_is_made_again(live: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEADWOOD_SEEK_TTL_S", "1")  # read by the service's first seek
    ana = _account(live, "ana-bot")
    stop = threading.Event()
    lines: list[str] = []

    def say(line: str) -> None:
        lines.append(line)
        if "expired: seeking again" in line:
            stop.set()

    choose = load_bot("basic", VARIANT, 1)
    finals = play_seeking(
        ana, VARIANT, CLOCK, choose, stop=stop, seats=2, options=OPTIONS, poll=0.05, say=say
    )
    assert finals == [] and sum(" open:" in line for line in lines) == 2, lines
    assert lines[-1].endswith("cancelled") and live.client().seeks(VARIANT) == []


def test_a_paired_match_never_joined_by_the_other_is_called_off_and_sought_again(
    live: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ben seeks and never joins: the paired match is cancelled when its join window ends
    (here 1 s), ana's `play` returns it unplayed, and the loop seeks again (then stops)."""
    monkeypatch.setenv("DEADWOOD_PAIRED_JOIN_S", "1")
    ana, ben = _account(live, "ana-bot"), _account(live, "ben-bot")
    stop = threading.Event()
    lines: list[str] = []

    def say(line: str) -> None:
        lines.append(line)
        if "cancelled before it started" in line or "called off" in line:
            stop.set()

    def seek_too() -> None:
        wait_until(lambda: live.client().seeks(VARIANT), 30.0, "ana's seek", every=0.05)
        _seek(ben)

    other = threading.Thread(target=seek_too)
    other.start()
    choose = load_bot("basic", VARIANT, 1)
    finals = play_seeking(ana, VARIANT, CLOCK, choose, stop=stop, seats=2, options=OPTIONS, say=say)
    other.join(timeout=30)
    assert finals == [] and any("paired: match" in line for line in lines), lines
    assert stop.is_set()


def _wait_rated(live: Any, handle: str, games: int) -> Any:
    """The account once its rated matches are rated (the rating job runs after the finish)."""

    def rated() -> Any:
        found = live.client().accounts.get(handle)["ratings"].get(VARIANT)
        return found if found and found["games"] >= games else None

    return wait_until(rated, 30.0, f"{handle}'s rating", every=0.05)


def test_seek_commands_create_show_list_and_cancel(
    live: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    made = live.client().accounts.create("cy-bot", "bot")
    server = ["--base-url", live.base_url, "--key", made["key"]["key"]]
    create = ["seek", "create", *server, "--variant", VARIANT, "--clock", "per_move:30"]
    assert main([*create, "--seats", "2", "--option", "max_rounds=1"]) == 0
    out = capsys.readouterr().out
    seek_id = re.search(r"(s_[A-Za-z0-9_-]+) open", out).group(1)  # type: ignore[union-attr]
    assert "manipulation-rummy rated per_move 30 s, 2 seats  cy-bot [bot]" in out
    assert main(["seek", "show", *server, seek_id]) == 0
    assert f"{seek_id} open" in capsys.readouterr().out
    assert main(["seek", "list", "--base-url", live.base_url]) == 0
    assert seek_id in capsys.readouterr().out
    assert main(["lobby", "--base-url", live.base_url]) == 0
    assert f"seek {seek_id} open" in capsys.readouterr().out
    assert main([*create, "--seats", "2"]) == 1
    assert "seek_open" in capsys.readouterr().err
    assert main(["seek", "cancel", *server, seek_id]) == 0
    assert f"{seek_id} cancelled" in capsys.readouterr().out
    assert main(["seek", "list", "--base-url", live.base_url]) == 0
    assert "no seek is open" in capsys.readouterr().out


def test_play_seek_plays_rated_matches_against_another_seeker(
    live: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """`deadwood play --seek --games 1` meets a `play_seeking` bot of another account."""
    made = live.client().accounts.create("cy-bot", "bot")
    dee = _account(live, "dee-bot")
    finals: dict[str, list[View]] = {}
    other = threading.Thread(target=_seeker, args=(live, dee, finals, "dee-bot"))
    other.start()
    argv = ["play", "--seek", "--base-url", live.base_url, "--key", made["key"]["key"]]
    argv += ["--variant", VARIANT, "--clock", "per_move:30", "--seats", "2"]
    try:
        assert main([*argv, "--option", "max_rounds=1", "--games", "1", "--bot", "basic"]) == 0
    finally:
        other.join(timeout=120)
    out = capsys.readouterr().out
    (final,) = finals["dee-bot"]
    assert f"{final['id']} finished" in out and "played 1 match" in out
    assert f"joined {final['id']} as seat" in out
