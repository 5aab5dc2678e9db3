"""What every blueprint needs: the service, the caller's seat, views, events, ETags.

Everything a caller reads is built here from the domain's `view` and `event_view`, never from
a raw state, so redaction lives in one place (architecture.md "Views are the only way out").
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from flask import Request, Response, current_app, request

from api.errors import ApiError
from domain.events import Event
from domain.variants import State, Variant, get_variant
from store.clock import Turn
from store.logs import seat_var

_BEARER = re.compile(r"Bearer +([\x21-\x7e]+) *", re.IGNORECASE)
_IDEMPOTENCY_KEY = re.compile(r"[\x21-\x7e]{1,200}")
CREATE_KEY_MIN = 16
"""The shortest Idempotency-Key of a create: the key alone gives back the match and its seat
tokens, so it must be as hard to guess as a password (a uuid4 has 36 characters)."""
_MATCH_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_ETAG = re.compile(r'"([0-9]{1,15})"')


def service() -> Any:
    """The app's store.service.MatchService."""
    return current_app.extensions["deadwood"]["service"]


def current_request() -> Request:
    """The request itself: every attribute read through Flask's `request` proxy looks the
    request up again in its context variable (34 lookups in a move POST, issue 14), so the
    per-request hooks read it once."""
    return request._get_current_object()  # type: ignore[attr-defined, no-any-return]


def setting(name: str) -> Any:
    return current_app.config[name]


def check_match_id(match_id: str) -> None:
    """Ids are short url-safe strings; anything else cannot name a match (404)."""
    if not _MATCH_ID.fullmatch(match_id):
        raise ApiError("unknown_match", "no match has this id", 404)


def caller_seat(match_id: str) -> int | None:
    """The seat of the bearer token (None without one: a spectator).

    A header that is not `Bearer <token>`, or a token that is not this match's, is 401.
    """
    check_match_id(match_id)
    header = request.headers.get("Authorization")
    if header is None:
        return None
    found = _BEARER.fullmatch(header)
    if found is None:
        raise ApiError("unauthorized", "the Authorization header must be 'Bearer <token>'", 401)
    seat: int = service().authenticate(match_id, found.group(1))
    seat_var.set(seat)  # on the request's log lines (store/logs.py)
    service().touch(match_id, seat)  # presence, for claims (a clocked match only)
    return seat


def bearer_token() -> str | None:
    """The token of a well-formed `Authorization: Bearer <token>` header (None otherwise)."""
    found = _BEARER.fullmatch(request.headers.get("Authorization") or "")
    return None if found is None else found.group(1)


def seat_required(match_id: str) -> int:
    """The caller's seat; a spectator may not act (403 forbidden)."""
    seat = caller_seat(match_id)
    if seat is None:
        raise ApiError(
            "forbidden", "a spectator cannot act: send 'Authorization: Bearer <seat token>'", 403
        )
    return seat


def idempotency_key(min_length: int = 1) -> str | None:
    """The Idempotency-Key header: `min_length` to 200 visible ASCII characters (a create's
    key is a secret, so creates ask for at least CREATE_KEY_MIN)."""
    key = request.headers.get("Idempotency-Key")
    if key is None:
        return None
    if not _IDEMPOTENCY_KEY.fullmatch(key) or len(key) < min_length:
        rule = f"must be {min_length} to 200 visible ASCII characters"
        why = " (a create's key is a secret: whoever sends it again gets the seat tokens)"
        raise ApiError(
            "validation_error",
            f"Idempotency-Key {rule}{why if min_length > 1 else ''}",
            422,
            errors={"Idempotency-Key": [rule]},
        )
    return key


def expected_version() -> int | None:
    """The version of `If-Match: "<version>"`; None without the header or for `*`.

    A header that names no version of this match (weak, malformed, several) can never match
    and is refused as a conflict at once (RFC 9110 13.1.1).
    """
    header = request.headers.get("If-Match")
    if header is None:
        return None
    text = header.strip()
    if text == "*":
        return None
    found = _ETAG.fullmatch(text)
    if found is not None:
        return int(found.group(1))
    raise ApiError(
        "version_conflict",
        'If-Match must be one strong entity tag "<version>" as sent in ETag',
        412,
    )


