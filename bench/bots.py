"""Bot move time (issue 16): per-move CPU time of each bot at real, full-size positions.

Run from the project root: `.venv/bin/python bench/bots.py` (`--quick` for a short run).
Positions are collected by playing arena matches (`coach,basic,basic` gin with advice, so
ADVISOR positions are included, and 4-player Manipulation `expert,basic,basic,basic`); at
every position where a bot of the line-up moved, each bot of the table is timed on that same
view and legal moves (CPU time, `time.process_time`, so the machine's other load counts
less). The gin bots' memo caches are cleared before each bot's series, which then warms in
match order as in a worker. The table prints min / median / p99 / max in milliseconds and
the median as a ratio against `basic` (the reference) measured in the same run. Targets:
median <= 50 ms, max <= 1 s.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena import harness as arena
from domain import bots
from domain.bots.gin.eval import clear_caches

GAMES = (
    ("three-hand-gin", ("coach", "basic", "basic"), True, ("basic", "expert", "coach")),
    ("manipulation-rummy", ("expert", "basic", "basic", "basic"), False, ("basic", "expert")),
)


def positions(variant: str, lineup: tuple[str, ...], matches: int, advice: bool) -> list[Any]:
    """The view of every bot decision in a few arena matches, advisors included."""
    found: list[Any] = []
    for spec in arena.plan(lineup, matches, seed=16):
        arena.play_match(variant, spec, advice=advice, observe=found.append)
    return found


def timings(variant: str, name: str, views: list[Any]) -> list[float]:
    bot = bots.get_bot(variant, name)
    clear_caches()  # each bot starts cold, then warms over the positions in match order
    out = []
    for i, view in enumerate(views):
        rng = random.Random(i)
        start = time.process_time()
        bot.choose(view, view["you"]["legal_moves"], rng)
        out.append(1000 * (time.process_time() - start))
    return out


def row(variant: str, name: str, ms: list[float], reference: float) -> str:
    ms = sorted(ms)
    p99 = ms[min(len(ms) - 1, int(0.99 * len(ms)))]
    median = statistics.median(ms)
    ratio = median / reference if reference > 0 else float("inf")
    return (
        f"{variant:<20} {name:<8} {len(ms):>6} {ms[0]:>8.2f} {median:>8.2f} {p99:>8.2f} "
        f"{ms[-1]:>8.1f} {ratio:>8.1f}x"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short run (one match a game)")
    parser.add_argument("--matches", type=int, default=None, help="matches per game")
    args = parser.parse_args()
    matches = args.matches or (1 if args.quick else 3)
    head = (
        f"{'game':<20} {'bot':<8} {'moves':>6} {'min ms':>8} {'median':>8} {'p99':>8} "
        f"{'max ms':>8} {'vs basic':>9}"
    )
    print(head)
    print("-" * len(head))
    for variant, lineup, advice, names in GAMES:
        views = positions(variant, lineup, matches, advice)
        reference = statistics.median(timings(variant, "basic", views))
        for name in names:
            print(row(variant, name, timings(variant, name, views), reference), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
