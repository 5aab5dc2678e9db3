"""Moves per second and latency of the HTTP API over loopback, against its ceiling, in one run.

    python bench/api.py [--quick] [--seconds S] [--rounds R] [--workers W] [--clients 8]
                        [--skip-cluster]

Starts private redis-servers and gunicorn servers with gevent workers on free ports:
- the ceiling: a bare Flask app whose one endpoint does a single XADD on the same Redis
  (HTTP + one Redis write, no domain, no auth);
- the real app (`api:create_app()`) on one Redis (AOF, appendfsync everysec: durability
  `os`), measured with three-hand gin and with two-seat Manipulation;
- the same app with DEADWOOD_DURABILITY=fsync (its Redis runs appendfsync always) and
  =replica (a primary with one replica; every append waits for it, WAIT 1);
- the same app on a local 3-primary/3-replica Redis Cluster (jobs on an ordinary Redis).
Each client is a thread with one keep-alive connection and its own match, holding every
seat's token. A client times its `POST .../moves` only; the next move comes from the move
response's own view when the mover acts again, else from the public view in that response
(the next seat's draw, pass or upcard choice, which any client of that seat can know), else
from one GET of the view as the seat to act (not timed; `--gets`: always, for gin). A round
that ends (scoring is a worker's job, and none runs here) starts a new match (not timed).
moves/s = timed moves over wall time. No workers run.

The 2 CPU cores of this machine run the servers, Redis and the client threads together, and
other work may be running: read the ratios (same run, same load), not the absolute figures.
The rows run one after another, so the load drifts between them: every row is measured
`--rounds` times, the rows taking turns (ceiling, gin, ..., ceiling, gin, ...), and a row's
"x ceiling" is the median over the rounds of its rate over the ceiling's rate of the same
round (min..max shown); moves/s is the median rate, p50 and p99 over every timed move.
"""

from __future__ import annotations

import argparse
import functools
import http.client
import json
import os
import random
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
    """Every process of the run (Redis servers, the cluster, gunicorns), stopped on exit."""

    def __init__(self, workers: int) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="deadwood-bench-"))
        self.workers = workers
        self.procs: list[subprocess.Popen[bytes]] = []
        self.cluster: Any = None
        (self.tmp / "ceiling_app.py").write_text(CEILING_APP)

    def redis(self, name: str, *extra: str) -> str:
        """A redis-server with an AOF (`extra` adds options); its URL."""
        port = free_port()
        data = self.tmp / name
        data.mkdir()
        command = [
            redis_server_binary(),
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
        ]
        command += ["--dir", str(data), "--appendonly", "yes", "--appendfsync", "everysec"]
        self._spawn([*command, *extra], port)
        return f"redis://127.0.0.1:{port}/0"

    def local_cluster(self) -> str:
        sys.path.insert(0, str(ROOT))
        from cli.cluster import LocalCluster

        self.cluster = LocalCluster.start(self.tmp / "cluster", redis_server_binary())
        return str(self.cluster.url)

    def api(self, env: dict[str, str]) -> int:
        port = free_port()
        env = {"DEADWOOD_TOKEN_PEPPER": "bench-pepper", **env}
        self._spawn(self._gunicorn(port, "api:create_app()"), port, {**os.environ, **env})
        return port

    def ceiling(self, redis_url: str) -> int:
        port = free_port()
        command = self._gunicorn(port, "ceiling_app:app")
        command[-1:-1] = ["--pythonpath", str(self.tmp)]
        self._spawn(command, port, {**os.environ, "REDIS_URL": redis_url})
        return port

    def _gunicorn(self, port: int, app: str) -> list[str]:
        return [
            sys.executable,
            "-m",
            "gunicorn",
            "-k",
            "gevent",
            "-w",
            str(self.workers),
            "-b",
            f"127.0.0.1:{port}",
            "--log-level",
            "warning",
            app,
        ]

    def _spawn(self, command: list[str], port: int, env: dict[str, str] | None = None) -> None:
        with (self.tmp / "servers.log").open("ab") as log:  # their access lines and errors
            proc = subprocess.Popen(command, env=env, cwd=ROOT, stdout=log, stderr=log)
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
        if self.cluster is not None:
            self.cluster.stop()
        shutil.rmtree(self.tmp, ignore_errors=True)


