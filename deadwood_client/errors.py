"""Exceptions of the client: one per problem `code` of api.md, and two for the network.

Every refusal of the API is an RFC 9457 problem (`{"type", "title", "status", "detail",
"code"}`); `DeadwoodError.from_problem` turns it into the subclass registered for its
`code` (an unknown code becomes the class of its HTTP status, else `DeadwoodError`), so a bot
can write `except NotYourTurn:` and still read `.code`, `.detail` and `.status`.

Two errors are not problems of the API: `TransportError` (the server was not reached, or
the answer was lost) and `OutcomeUnknown` (a move was sent but, after every retry, whether
it was applied could not be learned; it carries the idempotency key to try again with).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar


class DeadwoodError(Exception):
    """A problem answered by the Deadwood API (or, for subclasses below, by the network)."""

    code: str = "error"
    status_hint: ClassVar[int | None] = None

    def __init__(
        self,
        detail: str,
        *,
        status: int | None = None,
        code: str | None = None,
        problem: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(detail)
        self.detail = detail
        self.status = status if status is not None else self.status_hint
        self.problem: dict[str, Any] = dict(problem or {})
        if code is not None:
            self.code = code  # an instance may carry a code this client does not know

    @property
    def title(self) -> str | None:
        title = self.problem.get("title")
        return str(title) if title is not None else None

    @property
    def errors(self) -> dict[str, list[str]]:
        """validation_error: `{field: [messages]}` (empty for other problems)."""
        found = self.problem.get("errors")
        return dict(found) if isinstance(found, Mapping) else {}

    def __str__(self) -> str:
        status = f"{self.status} " if self.status is not None else ""
        return f"{status}{self.code}: {self.detail}"

    @classmethod
    def from_problem(
        cls, status: int, body: Any, headers: Mapping[str, str] | None = None
    ) -> DeadwoodError:
        """The exception for one error response (problem+json, or anything else)."""
        problem = dict(body) if isinstance(body, Mapping) else {}
        code = problem.get("code")
        code = code if isinstance(code, str) and code else _CODE_OF_STATUS.get(status, "error")
        detail = problem.get("detail")
        if not isinstance(detail, str) or not detail:
            detail = str(body)[:300] if body not in (None, "", {}) else f"HTTP {status}"
        kind = (
            _BY_CODE.get(code)
            or _BY_STATUS.get(status)
            or (ServerError if status >= 500 else DeadwoodError)
        )
        error = kind(detail, status=status, code=code, problem=problem)
        if isinstance(error, RateLimited) and headers is not None:
            error.retry_after = _seconds(headers.get("Retry-After"))
        return error


class IllegalMove(DeadwoodError):
    """422 illegal_move: the rules do not allow this move now (`detail` names the rule)."""

    code = "illegal_move"
    status_hint = 422


class InvalidCard(DeadwoodError):
    """422 invalid_card: a card code that is not a card (`detail` names it)."""

    code = "invalid_card"
    status_hint = 422


class ValidationError(DeadwoodError):
    """422 validation_error: a malformed request; `errors` maps fields to messages."""

    code = "validation_error"
    status_hint = 422


class IdempotencyKeyReused(DeadwoodError):
    """422 idempotency_key_reused: the key was used for another request body."""

    code = "idempotency_key_reused"
    status_hint = 422


class InvalidLog(DeadwoodError):
    """422 invalid_log: an uploaded log breaks the rules at event `event` (its seq)."""

    code = "invalid_log"
    status_hint = 422

    @property
    def event(self) -> int | None:
        found = self.problem.get("event")
        return found if isinstance(found, int) else None


class NotYourTurn(DeadwoodError):
    """409 not_your_turn: another seat is to act."""

    code = "not_your_turn"
    status_hint = 409


class TurnTimedOut(DeadwoodError):
    """409 turn_timed_out: the seat's clock ran out before the move; the timeout (and its
    auto move) is in the log. Read the match again."""

    code = "turn_timed_out"
    status_hint = 409


class ClaimNotAvailable(DeadwoodError):
    """409 claim_not_available: the seat to act has not been absent long enough yet."""

    code = "claim_not_available"
    status_hint = 409

    @property
    def seconds_left(self) -> float | None:
        found = self.problem.get("seconds_left")
        return float(found) if isinstance(found, int | float) else None


class ClaimWrongTurn(DeadwoodError):
    """409 claim_wrong_turn: a claim is against another seat that is to act."""

    code = "claim_wrong_turn"
    status_hint = 409


class AbortNotAvailable(DeadwoodError):
    """409 abort_not_available: every seat has moved; resign instead."""

    code = "abort_not_available"
    status_hint = 409


class NoClock(DeadwoodError):
    """409 no_clock: abort and claim need a match with a clock."""

    code = "no_clock"
    status_hint = 409


class MatchFinished(DeadwoodError):
    """409 match_finished: the match is over."""

    code = "match_finished"
    status_hint = 409


class SeatReplaced(DeadwoodError):
    """409 seat_replaced: a bot plays this seat now."""

    code = "seat_replaced"
    status_hint = 409


class VersionConflict(DeadwoodError):
    """412 version_conflict: the match moved on since the If-Match version; nothing written."""

    code = "version_conflict"
    status_hint = 412


class Unauthorized(DeadwoodError):
    """401 unauthorized: the token is malformed or not this match's."""

    code = "unauthorized"
    status_hint = 401


class Forbidden(DeadwoodError):
    """403 forbidden: a spectator, or a seat that may never make this move."""

    code = "forbidden"
    status_hint = 403


