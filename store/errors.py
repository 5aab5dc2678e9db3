"""The store's refusals. Each class maps to exactly one HTTP status and problem `code`."""

from __future__ import annotations


class StoreError(Exception):
    """A request the event store cannot carry out."""

    code = "store_error"


class UnknownMatch(StoreError):
    """No match has this id (404)."""

    code = "unknown_match"


class Unauthorized(StoreError):
    """The seat token is missing, malformed or not one of this match's tokens (401)."""

    code = "unauthorized"


class VersionConflict(StoreError):
    """The match has moved on from the version the caller expected (412)."""

    code = "version_conflict"

    def __init__(self, message: str, *, expected: int | None = None, actual: int | None = None):
        super().__init__(message)
        self.expected = expected
        self.actual = actual


class IdempotencyKeyReused(StoreError):
    """An idempotency key came back with another request body or from another seat (422)."""

    code = "idempotency_key_reused"


class NotReplicated(StoreError):
    """An append no replica acknowledged in time (DEADWOOD_DURABILITY=replica) (503)."""

    code = "store_unavailable"


class TurnTimedOut(StoreError):
    """The move came after the seat's deadline: its timeout was applied first (409)."""

    code = "turn_timed_out"


class NotAvailable(StoreError):
    """An abort, resignation or claim the match does not allow now (409); a claim that is
    early says how many seconds are left (`seconds_left`)."""

    code = "not_available"

    def __init__(self, message: str, *, code: str, seconds_left: float | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.seconds_left = seconds_left
