"""`deadwood abort|resign|claim --match ID --token T` (issue 31), and `deadwood new --clock`.

    deadwood abort  --match m_7Qx --token 3kq   end a clocked match nobody has fully started
    deadwood resign --match m_7Qx --token 3kq   give up this seat
    deadwood claim  --match m_7Qx --token 3kq   claim against the absent seat to act; early,
                                                 it says how many seconds are left
A clock for `deadwood new`: `--clock per_move:30` (30 s a move) or `--clock fischer:300+5`
(a bank of 300 s, 5 s more a move), and `--clock-option KEY=VALUE` for the others
(on_timeout, autoplay_bot, max_timeouts, first_move_s, claim_after_s).
"""

from __future__ import annotations

import argparse
from typing import Any

from deadwood_client import Client
from deadwood_client.errors import ClaimNotAvailable

ACTIONS = {
    "abort": "abort a clocked match before every seat has moved (unscored)",
    "resign": "resign this seat (two seats: the other wins; more: a bot plays on)",
    "claim": "claim against the seat to act when it has been absent claim_after_s",
}


def register(subparsers: Any, parser_of: Any, server_arguments: Any, runner: Any) -> None:
    for name, summary in ACTIONS.items():
        parser = parser_of(subparsers, name, summary, __doc__ or "")
        server_arguments(parser, token_required=True)
        parser.set_defaults(run=act, action=name, handler=runner)


def act(args: argparse.Namespace) -> int:
    with Client(args.base_url, args.token) as client:
        try:
            result = getattr(client, args.action)(args.match)
        except ClaimNotAvailable as early:
            print(f"deadwood claim: not yet: {early.seconds_left} s left")
            return 1
    kinds = ", ".join(event["type"] for event in result["events"])
    match = result["match"]
    print(f"{args.match}: {kinds}; version {result['version']}, {match['status']}")
    if match["status"] == "finished":
        print(f"winners {match['winners']}")
    return 0


def add_clock_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--clock", help="per_move:SECONDS or fischer:INITIAL+INCREMENT (default: no clock)"
    )
    parser.add_argument(
        "--clock-option", action="append", default=[], metavar="KEY=VALUE", help="a clock option"
    )


def parse_clock(spec: str | None, extra: list[str]) -> dict[str, Any] | None:
    """The create's `clock` of `--clock` and `--clock-option`s (None: no clock)."""
    if not spec:
        return None
    mode, _, value = spec.partition(":")
    clock: dict[str, Any] = {"mode": mode}
    if mode == "fischer":
        initial, _, increment = value.partition("+")
        clock.update(initial_s=int(initial), increment_s=int(increment or 0))
    else:
        clock["move_s"] = int(value)
    for item in extra:
        key, _, text = item.partition("=")
        clock[key] = int(text) if text.lstrip("-").isdigit() else text
    return clock
