"""Junk replay uploads against a served app (issue 11 item 2), for the test and bench/replay.

`upload` sends a body on a bare socket in 64 KiB pieces and stops sending as soon as the
server has answered (it answers a junk log after its first line), so the figures are the
server's, not the time to push 8 MiB through the client. `JunkLoad` keeps N such uploads
running from threads until it is stopped, each thread starting one every PACE seconds (six
attackers sending 20 junk logs a second each; a flood of requests of any kind, as fast as the
server answers, is the rate limiter's business, not the replay check's).
"""

from __future__ import annotations

import select
import socket
import threading
import time
from collections.abc import Callable

JUNK_BYTES = 8 * 1024 * 1024
PACE = 0.05


def junk_body(size: int = JUNK_BYTES) -> bytes:
    """`{}` lines up to `size` bytes: valid JSON on every line, no event anywhere."""
    return b"{}\n" * (size // 3)


def upload(port: int, body: bytes, timeout: float = 60.0) -> tuple[int, float]:
    """POST /v1/replays as NDJSON: (status, seconds until the answer's status line)."""
    head = (
        "POST /v1/replays HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        f"Content-Type: application/x-ndjson\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode()
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(head)
        for at in range(0, len(body), 65536):
            if select.select([sock], [], [], 0)[0]:
                break
            try:
                sock.sendall(body[at : at + 65536])
            except (BrokenPipeError, ConnectionResetError):
                break
        answer = b""
        while b"\r\n" not in answer:
            chunk = sock.recv(4096)
            if not chunk:
                break
            answer += chunk
    line = answer.split(b"\r\n", 1)[0].split()
    return (int(line[1]) if len(line) > 1 else 0), time.monotonic() - started


class JunkLoad:
    """`count` threads that upload `body` again and again until `stop()`."""

    def __init__(self, port: int, count: int, body: bytes) -> None:
        self.port, self.body = port, body
        self.statuses: list[int] = []
        self.seconds: list[float] = []
        self._done = threading.Event()
        self._threads = [threading.Thread(target=self._run, daemon=True) for _ in range(count)]
        for thread in self._threads:
            thread.start()

    def _run(self) -> None:
        while not self._done.is_set():
            status, seconds = upload(self.port, self.body)
            self.statuses.append(status)
            self.seconds.append(seconds)
            self._done.wait(max(0.0, PACE - seconds))

    def stop(self) -> None:
        self._done.set()
        for thread in self._threads:
            thread.join(timeout=120)


def timed(call: Callable[[], object], times: int, pause: float = 0.01) -> list[float]:
    """Seconds each of `times` calls took, with a short pause between them."""
    out: list[float] = []
    for _ in range(times):
        started = time.monotonic()
        call()
        out.append(time.monotonic() - started)
        time.sleep(pause)
    return out


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


class JunkProcess:
    """`JunkLoad` in a process of its own (so its threads do not hold the measuring
    process's GIL): `stop()` ends it and returns (statuses, seconds) of every upload."""

    def __init__(self, port: int, count: int) -> None:
        import subprocess
        import sys
        from pathlib import Path

        script = str(Path(__file__).resolve())
        self.proc = subprocess.Popen(
            [sys.executable, script, str(port), str(count)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        assert self.proc.stdout is not None
        self.proc.stdout.readline()  # "started"

    def stop(self) -> tuple[list[int], list[float]]:
        import json

        out, _ = self.proc.communicate(b"stop\n", timeout=120)
        found = json.loads(out)
        return list(found["statuses"]), list(found["seconds"])


def _main(port: int, count: int) -> None:
    import json
    import sys

    load = JunkLoad(port, count, junk_body())
    print("started", flush=True)
    sys.stdin.readline()
    load.stop()
    print(json.dumps({"statuses": load.statuses, "seconds": load.seconds}))


if __name__ == "__main__":
    import sys

    _main(int(sys.argv[1]), int(sys.argv[2]))
