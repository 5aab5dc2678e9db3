"""The `deadwood` subcommands for players, bot authors and replays: new, play, tail, export,
replay, verify (and, from cli/lobby.py and cli/seek.py, lobby, join and seek).

`register(subparsers)` adds them to the `deadwood` command (cli/up.py); each sets
`args.run`, the function that carries the command out, and `args.handler` = `run`, which
calls it and turns an API refusal into a message and exit status 1.
`main(argv)` is the same commands on their own (`python -m cli.client ...`).

Every command that talks to a server takes `--base-url` (default $DEADWOOD_URL, else
http://127.0.0.1:8000, where `make up` serves) and `--token` (default $DEADWOOD_TOKEN).
Progress bars go to standard error, and only when it is a terminal.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import os
import random
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from cli import conduct
from cli import lobby as lobby_commands
from cli import seek as seek_commands
from deadwood_client.client import Client
from deadwood_client.errors import DeadwoodError
from deadwood_client.narrate import Names, describe, move_text, round_line
from deadwood_client.types import Move, MoveResult, View

DEFAULT_URL = "http://127.0.0.1:8000"
BUILT_IN = ("expert", "basic", "random")
T = TypeVar("T")

PLAY_HELP = """\
examples:
  deadwood play --match m_7Qx --token $TOKEN --bot random
  deadwood play --base-url http://127.0.0.1:8000 --match m_7Qx --token $TOKEN --bot expert
  deadwood play --match m_7Qx --token $TOKEN --bot mybot:choose

--bot is a built-in bot of the match's variant (GET /v1/bots: expert, basic, random, ...)
or MODULE:FUNCTION, imported from the current directory or the Python path. The function
is choose(view) -> move, or choose(view, legal_moves, rng) -> move like the built-in bots;
a move is one of view["you"]["legal_moves"] (api.md "Moves")."""

TAIL_HELP = """\
examples:
  deadwood tail --match m_7Qx                    as a spectator, from the first event
  deadwood tail --match m_7Qx --token $TOKEN     as your seat (you see your own cards)
  deadwood tail --match m_7Qx --after 120 --json one JSON event per line, after seq 120

One line per event, e.g. "#57 ben drew from stock", "#61 cy knocked with 6: 7C 7D 7S |
2H 3H 4H | deadwood 2C 4D". It follows the live stream, resumes after a disconnect without
losing or repeating an event, and stops when the match is finished."""

EXPORT_HELP = """\
examples:
  deadwood export --match m_7Qx > match.ndjson
  deadwood export --match m_7Qx -o match.ndjson

The whole unredacted log of a finished match (GET /v1/matches/{id}/log), one JSON event
per line. A match still in progress is refused (match_in_progress, exit status 1)."""

REPLAY_HELP = """\
examples:
  deadwood replay match.ndjson
  deadwood export --match m_7Qx | deadwood replay -

Checks the log locally with the rules, exactly as POST /v1/replays does (the same check,
the same verdict): every event must be what the rules would have recorded. Prints each
round's result and the final scores; exit status 1 naming the first bad event otherwise."""

NEW_HELP = """\
examples:
  deadwood new --variant three-hand-gin --players ana,ben --bot expert
  deadwood new --variant manipulation-rummy --players ana --bot expert --bot basic --seed 7
  deadwood new --variant three-hand-gin --bot expert --bot basic --bot random --seed 5
  deadwood new --variant three-hand-gin --players ana --open 2 --listed

Creates a match (POST /v1/matches) and prints its id, the watch page's URL and one bearer
token per human seat (shown only this once), with the `deadwood play` command for each.
--players are human seats in order; each --bot adds a seat played by the server (named after
the bot). --option KEY=VALUE sets a rule option (a JSON value, or else a string). --open N
adds N open seats anyone may take (`deadwood join`); --listed shows the match in
`deadwood lobby` while it waits."""

VERIFY_HELP = """\
examples:
  deadwood verify match.ndjson
  deadwood export --match m_7Qx | deadwood verify -

For every round, recomputes the fair-deal commitment (SHA-256 of the salt and the deck
order, see openapi.yaml) from the deck order and salt its RoundDealt event reveals, and
compares it with the commitment shown to every player from the start of the round. Exit
status 1 naming each round whose deal does not match."""


# --- wiring -----------------------------------------------------------------------------------


