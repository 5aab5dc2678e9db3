"""Reading an uploaded log as it arrives (POST /v1/replays, issue 11 item 2).

NDJSON is read in chunks and split into lines; each line is parsed (strict JSON, api/body.py)
and checked as an event object with the next seq as soon as it is complete. A JSON array is
read whole (it is at most 8 MiB) and its elements are parsed one at a time. Either way the
events come out one by one, so the rules check (domain.log_check.LogCheck) sees event 1
before line 2 is parsed, and a body that cannot be a log costs the reading of its first bad
line, not of all of it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import IO, Any

from flask import Request
from marshmallow import ValidationError

from api.body import DECODER, MAX_DEPTH, NDJSON_TYPES, decode_utf8, parse, reason
from api.errors import ApiError, _flatten_messages
from api.schemas import ReplayEventSchema
from domain.events import Event
from domain.upcast import upcast

CHUNK_BYTES = 16 * 1024
MAX_LINE_BYTES = 64 * 1024
"""No event of a log is near this long (the longest, a Manipulation MatchCreated, is ~1 KiB)."""

_EVENT = ReplayEventSchema()
_SPACE = re.compile(r"[ \t\n\r]*")


def read_events(request: Request) -> Iterator[Event]:
    """The body's events in order, each a valid event object with the next seq."""
    if request.mimetype in NDJSON_TYPES:
        items = _ndjson_values(request.stream)
    else:
        items = _array_values(decode_utf8(request.stream.read()))
    variant: Any = None
    for index, item in enumerate(items):
        event = _event(item, index)
        variant = event.data.get("variant") if index == 0 else variant
        yield _upcast(event, variant)


def _lines(stream: IO[bytes]) -> Iterator[bytes]:
    """The body's lines as they arrive (a line over MAX_LINE_BYTES ends it: the caller
    refuses it). Only what is needed is read and split: a refusal at line 1 costs one chunk."""
    pending, start = b"", 0
    while True:
        end = pending.find(b"\n", start)
        if end >= 0:
            yield pending[start:end]
            start = end + 1
            continue
        if len(pending) - start > MAX_LINE_BYTES:
            break
        chunk = stream.read(CHUNK_BYTES)
        if not chunk:
            break
        pending, start = pending[start:] + chunk, 0
    if start < len(pending):
        yield pending[start:]


def _ndjson_values(stream: IO[bytes]) -> Iterator[Any]:
    number = 0
    for raw in _lines(stream):
        if len(raw) > MAX_LINE_BYTES:
            raise ApiError(
                "payload_too_large",
                f"line {number + 1} is longer than {MAX_LINE_BYTES // 1024} KiB: no event is",
                413,
            )
        text = decode_utf8(raw, f"line {number + 1}")
        if text.strip():
            number += 1
            yield parse(text, f"line {number}")


def _skip(text: str, at: int) -> int:
    """The index of the first character at or after `at` that is not JSON whitespace."""
    found = _SPACE.match(text, at)
    return found.end() if found else at


def _array_values(text: str) -> Iterator[Any]:
    at = _skip(text, 0)
    if not text.startswith("[", at):
        if not text.strip():
            raise ApiError("bad_request", "the body is empty: send a JSON document", 400)
        parse(text, "the body")  # 400 when it is not JSON at all
        raise _not_a_list()
    at = _skip(text, at + 1)
    index = 0
    while not (index == 0 and text.startswith("]", at)):
        value, at = _element(text, at, index)
        yield value
        index += 1
        at = _skip(text, at)
        if text.startswith("]", at):
            break
        if not text.startswith(",", at):
            raise ApiError("bad_request", f"the body is not valid JSON at character {at}", 400)
        at = _skip(text, at + 1)
    if text[at + 1 :].strip():
        raise ApiError("bad_request", "the body has more after its JSON array", 400)


def _element(text: str, at: int, index: int) -> tuple[Any, int]:
    try:
        value, end = DECODER.raw_decode(text, at)
    except (ValueError, RecursionError) as exc:
        detail = f"event {index + 1} of the array is not valid JSON: {reason(exc)}"
        raise ApiError("bad_request", detail, 400) from None
    if 1 + _depth(value) > MAX_DEPTH:
        raise ApiError("bad_request", f"the body nests deeper than {MAX_DEPTH} levels", 400)
    return value, end


def _depth(value: Any) -> int:
    """How deep arrays and objects nest in `value` (0 for a scalar)."""
    level, todo = 0, [value]
    while todo := [item for item in todo if isinstance(item, dict | list)]:
        level += 1
        todo = [c for item in todo for c in (item.values() if isinstance(item, dict) else item)]
    return level


def _not_a_list() -> ApiError:
    return ApiError(
        "validation_error",
        "send the log as NDJSON (one event per line) or as a JSON array of events",
        422,
        errors={"_schema": ["expected a list of events"]},
    )


def _event(item: Any, index: int) -> Event:
    try:
        loaded = _EVENT.load(item)
    except ValidationError as exc:
        errors = {f"{index}.{k}": v for k, v in _flatten_messages({"": exc.messages}).items()}
        raise ApiError(
            "validation_error", f"event {index + 1} is not an event object", 422, errors=errors
        ) from None
    if loaded.get("seq", index + 1) != index + 1:
        raise ApiError(
            "invalid_log",
            f"event {index + 1} has seq {loaded['seq']}: a log counts 1, 2, 3, ...",
            422,
            event=index + 1,
        )
    return Event(loaded["type"], loaded["data"], loaded["v"])


def _upcast(event: Event, variant: Any) -> Event:
    """Old event shapes become current ones, as when the store reads its own streams."""
    return upcast(event, variant if isinstance(variant, str) else None)
