"""How gunicorn serves the app: its gevent worker, with problem+json for the refusals that
gunicorn makes itself, before the app sees a request (issue 11 item 7).

gunicorn answers a request line over `limit_request_line` (4094 bytes) with 414 and too many
or too large header fields with 431, as an HTML page. `ProblemGeventWorker` writes those two as
problem+json like every other refusal (api.md Conventions), and every other request gunicorn
cannot read (a bad request line, header or chunk: 400; `Expect` it cannot meet: 417; a
transfer coding it does not know: 501) too, with a `code` and without the request's bytes.
Both `deadwood up` and the reliability tests run it:

    gunicorn --worker-class api.serving.ProblemGeventWorker 'api:create_app()'

`Logger` gives gunicorn's own lines (start, stop, worker timeouts) the format of
store/logs.py (DEADWOOD_LOG_FORMAT); the access log is the app's (api/observe.py).
"""

from __future__ import annotations

import json
import os
from typing import Any

from gunicorn import glogging, util
from gunicorn.http import errors as http_errors
from gunicorn.http.errors import LimitRequestHeaders, LimitRequestLine
from gunicorn.workers.ggevent import GeventWorker

from api.errors import PROBLEM_TYPE
from store import flushing, logs, metrics

WORKER_CLASS = "api.serving.ProblemGeventWorker"

_PROBLEMS = (
    (
        LimitRequestLine,
        414,
        "URI Too Long",
        "uri_too_long",
        "the request line is longer than this server reads (4094 bytes): shorten the path "
        "and query",
    ),
    (
        LimitRequestHeaders,
        431,
        "Request Header Fields Too Large",
        "headers_too_large",
        "the request has more header fields, or longer ones, than this server reads",
    ),
)


def problem_bytes(status: int, reason: str, code: str, detail: str) -> bytes:
    """A whole HTTP/1.1 response carrying one problem, closing the connection."""
    body = json.dumps(
        {
            "type": PROBLEM_TYPE + code,
            "title": reason,
            "status": status,
            "detail": detail,
            "code": code,
        },
        separators=(",", ":"),
    ).encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\nConnection: close\r\n"
        f"Content-Type: application/problem+json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    return head.encode("latin-1") + body


_OTHER = (
    (http_errors.ExpectationFailed, 417, "Expectation Failed", "expectation_failed"),
    (http_errors.UnsupportedTransferCoding, 501, "Not Implemented", "not_implemented"),
    (http_errors.ForbiddenProxyRequest, 403, "Forbidden", "forbidden"),
    (http_errors.ParseException, 400, "Bad Request", "bad_request"),
)


def refusal(exc: BaseException) -> tuple[int, str, str, str] | None:
    """(status, reason, code, detail) of gunicorn's own refusal of `exc`: None when the
    fault is not the client's (gunicorn answers those 500 itself)."""
    for kind, status, reason, code, detail in _PROBLEMS:
        if isinstance(exc, kind):
            return status, reason, code, detail
    if isinstance(exc, http_errors.ConfigurationProblem):
        return None
    if isinstance(exc, http_errors.InvalidResponseHeader | http_errors.InvalidResponseHeaderName):
        return None
    for kind, status, reason, code in _OTHER:
        if isinstance(exc, kind):
            what = type(exc).__name__
            return status, reason, code, f"the request is not HTTP/1.1 this server reads ({what})"
    return None


class ProblemGeventWorker(GeventWorker):  # type: ignore[misc]
    """gunicorn's gevent worker; the refusals it makes itself (400, 414, 431...) are
    problem+json, without echoing the request's bytes."""

    def handle_error(self, req: Any, client: Any, addr: Any, exc: BaseException) -> None:
        found = refusal(exc)
        if found is None:
            super().handle_error(req, client, addr, exc)
            return
        ip = addr[0] if addr else ""
        self.log.warning("Invalid request from ip=%s: %s", ip, type(exc).__name__)
        try:
            util.write_nonblock(client, problem_bytes(*found))
        except OSError:
            self.log.debug("Failed to send error message.")

    def run(self) -> None:
        try:
            super().run()
        finally:  # its live gauges (open streams) stop counting (multiprocess mode)
            metrics.mark_process_dead(os.getpid())
            flushing.flush()  # its buffered access lines and pending figures, before it goes


class Logger(glogging.Logger):  # type: ignore[misc]
    """gunicorn's logger, writing its error log in store/logs.py's format."""

    def setup(self, cfg: Any) -> None:
        logs.configure("api")  # the app's lines (the workers inherit it from the master)
        super().setup(cfg)
        for handler in self.error_log.handlers:
            logs.install_on(handler, "gunicorn")