def register(subparsers: Any) -> None:
    """Add new, play, tail, export, replay and verify to an argparse subparsers object."""
    _new_parser(subparsers)
    _play_parser(subparsers)
    _tail_parser(subparsers)
    _export_parser(subparsers)
    _file_parser(subparsers, "replay", "check a match log with the rules", REPLAY_HELP, replay)
    _file_parser(subparsers, "verify", "check a log's fair-deal commitments", VERIFY_HELP, verify)
    lobby_commands.register(subparsers, _parser, run)  # lobby, join (cli/lobby.py)
    seek_commands.register(subparsers, _parser, run)  # seek (cli/seek.py)
    conduct.register(subparsers, _parser, _server_arguments, run)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="deadwood", description=__doc__.splitlines()[0])
    register(parser.add_subparsers(dest="command", required=True))
    return run(parser.parse_args(argv))


def run(args: argparse.Namespace) -> int:
    """Carry out a parsed command; the exit status (API refusals print and give 1)."""
    try:
        status: int = args.run(args)
    except DeadwoodError as error:
        print(f"deadwood {args.command}: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return status


def _parser(subparsers: Any, name: str, summary: str, epilog: str) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        name,
        help=summary,
        description=summary,
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    return parser


def _server_arguments(
    parser: argparse.ArgumentParser, token_required: bool = False, match_required: bool = True
) -> None:
    parser.add_argument(
        "--base-url",
        default=os.environ.get("DEADWOOD_URL", DEFAULT_URL),
        help=f"the server (default $DEADWOOD_URL or {DEFAULT_URL})",
    )
    parser.add_argument("--match", required=match_required, help="the match id (m_...)")
    token = os.environ.get("DEADWOOD_TOKEN")
    parser.add_argument(
        "--token",
        default=token,
        required=token_required and token is None,
        help="a seat's bearer token (default $DEADWOOD_TOKEN); without one: a spectator",
    )


def _new_parser(subparsers: Any) -> None:
    parser = _parser(subparsers, "new", "create a match and print its seat tokens", NEW_HELP)
    parser.add_argument(
        "--base-url",
        default=os.environ.get("DEADWOOD_URL", DEFAULT_URL),
        help=f"the server (default $DEADWOOD_URL or {DEFAULT_URL})",
    )
    parser.add_argument("--variant", required=True, help="three-hand-gin | manipulation-rummy")
    parser.add_argument("--players", default="", help="human seats, comma-separated: ana,ben")
    parser.add_argument(
        "--bot", action="append", default=[], help="add a seat played by this built-in bot"
    )
    parser.add_argument("--seed", type=int, default=None, help="seed every shuffle (replayable)")
    parser.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE", help="a rule option"
    )
    parser.add_argument("--json", action="store_true", help="print the create response as JSON")
    parser.add_argument("--open", type=int, default=0, help="add N open seats anyone may join")
    parser.add_argument("--listed", action="store_true", help="list the match in the lobby")
    conduct.add_clock_arguments(parser)
    parser.set_defaults(run=new, handler=run)


def _play_parser(subparsers: Any) -> None:
    epilog = PLAY_HELP + "\n\n" + seek_commands.PLAY_SEEK_HELP
    parser = _parser(subparsers, "play", "play a seat with a bot until the match ends", epilog)
    _server_arguments(parser, match_required=False)  # --match and --token, unless --seek
    parser.add_argument("--bot", default="random", help="expert|basic|random|MODULE:FUNCTION")
    parser.add_argument("--seed", type=int, default=None, help="seed of the bot's random numbers")
    parser.add_argument("--quiet", action="store_true", help="print only the final result")
    parser.add_argument("--seek", action="store_true", help="seek and play until stopped")
    seek_commands.add_key_argument(parser)
    seek_commands.add_seek_arguments(parser, variant_required=False)
    parser.add_argument("--games", type=int, default=None, help="with --seek: stop after N")
    parser.set_defaults(run=play, handler=run)


def _tail_parser(subparsers: Any) -> None:
    parser = _parser(subparsers, "tail", "print a match's events live, one line each", TAIL_HELP)
    _server_arguments(parser)
    parser.add_argument("--after", type=int, default=0, help="start after this event seq")
    parser.add_argument("--json", action="store_true", help="print the events as JSON lines")
    parser.set_defaults(run=tail, handler=run)


def _export_parser(subparsers: Any) -> None:
    parser = _parser(subparsers, "export", "write a finished match's log (NDJSON)", EXPORT_HELP)
    _server_arguments(parser)
    parser.add_argument("-o", "--output", default="-", help="a file (default: standard output)")
    parser.set_defaults(run=export, handler=run)


