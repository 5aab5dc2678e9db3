"""The lobby's costs (issue 30), over real HTTP, in one run: a join under contention against a
move, and `GET /v1/lobby` with 10,000 listed matches.

    python bench/lobby.py [--quick] [--rounds R] [--seconds S] [--clients 8] [--listed N]

Starts a private redis-server (AOF, everysec) and the API under gunicorn (gevent, 2 workers).
- Joins: `--clients` threads race for the seats of manipulation-rummy matches of 5 seats
  (1 named, 4 open), a few open at once (one per 4 clients), so most seats are contested:
  each thread reads the lobby and the match (two GETs, not timed, as a mover reads two
  views) and joins a random one of them (no seat named: the first open one); a join that
  loses the race (409 match_full or match_started) is timed too, since it costs a decide
  and an append attempt. A full match is replaced by the next one, made before the round.
- Moves: the same threads, each with its own two-seat manipulation match, POST moves (the
  first listed draw, end_turn, pass or knock of the seat to act, read from a GET that is not
  timed); a round that ends starts a new match (not timed).
The two rows take turns, `--rounds` times, each `--seconds` long, and the ratios are of the
medians and p99s pooled over the rounds (same machine, same load).
- Lobby: `--listed` matches are created through the service (in-process, same Redis), then
  `GET /v1/lobby` (50 a page) is timed over HTTP: the first page, a page of one variant, and a
  page from a random cursor deep in the list; the same with only 100 listed first, so the two
  sizes show the listing does not scan the matches.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cli.procs import free_port, redis_server_binary, wait_port  # noqa: E402

GAME = "manipulation-rummy"


class Servers:
    """A redis-server and the API under gunicorn; stopped on exit."""

    def __init__(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="deadwood-bench-lobby-"))
        self.procs: list[subprocess.Popen[bytes]] = []
        port = free_port()
        redis_args = ["--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir"]
        redis_args += [str(self.tmp), "--appendonly", "yes", "--appendfsync", "everysec"]
        self._spawn([redis_server_binary(), *redis_args], port)
        self.redis_url = f"redis://127.0.0.1:{port}/0"
        self.port = free_port()
        env = {**os.environ, "REDIS_URL": self.redis_url, "DEADWOOD_TOKEN_PEPPER": "bench-pepper"}
        gunicorn = [sys.executable, "-m", "gunicorn", "-k", "gevent", "-w", "2"]
        gunicorn += ["-b", f"127.0.0.1:{self.port}", "--log-level", "warning", "api:create_app()"]
        self._spawn(gunicorn, self.port, env | {"DEADWOOD_METRICS": "0"})

    def _spawn(self, command: list[str], port: int, env: dict[str, str] | None = None) -> None:
        with (self.tmp / "servers.log").open("ab") as log:
            proc = subprocess.Popen(command, env=env, cwd=ROOT, stdout=log, stderr=log)
        self.procs.append(proc)
        wait_port(port, proc)

    def stop(self) -> None:
        for proc in reversed(self.procs):
            proc.terminate()
        for proc in self.procs:
            proc.wait(timeout=15)
        log = (self.tmp / "servers.log").read_text(errors="replace")
        if "Traceback" in log:  # a server error: show its end
            print(log[-3000:], file=sys.stderr)
        shutil.rmtree(self.tmp, ignore_errors=True)


class Http:
    """One keep-alive connection; one idle too long (the server closed it) is opened again."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def call(self, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        data = None if body is None else json.dumps(body)
        try:
            self.conn.request(method, path, body=data, headers=headers)
            response = self.conn.getresponse()
        except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
            self.conn.close()  # closed while idle, before it read this request: send it again
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
            self.conn.request(method, path, body=data, headers=headers)
            response = self.conn.getresponse()
        payload = response.read()
        return response.status, (json.loads(payload) if payload else None)

    def timed(
        self, method: str, path: str, body: Any = None, token: str | None = None
    ) -> tuple[float, int, Any]:
        began = time.perf_counter()
        status, payload = self.call(method, path, body, token)
        return time.perf_counter() - began, status, payload


