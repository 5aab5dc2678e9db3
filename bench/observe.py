"""What metrics and request-id/access logging cost POST moves/s (issue 34), in one run.

    python bench/observe.py [--seconds S] [--rounds R] [--workers W] [--clients 8]
    python bench/observe.py --cpu [--rounds R] [--moves N]
    python bench/observe.py --hooks [--rounds R] [--moves N]

Two API servers on one private Redis (AOF, everysec), both run as `deadwood api` runs them
(gunicorn, the problem+json gevent worker, the logger class of api/serving.py):
- **on**: the defaults: metrics in multiprocess mode (a PROMETHEUS_MULTIPROC_DIR), a request
  id per request and one access line per request, written (JSON) to a file;
- **off**: DEADWOOD_METRICS=0 and DEADWOOD_ACCESS_LOG=0 (no metric is updated, no access
  line is written, /metrics is not served).
The clients are bench/api.py's (gin: three seats of one match per client; manipulation: two).
The rows take turns, round after round ("on" first in every other round), and a row's
"on / off" is the median over the rounds of its rate over the same round's "off" rate. No
workers run. Read the ratio, not the absolute figures: the 2 cores of this machine run
servers, Redis and clients together.
Each row also shows the servers' own CPU time per move (gunicorn's master and workers, from
/proc: user + system, the access lines' writes included) and "cpu off / on", the median over
the rounds of the "off" server's CPU per move over the "on" one's: the moves/s the two would
give at equal CPU, which the load of a shared machine moves far less than the rates.

`--cpu` measures the same two configurations in this one process instead, with Flask's test
client (no HTTP server, no sockets but Redis's): the CPU time this process spends on each
move of bench/api.py's manipulation client (and the GET it may need), the "on" and "off"
apps taking turns move by move, each first every other move (before, "on" always went first,
so it alone paid whatever the first of the two to play a position pays);
a round is `--moves` moves of each, and the ratio is the
median over the rounds. It counts the app's own CPU only (not Redis's, not other
processes'), so the load of a shared machine moves it far less than the rates above.

`--hooks` times the observation hooks alone (api/observe.py's request start and end, the
metrics of a move, the access line) on one routed move request of an "on" and an "off" app
(a mock service: no Redis), gevent-patched as in a gunicorn worker, the access lines going
to a line-buffered file as stderr does; each figure is the best of `--rounds` x 5 batches of
`--moves` calls, the least a shared machine's load can add.
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import os
import statistics
import subprocess
from pathlib import Path
from typing import Any

from cli.procs import free_port, wait_port
from cli.serve import gunicorn_argv

ROOT = Path(__file__).resolve().parents[1]


def _bench_api() -> Any:
    """bench/api.py (its servers and clients), loaded by path: `api` is the server's package."""
    spec = importlib.util.spec_from_file_location("bench_api", ROOT / "bench" / "api.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BENCH = _bench_api()
GinPlayer, MovePlayer, run_level = BENCH.GinPlayer, BENCH.MovePlayer, BENCH.run_level


class ObservedServers(BENCH.Servers):  # type: ignore[misc, name-defined]
    def deadwood_api(self, name: str, env: dict[str, str]) -> int:
        port = free_port()
        command = gunicorn_argv("127.0.0.1", port, self.workers)
        metrics_dir = self.tmp / f"metrics-{name}"
        metrics_dir.mkdir()
        log = (self.tmp / f"{name}.log").open("ab")
        full = {
            **os.environ,
            "DEADWOOD_TOKEN_PEPPER": "bench-pepper",
            "PROMETHEUS_MULTIPROC_DIR": str(metrics_dir),
            "DEADWOOD_LOG_FORMAT": "json",
            **env,
        }
        proc = subprocess.Popen(command, env=full, cwd=ROOT, stdout=log, stderr=log)
        self.procs.append(proc)
        wait_port(port, proc)
        SERVER_PIDS[port] = proc.pid
        return port


SERVER_PIDS: dict[int, int] = {}
_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def server_cpu(port: int) -> float:
    """CPU seconds (user + system) of the server on `port`: its master and live workers."""
    master = SERVER_PIDS[port]
    pids = [master]
    try:
        with open(f"/proc/{master}/task/{master}/children") as children:
            pids += [int(pid) for pid in children.read().split()]
    except OSError:
        return float("nan")  # not Linux: the rates only
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / _TICK


def run_row(kind: Any, port: int, args: Any) -> dict[str, Any]:
    """One row's round: its rate and latencies, and the server's CPU per move."""
    before = server_cpu(port)
    result: dict[str, Any] = run_level(functools.partial(kind, port), args.clients, args.seconds)
    moves = len(result["latencies"])
    result["cpu"] = (server_cpu(port) - before) / moves if moves else float("nan")
    return result


class _TestConnection:
    """bench/api.py's Connection, over Flask's test client."""

    def __init__(self, client: Any) -> None:
        self.client = client

    def request(self, method: str, path: str, body: Any = None, headers: Any = None) -> Any:
        response = self.client.open(path, method=method, json=body, headers=headers or {})
        if response.status_code >= 300:
            raise RuntimeError(f"{method} {path}: {response.status_code}")
        return response.get_json()


def cpu(args: Any) -> int:
    import sys
    import tempfile
    import time

    os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="deadwood-bench-metrics-")
    os.environ["DEADWOOD_LOG_FORMAT"] = "json"
    sys.path.insert(0, str(ROOT))  # the server's `api`, not bench/api.py next to this script
    import redis

    from api import create_app
    from store import flushing, logs
    from store.service import MatchService

    logs.configure("bench")
    servers = ObservedServers(1)
    log = (servers.tmp / "access.log").open("w")
    try:
        service = MatchService(redis.Redis.from_url(servers.redis("cpu")), pepper=b"bench")
        apps = {
            "off": create_app({"SERVICE": service, "METRICS": 0, "ACCESS_LOG": 0}),
            "on": create_app({"SERVICE": service}),
        }
        per_move: dict[str, list[float]] = {"off": [], "on": []}
        players = {}
        for name, app in apps.items():
            player = MovePlayer.__new__(MovePlayer)
            player.http = _TestConnection(app.test_client())
            player.seed = 0  # the same seeds, so both play the very same games, move for move
            players[name] = player
        sys.stderr, saved = log, sys.stderr  # the access lines go to a file
        try:
            for name in apps:
                players[name].new_match()
            turn = 0
            for _round in range(args.rounds):
                spent, moves = {"off": 0.0, "on": 0.0}, {"off": 0, "on": 0}
                while min(moves.values()) < args.moves:
                    # each goes first every other turn: the first to play a position pays
                    # the domain's caches' misses (both play the very same games)
                    turn += 1
                    for name in ("off", "on") if turn % 2 else ("on", "off"):
                        started = time.process_time()
                        moved = players[name].step() is not None  # None: a new match
                        if moved:
                            spent[name] += time.process_time() - started
                            moves[name] += 1
                for name in apps:
                    per_move[name].append(spent[name] / moves[name] * 1e6)
        finally:
            flushing.flush()  # the buffered access lines go to the file too
            sys.stderr = saved
    finally:
        log.close()
        servers.stop()
    off, on = (statistics.median(per_move[k]) for k in ("off", "on"))
    ratios = sorted(a / b for a, b in zip(per_move["on"], per_move["off"], strict=True))
    print(
        f"CPU per manipulation move in this process (Flask test client, GETs included), "
        f"{args.rounds} rounds of {args.moves} moves each, on and off taking turns move by move"
    )
    print(f"{'app':<6} | {'CPU us/move':>11}")
    print(f"{'off':<6} | {off:>11.0f}")
    print(f"{'on':<6} | {on:>11.0f}")
    print(
        f"on - off: {on - off:.0f} us a move; on / off: {statistics.median(ratios):.3f} "
        f"({ratios[0]:.2f}..{ratios[-1]:.2f}); moves/s at equal CPU: off / on = {off / on:.3f}"
    )
    return 0