def _file_parser(
    subparsers: Any, name: str, summary: str, epilog: str, func: Callable[[Any], int]
) -> None:
    parser = _parser(subparsers, name, summary, epilog)
    parser.add_argument("file", help="an NDJSON log (deadwood export), or - for standard input")
    parser.set_defaults(run=func, handler=run)


# --- new --------------------------------------------------------------------------------------


def new_players(humans: str, bots: Sequence[str]) -> list[dict[str, Any]]:
    """`ana,ben` and `[expert]` -> the players of POST /v1/matches; bot seats get unique names."""
    players: list[dict[str, Any]] = [{"name": n.strip()} for n in humans.split(",") if n.strip()]
    taken = {p["name"] for p in players}
    for bot in bots:
        name, k = bot, 2
        while name in taken:
            name, k = f"{bot}{k}", k + 1
        taken.add(name)
        players.append({"name": name, "bot": bot})
    return players


def parse_options(pairs: Sequence[str]) -> dict[str, Any]:
    """`["target_score=50"]` -> `{"target_score": 50}` (a JSON value, or else the string)."""
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise SystemExit(f"deadwood new: --option takes KEY=VALUE, not {pair!r}")
        try:
            options[key] = json.loads(value)
        except ValueError:
            options[key] = value
    return options


def watch_url(base_url: str, match_id: str) -> str:
    root = base_url.rstrip("/")
    root = root[: -len("/v1")] if root.endswith("/v1") else root
    return f"{root}/watch/{match_id}"


def new(args: argparse.Namespace) -> int:
    players = new_players(args.players, args.bot)
    players[len(players) - len(args.bot) : len(players) - len(args.bot)] = [{"open": True}] * max(
        0, args.open
    )  # open seats after the named ones, before the bots
    options = parse_options(args.option)
    with Client(args.base_url) as client:
        clock = conduct.parse_clock(args.clock, args.clock_option)
        created = client.create_match(
            args.variant,
            players,
            seed=args.seed,
            options=options,
            clock=clock,
            listed=args.listed,
        )
    if args.json:
        print(json.dumps(created, indent=2))
        return 0
    match_id = created["id"]
    print(f"match {match_id} ({created['variant']}, version {created['version']})")
    print(f"watch: {watch_url(args.base_url, match_id)}")
    for seat in created["seats"]:
        if seat.get("open"):
            print(f"seat {seat['seat']}: open (deadwood join --match {match_id} --name ...)")
            continue
        if seat["bot"]:
            print(f"seat {seat['seat']} {seat['name']}: bot {seat['bot']}, played by the server")
            continue
        print(f"seat {seat['seat']} {seat['name']}: token {seat['token']}")
        print(f"  deadwood play --match {match_id} --token {seat['token']} --bot expert")
    return 0


# --- play -------------------------------------------------------------------------------------

Choose = Callable[[View], Move | Mapping[str, Any]]


def load_bot(spec: str, variant: str, seed: int | None = None) -> Choose:
    """`choose(view) -> move` for a built-in bot name or `module:function`."""
    rng = random.Random(seed)  # noqa: S311 - a bot's choices, not a secret
    if ":" in spec:
        module_name, _, attr = spec.partition(":")
        if "" not in sys.path and os.getcwd() not in sys.path:
            sys.path.insert(0, os.getcwd())
        func = getattr(importlib.import_module(module_name), attr)
        return _adapt(func, rng)
    from domain import bots

    bot = bots.get_bot(variant, spec)
    return lambda view: bot.choose(view, _legal(view), rng)


def _adapt(func: Callable[..., Any], rng: random.Random) -> Choose:
    """A user's function of one argument (the view) or three (view, legal_moves, rng)."""
    try:
        arity = len(inspect.signature(func).parameters)
    except (TypeError, ValueError):
        arity = 1
    if arity >= 3:
        return lambda view: func(view, _legal(view), rng)
    return lambda view: func(view)


def _legal(view: View) -> list[Any]:
    return list(view["you"]["legal_moves"]) if view["you"] else []


