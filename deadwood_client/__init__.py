"""A typed Python client for the Deadwood HTTP API (api.md), and the bot loop built on it.

    from deadwood_client import Client, play

    client = Client("http://127.0.0.1:8000", token=seat_token)
    final = play(client, match_id, lambda view: view["you"]["legal_moves"][0])

`Client` has one method per endpoint; errors are `DeadwoodError` subclasses carrying the
problem's `code`, `detail` and `status`; moves are sent exactly once (Idempotency-Key and
If-Match, retried with the same key when the answer is lost); `client.events(...)` follows
the live stream and resumes after a disconnect. The `deadwood` command's play, tail,
export, replay and verify are in `cli.client`.
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
    ServerError,
    TransportError,
    Unauthorized,
    UnknownMatch,
    ValidationError,
    VersionConflict,
)
from deadwood_client.play import my_turn, play, wait_for_turn

__all__ = [
    "LAST_KNOWN",
    "Client",
    "DeadwoodError",
    "Forbidden",
    "IdempotencyKeyReused",
    "IllegalMove",
    "InvalidCard",
    "InvalidLog",
    "MatchInProgress",
    "NotFound",
    "NotYourTurn",
    "OutcomeUnknown",
    "PayloadTooLarge",
    "RateLimited",
    "Retry",
    "ServerError",
    "TransportError",
    "Unauthorized",
    "UnknownMatch",
    "ValidationError",
    "VersionConflict",
    "my_turn",
    "play",
    "wait_for_turn",
]
