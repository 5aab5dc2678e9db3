"""Moves per second and latency of the HTTP API over loopback, against its ceiling.

    python bench/api.py [--quick] [--seconds S] [--workers W] [--clients 1,8,32]

Starts a private redis-server (no persistence) and two gunicorn servers with gevent workers on
free ports: the real app (`api:create_app()`), and a bare Flask app whose one endpoint does a
single XADD on the same Redis (the ceiling: HTTP + one Redis write, no domain, no auth). Each
client is a thread with one keep-alive connection.

A client of the real app owns a two-seat Manipulation match and holds both tokens; it makes
legal moves back to back (`POST .../moves`, each timed): the mover's next move comes from the
move response's own view, the other seat's is its draw or pass. A round that ends (a knock)
starts a new match (not timed). Latency is per move; moves/s is moves over wall time.

The 2 CPU cores of this machine run the servers, Redis and the client threads together, so the
numbers are noisy and the clients compete with the server: read them as orders of magnitude.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cli.procs import free_port, redis_server_binary, wait_port

ROOT = Path(__file__).resolve().parents[1]

CEILING_APP = textwrap.dedent(
    """
    import os
    import redis
    from flask import Flask, jsonify

    app = Flask(__name__)
    store = redis.Redis.from_url(os.environ["REDIS_URL"])

    @app.post("/xadd/<int:client>")
    def xadd(client):
        seq = store.xadd(f"bench:{{{client}}}", {"type": "CardDrawn", "data": '{"seat":0}'})
        return jsonify({"id": seq.decode()})
    """
)


class Servers:
    """redis-server, the API and the ceiling app, stopped on exit."""

    def __init__(self, workers: int) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="deadwood-bench-"))
        self.procs: list[subprocess.Popen[bytes]] = []
        redis_port = free_port()
        self.redis_url = f"redis://127.0.0.1:{redis_port}/0"
        redis_cmd = [redis_server_binary(), "--port", str(redis_port), "--bind", "127.0.0.1"]
        redis_cmd += ["--save", "", "--appendonly", "no", "--dir", str(self.tmp)]
        self._spawn(redis_cmd, redis_port)
        (self.tmp / "ceiling_app.py").write_text(CEILING_APP)
        env = {**os.environ, "REDIS_URL": self.redis_url, "DEADWOOD_TOKEN_PEPPER": "bench-pepper"}
        self.api_port, self.ceiling_port = free_port(), free_port()
        self._spawn(self._gunicorn(self.api_port, workers, "api:create_app()"), self.api_port, env)
        ceiling = [*self._gunicorn(self.ceiling_port, workers, "ceiling_app:app")]
        ceiling[-1:-1] = ["--pythonpath", str(self.tmp)]
        self._spawn(ceiling, self.ceiling_port, env)

    @staticmethod
    def _gunicorn(port: int, workers: int, app: str) -> list[str]:
        return [
            sys.executable,
            "-m",
            "gunicorn",
            "-k",
            "gevent",
            "-w",
            str(workers),
            "-b",
            f"127.0.0.1:{port}",
            "--log-level",
            "warning",
            app,
        ]

    def _spawn(self, command: list[str], port: int, env: dict[str, str] | None = None) -> None:
        proc = subprocess.Popen(command, env=env, cwd=ROOT, stdout=subprocess.DEVNULL)
        self.procs.append(proc)
        wait_port(port, proc)

    def stop(self) -> None:
        for proc in reversed(self.procs):
            proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
        shutil.rmtree(self.tmp, ignore_errors=True)


class Connection:
    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def request(self, method: str, path: str, body: Any = None, headers: dict | None = None) -> Any:
        data = None if body is None else json.dumps(body)
        sent = {"Content-Type": "application/json", **(headers or {})}
        self.conn.request(method, path, body=data, headers=sent)
        response = self.conn.getresponse()
        raw = response.read()
        if response.status >= 300:
            raise RuntimeError(f"{method} {path}: {response.status} {raw[:300]!r}")
        return json.loads(raw)


class MovePlayer:
    """One client of the real API: a two-seat Manipulation match, both tokens."""

    PLAYERS = [{"name": "a"}, {"name": "b"}]

    def __init__(self, port: int, index: int) -> None:
        self.http = Connection(port)
        self.seed = index * 1000
        self.new_match()

    def new_match(self) -> None:
        self.seed += 1
        body = {"variant": "manipulation-rummy", "players": self.PLAYERS, "seed": self.seed}
        created = self.http.request("POST", "/v1/matches", body)
        self.match_id = created["id"]
        self.tokens = [s["token"] for s in created["seats"]]
        view = self.http.request("GET", f"/v1/matches/{self.match_id}")
        self.turn, self.phase, self.mine = view["turn"], view["phase"], None

    def next_move(self) -> dict[str, Any] | None:
        if self.mine is not None:
            for kind in ("end_turn", "draw", "pass", "meld", "knock"):
                found = [m for m in self.mine if m["type"] == kind]
                if found:
                    return found[0]
        if self.phase == "draw":
            return {"type": "draw"}
        if self.phase in ("final_turns", "meld_or_draw"):
            return {"type": "pass"}
        return None

    def step(self) -> float | None:
        """One timed move; None when a new match had to be made instead."""
        move = self.next_move()
        if self.turn is None or move is None:
            self.new_match()
            return None
        seat = self.turn
        headers = {"Authorization": f"Bearer {self.tokens[seat]}"}
        started = time.perf_counter()
        answer = self.http.request("POST", f"/v1/matches/{self.match_id}/moves", move, headers)
        elapsed = time.perf_counter() - started
        view = answer["match"]
        self.turn, self.phase = view["turn"], view["phase"]
        self.mine = view["you"]["legal_moves"] if self.turn == seat else None
        return elapsed


class XaddClient:
    def __init__(self, port: int, index: int) -> None:
        self.http = Connection(port)
        self.index = index

    def step(self) -> float | None:
        started = time.perf_counter()
        self.http.request("POST", f"/xadd/{self.index}", {"type": "CardDrawn"})
        return time.perf_counter() - started


def run_level(make: Callable[[int], Any], clients: int, seconds: float) -> dict[str, float]:
    players = [make(i) for i in range(clients)]
    latencies: list[list[float]] = [[] for _ in range(clients)]
    errors: list[str] = []
    start = threading.Barrier(clients + 1)
    stop_at = [0.0]

    def loop(i: int) -> None:
        start.wait()
        try:
            while time.perf_counter() < stop_at[0]:
                took = players[i].step()
                if took is not None:
                    latencies[i].append(took)
        except Exception as exc:  # a failed request ends the run with its message
            errors.append(str(exc))

    threads = [threading.Thread(target=loop, args=(i,)) for i in range(clients)]
    for thread in threads:
        thread.start()
    began = time.perf_counter()
    stop_at[0] = began + seconds
    start.wait()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - began
    if errors:
        raise SystemExit(f"benchmark request failed: {errors[0]}")
    every = sorted(x for row in latencies for x in row)
    return {
        "count": len(every),
        "rate": len(every) / wall,
        "p50": statistics.median(every) * 1000 if every else float("nan"),
        "p99": every[min(len(every) - 1, int(len(every) * 0.99))] * 1000 if every else 0.0,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 s per level")
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers per server")
    parser.add_argument("--clients", default="1,8,32")
    args = parser.parse_args()
    seconds = 2.0 if args.quick else args.seconds
    levels = [int(c) for c in args.clients.split(",")]
    servers = Servers(args.workers)
    rows = []
    try:
        for clients in levels:
            moves = run_level(lambda i: MovePlayer(servers.api_port, i), clients, seconds)
            ceiling = run_level(lambda i: XaddClient(servers.ceiling_port, i), clients, seconds)
            rows.append((clients, moves, ceiling))
    finally:
        servers.stop()
    print(
        f"API moves vs bare Flask + one XADD, gunicorn -k gevent -w {args.workers}, "
        f"{seconds:.0f} s per level, loopback"
    )
    header = (
        f"{'clients':>7} | {'moves/s':>8} {'p50 ms':>7} {'p99 ms':>7} | "
        f"{'xadd/s':>8} {'p50 ms':>7} {'p99 ms':>7} | {'ratio':>5}"
    )
    print(header)
    print("-" * len(header))
    for clients, moves, ceiling in rows:
        ratio = moves["rate"] / ceiling["rate"] if ceiling["rate"] else float("nan")
        print(
            f"{clients:>7} | {moves['rate']:>8.0f} {moves['p50']:>7.1f} {moves['p99']:>7.1f} | "
            f"{ceiling['rate']:>8.0f} {ceiling['p50']:>7.1f} {ceiling['p99']:>7.1f} | "
            f"{ratio:>5.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
