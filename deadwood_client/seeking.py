"""`play_seeking(client, variant, clock, choose)`: a bot that asks to be paired, plays the
match it is paired into, and asks again, until it is stopped or has played `games` matches.

    stop = threading.Event()                   # set it (a signal handler, another thread)
    with Client(url, key=account_key) as me:   # to stop after the match under way
        finals = play_seeking(me, "three-hand-gin", {"mode": "per_move", "move_s": 10},
                              choose, games=5, stop=stop)

The client carries the account's key (`Deadwood-Key`, scopes `join_seats` and, for rated
play, `play_rated`). One round of the loop (seek-contract.md, "Pairing"):
1. POST /v1/seeks. If the account has a seek open already (409 `seek_open`: an earlier run
   with the same key), that one is cancelled and this one made instead; if it was paired
   meanwhile, its match is played first.
2. GET the seek every `poll` seconds until it is `paired`; an `expired` or `cancelled`
   seek is made again. When `stop` is set while the seek is open, it is cancelled and the
   loop ends (a cancel that finds it paired plays that match first: the seat is reserved
   for this account, and an empty seat would cancel the match for the others).
3. POST .../join with the key, for the seat the pairing reserved: the seat's token (a 404
   right after the pairing, the match not written yet, is tried again for a few seconds).
4. `play` with that token (the seat's client keeps the key) until the match is finished.
   A match cancelled before it started (another seeker never joined: lobby_closed, or the
   lobby expired while we waited) is not counted; the loop seeks again.
A match under way is always played to its end, whatever `stop` says meanwhile. An exception
(KeyboardInterrupt too) while a seek is open cancels the seek before it propagates.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from deadwood_client.client import Client
from deadwood_client.errors import (
    DeadwoodError,
    LobbyClosed,
    SeekOpen,
    SeekPaired,
    UnknownMatch,
)
from deadwood_client.play import Choose, play
from deadwood_client.types import Joined, MoveResult, Seek, SeekMatch, View

POLL_S = 0.5
"""How often a waiting seek is read again (the contract's ~0.5 s)."""

JOIN_PATIENCE_S = 10.0
"""How long a join answered 404 `unknown_match` is tried again: the server marks a seek
paired a moment before it writes the match."""


@dataclass
class SeekSpec:
    """What a bot seeks: the POST /v1/seeks body."""

    variant: str
    clock: Mapping[str, Any] | None
    rated: bool = True
    seats: int | None = None
    options: Mapping[str, Any] = field(default_factory=dict)


def play_seeking(
    client: Client,
    variant: str,
    clock: Mapping[str, Any] | None,
    choose: Choose,
    *,
    games: int | None = None,
    stop: threading.Event | None = None,
    rated: bool = True,
    seats: int | None = None,
    options: Mapping[str, Any] | None = None,
    poll: float = POLL_S,
    say: Callable[[str], None] | None = None,
    on_move: Callable[[Mapping[str, Any], MoveResult], None] | None = None,
) -> list[View]:
    """Seek, wait to be paired, join, play; again, until `stop` is set or `games` matches
    were played to the end. The final views of those matches, in order (module docstring).
    `say` gets a line at each step (seek made, paired, joined, finished)."""
    if client.key is None:
        raise ValueError("play_seeking needs an account key: Client(url, key=...)")
    spec = SeekSpec(variant, clock, rated, seats, dict(options or {}))
    tell = say or (lambda _line: None)
    finals: list[View] = []
    while games is None or len(finals) < games:
        if stop is not None and stop.is_set():
            break
        paired = wait_paired(client, spec, stop=stop, poll=poll, say=tell)
        if paired is None:
            break
        final = play_paired(client, paired, choose, say=tell, on_move=on_move)
        if final is not None and not called_off(final):
            finals.append(final)
    return finals


def wait_paired(
    client: Client,
    spec: SeekSpec,
    *,
    stop: threading.Event | None = None,
    poll: float = POLL_S,
    say: Callable[[str], None] = lambda _line: None,
) -> SeekMatch | None:
    """Seek and wait until paired: the seat reserved for us; None when `stop` was set first
    (the seek is then cancelled)."""
    seek = open_seek(client, spec, say)
    try:
        while True:
            found = seek["match"]
            if seek["status"] == "paired" and found:
                say(f"seek {seek['id']} paired: match {found['id']}, seat {found['seat']}")
                return found
            if seek["status"] in ("cancelled", "expired"):
                say(f"seek {seek['id']} {seek['status']}: seeking again")
                seek = open_seek(client, spec, say)
                continue
            if stop is not None and stop.is_set():
                try:
                    client.cancel_seek(seek["id"])
                except SeekPaired:
                    seek = client.get_seek(seek["id"])
                    continue
                say(f"seek {seek['id']} cancelled")
                return None
            _pause(stop, poll)
            seek = client.get_seek(seek["id"])
    except BaseException:
        if seek["status"] == "open":
            with contextlib.suppress(DeadwoodError):
                client.cancel_seek(seek["id"])
        raise


def open_seek(client: Client, spec: SeekSpec, say: Callable[[str], None]) -> Seek:
    """POST /v1/seeks; a seek the account left open is cancelled and replaced (or, when it
    was paired meanwhile, returned: its match is ours to play)."""
    for _ in range(3):
        try:
            seek = client.seek(
                spec.variant,
                clock=spec.clock,
                rated=spec.rated,
                seats=spec.seats,
                options=spec.options,
            )
        except SeekOpen as open_already:
            stale = open_already.seek_id
            if stale is None:
                raise
            try:
                client.cancel_seek(stale)
            except SeekPaired:
                return client.get_seek(stale)
            say(f"seek {stale} was left open: cancelled")
            continue
        say(f"seek {seek['id']} open: {spec.variant}, {'rated' if spec.rated else 'casual'}")
        return seek
    raise DeadwoodError("the account's open seek kept coming back", code="seek_open")


def play_paired(
    client: Client,
    paired: SeekMatch,
    choose: Choose,
    *,
    say: Callable[[str], None] = lambda _line: None,
    on_move: Callable[[Mapping[str, Any], MoveResult], None] | None = None,
) -> View | None:
    """Join the reserved seat with the key and play it to the end: the final view (None when
    the match was called off before we joined; a view that is `called_off` when it was
    while we waited for the others)."""
    match_id = paired["id"]
    try:
        joined = join_paired(client, paired)
    except LobbyClosed as closed:
        say(f"match {match_id} was called off before we joined: {closed.detail}")
        return None
    say(f"joined {match_id} as seat {joined['seat']}")
    seat = client.with_token(joined["token"])
    final = play(seat, match_id, choose, on_move=on_move)
    if called_off(final):
        say(f"{match_id} was cancelled before it started")
    else:
        say(f"{match_id} finished: scores {final['scores']}, winners {final['winners']}")
    return final


def called_off(view: View) -> bool:
    """True for a match cancelled before it started (a seat never joined): it is `finished`
    too, but nothing was played and nothing is rated."""
    lobby = view.get("lobby")
    return lobby is not None and lobby["status"] == "cancelled"


def join_paired(client: Client, paired: SeekMatch, patience: float = JOIN_PATIENCE_S) -> Joined:
    """POST the paired match's join with the key, for the reserved seat; a 404 right after
    the pairing (the match not written yet) is tried again for up to `patience` seconds."""
    deadline = time.monotonic() + patience
    while True:
        try:
            return client.join(paired["id"], seat=paired["seat"])
        except UnknownMatch:
            if time.monotonic() >= deadline:
                raise
            time.sleep(0.1)


def _pause(stop: threading.Event | None, seconds: float) -> None:
    if stop is None:
        time.sleep(seconds)
    else:
        stop.wait(seconds)