class Connection:
    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def request(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> Any:
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


class GinPlayer:
    """One client of the real API: a three-handed gin match, all three tokens."""

    PLAYERS = [{"name": "a"}, {"name": "b"}, {"name": "c"}]

    def __init__(self, port: int, index: int) -> None:
        self.http = Connection(port)
        self.rng = random.Random(index)
        self.seed = index * 1000
        self.new_match()

    def new_match(self) -> None:
        self.seed += 1
        body = {"variant": "three-hand-gin", "players": self.PLAYERS, "seed": self.seed}
        created = self.http.request("POST", "/v1/matches", body)
        self.match_id = created["id"]
        self.tokens = [s["token"] for s in created["seats"]]
        self.mine: list[dict[str, Any]] | None = None
        self.turn: int | None = None
        self.look()

    def look(self) -> None:
        view = self.http.request("GET", f"/v1/matches/{self.match_id}")
        self.turn, self.mine = view["turn"], None
        if self.turn is not None:
            headers = {"Authorization": f"Bearer {self.tokens[self.turn]}"}
            mine = self.http.request("GET", f"/v1/matches/{self.match_id}", headers=headers)
            self.mine = mine["you"]["legal_moves"]

    def step(self) -> float | None:
        if self.turn is None or not self.mine:
            self.new_match()
            return None
        seat, move = self.turn, self.rng.choice(self.mine)
        headers = {"Authorization": f"Bearer {self.tokens[seat]}"}
        started = time.perf_counter()
        answer = self.http.request("POST", f"/v1/matches/{self.match_id}/moves", move, headers)
        elapsed = time.perf_counter() - started
        view = answer["match"]
        self.turn = view["turn"]
        if self.turn == seat:
            self.mine = view["you"]["legal_moves"]
        elif self.turn is not None:
            self.mine = None if GETS else PUBLIC_MOVES.get(view["phase"])
            if self.mine is None:
                headers = {"Authorization": f"Bearer {self.tokens[self.turn]}"}
                mine = self.http.request("GET", f"/v1/matches/{self.match_id}", headers=headers)
                self.mine = mine["you"]["legal_moves"]
        return elapsed


PUBLIC_MOVES: dict[str, list[dict[str, Any]]] = {
    "draw": [{"type": "draw", "from": "stock"}],
    "upcard_offer": [{"type": "take_upcard"}, {"type": "pass_upcard"}],
}
"""The next seat's moves that a gin client knows from the public view in the mover's response
(G5.1, G5.2.1: a draw from the stock is always legal), so it needs no GET; like the
Manipulation client. `--gets` makes it GET the seat's view instead."""
GETS = False


class XaddClient:
    def __init__(self, port: int, index: int) -> None:
        self.http = Connection(port)
        self.index = index

    def step(self) -> float | None:
        started = time.perf_counter()
        self.http.request("POST", f"/xadd/{self.index}", {"type": "CardDrawn"})
        return time.perf_counter() - started


def run_level(make: Callable[[int], Any], clients: int, seconds: float) -> dict[str, Any]:
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
    every = [x for row in latencies for x in row]
    return {"rate": len(every) / wall, "latencies": every}


def summary(rounds: list[dict[str, Any]], ceilings: list[dict[str, Any]]) -> dict[str, float]:
    """A row over its rounds: median rate, pooled p50/p99 (ms), ratios to the ceiling."""
    every = sorted(x for one in rounds for x in one["latencies"])
    ratios = sorted(
        one["rate"] / top["rate"] if top["rate"] else float("nan")
        for one, top in zip(rounds, ceilings, strict=True)
    )
    return {
        "rate": statistics.median(one["rate"] for one in rounds),
        "p50": statistics.median(every) * 1000 if every else float("nan"),
        "p99": every[min(len(every) - 1, int(len(every) * 0.99))] * 1000 if every else 0.0,
        "ratio": statistics.median(ratios),
        "ratio_min": ratios[0],
        "ratio_max": ratios[-1],
    }


def configurations(servers: Servers, skip_cluster: bool) -> list[tuple[str, str, int]]:
    """(row name, client kind, port) for every measured server."""
    main_url = servers.redis("main")
    rows = [("ceiling: Flask + 1 XADD", "xadd", servers.ceiling(main_url))]
    api = servers.api({"REDIS_URL": main_url})
    rows += [("gin, durability os", "gin", api), ("manipulation, os", "manip", api)]
    fsync_url = servers.redis("fsync", "--appendfsync", "always")
    api = servers.api({"REDIS_URL": fsync_url, "DEADWOOD_DURABILITY": "fsync"})
    rows.append(("gin, durability fsync", "gin", api))
    primary = servers.redis("primary")
    servers.redis("replica", "--replicaof", "127.0.0.1", primary.rsplit(":", 1)[1].split("/")[0])
    api = servers.api({"REDIS_URL": primary, "DEADWOOD_DURABILITY": "replica"})
    rows.append(("gin, durability replica", "gin", api))
    if not skip_cluster:
        cluster = servers.local_cluster()
        env = {"REDIS_URL": cluster, "QUEUE_URL": main_url, "DEADWOOD_REDIS_CLUSTER": "1"}
        rows.append(("gin, 3+3 cluster, os", "gin", servers.api(env)))
    return rows


CLIENTS = {"xadd": XaddClient, "gin": GinPlayer, "manip": MovePlayer}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 s per row and round")
    parser.add_argument("--seconds", type=float, default=8.0, help="per row and round")
    parser.add_argument("--rounds", type=int, default=3, help="turns of every row")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers per server")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--skip-cluster", action="store_true")
    parser.add_argument(
        "--gets", action="store_true", help="gin clients GET the next seat's view before it moves"
    )
    args = parser.parse_args()
    global GETS
    GETS = args.gets
    seconds = 3.0 if args.quick else args.seconds
    servers = Servers(args.workers)
    measured: dict[str, list[dict[str, Any]]] = {}
    try:
        rows = configurations(servers, args.skip_cluster)
        for _ in range(max(1, args.rounds)):
            for name, kind, port in rows:
                make = functools.partial(CLIENTS[kind], port)
                measured.setdefault(name, []).append(run_level(make, args.clients, seconds))
    finally:
        servers.stop()
    ceilings = next(iter(measured.values()))
    results = [(name, summary(rounds, ceilings)) for name, rounds in measured.items()]
    report(results, args, seconds)
    return 0


