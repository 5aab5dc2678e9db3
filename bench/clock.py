"""Clocks (issue 31): how late timeouts land, and what a clock adds to a move.

    python bench/clock.py [--matches 1000] [--seconds 20] [--workers 3] [--moves 300]
                          [--skip-lateness]     (--moves 0: the lateness only)

A private redis-server (no persistence), then two parts:

1. move cost: `--moves` moves on two-seat Manipulation Rummy matches with a clock (per move,
   600 s: never due here) and as many on the same matches without one, interleaved, through
   MatchService.submit in this process (no worker runs: the deadline jobs the clocked
   matches schedule stay scheduled, and their count is printed: a move writes one only when
   the pending one fires after its deadline, store/clock.py), and as many through the app
   (`POST .../moves` by Flask's test client: token, body, view; no network). Rows: median
   and p90 microseconds a move, and the ratio.
2. lateness: `--matches` matches of two silent human seats on a per-move clock of 2 s
   (`autoplay_bot` random, `max_timeouts` high so no bot ever takes a seat), and `--workers`
   `deadwood worker` processes (rq workers with the scheduler, workers/run.py, polling every
   DEADWOOD_SCHEDULER_INTERVAL s) for `--seconds`. Every TurnTimedOut's lateness is its entry's
   `at` less the deadline written beside the entry before it (`clk`). Rows: count, p50, p99,
   max (targets: p99 < 1 s, max < 2 s).

Wall times of one machine shared with other work; read the ratio and the distribution.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import redis

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # `api` is the app, not bench/api.py

from cli.procs import private_redis
from store.clock import Turn
from store.service import MatchService

ROOT = Path(__file__).resolve().parents[1]
PLAYERS = [{"name": "a"}, {"name": "b"}]
VARIANT = "manipulation-rummy"


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def move_cost(service: MatchService, moves: int) -> dict[str, list[float]]:
    """Microseconds of each move with and without a clock, interleaved."""
    clocked = {"mode": "per_move", "move_s": 600, "claim_after_s": 600}
    spent: dict[str, list[float]] = {"no clock": [], "clock": []}
    matches: dict[str, str] = {}
    for n in range(moves * 2):
        for kind in spent:
            if kind not in matches or n % 40 == 0:  # a fresh match now and then (no ending)
                options = clocked if kind == "clock" else None
                made = service.create_match(VARIANT, PLAYERS, {}, seed=n, clock_options=options)
                matches[kind] = made.match_id
            match_id = matches[kind]
            loaded = service.load(match_id)
            seat = loaded.variant.to_act(loaded.state)
            if seat is None:
                matches.pop(kind)
                continue
            move = dict(loaded.variant.legal_moves(loaded.state, seat)[0])
            start = time.perf_counter()
            service.submit(
                match_id, seat, move, expected_version=None, idempotency_key=None, fingerprint=""
            )
            spent[kind].append((time.perf_counter() - start) * 1e6)
        if min(len(v) for v in spent.values()) >= moves:
            break
    return spent


def move_cost_http(service: MatchService, moves: int) -> dict[str, list[float]]:
    """The same through the app (Flask's test client: auth, body, view, no network)."""
    from api import create_app

    client = create_app({"TESTING": True, "SERVICE": service}).test_client()
    clocked = {"mode": "per_move", "move_s": 600, "claim_after_s": 600}
    spent: dict[str, list[float]] = {"no clock": [], "clock": []}
    tokens: dict[str, tuple[str, list[str]]] = {}
    for n in range(moves * 2):
        for kind in spent:
            if kind not in tokens or n % 40 == 0:
                body: dict[str, Any] = {"variant": VARIANT, "players": PLAYERS, "seed": n}
                if kind == "clock":
                    body["clock"] = clocked
                made = client.post("/v1/matches", json=body).get_json()
                tokens[kind] = (made["id"], [seat["token"] for seat in made["seats"]])
            match_id, seat_tokens = tokens[kind]
            loaded = service.load(match_id)
            seat = loaded.variant.to_act(loaded.state)
            if seat is None:
                tokens.pop(kind)
                continue
            move = dict(loaded.variant.legal_moves(loaded.state, seat)[0])
            headers = {"Authorization": f"Bearer {seat_tokens[seat]}"}
            start = time.perf_counter()
            client.post(f"/v1/matches/{match_id}/moves", json=move, headers=headers)
            spent[kind].append((time.perf_counter() - start) * 1e6)
        if min(len(v) for v in spent.values()) >= moves:
            break
    return spent


def start_workers(url: str, count: int) -> list[subprocess.Popen[bytes]]:
    env = {**os.environ, "REDIS_URL": url, "DEADWOOD_DEV": "1", "DEADWOOD_LOG_LEVEL": "WARNING"}
    command = [sys.executable, "-m", "workers.run", "--queues", "deadlines", "--reconcile-every"]
    return [
        subprocess.Popen([*command, "3600"], env=env, cwd=ROOT, stdout=subprocess.DEVNULL)
        for _ in range(count)
    ]


def lateness(service: MatchService, match_ids: list[str]) -> list[float]:
    """Seconds from each timeout's deadline to its entry's time."""
    late: list[float] = []
    for match_id in match_ids:
        previous: Any = None
        for item in service.events(match_id, limit=1000):
            if item.event.type == "TurnTimedOut" and previous is not None:
                turn = Turn.decode(previous.clk)
                if turn is not None and turn.deadline_ms is not None:
                    at = datetime.fromisoformat(item.at.replace("Z", "+00:00")).timestamp()
                    late.append(at - turn.deadline_ms / 1000)
            previous = item
    return late


def run_lateness(
    url: str, service: MatchService, matches: int, seconds: float, workers: int
) -> Any:
    clock = {"mode": "per_move", "move_s": 2, "autoplay_bot": "random", "max_timeouts": 10_000}
    procs = start_workers(url, workers)
    time.sleep(1.0)  # the workers start (imports, scheduler lock)
    try:
        ids = [
            service.create_match(VARIANT, PLAYERS, {}, seed=n, clock_options=clock).match_id
            for n in range(matches)
        ]
        time.sleep(seconds)
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(timeout=30)
    return lateness(service, ids)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--moves", type=int, default=300)
    parser.add_argument("--skip-lateness", action="store_true", help="the move cost only")
    args = parser.parse_args()
    with private_redis(None) as url:
        report(redis.Redis.from_url(url), url, args)


def print_cost(title: str, spent: dict[str, list[float]]) -> None:
    print(f"{title:<24}{'moves':>8}{'median':>10}{'p90':>10}")
    for kind, values in spent.items():
        med, p90 = statistics.median(values), _quantile(values, 0.9)
        print(f"{kind:<24}{len(values):>8}{med:>10.0f}{p90:>10.0f}")
    ratio = statistics.median(spent["clock"]) / statistics.median(spent["no clock"])
    print(f"ratio clock / no clock (median): {ratio:.3f}  (target <= 1.10)\n")


def report(client: redis.Redis, url: str, args: argparse.Namespace) -> None:
    os.environ.setdefault("DEADWOOD_DEV", "1")  # the app's development token pepper
    service = MatchService(client, pepper=b"bench")
    if args.moves > 0:
        print_cost("MatchService.submit (us)", move_cost(service, args.moves))
        jobs = client.zcard("rq:scheduled:deadlines")
        print(f"deadline jobs scheduled by the clocked matches (their creates too): {jobs}\n")
        print_cost("POST .../moves (us)", move_cost_http(service, args.moves))
    if args.skip_lateness:
        return
    client.flushdb()
    service = MatchService(client, pepper=b"bench")
    late = run_lateness(url, service, args.matches, args.seconds, args.workers)
    print(
        f"timeouts of {args.matches} matches on 2 s clocks, {args.workers} workers, "
        f"{args.seconds:.0f} s"
    )
    print(f"{'lateness (s)':<14}{'count':>8}{'p50':>8}{'p99':>8}{'max':>8}")
    if late:
        row = (len(late), _quantile(late, 0.5), _quantile(late, 0.99), max(late))
        print(f"{'timeouts':<14}{row[0]:>8}{row[1]:>8.3f}{row[2]:>8.3f}{row[3]:>8.3f}")
    print("targets: p99 < 1 s, max < 2 s")


if __name__ == "__main__":
    main()
