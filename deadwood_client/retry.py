"""Resending a request whose answer was lost, written once for the whole client.

`Retry` is the policy (how many attempts, how long a pause); `Retry.run(once, again)` is the
loop every resending caller uses: `once()` until it returns, pausing between attempts (the
server's `Retry-After` when it said), the last failure raised. `answer(send, what)` is one
HTTP attempt: the response, or `Lost` when there is no final answer (no response, a 5xx, or
a 429), so a caller retries exactly those.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx

from deadwood_client.errors import DeadwoodError, TransportError

T = TypeVar("T")


@dataclass(frozen=True)
class Retry:
    """How often and how patiently one request is resent when its answer is lost."""

    attempts: int = 8
    backoff: float = 0.1
    """The first pause (seconds); each next pause doubles, up to `max_backoff`."""
    max_backoff: float = 2.0
    sleep: Callable[[float], None] = time.sleep

    def pause(self, attempt: int, hint: float | None = None) -> None:
        """Sleep before attempt `attempt + 1` (jittered), or `hint` seconds if the server said."""
        base = min(self.max_backoff, self.backoff * (2**attempt))
        delay = hint if hint is not None else base * (0.5 + secrets.randbelow(1000) / 2000)
        self.sleep(min(delay, max(self.max_backoff, 30.0)))

    def run(
        self,
        once: Callable[[], T],
        again: tuple[type[Exception], ...],
        before_retry: Callable[[Any], None] | None = None,
    ) -> T:
        """`once()` until it returns, at most `attempts` times; an exception of `again` is
        retried after a pause (its `retry_after` seconds when it has them) and raised after
        the last attempt. `before_retry(exc)` runs before each retry and may raise to stop."""
        for attempt in range(self.attempts - 1):
            try:
                return once()
            except again as exc:
                if before_retry is not None:
                    before_retry(exc)
                self.pause(attempt, getattr(exc, "retry_after", None))
        return once()


class Lost(Exception):
    """One attempt without a final answer: no response, a 5xx (outcome unknown) or a 429."""

    def __init__(self, error: DeadwoodError, reason: str, *, unknown: bool, hint: float | None):
        super().__init__(reason)
        self.error = error
        self.reason = reason
        self.unknown = unknown
        """True when the server may have acted on the request (no response, or a 5xx)."""
        self.retry_after = hint


def answer(send: Callable[[], httpx.Response], what: str) -> httpx.Response:
    """One attempt of `send` (`what` names it, e.g. "GET /bots"); `Lost` if no final answer."""
    try:
        response = send()
    except httpx.TransportError as exc:
        reason = f"{type(exc).__name__}: {exc}"
        raise Lost(TransportError(f"{what}: {reason}"), reason, unknown=True, hint=None) from exc
    status = response.status_code
    if status >= 500 or status == 429:
        hint = retry_after(response)
        raise Lost(problem(response), f"HTTP {status}", unknown=status != 429, hint=hint)
    return response


def problem(response: httpx.Response) -> DeadwoodError:
    """The exception of an error response (problem+json, or anything else)."""
    try:
        body: Any = response.json()
    except ValueError:
        body = response.text
    return DeadwoodError.from_problem(response.status_code, body, response.headers)


def retry_after(response: httpx.Response) -> float | None:
    """The response's Retry-After in seconds (None when absent or not a number)."""
    value = response.headers.get("Retry-After")
    if value is None or not value.strip().replace(".", "", 1).isdigit():
        return None
    return float(value)
