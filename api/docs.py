"""Pieces of the OpenAPI document shared by the blueprints: headers, examples, problems."""

from __future__ import annotations

from typing import Any

from api.examples import CREATE, CREATE_MANIPULATION

PROBLEM_REF = {"$ref": "#/components/schemas/Problem"}

PROBLEM_DESCRIPTIONS = {
    400: "bad_request: the body is not UTF-8 JSON, or nests deeper than 32 levels",
    401: "unauthorized: a malformed bearer token, or one of another match",
    403: (
        "forbidden (a spectator or a seat that may not act), match_in_progress or "
        "seat_reserved (a rematch's seat)"
    ),
    404: "unknown_match (or not_found for another path)",
    409: (
        "not_your_turn: another seat is to act; turn_timed_out: the seat's clock ran out first "
        "(the timeout is in the log); abort, resign, claim: abort_not_available, "
        "claim_not_available (with `seconds_left`), claim_wrong_turn, no_clock, "
        "match_finished, seat_replaced; in the lobby, seat_taken, match_full, match_started, "
        "match_not_started or rematch_not_ready"
    ),
    410: "lobby_closed: the match expired or was cancelled before it started",
    412: "version_conflict: If-Match names an older version; nothing was appended",
    413: "payload_too_large: over 64 KiB (8 MiB for POST /v1/replays)",
    415: "unsupported_media_type: send application/json, uncompressed (no Content-Encoding)",
    422: (
        "validation_error (with `errors`), illegal_move (the rule in `detail`), invalid_card, "
        "idempotency_key_reused, seeded_open_seat (a seeded match with an open seat) or, for "
        "replays, invalid_log (with `event`) and replay_too_costly"
    ),
    429: (
        "rate_limited or, for live streams, stream_limit: too many at once from this caller "
        "(`Retry-After` and `retry_after` say when to try again)"
    ),
    503: (
        "store_unavailable: the event store does not answer; streams_full or hints_busy: "
        "the server holds its most live streams or hints at once (`Retry-After`)"
    ),
}


def problems(*statuses: int) -> dict[int | str, Any]:
    """OpenAPI responses for the problem+json refusals `statuses`, and a default problem."""
    listed: dict[int | str, Any] = {
        status: _problem(PROBLEM_DESCRIPTIONS[status]) for status in statuses
    }
    listed["default"] = _problem(
        "any other refusal as a problem: 405 method_not_allowed, 500 internal_error, "
        "503 store_unavailable"
    )
    return listed


def _problem(description: str) -> dict[str, Any]:
    return {
        "description": description,
        "content": {"application/problem+json": {"schema": PROBLEM_REF}},
    }


SECURITY: list[dict[str, list[str]]] = [{}, {"seatToken": []}]
"""A seat token is optional: without one the caller is a spectator."""

IF_MATCH = {
    "in": "header",
    "name": "If-Match",
    "required": False,
    "description": 'the version the move is for, as sent in ETag: `"12"`; 412 if stale',
    "schema": {"type": "string", "maxLength": 64},
}

IDEMPOTENCY_KEY = {
    "in": "header",
    "name": "Idempotency-Key",
    "required": False,
    "description": (
        "1-200 visible ASCII characters; a repeat with the same body within 24 h returns the "
        "first response and appends nothing; the same key with another body is refused "
        "(422 idempotency_key_reused)"
    ),
    "schema": {"type": "string", "minLength": 1, "maxLength": 200, "pattern": "^[!-~]+$"},
}

CREATE_IDEMPOTENCY_KEY = {
    "in": "header",
    "name": "Idempotency-Key",
    "required": False,
    "description": (
        "16-200 visible ASCII characters, and a secret: anyone who sends the same key and body "
        "within 24 h gets the same match and its seat tokens, so use a fresh random key (a "
        "uuid4) and never share or log it. A repeat returns the first response and creates "
        "nothing; the same key with another body is refused (422 idempotency_key_reused)"
    ),
    "schema": {"type": "string", "minLength": 16, "maxLength": 200, "pattern": "^[!-~]+$"},
}

LAST_EVENT_ID = {
    "in": "header",
    "name": "Last-Event-ID",
    "required": False,
    "description": "resume after this seq (sent by EventSource on reconnect); empty (or only "
    "spaces and tabs): as if absent",
    "schema": {"type": "string", "pattern": "^[ \\t]*([0-9]{1,15}[ \\t]*)?$"},
}

ETAG_HEADER = {
    "ETag": {
        "description": 'the match version, quoted: `"12"`',
        "schema": {"type": "string"},
    }
}

LOCATION_HEADER = {
    "Location": {"description": "/v1/matches/{id}", "schema": {"type": "string"}},
    **ETAG_HEADER,
}

CREATE_EXAMPLES = {
    "three-hand-gin": {"summary": "three seats, seeded, one option given", "value": CREATE},
    "manipulation-rummy": {"summary": "two seats, seeded", "value": CREATE_MANIPULATION},
}

JOIN_EXAMPLES = {
    "first_open": {"summary": "the first open seat", "value": {"name": "dee"}},
    "seat": {"summary": "a given seat", "value": {"name": "dee", "seat": 1}},
}

MOVE_EXAMPLES = {
    name: {"summary": summary, "value": value}
    for name, (summary, value) in {
        "take_upcard": ("gin: take the upcard", {"type": "take_upcard"}),
        "pass_upcard": ("gin: pass the upcard", {"type": "pass_upcard"}),
        "draw_gin": ("gin: draw from the stock", {"type": "draw", "from": "stock"}),
        "draw_discard": ("gin: draw the discard", {"type": "draw", "from": "discard"}),
        "discard": ("gin: discard", {"type": "discard", "card": "7H"}),
        "knock": (
            "gin: knock, discarding 7H face down (melds optional)",
            {"type": "knock", "card": "7H", "melds": [["7C", "7D", "7S"]]},
        ),
        "advise": (
            "gin: the advisor advises the captain",
            {"type": "advise", "text": "keep the sevens", "move": {"type": "pass_upcard"}},
        ),
        "draw_manipulation": ("manipulation: draw", {"type": "draw"}),
        "meld": (
            "manipulation: the whole table after the meld",
            {"type": "meld", "table": [["7H", "8H", "9H"], ["QS", "QD", "JK=QC"]]},
        ),
        "knock_manipulation": ("manipulation: knock", {"type": "knock"}),
        "end_turn": ("manipulation: end the turn", {"type": "end_turn"}),
        "pass": ("manipulation: pass in the final turns", {"type": "pass"}),
    }.items()
}

SSE_DESCRIPTION = (
    "Server-Sent Events: `id:` the seq, `event:` the type, `data:` the event JSON as in the "
    "events page; `: heartbeat` comments at least every 15 s; the stream ends when the match "
    "is finished or after a few minutes (reconnect with Last-Event-ID)"
)

LOG_DESCRIPTION = "NDJSON: one event per line, `{seq, type, v, at, data}`, unredacted, oldest first"
