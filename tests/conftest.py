"""Test-session setup: hypothesis profiles, and a real Redis server for store/API/worker tests."""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
import redis
from hypothesis import HealthCheck, settings

from cli.procs import free_port, redis_server_binary
from tests.support.waiting import wait_until

if TYPE_CHECKING:
    from store.service import MatchService

# `ci` (make test) is deterministic: derandomised, no example database, so a clean clone tries
# the same examples every run and a failure prints its reproduction blob. `soak` (make soak)
# explores: the Makefile passes a fresh `--hypothesis-seed` and echoes it, and a failure's
# falsifying example is pinned as an `@example` (issue 10).
settings.register_profile(
    "ci",
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
    database=None,
    print_blob=True,
)
settings.register_profile("dev", max_examples=200, deadline=None)
settings.register_profile(
    "soak",
    max_examples=5000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    database=None,
    print_blob=True,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))

# The tests' processes may use the public development token pepper (store/connection.py);
# tests of the refusal without it remove the flag from their child's environment.
os.environ.setdefault("DEADWOOD_DEV", "1")


# --- a real Redis for store, API and worker tests (service-contract.md) -----------------------


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """REDIS_URL if set, else a private redis-server on a free port, stopped at session end."""
    if os.environ.get("REDIS_URL"):
        yield os.environ["REDIS_URL"]
        return
    data = tmp_path_factory.mktemp("redis")
    port = free_port()
    args = [redis_server_binary(), "--port", str(port), "--bind", "127.0.0.1"]
    args += ["--dir", str(data), "--save", "", "--appendonly", "no"]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"redis://127.0.0.1:{port}/0"
    client = redis.Redis.from_url(url)

    def answers() -> bool:
        with contextlib.suppress(redis.ConnectionError):
            return bool(client.ping())
        return False

    try:
        wait_until(answers, 30.0, f"redis-server to start on port {port}", every=0.025)
        yield url
    finally:
        client.close()
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture
def redis_client(redis_url: str) -> Iterator[redis.Redis]:
    """A client of the test Redis, flushed before each test."""
    client = redis.Redis.from_url(redis_url)
    client.flushdb()
    yield client
    client.close()


@pytest.fixture
def service(redis_client: redis.Redis) -> MatchService:
    """A MatchService on the test Redis (jobs in the same server and transaction)."""
    from store.service import MatchService

    return MatchService(redis_client, pepper=b"test-pepper")


@pytest.fixture(autouse=True)
def _flush_buffered_lines() -> Iterator[None]:
    """A test's buffered access lines (store/flushing.py) are written into its own captured
    stderr, not into a later test's or the terminal after the summary."""
    yield
    from store import flushing

    flushing.flush()
