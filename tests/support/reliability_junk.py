"""Junk replay uploads against a served app (issue 11 item 2), for the test and bench/replay.

`upload` sends a body on a bare socket in 64 KiB pieces and stops sending as soon as the
server has answered (it answers a junk log after its first line), so the figures are the
server's, not the time to push 8 MiB through the client. `JunkLoad` keeps N such uploads
running from threads until it is stopped (`JunkProcess`: in a process of its own), each
thread starting one every PACE seconds (six attackers sending 10 junk logs a second each; a
flood of requests of any kind, as fast as the server answers, is the rate limiter's
business, not the replay check's). `Mover` makes the moves whose latency is measured.
"""

from __future__ import annotations

import select
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

import httpx

JUNK_BYTES = 8 * 1024 * 1024
PACE = 0.1


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


class Mover:
    """Moves of a three-hand-gin match, each the first legal move of the seat to act; a
    finished match is replaced by a new one, a round being scored (by the worker) waited
    for. Only the POST of a move is timed."""

    def __init__(self, client: httpx.Client) -> None:
        self.client = client
        self.match_id, self.tokens = "", [""]
        self._new()

    def _new(self) -> None:
        players = [{"name": "ana"}, {"name": "ben"}, {"name": "cy"}]
        body = {"variant": "three-hand-gin", "players": players, "seed": 7}
        created = self.client.post("/v1/matches", json=body).json()
        self.match_id, self.tokens = created["id"], [s["token"] for s in created["seats"]]

    def _next(self) -> tuple[dict[str, str], Any]:
        for _ in range(200):
            view = self.client.get(f"/v1/matches/{self.match_id}").json()
            if view["status"] == "finished":
                self._new()
            elif view["turn"] is not None:
                headers = {"Authorization": f"Bearer {self.tokens[view['turn']]}"}
                mine = self.client.get(f"/v1/matches/{self.match_id}", headers=headers).json()
                if mine["you"]["legal_moves"]:
                    return headers, mine["you"]["legal_moves"][0]
            time.sleep(0.05)
        raise AssertionError(f"no seat of {self.match_id} could move for 10 s")

    def timed_moves(self, count: int) -> list[float]:
        out: list[float] = []
        for _ in range(count):
            headers, move = self._next()
            path = f"/v1/matches/{self.match_id}/moves"
            started = time.monotonic()
            answer = self.client.post(path, json=move, headers=headers)
            out.append(time.monotonic() - started)
            assert answer.status_code == 200, answer.text
        return out


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
