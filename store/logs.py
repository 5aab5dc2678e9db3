"""Logging for every Deadwood process (the API under gunicorn, the worker, the launcher).

    configure(process)       once per process: level and format from the environment
    bind(request_id=..., match_id=..., seat=...)   the context every line of this request or
                             job carries (contextvars: a gevent greenlet or a thread each)
    new_request_id() / valid_request_id(text)

Settings (environment):
    DEADWOOD_LOG_LEVEL   DEBUG, INFO (default), WARNING, ERROR
    DEADWOOD_LOG_FORMAT  `text` (default): `time level logger [request match seat] message`;
                         `json`: one JSON object a line with the keys time, level, logger,
                         message, request_id, match_id, seat (and process)

What a line may carry: a request id, a match id, a seat number, a route, a status, a job id.
Never a token, a hand, a card or a seed: the callers log only those fields (the access line
logs the path without its query string, the 500 handler only the exception's class and
frames), and `scrub` blanks anything that looks like a bearer token as a last guard.

This module lives in `store/` because it is the lowest layer that the API, the workers and
the launcher all import (the domain stays pure: it logs nothing).
"""

from __future__ import annotations

import contextvars
import json
import logging
import os
import re
import secrets
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

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


def valid_request_id(text: str | None) -> str | None:
    """`text` when it is a usable request id (1..128 characters of a safe set), else None."""
    if text and _REQUEST_ID.fullmatch(text):
        return text
    return None


def new_request_id() -> str:
    return secrets.token_hex(12)


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
            text += f" ({record.exc_info[0].__name__})"  # the class, never the message
        return text


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
    global _configured
    if _configured is not None and not force:
        return
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
    _configured = process


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


def _iso(created: float) -> str:
    whole = time.gmtime(created)
    return time.strftime("%Y-%m-%dT%H:%M:%S", whole) + f".{int(created % 1 * 1000):03d}Z"
