"""RFC 9457 problem details: every refusal of the API, and the one place that builds them.

Each error class maps to exactly one status and `code` (api.md "Conventions"):

    domain.errors  IllegalMove 422 illegal_move, AdviceLimit 422 advice_limit,
                   NotYourTurn 409 not_your_turn,
                   InvalidCard 422 invalid_card, MalformedMove / InvalidOptions 422
                   validation_error, ForbiddenMove 403 forbidden
    domain.lobby   SeatTaken 409 seat_taken, MatchFull 409 match_full, AlreadyStarted 409
                   match_started, NotStarted 409 match_not_started, LobbyClosed 410
                   lobby_closed, SeatReserved 403 seat_reserved, SeededOpenSeat 422
                   seeded_open_seat, AlreadySeated 409 already_seated,
                   RatedSeatNeedsKey 403 rated_seat_needs_key; store.lobby_rematch
                   RematchNotReady 409 rematch_not_ready; api name_not_handle 422
    store.errors   (issue 31) TurnTimedOut 409 turn_timed_out; NotAvailable 409 with its own
                   code: abort_not_available, claim_not_available (+ seconds_left),
                   claim_wrong_turn, no_clock, match_finished, seat_replaced
    api            match_not_finished 404 (no analysis during play); accounts and keys
                   (issue 32): key_required 401, missing_scope 403, unknown_key 404,
                   unknown_variant 404
    domain.rated   RatedMatchSeeded 422 rated_match_seeded, RatedSeatNotAccount 422
                   rated_seat_not_account, RatedMatchNeedsClock 422 rated_match_needs_clock;
                   domain.accounts InvalidHandle 422 invalid_handle
    store.seeks    UnknownSeek 404 unknown_seek, SeekOpen 409 seek_open, SeekPaired 409
                   seek_paired
    store.accounts InvalidKey 401 invalid_key, UnknownAccount 404 unknown_account,
                   HandleTaken 409 handle_taken, TooManyKeys 409 too_many_keys
    store.errors   UnknownMatch 404 unknown_match, Unauthorized 401 unauthorized,
                   VersionConflict 412 version_conflict, IdempotencyKeyReused 422
                   idempotency_key_reused
    HTTP           400 bad_request, 404 not_found, 405 method_not_allowed, 413
                   payload_too_large, 415 unsupported_media_type, 422 validation_error,
                   500 internal_error, 503 store_unavailable

Every problem made while answering a request carries its `request_id` (api/observe.py), so a
caller's "my move got a 503" can be matched to the server's log lines.

A problem never carries a stack trace, and the generic 500 is logged without the exception's
message (which could name a card), only its class and the frames it passed through.
"""

from __future__ import annotations

import json
import logging
import math
import traceback
from typing import Any

import redis
from flask import Flask, Response, g, has_request_context
from werkzeug.exceptions import HTTPException

from domain.errors import RulesError

log = logging.getLogger("deadwood.api")

PROBLEM_TYPE = "https://deadwood.example/problems/"
"""Base of each problem's `type` URI; the `code` is appended."""

STATUS_OF_CODE = {
    "illegal_move": 422,
    "advice_limit": 422,
    "invalid_card": 422,
    "validation_error": 422,
    "not_your_turn": 409,
    "forbidden": 403,
    "unknown_match": 404,
    "unauthorized": 401,
    "version_conflict": 412,
    "idempotency_key_reused": 422,
    "match_in_progress": 403,
    "match_not_finished": 404,
    "invalid_log": 422,
    "replay_too_costly": 422,
    "replay_too_large": 413,
    "not_ready": 503,
    "seat_taken": 409,
    "match_full": 409,
    "match_started": 409,
    "match_not_started": 409,
    "rematch_not_ready": 409,
    "lobby_closed": 410,
    "seat_reserved": 403,
    "rated_seat_needs_key": 403,
    "already_seated": 409,
    "name_not_handle": 422,
    "unknown_seek": 404,
    "seek_open": 409,
    "seek_paired": 409,
    "seeded_open_seat": 422,
    "turn_timed_out": 409,
    "abort_not_available": 409,
    "claim_not_available": 409,
    "claim_wrong_turn": 409,
    "no_clock": 409,
    "match_finished": 409,
    "seat_replaced": 409,
    "invalid_key": 401,
    "key_required": 401,
    "missing_scope": 403,
    "unknown_account": 404,
    "unknown_key": 404,
    "unknown_variant": 404,
    "handle_taken": 409,
    "too_many_keys": 409,
    "invalid_handle": 422,
    "rated_match_seeded": 422,
    "rated_seat_not_account": 422,
    "rated_match_needs_clock": 422,
    "rate_limited": 429,
}

