"""A typed Python client for the Deadwood HTTP API (api.md), and the bot loop built on it.

    from deadwood_client import Client, play

    client = Client("http://127.0.0.1:8000", token=seat_token)
    final = play(client, match_id, lambda view: view["you"]["legal_moves"][0])

A typed bot's `choose(view: View) -> Move` is the `Choose` that `play` takes (the shapes of
api.md are TypedDicts in `deadwood_client.types`; `view["you"]` is None only for a spectator):
examples/simple_bot.py is one that passes `mypy --strict`.
`Client` has one method per endpoint; errors are `DeadwoodError` subclasses carrying the
problem's `code`, `detail` and `status`; moves are sent exactly once (Idempotency-Key and
If-Match, retried with the same key when the answer is lost); `client.events(...)` follows
the live stream and resumes after a disconnect. The `deadwood` command's play, tail,
export, replay and verify are in `cli.client`.

Rated play (issue 32): `Client(url, key=account_key)` carries the account's key beside any
seat token; `client.seek(...)`, `get_seek`, `cancel_seek` and `seeks()` are the pairing
requests (deadwood_client/seeks.py), and

    play_seeking(client, "three-hand-gin", {"mode": "per_move", "move_s": 10}, choose)

seeks, waits to be paired, joins and plays with `play`, again and again until stopped
(deadwood_client/seeking.py; `deadwood play --seek` is its command).
"""

from __future__ import annotations

from deadwood_client.client import LAST_KNOWN, Client, Retry
from deadwood_client.errors import (
    DeadwoodError,
    Forbidden,
    IdempotencyKeyReused,
    IllegalMove,
    InvalidCard,
    InvalidLog,
    MatchInProgress,
    NotFound,
    NotYourTurn,
    OutcomeUnknown,
    PayloadTooLarge,
    RateLimited,
    SeekOpen,
    SeekPaired,
    ServerError,
    TransportError,
    Unauthorized,
    UnknownMatch,
    UnknownSeek,
    ValidationError,
    VersionConflict,
)
from deadwood_client.play import Choose, my_turn, play, wait_for_turn
from deadwood_client.seeking import play_seeking
from deadwood_client.types import Move, OpenSeek, Seek, View

__all__ = [
    "LAST_KNOWN",
    "Choose",
    "Client",
    "DeadwoodError",
    "Forbidden",
    "IdempotencyKeyReused",
    "IllegalMove",
    "InvalidCard",
    "InvalidLog",
    "MatchInProgress",
    "Move",
    "NotFound",
    "NotYourTurn",
    "OpenSeek",
    "OutcomeUnknown",
    "PayloadTooLarge",
    "RateLimited",
    "Retry",
    "Seek",
    "SeekOpen",
    "SeekPaired",
    "ServerError",
    "TransportError",
    "Unauthorized",
    "UnknownMatch",
    "UnknownSeek",
    "ValidationError",
    "VersionConflict",
    "View",
    "my_turn",
    "play",
    "play_seeking",
    "wait_for_turn",
]
