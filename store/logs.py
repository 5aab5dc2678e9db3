"""Logging for every Deadwood process (the API under gunicorn, the worker, the launcher).

    configure(process)       once per process: level and format from the environment
    bind(request_id=..., match_id=..., seat=...)   the context every line of this request or
                             job carries (contextvars: a gevent greenlet or a thread each)
    new_request_id() / valid_request_id(text)
    access(...)              one access line, buffered; flush_access() writes them (the
                             flusher of store/flushing.py does so at least every 0.5 s)

Settings (environment):
    DEADWOOD_LOG_LEVEL   DEBUG, INFO (default), WARNING, ERROR
    DEADWOOD_LOG_FORMAT  `text` (default): `time level logger [request match seat] message`;
                         `json`: one JSON object a line with the keys time, level, logger,
                         message, request_id, match_id, seat (and process)

What a line may carry: a request id, a match id, a seat number, a route, a status, a job id.
Never a token, a hand, a card or a seed: the callers log only those fields (the access line
logs the path without its query string), an exception is shown by its class and frames,
never its message, and `scrub` blanks anything that looks like a bearer token as a last
guard.

This module lives in `store/` because it is the lowest layer that the API, the workers and
the launcher all import (the domain stays pure: it logs nothing).
"""

from __future__ import annotations

import collections
import contextvars
import itertools
import json
import logging
import os
import re
import secrets
import sys
import time
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from store import flushing

LEVEL_ENV = "DEADWOOD_LOG_LEVEL"
FORMAT_ENV = "DEADWOOD_LOG_FORMAT"

request_id_var: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "deadwood_request_id", default=None
)
match_id_var: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "deadwood_match_id", default=None
)
seat_var: contextvars.ContextVar[int | None] = contextvars.ContextVar("deadwood_seat", default=None)

REQUEST_ID_MAX = 128
_REQUEST_ID = re.compile(r"[A-Za-z0-9._:@/+=-]{1,128}")
_BEARER = re.compile(r"(?i)(bearer\s+)[^\s\"',;]+")

_configured: str | None = None
_json = False
_access_level_off = False


def valid_request_id(text: str | None) -> str | None:
    """`text` when it is a usable request id (1..128 characters of a safe set), else None."""
    if text and _REQUEST_ID.fullmatch(text):
        return text
    return None


_ID_PREFIX = secrets.token_hex(6)
_ID_COUNTER = itertools.count(int.from_bytes(secrets.token_bytes(3), "big"))


def new_request_id() -> str:
    """24 hex digits: a random prefix per process and a counter (no system call a request)."""
    return f"{_ID_PREFIX}{next(_ID_COUNTER) & 0xFFFFFFFFFFFF:012x}"


def access(
    method: str,
    path: str,
    status: int,
    seconds: float,
    route: str,
    seat: int | None,
    client: str | None = None,
) -> None:
    """One access line, in the configured format, buffered (store/flushing.py): the hot path
    of every request skips the logging machinery (record, filters, handler lock) and the
    system call of a write; the line is built from pieces made once per route.

    The request id (a checked or a made one), the match id (checked) and the route template
    are of a character set that JSON and the text format show as they are; the path and the
    client address are shown as they are when they are plain printable ASCII without `"` or
    `\\`, else escaped (JSON) or with their control characters as `?` (text)."""
    if _access_level_off:
        return
    ms = round(seconds * 1000, 2)
    if len(path) > PATH_MAX or not _PLAIN.fullmatch(path):
        path = safe_path(path)
        plain = False
    else:
        plain = True
    rid = request_id_var.get()
    match_id = match_id_var.get()
    if _json:
        head = _json_heads.get((method, route))
        if head is None:
            head = _json_head(method, route)
        message = f"{method} {path} {status} {ms}ms"
        message = f'"{message}"' if plain and head[0] else json.dumps(message)
        line = (
            f'{{"time":"{_iso(time.time())}",{_JSON_LEVEL}"message":{message},'
            f'"request_id":{"null" if rid is None else f"{_Q}{rid}{_Q}"},'
            f'"match_id":{"null" if match_id is None else f"{_Q}{match_id}{_Q}"},'
            f'"seat":{"null" if seat is None else int(seat)},{_json_process}{head[1]}'
            f'{int(status)},"duration_ms":{ms},"client":{_json_text(client)}}}\n'
        )
    else:
        line = _text_line(method, path, status, ms, rid, match_id, seat, client)
    _pending.append(line)
    if len(_pending) >= FLUSH_LINES or not flushing.running:
        _filled()