TITLES = {
    "illegal_move": "The rules do not allow this move",
    "advice_limit": "Enough advice for this turn",
    "invalid_card": "Not a card code",
    "validation_error": "The request is not valid",
    "not_your_turn": "Another seat is to act",
    "forbidden": "This caller may not do this",
    "unknown_match": "No such match",
    "unauthorized": "The token is not valid for this match",
    "version_conflict": "The match has moved on",
    "idempotency_key_reused": "The idempotency key was used for another request",
    "match_in_progress": "The match is still in progress",
    "match_not_finished": "The match has no analysis until it is finished",
    "invalid_log": "The log does not follow the rules",
    "replay_too_costly": "Checking the log took more CPU time than its budget",
    "replay_too_large": "The replay's steps are larger than this form of answer allows",
    "stream_limit": "Too many live streams from this caller",
    "streams_full": "This server holds its most live streams",
    "hints_busy": "This server is busy working out hints",
    "bad_request": "The request could not be read",
    "not_found": "No such resource",
    "method_not_allowed": "Method not allowed",
    "not_acceptable": "Not acceptable",
    "request_timeout": "The request body took too long to arrive",
    "payload_too_large": "The request body is too large",
    "unsupported_media_type": "Unsupported content type",
    "precondition_required": "A precondition header is malformed",
    "internal_error": "Internal server error",
    "store_unavailable": "The event store is unavailable",
    "not_ready": "A part the service needs is not ready",
    "seat_taken": "The seat is taken",
    "match_full": "Every seat is taken",
    "match_started": "The match has started",
    "match_not_started": "The match waits for players",
    "rematch_not_ready": "The match has not finished",
    "lobby_closed": "The match was cancelled before it started",
    "seat_reserved": "The seat is kept for someone else",
    "rated_seat_needs_key": "A rated match's seat needs an account key that plays rated",
    "already_seated": "The account holds a seat of this match",
    "name_not_handle": "A seat joined with a key is named by its handle",
    "unknown_seek": "No such seek of this account",
    "seek_open": "The account has an open seek",
    "seek_paired": "The seek is paired",
    "seeded_open_seat": "A seeded match cannot have open seats",
    "turn_timed_out": "The seat's time ran out before this move",
    "abort_not_available": "The match can no longer be aborted",
    "claim_not_available": "The claim is not available yet",
    "claim_wrong_turn": "A claim is against another seat that is to act",
    "no_clock": "The match has no clock",
    "match_finished": "The match is over",
    "seat_replaced": "A bot plays this seat",
    "invalid_key": "The account key is not valid",
    "key_required": "This needs an account key",
    "missing_scope": "The account key lacks a scope this needs",
    "unknown_account": "No such account",
    "unknown_key": "No such key",
    "unknown_variant": "No such variant",
    "handle_taken": "The handle is taken",
    "too_many_keys": "The account holds its most keys",
    "invalid_handle": "Not a handle one may take",
    "rated_match_seeded": "A rated match takes no seed",
    "rated_seat_not_account": "A rated match seats accounts and built-in bots only",
    "rated_match_needs_clock": "A rated match needs a clock",
}

CODE_OF_HTTP_STATUS = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    408: "request_timeout",
    409: "not_your_turn",
    412: "version_conflict",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "validation_error",
    428: "precondition_required",
    500: "internal_error",
    503: "store_unavailable",
}


class ApiError(Exception):
    """A refusal raised by the API layer itself; `extra` adds members to the problem."""

    def __init__(self, code: str, detail: str, status: int | None = None, **extra: Any) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail
        self.status = status if status is not None else STATUS_OF_CODE.get(code, 400)
        self.extra = extra


def problem(status: int, code: str, detail: str, **extra: Any) -> Response:
    """The problem+json response for `code`."""
    body: dict[str, Any] = {
        "type": PROBLEM_TYPE + code,
        "title": TITLES.get(code, code.replace("_", " ")),
        "status": status,
        "detail": detail,
        "code": code,
    }
    body.update(extra)
    if has_request_context():
        g.problem_code = code  # the moves metric counts refusals by code (api/observe.py)
        request_id = g.get("request_id")
        if request_id is not None:
            body["request_id"] = request_id
    return Response(
        json.dumps(body, separators=(",", ":")),
        status=status,
        mimetype="application/problem+json",
    )


STORE_CODES = {
    "UnknownMatch": "unknown_match",
    "Unauthorized": "unauthorized",
    "VersionConflict": "version_conflict",
    "IdempotencyKeyReused": "idempotency_key_reused",
}