def report(results: list[tuple[str, dict[str, float]]], args: Any, seconds: float) -> None:
    print(
        f"POST moves vs bare Flask + one XADD, gunicorn -k gevent -w {args.workers}, "
        f"{args.clients} clients, {args.rounds} rounds of {seconds:.0f} s per row, loopback"
    )
    ceiling = results[0][1]
    by_name = dict(results)
    header = (
        f"{'server':<26} | {'moves/s':>8} {'p50 ms':>7} {'p99 ms':>7} | "
        f"{'x ceiling':>9} {'(min..max)':>12} {'p99 x':>6}"
    )
    print(header)
    print("-" * len(header))
    for name, row in results:
        p99 = row["p99"] / ceiling["p99"] if ceiling["p99"] else float("nan")
        spread = f"{row['ratio_min']:.2f}..{row['ratio_max']:.2f}"
        print(
            f"{name:<26} | {row['rate']:>8.0f} {row['p50']:>7.1f} {row['p99']:>7.1f} | "
            f"{row['ratio']:>9.2f} {spread:>12} {p99:>6.1f}"
        )
    single, cluster = by_name.get("gin, durability os"), by_name.get("gin, 3+3 cluster, os")
    if single and cluster:
        print(f"cluster / single server (gin moves/s): {cluster['rate'] / single['rate']:.2f}")


if __name__ == "__main__":
    raise SystemExit(main())
