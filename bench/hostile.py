"""What a hostile client costs everyone else (issue 28), through `deadwood up`, in one run.

    python bench/hostile.py [--root PATH] [--streams 500] [--probes 60]

Starts `python -m cli up` from the checkout at `--root` (default: this one; another
revision's worktree measures it the same way) with one API process and its rate limits off,
then probes health, a view and a move (sequential requests of one client, timed) while:

- quiet: nothing else runs;
- streams: `--streams` idle live streams are held open from this address.

It prints p50, p99 and the worst of each probe, and how many probes failed (any status but
200). The 2 cores run the server, Redis and the clients together: compare rows of one run.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import select
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cli.procs import free_port  # noqa: E402

OFF = {
    f"DEADWOOD_RATELIMIT_{name}": "off"
    for name in ("CREATE", "MOVES", "MOVES_ADDRESS", "HINTS", "HINTS_ADDRESS")
}


@contextlib.contextmanager
def served(root: Path) -> Iterator[str]:
    port = free_port()
    data = tempfile.mkdtemp(prefix="bench-hostile-")
    command = [sys.executable, "-m", "cli", "up", "--port", str(port), "--workers", "1"]
    command += ["--data-dir", data, "--redis-port", str(free_port())]
    env = {**os.environ, "DEADWOOD_TOKEN_PEPPER": "bench-pepper", **OFF}
    env = {k: v for k, v in env.items() if not k.startswith(("REDIS_", "QUEUE_"))}
    with open(Path(data) / "up.log", "wb") as log:
        proc = subprocess.Popen(command, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        ends = time.monotonic() + 60
        while time.monotonic() < ends:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{base}/v1/health", timeout=2).status_code == 200:
                    break
            time.sleep(0.2)
        yield base
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=40)
        except subprocess.TimeoutExpired:
            proc.kill()


def create(http: httpx.Client, variant: str, count: int) -> tuple[str, list[str]]:
    players = [{"name": f"p{i}"} for i in range(count)]
    made = http.post("/v1/matches", json={"variant": variant, "players": players}).json()
    return made["id"], [seat["token"] for seat in made["seats"]]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def post_status(http: httpx.Client, url: str, body: Any, token: str) -> int:
    """POST `body` to `url` as the seat holding `token`: the answer's status code."""
    return http.post(url, json=body, headers=bearer(token)).status_code


def to_act(http: httpx.Client, match_id: str, tokens: list[str]) -> tuple[str, Any] | None:
    for token in tokens:
        answer = http.get(f"/v1/matches/{match_id}/legal-moves", headers=bearer(token))
        moves = answer.json().get("moves") if answer.status_code == 200 else None
        if moves:
            return token, moves[0]
    return None


def probe(base: str, count: int) -> dict[str, tuple[list[float], int]]:
    """`count` rounds of health, a view and a move: (times in ms, failures) of each."""
    out: dict[str, tuple[list[float], int]] = {}
    with httpx.Client(base_url=base, timeout=30) as http:
        try:
            match_id, tokens = create(http, "three-hand-gin", 3)
        except (KeyError, httpx.HTTPError):  # the create itself was refused (503)
            return {name: ([0.0], count) for name in ("health", "view", "move")}

        def timed(name: str, call: Callable[[], int]) -> None:
            started = time.perf_counter()
            try:
                status = call()
            except httpx.HTTPError:
                status = 0
            times, failed = out.setdefault(name, ([], 0))
            times.append((time.perf_counter() - started) * 1000)
            out[name] = (times, failed + (status != 200))

        for _ in range(count):
            timed("health", lambda: http.get("/v1/health").status_code)
            timed("view", lambda: http.get(f"/v1/matches/{match_id}").status_code)
            found = to_act(http, match_id, tokens)
            if found is not None:
                token, move = found
                url = f"/v1/matches/{match_id}/moves"
                timed("move", partial(post_status, http, url, move, token))
    return out


def hold_streams(base: str, count: int) -> tuple[list[socket.socket], dict[int, int]]:
    port = int(base.rsplit(":", 1)[1])
    with httpx.Client(base_url=base, timeout=30) as http:
        match_id, _ = create(http, "three-hand-gin", 3)
    head = f"GET /v1/matches/{match_id}/events/stream HTTP/1.1\r\nHost: x\r\n\r\n".encode()
    socks = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        sock.sendall(head)
        socks.append(sock)
    statuses: dict[int, int] = {}
    for sock in socks:
        ready, _, _ = select.select([sock], [], [], 20)
        line = sock.recv(64) if ready else b""
        status = int(line.split(b" ")[1]) if line.startswith(b"HTTP/1.1 ") else 0
        statuses[status] = statuses.get(status, 0) + 1
    return socks, statuses


def row(scenario: str, results: dict[str, tuple[list[float], int]]) -> str:
    cells = []
    for name in ("health", "view", "move"):
        times, failed = results.get(name, ([0.0], 0))
        ordered = sorted(times)
        p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
        cells.append(f"{statistics.median(ordered):7.1f} {p99:7.1f} {ordered[-1]:7.1f} {failed:5d}")
    return f"{scenario:<10}" + " | ".join(cells)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT)
    parser.add_argument("--streams", type=int, default=500)
    parser.add_argument("--probes", type=int, default=60)
    args = parser.parse_args()
    print(f"deadwood up from {args.root}: one API process, rate limits off")
    head = " | ".join(f"{n:>5} p50     p99   worst  fail" for n in ("health", "view", "move"))
    with served(args.root) as base:
        lines = [f"{'':<10}{head}", row("quiet", probe(base, args.probes))]
        socks, statuses = hold_streams(base, args.streams)
        try:
            lines.append(row("streams", probe(base, args.probes)))
        finally:
            for sock in socks:
                sock.close()
    print("\n".join(lines))
    print(f"streams: {args.streams} opened, answered {dict(sorted(statuses.items()))}")
    print("times in ms; fail = probes answered other than 200")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