def play(args: argparse.Namespace) -> int:
    from deadwood_client.play import play as play_loop

    if args.seek:
        return seek_commands.play_seek(args, load_bot)
    if not args.match or not args.token:
        print("deadwood play: needs --match and --token (or --seek)", file=sys.stderr)
        return 2
    with Client(args.base_url, args.token) as client:
        view = client.match(args.match)
        names = Names([s["name"] for s in view["seats"]])
        try:
            choose = load_bot(args.bot, view["variant"], args.seed)
        except Exception as exc:  # an unknown bot name, or a module that fails to import
            print(f"deadwood play: cannot load bot {args.bot!r}: {exc}", file=sys.stderr)
            return 2
        seat = view["you"]["seat"] if view["you"] else None
        print(f"playing {args.match} as {names(seat)} (seat {seat}) with {args.bot}", flush=True)

        def show(move: Mapping[str, Any], result: MoveResult) -> None:
            if not args.quiet:
                print(f"v{result['version']} {move_text(move)}", flush=True)

        final = play_loop(client, args.match, choose, on_move=show)
    winners = ", ".join(names(s) for s in final["winners"]) or "nobody"
    print(f"finished: {winners} won; scores {names.per_seat(final['scores'])}")
    return 0


# --- tail and export --------------------------------------------------------------------------


def tail(args: argparse.Namespace) -> int:
    with Client(args.base_url, args.token) as client:
        view = client.match(args.match)
        names = Names([s["name"] for s in view["seats"]])
        for event in client.events(args.match, after=args.after):
            if args.json:
                print(json.dumps(event, separators=(",", ":")), flush=True)
            else:
                print(describe(event, names), flush=True)
    return 0


def export(args: argparse.Namespace) -> int:
    with Client(args.base_url, args.token) as client:
        if args.output == "-":
            client.export_log(args.match, sys.stdout.buffer)
            sys.stdout.flush()
            return 0
        path = Path(args.output)
        with path.open("wb") as sink, _bar(None, "export", "B") as bar:
            size = client.export_log(args.match, sink, lambda done, total: bar.set(done, total))
    print(f"wrote {size} bytes to {path}", file=sys.stderr)
    return 0


# --- replay and verify ------------------------------------------------------------------------


def replay(args: argparse.Namespace) -> int:
    from deadwood_client.logfile import LogError, check, read_log

    try:
        events = read_log(args.file)
        checked = check(events, progress=lambda items: _progress(items, len(events), "replay"))
    except LogError as error:
        print(f"deadwood replay: rejected at {error}", file=sys.stderr)
        return 1
    view = checked.view
    names = Names([s["name"] for s in view["seats"]])
    for result in view["rounds"]:
        print(round_line(result, names))
    status = view["status"]
    winners = ", ".join(names(s) for s in view["winners"]) or "nobody"
    print(f"{checked.events} events follow the rules; the match is {status}", end="")
    print(f": {winners} won" if status == "finished" else "", end="")
    print(f"; scores {names.per_seat(view['scores'])}")
    return 0


def verify(args: argparse.Namespace) -> int:
    from deadwood_client.logfile import LogError, read_log
    from deadwood_client.logfile import verify as verify_deals

    try:
        events = read_log(args.file)
    except LogError as error:
        print(f"deadwood verify: {error}", file=sys.stderr)
        return 1
    deals = verify_deals(events, progress=lambda items: _progress(items, len(events), "verify"))
    if not deals:
        print("deadwood verify: the log has no RoundDealt event", file=sys.stderr)
        return 1
    bad = 0
    for deal in deals:
        if deal.ok:
            print(f"round {deal.round}: ok (event {deal.seq}, commitment {deal.commitment})")
            continue
        bad += 1
        why = deal.problem or (
            f"the revealed deck and salt give {deal.recomputed}, "
            f"but the round was committed to {deal.commitment}"
        )
        print(f"round {deal.round}: MISMATCH (event {deal.seq}): {why}", file=sys.stderr)
    if bad:
        print(f"deadwood verify: {bad} of {len(deals)} deals do not match", file=sys.stderr)
        return 1
    print(f"all {len(deals)} deals match their commitments")
    return 0


# --- progress bars (stderr, only on a terminal) -----------------------------------------------


def _progress(items: Iterable[T], total: int, label: str) -> Iterable[T]:
    from tqdm import tqdm

    bar: Iterable[T] = tqdm(
        items, total=total, desc=label, unit="ev", file=sys.stderr, disable=None
    )
    return bar


class _bar:
    """A byte-count bar for downloads whose size may be unknown."""

    def __init__(self, total: int | None, label: str, unit: str) -> None:
        from tqdm import tqdm

        self.bar = tqdm(
            total=total, desc=label, unit=unit, unit_scale=True, file=sys.stderr, disable=None
        )

    def set(self, done: int, total: int | None) -> None:
        if total is not None and self.bar.total != total:
            self.bar.total = total
        self.bar.update(done - self.bar.n)

    def __enter__(self) -> _bar:
        return self

    def __exit__(self, *exc: object) -> None:
        self.bar.close()


if __name__ == "__main__":
    raise SystemExit(main())
