"""Reliability-test fixtures (issue 6): a private Redis, gunicorn and rq worker processes.

Long variants: tests marked `slow` are deselected by pyproject's addopts (`-m 'not slow'`);
`make soak` selects them and sets DEADWOOD_SOAK=1, by which `reliability_procs.soak(short,
long)` picks a figure.

`compiled`: the TypeScript bot of examples/typescript built once a session (for
test_typescript_bot.py and test_seek_bots.py; they skip without node and npm).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.reliability_procs import PrivateRedis, Stack

ROOT = Path(__file__).resolve().parents[2]
BOT = ROOT / "examples" / "typescript"
NODE, NPM = shutil.which("node"), shutil.which("npm")
STAMP = BOT / "node_modules" / ".deadwood-lock-sha256"
"""The hash of the package-lock.json that node_modules was installed from."""


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


def _run(*command: str, timeout: float = 300) -> str:
    env = {**os.environ, "npm_config_update_notifier": "false", "npm_config_fund": "false"}
    done = subprocess.run(
        command, cwd=BOT, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    assert done.returncode == 0, f"{' '.join(command)}:\n{done.stdout}\n{done.stderr}"
    return done.stdout + done.stderr


@pytest.fixture(scope="session")
def compiled() -> str:
    """examples/typescript installed, its types generated and the bot compiled; the types."""
    assert NPM is not None and NODE is not None
    lock = hashlib.sha256((BOT / "package-lock.json").read_bytes()).hexdigest()
    if not STAMP.exists() or STAMP.read_text() != lock:
        _run(NPM, "ci", "--no-audit", "--prefer-offline")
        STAMP.write_text(lock)
    bin_ = BOT / "node_modules" / ".bin"
    _run(str(bin_ / "openapi-typescript"), "../../openapi.yaml", "-o", "src/api.d.ts")
    shutil.rmtree(BOT / "build", ignore_errors=True)
    _run(str(bin_ / "tsc"), "--strict", "-p", "tsconfig.json")
    assert (BOT / "build" / "bot.js").exists()
    return (BOT / "src" / "api.d.ts").read_text()