class MatchInProgress(DeadwoodError):
    """403 match_in_progress: the log is published when the match is finished."""

    code = "match_in_progress"
    status_hint = 403


class UnknownMatch(DeadwoodError):
    """404 unknown_match: no match has this id."""

    code = "unknown_match"
    status_hint = 404


class NotFound(DeadwoodError):
    """404 not_found: no such resource (a wrong base URL or path)."""

    code = "not_found"
    status_hint = 404


class PayloadTooLarge(DeadwoodError):
    """413 payload_too_large: the request body is over the endpoint's limit."""

    code = "payload_too_large"
    status_hint = 413


class RateLimited(DeadwoodError):
    """429 rate_limited: too many requests; `retry_after` seconds when the server said."""

    code = "rate_limited"
    status_hint = 429
    retry_after: float | None = None


class ServerError(DeadwoodError):
    """5xx: the server failed (internal_error) or its event store is away (store_unavailable)."""

    code = "internal_error"
    status_hint = 500


class TransportError(DeadwoodError):
    """The request did not get an answer: connection refused or dropped, or a timeout."""

    code = "transport_error"


class OutcomeUnknown(DeadwoodError):
    """A move was sent, but after every retry it is not known whether it was applied.

    Send it again with the same `idempotency_key` (and the same body and If-Match) later:
    the server then either applies it once or returns the response it gave the first time.
    """

    code = "outcome_unknown"

    def __init__(self, detail: str, *, idempotency_key: str, **kwargs: Any) -> None:
        super().__init__(detail, **kwargs)
        self.idempotency_key = idempotency_key


class LobbyRefused(DeadwoodError):
    """A lobby write the match's seats refuse (issue 30); `code` says which."""


class SeatTaken(LobbyRefused):
    """409: another join won the seat (or it is held)."""

    code = "seat_taken"


class MatchFull(LobbyRefused):
    code = "match_full"


class MatchStarted(LobbyRefused):
    code = "match_started"


class MatchNotStarted(LobbyRefused):
    """409: a move in a match that still waits for players."""

    code = "match_not_started"


class RematchNotReady(LobbyRefused):
    code = "rematch_not_ready"


class LobbyClosed(LobbyRefused):
    """410: the match expired or was cancelled before it started."""

    code = "lobby_closed"


class SeatReserved(LobbyRefused):
    """403: a rematch's seat, kept for its previous player."""

    code = "seat_reserved"


class SeededOpenSeat(LobbyRefused):
    code = "seeded_open_seat"


class SeekRefused(DeadwoodError):
    """A seek or keyed-join refusal (issue 32); `code` says which."""


class SeekOpen(SeekRefused):
    """409: the account has an open seek already (`seek_id` names it)."""

    code = "seek_open"
    status_hint = 409

    @property
    def seek_id(self) -> str | None:
        """The open seek's id: the problem's `seek` member, else the one `detail` names."""
        given = self.problem.get("seek")
        if isinstance(given, str):
            return given
        if isinstance(given, Mapping) and isinstance(given.get("id"), str):
            return str(given["id"])
        found = re.search(r"\bs_[A-Za-z0-9_-]+", self.detail)
        return found.group(0) if found else None


class SeekPaired(SeekRefused):
    """409: a cancel too late, the seek is paired (its match waits for the seeker)."""

    code = "seek_paired"
    status_hint = 409


class UnknownSeek(SeekRefused):
    """404: no seek of this caller's account has that id."""

    code = "unknown_seek"
    status_hint = 404


class AlreadySeated(SeekRefused):
    """409: the key's account holds a seat of this match already."""

    code = "already_seated"
    status_hint = 409


class NameNotHandle(SeekRefused):
    """422: a keyed join's `name` must be the account's handle (or left out)."""

    code = "name_not_handle"
    status_hint = 422


class RatedSeatNeedsKey(SeekRefused):
    """403: a rated match's open seat takes a key with `play_rated`."""

    code = "rated_seat_needs_key"
    status_hint = 403


_BY_CODE: dict[str, type[DeadwoodError]] = {
    kind.code: kind
    for kind in (
        IllegalMove,
        InvalidCard,
        ValidationError,
        IdempotencyKeyReused,
        InvalidLog,
        NotYourTurn,
        TurnTimedOut,
        ClaimNotAvailable,
        ClaimWrongTurn,
        AbortNotAvailable,
        NoClock,
        MatchFinished,
        SeatReplaced,
        VersionConflict,
        Unauthorized,
        Forbidden,
        MatchInProgress,
        UnknownMatch,
        NotFound,
        PayloadTooLarge,
        RateLimited,
        SeatTaken,
        MatchFull,
        MatchStarted,
        MatchNotStarted,
        RematchNotReady,
        LobbyClosed,
        SeatReserved,
        SeededOpenSeat,
        SeekOpen,
        SeekPaired,
        UnknownSeek,
        AlreadySeated,
        NameNotHandle,
        RatedSeatNeedsKey,
    )
}
_BY_CODE["store_unavailable"] = ServerError

_BY_STATUS: dict[int, type[DeadwoodError]] = {
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    409: NotYourTurn,
    412: VersionConflict,
    413: PayloadTooLarge,
    422: ValidationError,
    429: RateLimited,
}

_CODE_OF_STATUS = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    409: "not_your_turn",
    410: "lobby_closed",
    412: "version_conflict",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "validation_error",
    429: "rate_limited",
    500: "internal_error",
    502: "bad_gateway",
    503: "store_unavailable",
    504: "gateway_timeout",
}


def _seconds(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None
