"""Reliability-test fixtures (issue 6): a private Redis, gunicorn and rq worker processes.

Long variants: tests marked `slow` run only with DEADWOOD_SOAK=1 (`make soak`); `make test`
runs the short ones. `soak(short, long)` picks a figure by the same switch.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

# As in tests/api/conftest.py: keep the real `api` package ahead of the tests/api directory.
ROOT = str(Path(__file__).resolve().parents[2])
if ROOT not in sys.path:
    sys.path.append(ROOT)
if getattr(sys.modules.get("api"), "__file__", "") is None:
    del sys.modules["api"]

import pytest  # noqa: E402
from procs import Gunicorn, PrivateRedis, RqWorker  # noqa: E402

SOAK = os.environ.get("DEADWOOD_SOAK") == "1"
PEPPER = "reliability-pepper"
HERE = Path(__file__).resolve().parent


def soak(short: Any, long: Any) -> Any:
    """`long` under `make soak` (DEADWOOD_SOAK=1), else `short`."""
    return long if SOAK else short


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if SOAK:
        return
    skip = pytest.mark.skip(reason="long variant: run with `make soak` (DEADWOOD_SOAK=1)")
    for item in items:
        if item.get_closest_marker("slow") and HERE in Path(str(item.path)).parents:
            item.add_marker(skip)


def app_env(redis_url: str, **extra: str) -> dict[str, str]:
    """The environment of the served app and the workers."""
    return {
        "REDIS_URL": redis_url,
        "QUEUE_URL": redis_url,
        "DEADWOOD_TOKEN_PEPPER": PEPPER,
        "DEADWOOD_SSE_MAX_SECONDS": "4",
        "DEADWOOD_SSE_HEARTBEAT_SECONDS": "1",
        "PYTHONUNBUFFERED": "1",
        **extra,
    }


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[PrivateRedis]:
    """A redis-server of this test only (AOF, fsync always), stopped at the end."""
    server = PrivateRedis(tmp_path / "redis")
    server.start()
    try:
        yield server
    finally:
        server.stop()


class Stack:
    """gunicorn (2 gevent workers) and an rq worker on one Redis; stopped by the fixture."""

    def __init__(self, directory: Path, redis_url: str) -> None:
        self.dir = directory
        self.redis_url = redis_url
        self.env = app_env(redis_url)
        self.api: Gunicorn | None = None
        self.workers: list[RqWorker] = []
        self.started_workers = 0

    def start_api(self, workers: int = 2, **env: str) -> Gunicorn:
        self.api = Gunicorn(self.dir, {**self.env, **env}, workers=workers)
        return self.api

    def start_worker(self, *, fork: bool = False, reconcile_every: float = 1.0) -> RqWorker:
        worker = RqWorker(
            self.dir,
            self.env,
            fork=fork,
            reconcile_every=reconcile_every,
            name=f"worker{self.started_workers}",
        )
        self.started_workers += 1
        self.workers.append(worker)
        return worker

    @property
    def base_url(self) -> str:
        assert self.api is not None
        return self.api.base_url

    def logs(self) -> list[str]:
        """Every line the app, its gunicorn and the workers wrote."""
        lines: list[str] = []
        for path in sorted(self.dir.glob("*.log")):
            lines += path.read_text(errors="replace").splitlines()
        return lines

    def stop(self) -> None:
        for worker in self.workers:
            worker.stop()
        if self.api is not None:
            self.api.stop()


@pytest.fixture
def stack(private_redis: PrivateRedis, tmp_path: Path) -> Iterator[Stack]:
    made = Stack(tmp_path, private_redis.url)
    try:
        yield made
    finally:
        made.stop()
