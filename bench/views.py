"""Random gin play through views (issue 14): hands per second, against play through
`legal_moves` alone, in one run.

    python bench/views.py [--quick] [--runs R] [--matches M] [--serialize] [--cpu]
                          [--reference REV]

Each pass plays `--matches` seeded three-hand-gin matches to the end (target 100, so many
rounds per match: the view's cost must not grow with the rounds played). Through views: the
seat to act reads `view(state, seat)` (what an HTTP client and a bot see) and picks a random
move of `view["you"]["legal_moves"]`; the reference pass picks from `legal_moves(state, seat)`.
SYSTEM moves (deal, score) are applied as the workers would. Prints min / median / p99 / max
hands per second over the passes, and the ratio of the medians. With `--cpu` a pass is timed
by this process's CPU time instead of the wall clock: on a machine shared with other work the
wall clock also counts the time other processes held the core.

With `--reference REV` every pass is also played, through `legal_moves`, by the domain of an
earlier commit (a git worktree of REV in a temporary folder, in a subprocess, timed there),
match by match in turn with this commit's: how fast this machine is at this hour, measured in
the same run. Issue 14's target, 1,000 hands/s through views, was set when the code of `0d478ee`
played 334 hands/s through `legal_moves` on this machine; so the target is a ratio of
1000 / 334 = 3.0 to that reference, whatever the hour:

    python bench/views.py --cpu --reference 0d478ee --runs 5 --matches 14

The two codes spend their time in different places (the reference per move, this one more
per view), so their ratio differs from game to game: a pass of few matches varies by its
seeds. With 14 matches a pass, the passes of one run still spread by about 10% here, most of
it in the reference's own rate (one run: 114-137 hands/s, against 423-452 through our views).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# The checkout whose domain is played: this one, or a reference worktree (`--reference`).
sys.path.insert(
    0, os.environ.get("DEADWOOD_BENCH_ROOT") or str(Path(__file__).resolve().parents[1])
)

from domain import gin
from domain.events import SYSTEM
from domain.replay import fold

HERE = Path(__file__).resolve()
GIT = ["git", "-C", str(HERE.parents[1])]
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
            actor = gin.to_act(state)
            assert actor is not None
            seat = actor
            if through_views:
                shown = gin.view(state, seat)
                if SERIALIZE:
                    json.dumps(shown)  # what sending it costs: grows with the rounds listed
                you = shown["you"]
                assert you is not None  # a seat's view has its `you`
                move = rng.choice(you["legal_moves"])
            else:
                move = rng.choice(gin.legal_moves(state, seat))
        for event in gin.decide(state, seat, move):
            state = gin.evolve(state, event)
    return hands


def timed(seed: int, through_views: bool) -> tuple[int, float]:
    """One match: its hands and the seconds it took."""
    started = CLOCK()
    hands = play(seed, through_views)
    return hands, CLOCK() - started


class Reference:
    """The reference commit's domain in a subprocess (`--serve`: its own modules), playing
    one match through `legal_moves` per request; the match is timed inside it, so the pipe
    and starting Python are not counted."""

    def __init__(self, worktree: Path, cpu: bool) -> None:
        env = {**os.environ, "DEADWOOD_BENCH_ROOT": str(worktree)}
        command = [sys.executable, str(HERE), "--serve", *(["--cpu"] if cpu else [])]
        self._process = subprocess.Popen(
            command, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )

    def timed(self, seed: int) -> tuple[int, float]:
        assert self._process.stdin is not None and self._process.stdout is not None
        self._process.stdin.write(f"{seed}\n")
        self._process.stdin.flush()
        hands, seconds = self._process.stdout.readline().split()
        return int(hands), float(seconds)

    def close(self) -> None:
        self._process.communicate()


def serve() -> None:
    """`--serve`: a seed per line in, "hands seconds" of that match through `legal_moves` out."""
    for line in sys.stdin:
        hands, seconds = timed(int(line), False)
        print(hands, seconds, flush=True)


def worktree_of(rev: str, into: str) -> Path:
    """A detached git worktree of `rev` of this repository under `into`."""
    path = Path(into) / "reference"
    done = subprocess.run(
        [*GIT, "worktree", "add", "--detach", str(path), rev], capture_output=True, text=True
    )
    if done.returncode != 0:  # an unknown revision, a shallow clone, no git
        raise SystemExit(f"--reference {rev}: git worktree add failed: {done.stderr.strip()}")
    return path


def row(name: str, rates: list[float], digits: int = 0) -> str:
    ordered = sorted(rates)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    cells = (ordered[0], statistics.median(ordered), p99, ordered[-1])
    return f"{name:<24}" + "".join(f" {cell:>8.{digits}f}" for cell in cells)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 passes of 3 matches")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--matches", type=int, default=6)
    parser.add_argument("--serialize", action="store_true", help="json.dumps every view too")
    parser.add_argument("--cpu", action="store_true", help="time passes by process CPU time")
    parser.add_argument("--reference", metavar="REV", help="also play REV through legal_moves")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    global SERIALIZE, CLOCK
    SERIALIZE = args.serialize
    if args.cpu:
        CLOCK = time.process_time
    runs, matches = (3, 2) if args.quick else (args.runs, args.matches)
    if args.serve:  # the reference's side of `Reference`
        serve()
        return 0
    with tempfile.TemporaryDirectory(prefix="deadwood-bench-") as scratch:
        worktree = worktree_of(args.reference, scratch) if args.reference else None
        reference = None if worktree is None else Reference(worktree, args.cpu)
        try:
            results = passes(runs, matches, args.reference, reference)
        finally:
            if reference is not None:
                reference.close()
            if worktree is not None:
                subprocess.run(
                    [*GIT, "worktree", "remove", "--force", str(worktree)], capture_output=True
                )
    print(
        f"random three-hand-gin play, {matches} matches to 100 points per pass, {runs} passes"
        + (", every view serialized" if SERIALIZE else "")
        + (", CPU time" if args.cpu else ", wall clock")
    )
    print(f"{'hands/s':<24} {'min':>8} {'median':>8} {'p99':>8} {'max':>8}")
    for name, rates in results.items():
        print(row(name, rates))
    views = statistics.median(results["views"])
    print(f"views / legal_moves (medians): {views / statistics.median(results['legal_moves']):.2f}")
    if args.reference:
        theirs = results[f"{args.reference} legal_moves"]
        ratio = views / statistics.median(theirs)
        print(f"views / {args.reference} legal_moves (medians): {ratio:.2f}")
        paired = [a / b for a, b in zip(results["views"], theirs, strict=True)]
        print(row("  the same, pass by pass", paired, 2))
    return 0


def passes(
    runs: int, matches: int, rev: str | None, reference: Reference | None
) -> dict[str, list[float]]:
    """The hands/s of every pass, by name. The rows take turns match by match (ours through
    `legal_moves`, ours through views, the reference's), so a change in the machine's speed
    meets all of them alike."""
    names = ["legal_moves", "views"] + ([] if reference is None else [f"{rev} legal_moves"])
    results: dict[str, list[float]] = {name: [] for name in names}
    for run in range(runs):
        hands = dict.fromkeys(names, 0)
        seconds = dict.fromkeys(names, 0.0)
        for seed in range(100 * run, 100 * run + matches):
            played = [timed(seed, False), timed(seed, True)]
            if reference is not None:
                played.append(reference.timed(seed))
            for name, (count, took) in zip(names, played, strict=True):
                hands[name] += count
                seconds[name] += took
        for name in names:
            results[name].append(hands[name] / seconds[name])
    return results


if __name__ == "__main__":
    raise SystemExit(main())
