"""Reliability-test fixtures (issue 6): a private Redis, gunicorn and rq worker processes.

Long variants: tests marked `slow` are deselected by pyproject's addopts (`-m 'not slow'`);
`make soak` selects them and sets DEADWOOD_SOAK=1, by which `reliability_procs.soak(short,
long)` picks a figure.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.reliability_procs import PrivateRedis, Stack


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[PrivateRedis]:
    """A redis-server of this test only (AOF, fsync always), stopped at the end."""
    server = PrivateRedis(tmp_path / "redis")
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def stack(private_redis: PrivateRedis, tmp_path: Path) -> Iterator[Stack]:
    made = Stack(tmp_path, private_redis.url)
    try:
        yield made
    finally:
        made.stop()