def hooks(args: Any) -> int:
    """--hooks: the time of the observation hooks alone, the best of many repetitions."""
    import sys
    import tempfile
    import time
    from unittest import mock

    from gevent import monkey

    monkey.patch_all()  # as in a gunicorn gevent worker: gevent's locks, greenlet flusher
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="deadwood-bench-metrics-")
    os.environ["DEADWOOD_LOG_FORMAT"] = "json"
    sys.path.insert(0, str(ROOT))
    from flask import Response, g

    from api import create_app, observe
    from api.common import current_request
    from store import flushing, logs

    logs.configure("bench")
    path, route = "/v1/matches/m_0123456789abcdefghijkl/moves", "/v1/matches/<match_id>/moves"
    best: dict[str, float] = {}

    def measure(name: str, call: Any) -> None:
        fastest = float("inf")
        for _ in range(args.rounds * 5):
            started = time.perf_counter()
            for _ in range(args.moves):
                call()
            fastest = min(fastest, (time.perf_counter() - started) / args.moves)
        best[name] = fastest * 1e6

    def one_app(name: str, config: dict[str, Any]) -> None:
        app = create_app({"SERVICE": mock.MagicMock(), "TESTING": True, **config})
        with app.test_request_context(path, method="POST", headers={"X-Request-ID": "b-1"}):
            req = current_request()
            rule, view_args = app.url_map.bind("bench").match(path, "POST", return_rule=True)
            req.url_rule, req.view_args = rule, dict(view_args)
            observe._start()
            logs.seat_var.set(1)
            response = Response("{}", status=200)
            measure(f"{name}: request start", observe._start)
            measure(f"{name}: request end", functools.partial(observe._finish, response))
            if name == "on":
                seen = g._get_current_object().__dict__
                count = (req, seen, route, "POST", 200, 4e-4, response)
                measure("on: metrics of a move", functools.partial(observe._count, *count))
                line = ("POST", path, 200, 4e-4, route, 1, "127.0.0.1")
                measure("on: access line", functools.partial(logs.access, *line))
            flushing.flush()

    # stderr as in production: a line-buffered stream (one write a line without the buffer)
    with tempfile.NamedTemporaryFile("w", buffering=1, suffix=".log") as stream:
        sys.stderr, saved = stream, sys.stderr
        try:
            one_app("off", {"METRICS": 0, "ACCESS_LOG": 0})
            one_app("on", {})
        finally:
            sys.stderr = saved
    print(
        f"the observation hooks of one move request (gevent-patched, JSON access lines to a "
        f"line-buffered file), best of {args.rounds * 5} x {args.moves} calls, us:"
    )
    for name, value in best.items():
        print(f"  {name:<24} {value:6.2f}")
    extra = best["on: request end"] - best["off: request end"]
    print(f"on - off at request end: {extra:.2f} us a request")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cpu", action="store_true", help="CPU per move, in this process")
    parser.add_argument("--hooks", action="store_true", help="the hooks' own time, per request")
    parser.add_argument("--moves", type=int, default=400, help="--cpu: moves per batch")
    parser.add_argument("--seconds", type=float, default=3.0, help="per row and round")
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--clients", type=int, default=8)
    args = parser.parse_args()
    if args.cpu:
        return cpu(args)
    if args.hooks:
        return hooks(args)
    servers = ObservedServers(args.workers)
    measured: dict[str, list[dict[str, Any]]] = {}
    lines = 0
    try:
        url = servers.redis("main")
        off = servers.deadwood_api(
            "off", {"REDIS_URL": url, "DEADWOOD_METRICS": "0", "DEADWOOD_ACCESS_LOG": "0"}
        )
        on = servers.deadwood_api("on", {"REDIS_URL": url})
        rows = [
            ("gin, off", GinPlayer, off),
            ("gin, on", GinPlayer, on),
            ("manipulation, off", MovePlayer, off),
            ("manipulation, on", MovePlayer, on),
        ]
        for turn in range(max(1, args.rounds)):
            # every other round runs "on" first, so a drift in the load favours neither
            for name, kind, port in rows if turn % 2 == 0 else _swapped(rows):
                measured.setdefault(name, []).append(run_row(kind, port, args))
        lines = sum(1 for _ in (servers.tmp / "on.log").open())
    finally:
        servers.stop()
    report(measured, args, lines)
    return 0