def fingerprint(*parts: Any) -> str:
    """SHA-256 of the canonical JSON of `parts` (the request an idempotency key stands for)."""
    text = json.dumps(parts, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()


_ENCODE = json.JSONEncoder(separators=(",", ":"), check_circular=False).encode
"""json.dumps(body, separators=(",", ":")) for the acyclic dicts and lists a view is made of,
without the cycle check's bookkeeping of every container (a gin move's response: 16.9 -> 13.9
us, issue 14); the text is the same."""


def json_response(body: Any, status: int = 200, version: int | None = None) -> Response:
    response = Response(_ENCODE(body), status=status, mimetype="application/json")
    if version is not None:
        response.headers["ETag"] = f'"{version}"'
    return response


def render_view(
    match_id: str | None, variant: Variant, state: State, seat: int | None
) -> dict[str, Any]:
    return {"id": match_id, **variant.view(state, seat)}


def add_clock(view: dict[str, Any], match_id: str, turn: Any, live: bool = True) -> dict[str, Any]:
    """The view with its `clock` when the match has one (rendered now: issue 31); `live`
    False in a move's answer (no presence read)."""
    if turn is not None:
        view["clock"] = service().clock_view(match_id, turn, live)
    return view


def stored_event_json(stored: Any, shown: Mapping[str, Any]) -> dict[str, Any]:
    """An event as api.md "Events" shows it: seq, type, v, at, data; and `clock` beside the
    last event of each append to a clocked match (store/clock.py)."""
    out = {
        "seq": stored.seq,
        "type": shown["type"],
        "v": shown.get("v", 1),
        "at": stored.at,
        "data": shown["data"],
    }
    clk = getattr(stored, "clk", "")
    if clk:
        out["clock"] = event_clock(clk)
    return out


def event_clock(clk: str) -> Any:
    turn = Turn.decode(clk)
    return turn.event_clock() if turn is not None else None


def raw_event_json(stored: Any) -> dict[str, Any]:
    event: Event = stored.event
    return stored_event_json(stored, event.to_json())


def redacted_events(
    variant: Variant, before: State, stored_events: Iterable[Any], seat: int | None, public: bool
) -> list[dict[str, Any]]:
    """Each event as `seat` may see it, folding `before` along; all of it when `public`."""
    if public:
        return [raw_event_json(stored) for stored in stored_events]
    return shown_events(variant, _along(variant, before, stored_events), seat, False)


def shown_events(
    variant: Variant, steps: Iterable[tuple[State, Any]], seat: int | None, public: bool
) -> list[dict[str, Any]]:
    """Each event as `seat` may see it, from (the state it was applied to, the stored event)
    pairs folded already; all of it when `public`."""
    if public:
        return [raw_event_json(stored) for _, stored in steps]
    return [
        stored_event_json(stored, variant.event_view(state, stored.event, seat))
        for state, stored in steps
    ]


def _along(variant: Variant, state: State, stored_events: Iterable[Any]) -> Iterator[Any]:
    for stored in stored_events:
        yield state, stored
        state = variant.evolve(state, stored.event)


def state_before(match_id: str, after: int, first: Any | None) -> tuple[Variant, Any]:
    """The variant, and the state right after event `after` (the initial state for 0)."""
    if after == 0:
        if first is None:
            raise ApiError("unknown_match", "no match has this id", 404)
        variant = get_variant(str(first.event.data.get("variant")))
        return variant, variant.initial_state()
    loaded = service().load(match_id, at=after)
    return loaded.variant, loaded.state


def settled(match_id: str) -> Any:
    """The match now; a match found waiting past its lobby deadline is cancelled first (issue
    30: every request that finds it past due expires it, so nothing waits on the scheduler)."""
    from store.lobby import lobby_service  # the lobby's writes: only for a waiting match

    loaded = service().load(match_id)
    lobby = loaded.state.lobby
    if lobby is not None and lobby.waiting:
        lobby_service(service()).settle(match_id)
        loaded = service().load(match_id)
    return loaded