def _text_line(
    method: str,
    path: str,
    status: int,
    ms: float,
    rid: str | None,
    match_id: str | None,
    seat: int | None,
    client: str | None,
) -> str:
    """`access`'s line in the text format (the default of a development run; deployments
    log JSON, whose line `access` builds inline: the request path pays no call for it)."""
    context = f"req={rid}"
    if match_id is not None:
        context += f" match={match_id}"
    if seat is not None:
        context += f" seat={seat}"
    if client is not None:
        context += f" client={client if _PLAIN.fullmatch(client) else safe_path(client)}"
    return f"{_iso(time.time())} INFO deadwood.access [{context}] {method} {path} {status} {ms}ms\n"


_Q = '"'
_JSON_LEVEL = '"level":"INFO","logger":"deadwood.access",'
_PLAIN = re.compile(r"[\x20\x21\x23-\x5b\x5d-\x7e]*")
"""Printable ASCII but `"` and `\\`: shown as it is in a JSON string and in a text line."""
_json_heads: dict[tuple[str, str], tuple[bool, str]] = {}
_json_process = '"process":null,'

FLUSH_LINES = 256
"""A buffer of this many access lines is written at once, without waiting for the flusher."""
_pending: collections.deque[str] = collections.deque()


def _json_head(method: str, route: str) -> tuple[bool, str]:
    """(whether the method is plain, the JSON of the route and method up to the status)."""
    if len(_json_heads) >= 1024:  # routes x methods is small; a guard all the same
        _json_heads.clear()
    head = (
        bool(_PLAIN.fullmatch(method)),
        f'"route":{json.dumps(route)},"method":{json.dumps(method)},"status":',
    )
    _json_heads[(method, route)] = head
    return head


def _json_text(text: str | None) -> str:
    if text is None:
        return "null"
    if len(text) <= 128 and _PLAIN.fullmatch(text):
        return f'"{text}"'
    return json.dumps(safe_path(text[:128]))


def _filled() -> None:
    if len(_pending) >= FLUSH_LINES:
        flush_access()
    if not flushing.running:
        flushing.start()


def flush_access() -> None:
    """Write the buffered access lines to `sys.stderr` (whatever it is now), in one write."""
    pending = _pending
    if not pending:
        return
    lines = []
    try:
        while True:
            lines.append(pending.popleft())
    except IndexError:
        pass
    stream = sys.stderr
    if lines and stream is not None:  # None: a process without a stderr drops them
        stream.write("".join(lines))
        stream.flush()


flushing.register(flush_access)


_MATCH_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
PATH_MAX = 512


def safe_match_id(text: str) -> str:
    """`text` when it can be a match id; else a placeholder (a log line never carries what a
    client put in the path's place: control characters, a pasted token)."""
    return text if _MATCH_ID.fullmatch(text) else "(not a match id)"


def safe_path(path: str) -> str:
    """A request path for a log line: control characters shown as `?` (no forged lines in
    the text format), at most PATH_MAX characters."""
    if len(path) > PATH_MAX:
        path = path[:PATH_MAX] + "..."
    return _CONTROL.sub("?", path)


def scrub(text: str) -> str:
    """`text` with anything after `Bearer ` blanked (a token must never reach a log)."""
    return _BEARER.sub(r"\1[redacted]", text) if "earer" in text else text


class ContextFilter(logging.Filter):
    """Stamps each record with the request id, match id and seat of its context."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = getattr(record, "request_id", None) or request_id_var.get()
        record.match_id = getattr(record, "match_id", None) or match_id_var.get()
        seat = getattr(record, "seat", None)
        record.seat = seat if seat is not None else seat_var.get()
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object a line."""

    def __init__(self, process: str = "") -> None:
        super().__init__()
        self.process_name = process

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": _iso(record.created),
            "level": record.levelname,
            "logger": record.name,
            "message": scrub(record.getMessage()),
            "request_id": getattr(record, "request_id", None),
            "match_id": getattr(record, "match_id", None),
            "seat": getattr(record, "seat", None),
        }
        if self.process_name:
            line["process"] = self.process_name
        for key in ("route", "method", "status", "duration_ms", "path", "job_id", "queue"):
            value = getattr(record, key, None)
            if value is not None:
                line[key] = value
        if record.exc_info and record.exc_info[0] is not None:
            line["exception"] = record.exc_info[0].__name__  # never its message
            line["frames"] = frames(record.exc_info[2])
        return json.dumps(line, separators=(",", ":"), default=str)


