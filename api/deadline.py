"""A deadline on reading a request body, so a client cannot hold a connection by sending its
body a byte at a time (issue 28 item 6).

`BodyDeadline` wraps the WSGI app: the body stream of every request gets BODY_TIMEOUT_SECONDS
(default 60: 8 MiB, the largest body, at 140 KB/s) from the moment the app first reads it.
Under gevent (gunicorn's worker) a read that is still waiting at the deadline is cut by a
`gevent.Timeout`; elsewhere the deadline is checked between reads. Past it the request is
answered 408 problem+json `request_timeout`, and the connection's reading side is shut, so
the server does not wait for the rest of the body either (gunicorn would read it to keep the
connection alive).
"""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from werkzeug.exceptions import RequestTimeout


class BodyTimeout(RequestTimeout):
    description = "the request body did not arrive within {seconds} s; send it at once"


def _gevent_timeout() -> Any:
    """gevent.Timeout when this process is gevent's (sockets patched), else None."""
    try:
        from gevent import Timeout, monkey
    except ImportError:  # pragma: no cover (gevent is a dependency)
        return None
    return Timeout if monkey.is_module_patched("socket") else None


class _TimedInput:
    """A WSGI input stream whose reads end by a deadline."""

    def __init__(self, stream: Any, seconds: float, sock: Any) -> None:
        self.stream = stream
        self.seconds = seconds
        self.sock = sock
        self.ends: float | None = None
        self.timeout = _gevent_timeout()

    def _call(self, read: Callable[..., Any], *args: Any) -> Any:
        now = time.monotonic()
        if self.ends is None:
            self.ends = now + self.seconds
        left = self.ends - now
        if left <= 0:
            self._expired()
        if self.timeout is None:
            return read(*args)
        try:
            with self.timeout(left):
                return read(*args)
        except self.timeout:
            self._expired()

    def _expired(self) -> None:
        if self.sock is not None:
            with contextlib.suppress(OSError):
                self.sock.shutdown(socket.SHUT_RD)
        error = BodyTimeout()
        error.description = BodyTimeout.description.format(seconds=f"{self.seconds:g}")
        raise error

    def read(self, size: int = -1) -> bytes:
        data: bytes = self._call(self.stream.read, size)
        return data

    def readline(self, size: int = -1) -> bytes:
        data: bytes = self._call(self.stream.readline, size)
        return data

    def readlines(self, hint: int = -1) -> list[bytes]:
        lines: list[bytes] = self._call(self.stream.readlines, hint)
        return lines

    def __iter__(self) -> Iterator[bytes]:
        while True:
            line = self.readline()
            if not line:
                return
            yield line


class BodyDeadline:
    """WSGI middleware: every request body read by a deadline of `seconds`."""

    def __init__(self, app: Callable[..., Iterable[bytes]], seconds: float) -> None:
        self.app = app
        self.seconds = seconds

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        stream = environ.get("wsgi.input")
        if stream is not None and self.seconds > 0:
            sock = environ.get("gunicorn.socket")
            environ["wsgi.input"] = _TimedInput(stream, self.seconds, sock)
        return self.app(environ, start_response)