def _store_error_status(exc: Exception) -> tuple[int, str] | None:
    code = getattr(exc, "code", None)
    if not isinstance(code, str):
        code = STORE_CODES.get(type(exc).__name__)
    if isinstance(code, str) and code in STATUS_OF_CODE:
        return STATUS_OF_CODE[code], code
    return None


def handle_not_available(exc: Exception) -> Response:
    """An abort, resignation or claim refused (409): an early claim says `seconds_left` (and
    `Retry-After`), never a silent ok."""
    code = str(getattr(exc, "code", "not_your_turn"))
    left = getattr(exc, "seconds_left", None)
    extra = {} if left is None else {"seconds_left": left}
    response = problem(STATUS_OF_CODE.get(code, 409), code, str(exc), **extra)
    if left is not None:
        response.headers["Retry-After"] = str(max(1, math.ceil(left)))
    return response


def handle_rules_error(exc: RulesError) -> Response:
    status = STATUS_OF_CODE.get(exc.code, 422)
    return problem(status, exc.code, str(exc))


def handle_api_error(exc: ApiError) -> Response:
    """The problem; a `retry_after` member (seconds) is also sent as `Retry-After`."""
    response = problem(exc.status, exc.code, exc.detail, **exc.extra)
    if "retry_after" in exc.extra:
        response.headers["Retry-After"] = str(exc.extra["retry_after"])
    return response


def handle_http_exception(exc: HTTPException) -> Response:
    status = exc.code or 500
    data = getattr(exc, "data", None)
    if status == 422 and isinstance(data, dict) and "messages" in data:
        errors = _flatten_messages(data["messages"])
        return problem(422, "validation_error", _summary(errors), errors=errors)
    code = CODE_OF_HTTP_STATUS.get(status, "bad_request" if status < 500 else "internal_error")
    detail = exc.description or TITLES.get(code, code)
    if status == 413:
        detail = "the request body is larger than this endpoint accepts"
    response = problem(status, code, str(detail))
    if status == 405 and isinstance(exc.valid_methods, list | tuple):  # type: ignore[attr-defined]
        response.headers["Allow"] = ", ".join(exc.valid_methods)  # type: ignore[attr-defined]
    return response


def handle_redis_error(exc: redis.RedisError) -> Response:
    log.error("event store error: %s", type(exc).__name__)
    return problem(503, "store_unavailable", "the event store did not answer; try again")


def handle_unexpected(exc: Exception) -> Response:
    """The catch-all: a generic 500, logged without the message (it could name a card)."""
    known = _store_error_status(exc)
    if known is not None:
        return problem(known[0], known[1], str(exc))
    if isinstance(exc, HTTPException):
        return handle_http_exception(exc)
    frames = "; ".join(
        f"{f.filename}:{f.lineno} in {f.name}" for f in traceback.extract_tb(exc.__traceback__)
    )
    log.error("unhandled %s at %s", type(exc).__name__, frames)
    return problem(500, "internal_error", "the server failed to handle this request")


def _flatten_messages(messages: Any) -> dict[str, list[str]]:
    """webargs' {location: {field: [msgs] | {nested...}}} as {"field.sub": [msgs]}."""
    out: dict[str, list[str]] = {}

    def walk(prefix: str, node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                walk(f"{prefix}.{key}" if prefix else str(key), value)
        elif isinstance(node, list) and all(isinstance(m, str) for m in node):
            out.setdefault(prefix or "_schema", []).extend(node)
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(f"{prefix}.{i}" if prefix else str(i), value)
        else:
            out.setdefault(prefix or "_schema", []).append(str(node))

    if isinstance(messages, dict):
        for value in messages.values():  # drop the location level ("json", "query")
            walk("", value)
    else:
        walk("", messages)
    return out


def _summary(errors: dict[str, list[str]]) -> str:
    parts = [f"{field}: {' '.join(msgs)}" for field, msgs in sorted(errors.items())]
    return "; ".join(parts)[:500] or "the request is not valid"


def register(app: Flask) -> None:
    """Install the handlers (after flask-smorest's, so ours win)."""
    from store import errors as store_errors

    app.register_error_handler(RulesError, handle_rules_error)
    app.register_error_handler(ApiError, handle_api_error)
    app.register_error_handler(store_errors.NotAvailable, handle_not_available)
    app.register_error_handler(store_errors.StoreError, handle_unexpected)
    app.register_error_handler(HTTPException, handle_http_exception)
    app.register_error_handler(redis.RedisError, handle_redis_error)
    app.register_error_handler(Exception, handle_unexpected)
