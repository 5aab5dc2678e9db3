"""Test-session setup: hypothesis profiles, and a real Redis server for store/API/worker tests."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
import redis
from hypothesis import HealthCheck, settings

from cli.procs import free_port, redis_server_binary

if TYPE_CHECKING:
    from store.service import MatchService

settings.register_profile(
    "ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", max_examples=200, deadline=None)
settings.register_profile(
    "soak", max_examples=5000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


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
    try:
        for _ in range(200):
            try:
                if client.ping():
                    break
            except redis.ConnectionError:
                time.sleep(0.025)
        else:
            raise RuntimeError(f"redis-server did not start on port {port}")
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
