"""Arena speed (issue 5): random-vs-random full matches per second for each game, one core.

Run from the project root: `.venv/bin/python bench/arena.py` (add `--quick` for a short run).
Each row plays `--matches` whole matches in-process through arena.harness.play_match (the
variant surface: create, pending SYSTEM moves, view, legal moves, decide, evolve) with every
seat the `random` bot, and prints matches per second, moves per second and the mean moves
and rounds of a match. Three-handed gin between random players rarely sees a legal knock,
so most of its hands are drawn (G5.6) and its matches are long; the `--target-score` column
shows the target used.

For comparison (the benchmark issue): OpenSpiel's and RLCard's gin engines are two-player and
count a "game" as one hand; divide our moves per second by their moves per hand to compare.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena import harness as arena

GAMES = (
    ("three-hand-gin", ("random", "random", "random")),
    ("manipulation-rummy", ("random", "random")),
    ("manipulation-rummy", ("random", "random", "random", "random")),
)


def bench(variant: str, lineup: tuple[str, ...], matches: int, target: int | None) -> str:
    options = {"target_score": target} if target is not None else None
    specs = arena.plan(lineup, matches, seed=2024)
    start = time.perf_counter()
    records = [arena.play_match(variant, spec, options) for spec in specs]
    elapsed = time.perf_counter() - start
    moves = sum(r.moves for r in records)
    rounds = sum(len(r.round_points) for r in records)
    shown = "default" if target is None else str(target)
    return (
        f"{variant:<20} {len(lineup):>7} {shown:>8} {matches:>8} {matches / elapsed:>10.3f} "
        f"{moves / elapsed:>10.0f} {moves / matches:>10.1f} {rounds / matches:>8.1f} "
        f"{elapsed:>8.1f}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short run (few matches)")
    parser.add_argument("--matches", type=int, default=None, help="matches per row")
    parser.add_argument("--target-score", type=int, default=None, help="target_score option")
    args = parser.parse_args()
    matches = args.matches or (3 if args.quick else 20)
    head = (
        f"{'game':<20} {'players':>7} {'target':>8} {'matches':>8} {'matches/s':>10} "
        f"{'moves/s':>10} {'moves/m':>10} {'rounds':>8} {'seconds':>8}"
    )
    print(head)
    print("-" * len(head))
    for variant, lineup in GAMES:
        print(bench(variant, lineup, matches, args.target_score), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
