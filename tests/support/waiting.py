"""Waiting on a condition with a deadline, never for a fixed time (issue 10).

A test that sleeps a fixed time against a timer passes or fails with the machine's load. The
tests wait instead until what they need holds, and fail naming it when a generous deadline
passes. (`from tests.support.waiting import wait_until`.)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def wait_until(
    predicate: Callable[[], T | None], timeout: float, what: str, *, every: float = 0.01
) -> T:
    """Call `predicate` until it returns a truthy value, and return that value; AssertionError
    naming `what` when `timeout` seconds pass first. `every` is the pause between calls."""
    deadline = time.monotonic() + timeout
    while True:
        found = predicate()
        if found:
            return found
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(every)
