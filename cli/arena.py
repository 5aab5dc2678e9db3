"""`deadwood arena`: bot-against-bot matches in-process, with a progress bar and a results table.

    deadwood arena --variant V --bots expert,basic,basic --matches N --seed S [--jobs J]
                   [--target-score T] [--option KEY=VALUE ...]
                   [--clock per_move:2 [--clock-option K=V] [--think S] [--redis-url URL]]
    python -m cli.arena ...        (the same, before `deadwood` wires `register` in)

`--bots` names one bot per seat (three-hand-gin: exactly 3; manipulation-rummy: 2 to 5). The
matches are planned by arena.harness.plan: every distinct seating of the line-up plays the same
deal in turn, so each bot plays every seat and every role equally. The table gives, per bot,
match wins and round wins (Wilson 95% intervals), points per round (normal 95% interval), and
the run's matches per second. `--jobs J` plays on J processes; the results do not depend on J.

`--clock` (issue 31; as `deadwood new --clock`) plays every match through the match service
with that clock, on `--redis-url` or a private redis-server, each bot decision taking `--think`
seconds of the service's (virtual) time; the table is followed by the timeouts (cli/arena_clock.py).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
from collections.abc import Iterator, Sequence
from typing import Any, TextIO

from arena import harness as arena
from cli import arena_clock
from cli.conduct import add_clock_arguments, parse_clock
from cli.procs import private_redis
from domain.variants import NAMES

Options = dict[str, Any]


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the `arena` subcommand to a `deadwood` parser's subparsers; returns its parser."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "arena",
        help="play bot-against-bot matches in-process and print the results table",
        description=__doc__.splitlines()[0] if __doc__ else None,
    )
    _arguments(parser)
    parser.set_defaults(handler=handle)
    return parser


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--variant", required=True, choices=NAMES)
    parser.add_argument(
        "--bots", required=True, help="one bot name per seat, comma-separated: expert,basic,basic"
    )
    parser.add_argument("--matches", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1, help="processes to play on")
    parser.add_argument("--target-score", type=int, default=None, help="the target_score option")
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a match option (VALUE as JSON, else a string); repeatable",
    )
    parser.add_argument(
        "--advice",
        action="store_true",
        help="three-hand-gin: ask ADVISOR's bot before each CAPTAIN move and show CAPTAIN the "
        "advice (G1.4); adds the team table (CAPTAIN's margin over BOX by ADVISOR bot)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_clock_arguments(parser)
    parser.add_argument(
        "--think",
        type=float,
        default=0.0,
        help="with --clock: the seconds each bot decision takes on the service's clock",
    )
    parser.add_argument("--redis-url", default=None, help="with --clock: the Redis to play on")


def options_of(args: argparse.Namespace) -> Options | None:
    """The match options from --option and --target-score (None: the defaults)."""
    options: Options = {}
    for item in args.option:
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise SystemExit(f"deadwood arena: --option wants KEY=VALUE, not {item!r}")
        try:
            options[key] = json.loads(raw)
        except json.JSONDecodeError:
            options[key] = raw
    if args.target_score is not None:
        options["target_score"] = args.target_score
    return options or None


Job = tuple[str, arena.MatchSpec, Options | None, bool]


def _play(job: Job) -> arena.MatchRecord:
    variant, spec, options, advice = job
    return arena.play_match(variant, spec, options, advice=advice)


def play_all(
    variant: str,
    specs: Sequence[arena.MatchSpec],
    options: Options | None,
    jobs: int,
    advice: bool = False,
) -> Iterator[arena.MatchRecord]:
    """The records of `specs` as they finish (in any order when jobs > 1)."""
    work = [(variant, spec, options, advice) for spec in specs]
    if jobs <= 1:
        for job in work:
            yield _play(job)
        return
    with multiprocessing.Pool(jobs) as pool:
        yield from pool.imap_unordered(_play, work, chunksize=1)


ClockedJob = tuple[str, arena.MatchSpec, Options | None, dict[str, Any], float, str, float]


def _play_clocked(job: ClockedJob) -> arena_clock.ClockedRecord:
    variant, spec, options, clock, think, url, start = job
    service, now = arena_clock.service_for(url, start)
    return arena_clock.play_clocked(service, now, variant, spec, options, clock, think)


def play_all_clocked(
    variant: str,
    specs: Sequence[arena.MatchSpec],
    options: Options | None,
    jobs: int,
    clock: dict[str, Any],
    think: float,
    url: str,
) -> Iterator[arena_clock.ClockedRecord]:
    """As `play_all`, through the service on `url` with `clock` on every match."""
    work = [(variant, spec, options, clock, think, url, time.time()) for spec in specs]
    if jobs <= 1:
        for job in work:
            yield _play_clocked(job)
        return
    with multiprocessing.Pool(jobs) as pool:
        yield from pool.imap_unordered(_play_clocked, work, chunksize=1)


class Progress:
    """A plain progress bar on a stream: done/total, rate and time left."""

    WIDTH = 30

    def __init__(self, total: int, stream: TextIO, enabled: bool = True) -> None:
        self.total = total
        self.stream = stream
        self.enabled = enabled
        self.start = time.monotonic()
        self.last = 0.0
        self.tty = stream.isatty()

    def update(self, done: int) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        final = done >= self.total
        step = max(1, self.total // 20)
        if self.tty and not final and now - self.last < 0.2:
            return
        if not self.tty and not final and done % step:
            return
        self.last = now
        elapsed = now - self.start
        rate = done / elapsed if elapsed > 0 else 0.0
        left = (self.total - done) / rate if rate > 0 else 0.0
        filled = int(self.WIDTH * done / self.total) if self.total else self.WIDTH
        bar = "#" * filled + "." * (self.WIDTH - filled)
        line = (
            f"[{bar}] {done}/{self.total} matches  {rate:.2f}/s  "
            f"elapsed {_clock(elapsed)}  left {_clock(left)}"
        )
        self.stream.write(("\r" if self.tty else "") + line + ("" if self.tty else "\n"))
        if self.tty and final:
            self.stream.write("\n")
        self.stream.flush()


def _clock(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def handle(args: argparse.Namespace, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    """Run the arena the arguments describe; print the table; 0, or 2 on a bad line-up."""
    lineup = [name.strip() for name in args.bots.split(",") if name.strip()]
    try:
        arena.check_lineup(args.variant, lineup)
    except arena.ArenaError as bad:
        err.write(f"deadwood arena: {bad}\n")
        return 2
    if args.matches < 1 or args.jobs < 1:
        err.write("deadwood arena: --matches and --jobs must be at least 1\n")
        return 2
    options = options_of(args)
    clock = parse_clock(getattr(args, "clock", None), getattr(args, "clock_option", []))
    if clock is not None and args.advice:
        err.write("deadwood arena: --advice is not played through the service (no --clock)\n")
        return 2
    specs = arena.plan(lineup, args.matches, args.seed)
    progress = Progress(len(specs), err, enabled=not args.no_progress)
    started = time.monotonic()
    records, timeouts = _play_planned(args, specs, options, clock, progress)
    elapsed = time.monotonic() - started
    records.sort(key=lambda r: r.index)
    seatings = len(arena.seatings(lineup))
    out.write(
        f"{args.variant}: {len(records)} matches, line-up {','.join(lineup)}, seed {args.seed}, "
        f"{seatings} seatings rotated, options {json.dumps(options or {})}"
        f"{', advice on' if args.advice else ''}"
        f"{f', clock {json.dumps(clock)} (through the service)' if clock else ''}\n"
    )
    out.write(arena.format_table(arena.summarise(records)) + "\n")
    teams = arena.format_teams(records) if args.advice else ""
    if teams:
        out.write(teams + "\n")
    moves = sum(r.moves for r in records)
    if clock is not None:
        out.write(f"clock: {timeouts} timeouts over {moves} bot moves (think {args.think} s)\n")
    rate = len(records) / elapsed if elapsed > 0 else float("inf")
    out.write(
        f"{rate:.3f} matches/s over {elapsed:.1f} s on {args.jobs} process(es); "
        f"{moves} moves; intervals are 95% (Wilson for shares, normal/t for points)\n"
    )
    return 0


def _play_planned(
    args: argparse.Namespace,
    specs: Sequence[arena.MatchSpec],
    options: Options | None,
    clock: dict[str, Any] | None,
    progress: Progress,
) -> tuple[list[arena.MatchRecord], int]:
    """Every planned match, in process or (with a clock) through the service: the records,
    and the timeouts the clocks gave."""
    records: list[arena.MatchRecord] = []
    timeouts = 0
    if clock is None:
        for record in play_all(args.variant, specs, options, args.jobs, args.advice):
            records.append(record)
            progress.update(len(records))
        return records, timeouts
    with private_redis(getattr(args, "redis_url", None)) as url:
        think = float(getattr(args, "think", 0.0))
        for clocked in play_all_clocked(args.variant, specs, options, args.jobs, clock, think, url):
            records.append(clocked.record)
            timeouts += clocked.timeouts
            progress.update(len(records))
    return records, timeouts


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="deadwood arena", description=__doc__.splitlines()[0])
    _arguments(parser)
    return handle(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
