"""`play(client, match_id, choose)`: a bot loop for one seat, until the match ends.

    def choose(view):                       # the seat's view; view["you"]["legal_moves"]
        return view["you"]["legal_moves"][0]

    final = play(Client(url, token=seat_token), match_id, choose)

The loop:
1. Read the view. Finished -> return it.
2. If `view["turn"]` is this seat and it has legal moves, call `choose(view)` and send the
   move with If-Match = the version the choice was made at (and an idempotency key, so a
   retried move is applied once). A 412/409 (the match moved on between the read and the
   move, e.g. the gin advisor spoke) -> read again and choose again.
3. Otherwise follow the event stream from the view's version, and read the view again after
   each event (events older than the last read are skipped) until it is this seat's turn or
   the match is finished. The stream resumes by itself after a disconnect.

Only `turn` wakes the bot: the gin advisor, who may `advise` at any time, is never to act,
so a bot in that seat waits to the end (choose may still be called by your own code).
If a move's outcome stays unknown after the client's retries (`OutcomeUnknown`), the same
move is resent with the same idempotency key until `patience` seconds have passed.
A move the rules refuse (IllegalMove, ValidationError, ...) is a bug of `choose`: raised.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Mapping
from typing import Any

from deadwood_client.client import Client
from deadwood_client.errors import (
    Forbidden,
    NotYourTurn,
    OutcomeUnknown,
    TurnTimedOut,
    VersionConflict,
)
from deadwood_client.types import Move, MoveResult, View

Choose = Callable[[View], Move | Mapping[str, Any]]


def my_turn(view: View) -> bool:
    """True when the caller's seat is to act and has a legal move."""
    you = view["you"]
    return you is not None and view["turn"] == you["seat"] and bool(you["legal_moves"])


def play(
    client: Client,
    match_id: str,
    choose: Choose,
    *,
    on_move: Callable[[Mapping[str, Any], MoveResult], None] | None = None,
    patience: float = 120.0,
) -> View:
    """Play the client's seat with `choose` until the match is finished; the final view."""
    view = client.match(match_id)
    if view["you"] is None:
        raise Forbidden("play needs a seat: create the Client with that seat's token")
    while view["status"] != "finished":
        if not my_turn(view):
            view = wait_for_turn(client, match_id, view)
            continue
        you = view["you"]
        hurried = you is not None and _hurried(view)
        move = dict(you["legal_moves"][0] if hurried and you is not None else choose(view))
        try:
            result = _send(client, match_id, move, view["version"], patience)
        except (VersionConflict, NotYourTurn, TurnTimedOut):  # the timeout is in the log
            view = client.match(match_id)
            continue
        if on_move is not None:
            on_move(move, result)
        view = result["match"]
    return view


HURRY_MS = 500
"""With less than this left on the seat's clock, play the first legal move, not `choose`'s."""


def _hurried(view: View) -> bool:
    """True when the seat's clock (a clocked match) is about to run out."""
    clock, you = view.get("clock"), view["you"]
    if not clock or you is None or not you["legal_moves"]:
        return False
    mine = clock["seats"][you["seat"]]
    return bool(mine["running"]) and mine["left_ms"] < HURRY_MS


def wait_for_turn(client: Client, match_id: str, view: View) -> View:
    """The first view (after `view`) in which this seat is to act, or the finished view."""
    seen = view["version"]
    with contextlib.closing(client.events(match_id, after=seen)) as events:
        for event in events:
            if event["seq"] <= seen:
                continue
            fresh = client.match(match_id)
            seen = fresh["version"]
            if fresh["status"] == "finished" or my_turn(fresh):
                return fresh
    return client.match(match_id)


def _send(
    client: Client, match_id: str, move: dict[str, Any], version: int, patience: float
) -> MoveResult:
    """The move, resent with the same idempotency key while its outcome is unknown."""
    deadline = time.monotonic() + patience
    key: str | None = None
    while True:
        try:
            return client.move(match_id, move, if_match=version, idempotency_key=key)
        except OutcomeUnknown as unknown:
            if time.monotonic() >= deadline:
                raise
            key = unknown.idempotency_key
            client.retry.pause(client.retry.attempts)
