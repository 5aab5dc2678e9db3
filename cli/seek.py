"""`deadwood seek ...` and `deadwood play --seek` (issue 32): ask to be paired for a match,
and a bot that plays rated matches until it is stopped. Registered by cli/client.py.

    deadwood seek create --variant three-hand-gin --clock per_move:10   prints the seek
    deadwood seek show s_...          its status, and its match and seat once paired
    deadwood seek cancel s_...        an open seek (a paired one is refused: join it)
    deadwood seek list [--variant V]  every open seek (anyone may look)
    deadwood play --seek --variant three-hand-gin --clock per_move:10 --bot expert [--games N]

They take `--key` (default $DEADWOOD_KEY: an account key with `join_seats`, and `play_rated`
for rated play) and `--base-url`. `play --seek` loops deadwood_client.seeking.play_seeking:
seek, wait to be paired (an expired seek is made again), join the reserved seat, play it with
the bot to the end, again. Ctrl-C (or SIGTERM) lets the match under way finish and cancels
an open seek; a second Ctrl-C quits at once.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
from collections.abc import Callable, Mapping
from typing import Any

from cli import conduct
from deadwood_client.client import Client
from deadwood_client.narrate import move_text
from deadwood_client.seeking import play_seeking
from deadwood_client.types import MoveResult, OpenSeek

DEFAULT_URL = "http://127.0.0.1:8000"

SEEK_HELP = """\
examples:
  deadwood seek create --variant three-hand-gin --clock per_move:10 --key $DEADWOOD_KEY
  deadwood seek create --variant manipulation-rummy --clock fischer:120+2 --seats 2
  deadwood seek show s_4Fq... --key $DEADWOOD_KEY
  deadwood seek cancel s_4Fq... --key $DEADWOOD_KEY
  deadwood seek list --variant three-hand-gin

A seek asks the server to pair this account for a match (rated unless --casual; a rated one
needs a --clock). The pairing job puts seeks that agree (variant, rated, clock, seats,
options) into one match, near in rating; a seek that waits long is completed with built-in
bots. Once `show` says paired, join the seat it names with the same key (`deadwood play
--seek` does all of it)."""

PLAY_SEEK_HELP = """\
rated play:
  deadwood play --seek --variant three-hand-gin --clock per_move:10 --bot expert --key $KEY
  deadwood play --seek --variant manipulation-rummy --clock per_move:20 --games 10

--seek plays matches it is paired into, one after another, until stopped (Ctrl-C: the match
under way is finished first) or --games were played; no --match or --token then."""


def register(subparsers: Any, parser_of: Any, run: Any) -> None:
    """Add `seek` (`parser_of` and `run`: cli/client.py's own)."""
    parser = parser_of(subparsers, "seek", "ask to be paired for a (rated) match", SEEK_HELP)
    actions = parser.add_subparsers(dest="action", required=True)
    create = _common(actions.add_parser("create", help="a new seek; prints it"))
    add_seek_arguments(create)
    for name, text in (("show", "the seek, and its match once paired"), ("cancel", "cancel")):
        _common(actions.add_parser(name, help=text)).add_argument("seek_id")
    listing = _common(actions.add_parser("list", help="the open seeks"))
    listing.add_argument("--variant", default=None)
    parser.set_defaults(run=seek, handler=run)


def _common(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument(
        "--base-url",
        default=os.environ.get("DEADWOOD_URL", DEFAULT_URL),
        help=f"the server (default $DEADWOOD_URL or {DEFAULT_URL})",
    )
    add_key_argument(parser)
    parser.add_argument("--json", action="store_true", help="print the answer as JSON")
    return parser


def add_key_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--key", default=os.environ.get("DEADWOOD_KEY"), help="an account key ($DEADWOOD_KEY)"
    )


def add_seek_arguments(parser: argparse.ArgumentParser, variant_required: bool = True) -> None:
    """What a seek asks for: --variant, --clock (and --clock-option), --casual, --seats,
    --option."""
    parser.add_argument(
        "--variant", required=variant_required, help="three-hand-gin | manipulation-rummy"
    )
    conduct.add_clock_arguments(parser)
    parser.add_argument("--casual", action="store_true", help="an unrated match (default rated)")
    parser.add_argument("--seats", type=int, default=None, help="the match's seat count")
    parser.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE", help="a rule option"
    )