def open_match(http: Http) -> str:
    players = [{"name": "host"}] + [{"open": True}] * 4
    status, body = http.call("POST", "/v1/matches", {"variant": GAME, "players": players})
    assert status == 201, body
    return str(body["id"])


class Pool:
    """The matches the joiners race for: a few open at once (`hot`), the next ones made
    before the round starts, so no create runs while joins are timed."""

    def __init__(self, port: int, hot: int) -> None:
        self.http, self.hot, self.lock = Http(port), hot, threading.Lock()
        self.reserve: list[str] = []
        self.current: list[str] = []

    def refill(self, count: int) -> None:
        self.reserve += [open_match(self.http) for _ in range(count)]
        self.current = [self.reserve.pop() for _ in range(self.hot)]

    def pick(self, rng: random.Random) -> tuple[int, str]:
        with self.lock:
            slot = rng.randrange(len(self.current))
            return slot, self.current[slot]

    def full(self, slot: int, match_id: str) -> None:
        with self.lock:
            if self.current[slot] == match_id and self.reserve:
                self.current[slot] = self.reserve.pop()


class Joiner:
    """One racing client: joins a random match of the hot ones (the first open seat)."""

    def __init__(self, port: int, pool: Pool, rng: random.Random) -> None:
        self.http, self.pool, self.rng = Http(port), pool, rng

    def step(self) -> float | None:
        slot, match_id = self.pool.pick(self.rng)
        self.http.call("GET", "/v1/lobby?limit=5")  # what a stranger reads first (not timed)
        self.http.call("GET", f"/v1/matches/{match_id}")
        took, status, body = self.http.timed(
            "POST", f"/v1/matches/{match_id}/join", {"name": "guest"}
        )
        assert status in (201, 409), body
        if status == 409 or body["match"]["lobby"]["status"] == "started":
            self.pool.full(slot, match_id)
        return took


class Mover:
    """One client with its own two-seat match: times POST .../moves."""

    KINDS = ("draw", "end_turn", "pass", "knock")

    def __init__(self, port: int) -> None:
        self.http = Http(port)
        self.new_match()

    def new_match(self) -> None:
        body = {"variant": GAME, "players": [{"name": "a"}, {"name": "b"}]}
        status, created = self.http.call("POST", "/v1/matches", body)
        assert status == 201, created
        self.match_id, self.tokens = created["id"], [s["token"] for s in created["seats"]]

    def step(self) -> float | None:
        status, view = self.http.call("GET", f"/v1/matches/{self.match_id}")
        if view["turn"] is None:
            self.new_match()
            return None
        token = self.tokens[view["turn"]]
        _, mine = self.http.call("GET", f"/v1/matches/{self.match_id}", token=token)
        moves = [m for m in mine["you"]["legal_moves"] if m["type"] in self.KINDS]
        if not moves:
            self.new_match()
            return None
        took, status, body = self.http.timed(
            "POST", f"/v1/matches/{self.match_id}/moves", moves[0], token
        )
        assert status == 200, body
        return took