def _swapped(rows: list[Any]) -> list[Any]:
    return [rows[1], rows[0], rows[3], rows[2]]


def report(measured: dict[str, list[dict[str, Any]]], args: Any, lines: int) -> None:
    print(
        f"POST moves/s with metrics + request ids + access lines on vs off, gunicorn gevent "
        f"-w {args.workers}, {args.clients} clients, {args.rounds} rounds of "
        f"{args.seconds:.0f} s per row"
    )
    header = f"{'row':<20} | {'moves/s':>8} {'p50 ms':>7} {'p99 ms':>7} | {'on / off':>8}"
    header += f" {'(min..max)':>12} | {'CPU us/move':>11} {'cpu off / on':>12} {'(min..max)':>12}"
    print(header)
    print("-" * len(header))
    for game in ("gin", "manipulation"):
        off, on = measured[f"{game}, off"], measured[f"{game}, on"]
        ratios = sorted(a["rate"] / b["rate"] for a, b in zip(on, off, strict=True))
        cpus = sorted(b["cpu"] / a["cpu"] for a, b in zip(on, off, strict=True))
        for name, rounds in ((f"{game}, off", off), (f"{game}, on", on)):
            every = sorted(x for one in rounds for x in one["latencies"])
            rate = statistics.median(one["rate"] for one in rounds)
            p50 = statistics.median(every) * 1000
            p99 = every[min(len(every) - 1, int(len(every) * 0.99))] * 1000
            cpu = statistics.median(one["cpu"] for one in rounds) * 1e6
            ratio, cpu_ratio = " " * 21, ""
            if name.endswith("on"):
                ratio = (
                    f"{statistics.median(ratios):>8.3f} {f'{ratios[0]:.2f}..{ratios[-1]:.2f}':>12}"
                )
                cpu_ratio = (
                    f"{statistics.median(cpus):>12.3f} {f'{cpus[0]:.2f}..{cpus[-1]:.2f}':>12}"
                )
            print(
                f"{name:<20} | {rate:>8.0f} {p50:>7.1f} {p99:>7.1f} | {ratio} | {cpu:>11.0f} "
                f"{cpu_ratio}"
            )
    print(f"access lines written by the 'on' server: {lines}")


if __name__ == "__main__":
    raise SystemExit(main())
