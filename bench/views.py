"""Random gin play through views (issue 14): hands per second, against play through
`legal_moves` alone, in one run.

    python bench/views.py [--quick] [--runs R] [--matches M] [--serialize] [--cpu]

Each pass plays `--matches` seeded three-hand-gin matches to the end (target 100, so many
rounds per match: the view's cost must not grow with the rounds played). Through views: the
seat to act reads `view(state, seat)` (what an HTTP client and a bot see) and picks a random
move of `view["you"]["legal_moves"]`; the reference pass picks from `legal_moves(state, seat)`.
SYSTEM moves (deal, score) are applied as the workers would. Prints min / median / p99 / max
hands per second over the passes, and the ratio of the medians. With `--cpu` a pass is timed
by this process's CPU time instead of the wall clock: on a machine shared with other work the
wall clock also counts the time other processes held the core.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from domain import gin
from domain.events import SYSTEM
from domain.replay import fold

PLAYERS = [{"name": "a"}, {"name": "b"}, {"name": "c"}]
SERIALIZE = False
CLOCK = time.perf_counter


def play(seed: int, through_views: bool) -> int:
    """One match to the end; the number of hands (rounds) played."""
    rng = random.Random(seed)
    state = fold(gin.VARIANT, gin.create(PLAYERS, gin.validate_options({}), seed, "0" * 64))
    hands = 0
    while not gin.is_finished(state):
        due = gin.pending(state)
        if due is not None:
            seat, move = SYSTEM, due
            hands += due.get("type") == "score_round"
        else:
            seat = gin.to_act(state)
            assert seat is not None
            if through_views:
                shown = gin.view(state, seat)
                if SERIALIZE:
                    json.dumps(shown)  # what sending it costs: grows with the rounds listed
                move = rng.choice(shown["you"]["legal_moves"])
            else:
                move = rng.choice(gin.legal_moves(state, seat))
        for event in gin.decide(state, seat, move):
            state = gin.evolve(state, event)
    return hands


def one_pass(matches: int, through_views: bool, first_seed: int) -> float:
    started = CLOCK()
    hands = sum(play(first_seed + i, through_views) for i in range(matches))
    return hands / (CLOCK() - started)


def row(name: str, rates: list[float]) -> str:
    ordered = sorted(rates)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    med = statistics.median(ordered)
    return f"{name:<16} {ordered[0]:>8.0f} {med:>8.0f} {p99:>8.0f} {ordered[-1]:>8.0f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 passes of 3 matches")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--matches", type=int, default=6)
    parser.add_argument("--serialize", action="store_true", help="json.dumps every view too")
    parser.add_argument("--cpu", action="store_true", help="time passes by process CPU time")
    args = parser.parse_args()
    global SERIALIZE, CLOCK
    SERIALIZE = args.serialize
    if args.cpu:
        CLOCK = time.process_time
    runs, matches = (3, 2) if args.quick else (args.runs, args.matches)
    results: dict[str, list[float]] = {"legal_moves": [], "views": []}
    for run in range(runs):
        results["legal_moves"].append(one_pass(matches, False, 100 * run))
        results["views"].append(one_pass(matches, True, 100 * run))
    print(
        f"random three-hand-gin play, {matches} matches to 100 points per pass, {runs} passes"
        + (", every view serialized" if SERIALIZE else "")
        + (", CPU time" if args.cpu else ", wall clock")
    )
    print(f"{'hands/s':<16} {'min':>8} {'median':>8} {'p99':>8} {'max':>8}")
    for name, rates in results.items():
        print(row(name, rates))
    ratio = statistics.median(results["views"]) / statistics.median(results["legal_moves"])
    print(f"views / legal_moves (medians): {ratio:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