def seek(args: argparse.Namespace) -> int:
    from cli.client import parse_options

    with Client(args.base_url, key=args.key) as client:
        if args.action == "create":
            answer: Any = client.seek(
                args.variant,
                clock=conduct.parse_clock(args.clock, args.clock_option),
                rated=not args.casual,
                seats=args.seats,
                options=parse_options(args.option),
            )
        elif args.action == "show":
            answer = client.get_seek(args.seek_id)
        elif args.action == "cancel":
            answer = client.cancel_seek(args.seek_id)
        else:
            answer = client.seeks(args.variant)
    if args.json:
        print(json.dumps(answer, indent=2))
    elif args.action == "list":
        print("\n".join(seek_line(s) for s in answer) or "no seek is open")
    else:
        print(seek_line(answer))
        found = answer.get("match")
        if found:
            print(f"  match {found['id']}, seat {found['seat']}: join it with this key")
    return 0


def seek_line(found: OpenSeek) -> str:
    """`s_... open  three-hand-gin rated per_move 10 s  ana [bot]  until 2026-...`."""
    clock = found.get("clock") or {}
    if clock.get("mode") == "fischer":
        pace = f"fischer {clock.get('initial_s')}+{clock.get('increment_s')}"
    else:
        pace = f"{clock.get('mode', 'no clock')} {clock.get('move_s', '')} s" if clock else ""
    kind = "rated" if found["rated"] else "casual"
    who = found["account"] + (" [bot]" if found["bot"] else "")
    return (
        f"{found['id']} {found['status']}  {found['variant']} {kind} {pace}, "
        f"{found['seats']} seats  {who}  until {found['expires']}"
    )


def play_seek(args: argparse.Namespace, load_bot: Callable[..., Any]) -> int:
    """`deadwood play --seek`: rated (or --casual) matches until stopped or --games."""
    from cli.client import parse_options

    if not args.key or not args.variant:
        print("deadwood play --seek: needs --key (or $DEADWOOD_KEY) and --variant", file=sys.stderr)
        return 2
    try:
        choose = load_bot(args.bot, args.variant, args.seed)
    except Exception as exc:  # an unknown bot name, or a module that fails to import
        print(f"deadwood play: cannot load bot {args.bot!r}: {exc}", file=sys.stderr)
        return 2
    stop = threading.Event()
    restore = _stop_on_signals(stop)

    def show(move: Mapping[str, Any], result: MoveResult) -> None:
        if not args.quiet:
            print(f"v{result['version']} {move_text(move)}", flush=True)

    try:
        with Client(args.base_url, key=args.key) as client:
            finals = play_seeking(
                client,
                args.variant,
                conduct.parse_clock(args.clock, args.clock_option),
                choose,
                games=args.games,
                stop=stop,
                rated=not args.casual,
                seats=args.seats,
                options=parse_options(args.option),
                say=lambda line: print(line, flush=True),
                on_move=show,
            )
    finally:
        restore()
    print(f"played {len(finals)} match{'es' if len(finals) != 1 else ''}", flush=True)
    return 0


def _stop_on_signals(stop: threading.Event) -> Callable[[], None]:
    """SIGINT and SIGTERM set `stop` (the match under way is finished); a second SIGINT is
    the usual KeyboardInterrupt. The function that puts the old handlers back."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    before = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}

    def handle(signum: int, _frame: object) -> None:
        print("stopping after the match under way (Ctrl-C again: at once)", file=sys.stderr)
        stop.set()
        signal.signal(signal.SIGINT, signal.default_int_handler)

    for sig in before:
        signal.signal(sig, handle)

    def restore() -> None:
        for sig, old in before.items():
            signal.signal(sig, old)

    return restore
