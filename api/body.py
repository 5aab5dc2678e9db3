"""Request bodies: size, content type, encoding and nesting are checked before any parsing.

Every POST body goes through `read_body` in a `before_request` hook, so a schema never sees a
body that is too large (413), of another media type (415), not UTF-8, not JSON or nested deeper
than `MAX_DEPTH` (400). The nesting bound is checked on the raw text, before `json.loads`
recurses, so a body of a million brackets costs a few regex passes and gives 400, never 500.
"""

from __future__ import annotations

import functools
import inspect
import json
import math
import re
from collections.abc import Callable
from typing import Any

from flask import Request, g, request
from marshmallow import Schema, ValidationError
from webargs import core
from webargs.flaskparser import FlaskParser, abort
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
        shown = text if len(text) <= 24 else text[:20] + "..."
        raise ValueError(f"the number {shown} is out of range (numbers must be finite doubles)")
    return int(value) if value.is_integer() else value


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) == len(pairs):
        return obj
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            raise ValueError(f"the key {json.dumps(key)[:60]} appears twice in one object")
        seen.add(key)
    return obj


DECODER = json.JSONDecoder(
    parse_constant=_reject_constant, parse_float=_finite_float, object_pairs_hook=_unique_keys
)
"""Strict JSON: no NaN or Infinity, no out-of-range floats, no integers over 4300 digits, no
key twice in one object (RFC 8259 leaves duplicates to the reader: we refuse them)."""


def loads(text: str) -> Any:
    """One strict JSON document (DECODER); a number with a zero fraction is an integer."""
    return DECODER.decode(text)


def reason(exc: Exception) -> str:
    """Why a text is not strict JSON, in words."""
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg} (character {exc.pos})"
    if isinstance(exc, RecursionError):
        return f"it nests deeper than {MAX_DEPTH} levels"
    return str(exc)


def decode_utf8(raw: bytes, what: str = "the body") -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ApiError(
            "bad_request", f"{what} is not valid UTF-8 (byte {exc.start})", 400
        ) from None


def parse(text: str, what: str) -> Any:
    """`text` as strict JSON nested at most MAX_DEPTH deep; 400 bad_request naming `what`."""
    if not nesting_within(text):
        raise ApiError("bad_request", f"{what} nests deeper than {MAX_DEPTH} levels", 400)
    try:
        return loads(text)
    except (ValueError, RecursionError) as exc:
        raise ApiError("bad_request", f"{what} is not valid JSON: {reason(exc)}", 400) from None


def check_media(request: Request, *, ndjson: bool) -> None:
    """415 for a media type, charset or content coding this endpoint does not take."""
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
    coding = request.headers.get("Content-Encoding", "identity").strip().lower()
    if coding not in ("", "identity"):
        raise ApiError(
            "unsupported_media_type",
            f"Content-Encoding {coding[:40]} is not accepted: send the body uncompressed",
            415,
        )


def read_body(request: Request, *, ndjson: bool) -> Any:
    """The decoded JSON body (for NDJSON: the list of its lines' values)."""
    check_media(request, ndjson=ndjson)
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
    text = decode_utf8(raw)
    if request.mimetype in NDJSON_TYPES:
        lines = [line for line in text.splitlines() if line.strip()]
        return [parse(line, f"line {n}") for n, line in enumerate(lines, 1)]
    if not text.strip():
        raise ApiError("bad_request", "the body is empty: send a JSON document", 400)
    return parse(text, "the body")


class BodyParser(FlaskParser):
    """webargs parser that takes the body already read and checked by `read_body`."""

    def _raw_load_json(self, req: Request) -> Any:
        return g.get("json_body", core.missing)


def loaded_body(schema: Schema) -> Any:
    """The body `read_body` decoded, loaded by `schema` as flask-smorest's `arguments` loads a
    JSON body (webargs: the schema's own `unknown`, {} when there is no body); a
    ValidationError aborts with the same 422 and messages, namespaced under "json"."""
    try:
        return schema.load(g.get("json_body", {}))
    except ValidationError as exc:
        abort(422, exc=exc, messages={"json": exc.messages}, schema=schema, headers=None)


def direct_body(
    schema: Schema, plainly_valid: Callable[[Any], bool]
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Outermost decorator of a MethodView method that flask-smorest documents with
    `arguments(schema)`, `response` and `doc`, and that reads the body from `g.json_body`:
    the method keeps their OpenAPI record (`_apidoc`, copied by `wraps`) but is called
    directly, without their wrappers' per-request work (webargs' parser and its second
    json.loads of the body, three `ensure_sync` checks, the response wrapper; the method
    returns a ready Response, which that wrapper passed through unchanged). The body is
    checked first: `plainly_valid` recognises the common bodies `schema` accepts, and every
    other body is loaded by `schema` (`loaded_body`: the same 422 for the same body)."""

    def decorate(documented: Callable[..., Any]) -> Callable[..., Any]:
        method = inspect.unwrap(documented)

        @functools.wraps(documented)
        def call(self: Any, **view_args: Any) -> Any:
            if not plainly_valid(g.get("json_body")):
                loaded_body(schema)
            return method(self, **view_args)

        return call

    return decorate


def direct_query(documented: Callable[..., Any]) -> Callable[..., Any]:
    """Outermost decorator of a MethodView GET that flask-smorest documents with
    `arguments(schema, location="query")`, `response` and `doc`, whose schema loads an empty
    query as {} and whose method returns a ready Response: a request without a query string
    calls the method directly with {} (the common GET of a view: no webargs parse, no
    wrappers); any query string goes through the documented wrappers (the same 422s)."""
    method = inspect.unwrap(documented)

    @functools.wraps(documented)
    def call(self: Any, **view_args: Any) -> Any:
        if request.query_string:
            return documented(self, **view_args)
        return method(self, {}, **view_args)

    return call
