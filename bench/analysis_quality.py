"""Does the analyser rank the bots? Average cost per decision of expert, basic and random
over arena matches with the seats rotated, in both games (issue 33's quality check).

    python bench/analysis_quality.py [--matches 36] [--seed 33]

Each game plays `--matches` matches of the line-up (expert, basic, random), every seating in
turn (arena.harness.plan): three-hand gin to 100, three-player Manipulation to 150. Each
match's log is analysed (domain.analysis) and each seat's average cost per decision taken;
a bot's row is the mean of its seats' averages over the matches, with a 95% t-interval
(arena.harness.mean_interval), its decisions and its share of mistakes and blunders. The
last column says whether the intervals separate expert < basic < random.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from itertools import pairwise
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.harness import Interval, mean_interval, plan
from arena.logged import play_logged
from domain.analysis import analyse

LINEUP = ("expert", "basic", "random")
GAMES = (("three-hand-gin", 100), ("manipulation-rummy", 150))


def rows(variant: str, target: int, matches: int, seed: int) -> dict[str, dict[str, list[float]]]:
    """Per bot: each seat-match's average cost, its decisions, its mistakes and blunders."""
    found: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for spec in plan(LINEUP, matches, seed):
        analysis = analyse(play_logged(variant, spec, {"target_score": target}))
        for summary in analysis.seats:
            if not summary.decisions:
                continue
            bot = found[spec.lineup[summary.seat]]
            counts = dict(summary.counts)
            bot["average"].append(summary.average_cost)
            bot["decisions"].append(summary.decisions)
            bot["bad"].append(counts["mistake"] + counts["blunder"])
    return found


def separated(intervals: list[Interval]) -> bool:
    return all(a.high < b.low for a, b in pairwise(intervals))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=36)
    parser.add_argument("--seed", type=int, default=33)
    args = parser.parse_args()
    print(
        f"{'game':<20}{'bot':<8}{'seat-matches':>13}{'decisions':>10}"
        f"{'cost/decision [95% CI]':>28}{'mistakes+blunders':>19}"
    )
    for variant, target in GAMES:
        found = rows(variant, target, args.matches, args.seed)
        intervals = []
        for bot in LINEUP:
            data = found[bot]
            interval = mean_interval(data["average"])
            intervals.append(interval)
            decisions = sum(data["decisions"])
            bad = sum(data["bad"]) / decisions if decisions else 0.0
            ci = f"{interval.value:.2f} [{interval.low:.2f}, {interval.high:.2f}]"
            print(
                f"{variant:<20}{bot:<8}{len(data['average']):>13}{decisions:>10.0f}"
                f"{ci:>28}{100 * bad:>18.1f}%"
            )
        verdict = "separated" if separated(intervals) else "NOT separated"
        print(
            f"{variant:<20}expert < basic < random: {verdict} (to {target}, {args.matches} matches)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
