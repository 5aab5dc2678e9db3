"""The ladder's costs (issue 32): rating a finished match, rebuilding every rating from the
logs, and a page of the ladder with many accounts.

    python bench/ladder.py [--matches 10000] [--accounts 10000] [--pages 200] [--between 100]

A private redis-server (no persistence) holds `--matches` finished rated three-hand gin
matches among `--accounts` accounts (three drawn at random a match). Each match's log is its
real opening (MatchCreated with its clock, the role draw and the first deal, made by the
game), `--between` entries of play (CardDrawn; in every tenth match one of them is a
SeatReplacedByBot, whose seat then ranks last) and a MatchFinished with random scores. The
rating reads the first and last entries and, picked out on the server by a script, the
SeatReplacedByBot ones (store/rebuild.py), so the entries between cost a scan in Redis but
are never sent or decoded. Rows:
- rate one match: the rating job's function (`workers.rating.rate_match`: read the ends, the
  accounts' kinds, compute, and the ledger script), once for each match in turn: median, p99;
- rebuild: `deadwood ladder rebuild`'s work (`store.rebuild.rebuild`) over every match, and
  whether it equals the live ratings bit for bit; then the command itself, `deadwood ladder
  rebuild --check`, in a process of its own (start-up and imports included);
- GET /v1/ladder/three-hand-gin: pages of 50 at random offsets through the app (Flask's test
  client, no network), median and p99.
Wall times of one machine shared with other work.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import redis

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the server's api, not bench/api

from api import create_app
from cli.procs import private_redis
from domain import conduct
from domain.clock import ClockOptions
from domain.events import Event
from domain.gin import VARIANT as GIN
from store import codec
from store.accounts import Accounts
from store.event_store import events_key
from store.ledger import Ledger
from store.rebuild import StoredLogs, rebuild
from store.service import MatchService
from workers import rating
from workers.connection import set_service

ROOT = Path(__file__).resolve().parents[1]
CLOCK = ClockOptions()  # a rated match needs a clock
VARIANT = "three-hand-gin"


def fill(
    client: redis.Redis, matches: int, accounts: int, rng: random.Random, between: int
) -> list[str]:
    """The finished rated matches (ids in the order they finished)."""
    handles = [f"player{n:05d}" for n in range(accounts)]
    options = GIN.validate_options({"rated": True})
    ids = []
    for start in range(0, matches, 500):
        pipe = client.pipeline(transaction=False)
        for n in range(start, min(matches, start + 500)):
            others = rng.sample(handles, 3)
            first = handles[n % accounts]  # every account plays
            seats = [first, *[h for h in others if h != first][:2]]
            players = [{"name": h, "account": h} for h in seats]
            opening = GIN.create(players, options, None, f"{n:064x}", CLOCK)
            scores = [rng.randrange(0, 140) for _ in seats]
            final = Event("MatchFinished", {"scores": scores, "winners": [0], "totals": scores})
            play = [
                Event("CardDrawn", {"seat": k % 3, "source": "stock", "card": None})
                for k in range(between)
            ]
            if n % 10 == 0 and play:
                play[len(play) // 2] = conduct.seat_replaced(n % 3, "basic", "timeouts")
            match_id = f"m_bench{n:06d}"
            for seq, event in enumerate([*opening, *play, final], start=1):
                fields: Any = codec.encode(event, codec.now(), "t")
                pipe.xadd(events_key(match_id), fields, id=f"0-{seq}")
            ids.append(match_id)
        pipe.execute()
    return ids


def quantiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[int(0.99 * (len(ordered) - 1))]


def command_rebuild(port: int) -> tuple[float, str]:
    """`deadwood ladder rebuild --check` as a process of its own: (seconds, its line)."""
    env = {**os.environ, "REDIS_URL": f"redis://127.0.0.1:{port}/0", "DEADWOOD_DEV": "1"}
    env["DEADWOOD_ARCHIVE_DIR"] = tempfile.mkdtemp(prefix="deadwood-bench-ladder-archive-")
    code = "from cli.up import main; raise SystemExit(main())"
    argv = [sys.executable, "-c", code, "ladder", "rebuild", "--check", "--variant", VARIANT]
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=True, cwd=ROOT)
    return time.perf_counter() - started, done.stdout.strip()


def bench(client: redis.Redis, args: argparse.Namespace) -> list[tuple[str, str]]:
    rng = random.Random(32)
    service = MatchService(client, pepper=b"bench-pepper")
    ids = fill(client, args.matches, args.accounts, rng, args.between)
    set_service(service)
    rates = []
    for match_id in ids:
        started = time.perf_counter()
        assert rating.rate_match(match_id, 4 + args.between).startswith("rated")
        rates.append(time.perf_counter() - started)
    accounts = Accounts(client, service.pepper)
    started = time.perf_counter()
    report = rebuild(Ledger(client), VARIANT, StoredLogs(client), accounts.is_bot)
    rebuilt = time.perf_counter() - started
    port = int(client.connection_pool.connection_kwargs["port"])
    command, line = command_rebuild(port)
    on_board = int(client.zcard(f"ladder:{{{VARIANT}}}:board"))
    pages = ladder_pages(service, args.pages, on_board, rng)
    rate_median, rate_p99 = quantiles(rates)
    page_median, page_p99 = quantiles(pages)
    return [
        ("rate one finished match", f"{rate_median * 1e3:.2f} ms median, {rate_p99 * 1e3:.2f} p99"),
        (
            f"ladder rebuild, {report.rated} matches",
            f"{rebuilt:.2f} s, equal to live: {report.equal}",
        ),
        ("deadwood ladder rebuild --check (a process)", f"{command:.2f} s: {line}"),
        (
            f"GET /v1/ladder/{VARIANT}, {on_board} accounts",
            f"{page_median * 1e3:.2f} ms median, {page_p99 * 1e3:.2f} p99",
        ),
    ]


def ladder_pages(
    service: MatchService, pages: int, on_board: int, rng: random.Random
) -> list[float]:
    app = create_app({"TESTING": True, "SERVICE": service, "ACCESS_LOG": 0})
    web = app.test_client()
    took = []
    for _ in range(pages):
        offset = rng.randrange(0, max(1, on_board - 50))
        started = time.perf_counter()
        response = web.get(f"/v1/ladder/{VARIANT}?offset={offset}&limit=50")
        took.append(time.perf_counter() - started)
        assert response.status_code == 200 and len(response.get_json()["rows"]) == 50
    return took


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=10_000)
    parser.add_argument("--accounts", type=int, default=10_000)
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--between", type=int, default=100, help="entries of play a match")
    args = parser.parse_args()
    rows: list[Any] = []
    with private_redis(None) as url:
        try:
            rows = bench(redis.Redis.from_url(url), args)
        finally:
            set_service(None)
    print(
        f"the ladder: {args.matches} finished rated matches of {args.between} entries of play,"
        f" {args.accounts} accounts"
    )
    header = f"{'what':<48} | result"
    print(header)
    print("-" * (len(header) + 30))
    for name, result in rows:
        print(f"{name:<48} | {result}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
