"""Request bodies: size, content type, encoding and nesting are checked before any parsing.

Every POST body goes through `read_body` in a `before_request` hook, so a schema never sees a
body that is too large (413), of another media type (415), not UTF-8, not JSON or nested deeper
than `MAX_DEPTH` (400). The nesting bound is checked on the raw text, before `json.loads`
recurses, so a body of a million brackets costs a few regex passes and gives 400, never 500.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from flask import Request, g
from webargs import core
from webargs.flaskparser import FlaskParser
from werkzeug.exceptions import RequestEntityTooLarge

from api.errors import ApiError

MAX_DEPTH = 32
"""The deepest nesting of arrays and objects any request body may have."""

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"?', re.DOTALL)
"""A JSON string, or an unterminated one up to the end (so the scan stays linear)."""
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_INNERMOST = re.compile(r"\[\]|\{\}")

JSON_TYPES = ("application/json",)
NDJSON_TYPES = ("application/x-ndjson", "application/jsonl")


def nesting_within(text: str, limit: int = MAX_DEPTH) -> bool:
    """True when `text` nests arrays and objects at most `limit` deep.

    Strings are removed first, then each pass of `_INNERMOST` peels one level of empty
    brackets; balanced JSON of depth d is empty after d passes. Mismatched brackets never
    vanish, and count as too deep (the body is not JSON anyway).
    """
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    for _ in range(limit):
        if not brackets:
            return True
        brackets = _INNERMOST.sub("", brackets)
    return not brackets


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite_float(text: str) -> float | int:
    """A finite number; one with a zero fraction (`3.0`, `1e3`) is that integer, as JSON
    Schema reads it (openapi.yaml's `integer` admits it, issue 17)."""
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text[:20]} is out of range")
    return int(value) if value.is_integer() else value


def loads(text: str) -> Any:
    """Strict JSON: no NaN or Infinity, no out-of-range floats, no integers over 4300 digits;
    a number with a zero fraction is an integer."""
    return json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float)


def _decode(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ApiError(
            "bad_request", f"the body is not valid UTF-8 (byte {exc.start})", 400
        ) from None


def _parse(text: str, what: str) -> Any:
    if not nesting_within(text):
        raise ApiError("bad_request", f"{what} nests deeper than {MAX_DEPTH} levels", 400)
    try:
        return loads(text)
    except (ValueError, RecursionError) as exc:
        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else "not valid JSON"
        raise ApiError("bad_request", f"{what} is not valid JSON: {reason}", 400) from None


def read_body(request: Request, *, ndjson: bool) -> Any:
    """The decoded JSON body (for NDJSON: the list of its lines' values)."""
    mimetype = request.mimetype
    accepted = JSON_TYPES + (NDJSON_TYPES if ndjson else ())
    if mimetype not in accepted:
        shown = mimetype or "no content type"
        raise ApiError(
            "unsupported_media_type",
            f"{shown} is not accepted here: send {' or '.join(accepted)}",
            415,
        )
    charset = request.mimetype_params.get("charset", "utf-8").lower()
    if charset not in ("utf-8", "utf8"):
        raise ApiError("unsupported_media_type", f"charset {charset} is not accepted", 415)
    raw = request.get_data(cache=True)
    announced = request.content_length
    if announced is not None and len(raw) < announced:
        raise ApiError(
            "bad_request",
            f"the body ended after {len(raw)} of the {announced} bytes its Content-Length "
            "announced",
            400,
        )
    ceiling = request.max_content_length
    streamed = announced is None and ceiling is not None and len(raw) >= ceiling
    # a streamed (chunked) body is cut at the limit by the stream: is there more of it?
    if streamed and request.environ["wsgi.input"].read(1):
        raise RequestEntityTooLarge()
    text = _decode(raw)
    if mimetype in NDJSON_TYPES:
        lines = [line for line in text.splitlines() if line.strip()]
        return [_parse(line, f"line {n}") for n, line in enumerate(lines, 1)]
    if not text.strip():
        raise ApiError("bad_request", "the body is empty: send a JSON document", 400)
    return _parse(text, "the body")


class BodyParser(FlaskParser):
    """webargs parser that takes the body already read and checked by `read_body`."""

    def _raw_load_json(self, req: Request) -> Any:
        return g.get("json_body", core.missing)