class TextFormatter(logging.Formatter):
    """`time level logger [request match seat] message`."""

    def __init__(self, process: str = "") -> None:
        super().__init__()
        self.process_name = process

    def format(self, record: logging.LogRecord) -> str:
        parts = [
            f"{key}={value}"
            for key, value in (
                ("req", getattr(record, "request_id", None)),
                ("match", getattr(record, "match_id", None)),
                ("seat", getattr(record, "seat", None)),
            )
            if value is not None
        ]
        context = f" [{' '.join(parts)}]" if parts else ""
        text = f"{_iso(record.created)} {record.levelname} {record.name}{context} "
        text += scrub(record.getMessage())
        if record.exc_info and record.exc_info[0] is not None:
            # the class and where it was raised, never its message (it could name a card)
            text += f" ({record.exc_info[0].__name__} at {frames(record.exc_info[2])})"
        return text


def frames(tb: Any) -> str:
    """`file:line in function` of each frame a traceback passed through."""
    return "; ".join(f"{f.filename}:{f.lineno} in {f.name}" for f in traceback.extract_tb(tb))


def json_format() -> bool:
    return os.environ.get(FORMAT_ENV, "text").strip().lower() == "json"


class _Stderr(logging.StreamHandler):  # type: ignore[type-arg]
    """A handler writing to whatever `sys.stderr` is when a line is written (a test's
    capture, a redirected stream)."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    @property
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, value: Any) -> None:
        pass

    def emit(self, record: logging.LogRecord) -> None:
        flush_access()  # the buffered access lines first: the file keeps the order of events
        super().emit(record)


def formatter(process: str = "") -> logging.Formatter:
    """The formatter DEADWOOD_LOG_FORMAT names."""
    if json_format():
        return JsonFormatter(process)
    return TextFormatter(process)


def level() -> int:
    name = os.environ.get(LEVEL_ENV, "INFO").strip().upper()
    value = logging.getLevelName(name)
    return value if isinstance(value, int) else logging.INFO


def configure(process: str, *, force: bool = False) -> None:
    """Send every logger's lines to stderr in the configured format (once per process)."""
    global _configured, _json, _access_level_off, _json_process
    if _configured is not None and not force:
        return
    flush_access()  # lines buffered before are written in the format they were made in
    handler = _Stderr()
    handler.setFormatter(formatter(process))
    handler.addFilter(ContextFilter())
    root = logging.getLogger()
    for old in list(root.handlers):
        if getattr(old, "_deadwood", False):
            root.removeHandler(old)
    handler._deadwood = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel(level())
    # No line shows the caller's file and line, thread or process names: skipping the lookups
    # (the stack walk of findCaller above all) keeps a line cheap on the request path.
    logging._srcfile = None
    logging.logThreads = logging.logProcesses = logging.logMultiprocessing = False
    _configured = process
    _json = json_format()
    _json_process = f'"process":{json.dumps(process)},'
    _access_level_off = level() > logging.INFO


def install_on(handler: logging.Handler, process: str) -> None:
    """Our format and context on a handler made elsewhere (gunicorn's error log)."""
    handler.setFormatter(formatter(process))
    handler.addFilter(ContextFilter())


@contextmanager
def bound(
    request_id: str | None = None, match_id: str | None = None, seat: int | None = None
) -> Iterator[None]:
    """Every line inside carries these (a job's run, a reconciler pass)."""
    rid, mid, sid = request_id_var.set(request_id), match_id_var.set(match_id), seat_var.set(seat)
    try:
        yield
    finally:
        seat_var.reset(sid)
        match_id_var.reset(mid)
        request_id_var.reset(rid)


_second: list[Any] = [-1, ""]


def _iso(created: float) -> str:
    """RFC 3339 UTC with milliseconds (the seconds part formatted once a second)."""
    whole = int(created)
    if whole != _second[0]:
        _second[0], _second[1] = whole, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole))
    return f"{_second[1]}.{int(created % 1 * 1000):03d}Z"