def run(clients: list[Any], seconds: float) -> list[float]:
    """Each client steps in its own thread for `seconds`; every timed latency."""
    took: list[list[float]] = [[] for _ in clients]
    stop = time.perf_counter() + seconds
    errors: list[str] = []

    def loop(i: int) -> None:
        try:
            while time.perf_counter() < stop:
                t = clients[i].step()
                if t is not None:
                    took[i].append(t)
        except Exception as exc:  # a failed request ends the run with its message
            errors.append(repr(exc))

    threads = [threading.Thread(target=loop, args=(i,)) for i in range(len(clients))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise SystemExit(f"benchmark request failed: {errors[0]}")
    return [x for row in took for x in row]


def p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def contention(port: int, args: Any) -> dict[str, list[float]]:
    pool = Pool(port, max(2, args.clients // 4))
    joiners = [Joiner(port, pool, random.Random(i)) for i in range(args.clients)]
    movers = [Mover(port) for _ in range(args.clients)]
    out: dict[str, list[float]] = {"join": [], "move": []}
    for _ in range(args.rounds):
        pool.refill(int(args.seconds * 250))
        out["join"] += run(joiners, args.seconds)
        out["move"] += run(movers, args.seconds)
    return out


def fill(redis_url: str, count: int, prefix_done: int) -> None:
    """`count` listed matches with open seats, created through the service in-process."""
    import redis

    from store.lobby import lobby_service
    from store.service import MatchService

    service = MatchService(redis.Redis.from_url(redis_url), pepper=b"bench-pepper")
    lobby = lobby_service(service)
    for i in range(prefix_done, count):
        variant = GAME if i % 2 else "three-hand-gin"
        players: list[dict[str, Any]] = [{"name": "host"}, {"open": True}, {"open": True}]
        lobby.create(
            variant, players, {}, None, listed=True, ttl_s=86_400 - (i % 3600),
            idempotency_key=None, fingerprint=None,
        )  # fmt: skip


def listing(port: int, reads: int) -> dict[str, list[float]]:
    http = Http(port)
    out: dict[str, list[float]] = {"first page": [], "one variant": [], "deep cursor": []}
    cursors: list[str] = []
    _, page = http.call("GET", "/v1/lobby?limit=50")
    while page["next"] and len(cursors) < 200:
        cursors.append(page["next"])
        _, page = http.call("GET", f"/v1/lobby?limit=50&cursor={page['next']}")
    cursors = cursors[:-1]  # the last one may be the end of the list
    rng = random.Random(1)
    for _ in range(reads):
        for name, path in (
            ("first page", "/v1/lobby?limit=50"),
            ("one variant", f"/v1/lobby?limit=50&variant={GAME}"),
            ("deep cursor", f"/v1/lobby?limit=50&cursor={rng.choice(cursors)}"),
        ):
            took, status, body = http.timed("GET", path)
            assert status == 200 and body["matches"], (status, body)
            out[name].append(took)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 rounds of 2 s, 2,000 listed")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--listed", type=int, default=10_000)
    parser.add_argument("--reads", type=int, default=200)
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.seconds, args.listed, args.reads = 2, 2.0, 2_000, 60
    servers = Servers()
    try:
        raced = contention(servers.port, args)
        fill(servers.redis_url, 100, 0)
        small = listing(servers.port, args.reads)
        fill(servers.redis_url, args.listed, 100)
        large = listing(servers.port, args.reads)
    finally:
        servers.stop()
    report(raced, small, large, args)
    return 0


def report(raced: dict[str, list[float]], small: Any, large: Any, args: Any) -> None:
    join, move = raced["join"], raced["move"]
    print(
        f"join under contention vs a move: {args.clients} clients, {args.rounds} x {args.seconds} s"
    )
    print(f"{'row':<12}{'requests':>10}{'p50 ms':>10}{'p99 ms':>10}")
    for name, values in (("join", join), ("move", move)):
        print(f"{name:<12}{len(values):>10}{p(values, 0.5):>10.2f}{p(values, 0.99):>10.2f}")
    print(
        f"ratio join/move: median {p(join, 0.5) / p(move, 0.5):.2f}x (target <= 1.5x), "
        f"p99 {p(join, 0.99) / p(move, 0.99):.2f}x (target <= 3x)"
    )
    print(f"\nGET /v1/lobby, 50 a page, {args.reads} reads each (target: median < 10 ms)")
    print(f"{'page':<14}{'listed':>8}{'p50 ms':>10}{'p99 ms':>10}")
    for listed, rows in ((100, small), (args.listed, large)):
        for name, values in rows.items():
            print(f"{name:<14}{listed:>8}{p(values, 0.5):>10.2f}{p(values, 0.99):>10.2f}")
    every = [t for values in large.values() for t in values]
    print(f"(median over all pages: {statistics.median(every) * 1000:.2f} ms)")


if __name__ == "__main__":
    raise SystemExit(main())
