"""How long the move-by-move analysis of a whole finished match takes (issue 33).

    python bench/analysis.py [--matches 20] [--quick]

Plays `--matches` arena matches of each game, seats rotated (not timed), then times
`domain.analysis.analyse` on each whole log, with the gin evaluation's caches cleared before
each match (a cold start, as a fresh worker): three-hand gin to 100 (expert, basic, random)
and four-player Manipulation to 150 (expert, basic, basic, basic). Targets: gin under 2 s,
Manipulation under 10 s, median over 20 matches. Prints min / median / max, the events and
decisions per match, and how many Manipulation judgments ran out of the solver's budget
(domain.manipulation.table.solver.BUDGET program states; unproven ones are counted).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.harness import plan
from arena.logged import play_logged
from domain.analysis import analyse
from domain.bots.gin.eval import clear_caches

GAMES = (
    ("three-hand-gin", ("expert", "basic", "random"), 100, 2.0),
    ("manipulation-rummy", ("expert", "basic", "basic", "basic"), 150, 10.0),
)
HEAVY = ("manipulation-rummy", ("basic", "basic", "basic", "basic"), 150, 10.0)
"""`--heavy`: four basic bots, whose matches run about four times longer (the basic bot
knocks at once but melds little, so rounds last until the stock runs low)."""


def measure(
    variant: str, lineup: tuple[str, ...], target: int, matches: int
) -> list[tuple[float, int, int, int]]:
    """(seconds, events, decisions, unproven) of each match's analysis."""
    rows = []
    for spec in plan(lineup, matches, 33):
        events = play_logged(variant, spec, {"target_score": target})
        clear_caches()
        start = time.perf_counter()
        found = analyse(events)
        took = time.perf_counter() - start
        unproven = sum(not d.details.get("proven", True) for d in found.decisions)
        rows.append((took, len(events), len(found.decisions), unproven))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--quick", action="store_true", help="3 matches of each game")
    parser.add_argument("--heavy", action="store_true", help="also four basic bots")
    args = parser.parse_args()
    matches = 3 if args.quick else args.matches
    print(
        f"{'game':<20}{'line-up':<28}{'target':>7}{'matches':>8}{'min s':>8}{'median s':>9}"
        f"{'max s':>8}{'goal s':>7}{'events':>8}{'decisions':>10}{'unproven':>9}"
    )
    for variant, lineup, target, goal in GAMES + ((HEAVY,) if args.heavy else ()):
        rows = measure(variant, lineup, target, matches)
        times = [r[0] for r in rows]
        median = statistics.median(times)
        print(
            f"{variant:<20}{','.join(lineup):<28}{target:>7}{len(rows):>8}{min(times):>8.2f}{median:>9.2f}"
            f"{max(times):>8.2f}{goal:>7.0f}{statistics.median(r[1] for r in rows):>8.0f}"
            f"{statistics.median(r[2] for r in rows):>10.0f}{sum(r[3] for r in rows):>9}"
            f"  {'ok' if median < goal else 'OVER'}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
