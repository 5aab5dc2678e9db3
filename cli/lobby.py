"""The lobby's subcommands (issue 30): `deadwood lobby` lists the matches waiting for players,
`deadwood join` takes a seat (and prints its token, shown once); `deadwood new --open N
--listed` (cli/client.py) makes a match with N open seats. Registered by cli/client.py."""

from __future__ import annotations

import argparse
import os
from typing import Any

from deadwood_client.client import Client

DEFAULT_URL = "http://127.0.0.1:8000"

LOBBY_HELP = """\
examples:
  deadwood lobby                                 every listed match waiting for players,
                                                 then the open seeks (deadwood seek)
  deadwood lobby --variant manipulation-rummy    one game's
"""

JOIN_HELP = """\
examples:
  deadwood join --match m_7Qx... --name dee           the first open seat
  deadwood join --match m_7Qx... --name dee --seat 2  that seat (409 seat_taken if held)
The token is printed once: play with `deadwood play --match ... --token ...`.
"""


def register(subparsers: Any, parser_of: Any, run: Any) -> None:
    """Add `lobby` and `join` (`parser_of` and `run`: cli/client.py's own)."""
    listing = parser_of(subparsers, "lobby", "list the matches waiting for players", LOBBY_HELP)
    _base_url(listing)
    listing.add_argument("--variant", default=None, help="three-hand-gin | manipulation-rummy")
    listing.add_argument("--limit", type=int, default=50, help="matches per page (1-100)")
    listing.set_defaults(run=lobby, handler=run)
    join_parser = parser_of(subparsers, "join", "take an open seat of a match", JOIN_HELP)
    _base_url(join_parser)
    join_parser.add_argument("--match", required=True, help="the match id (m_...)")
    join_parser.add_argument("--name", required=True, help="your name at the table")
    join_parser.add_argument("--seat", type=int, default=None, help="a given open seat")
    join_parser.set_defaults(run=join, handler=run)


def _base_url(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--base-url",
        default=os.environ.get("DEADWOOD_URL", DEFAULT_URL),
        help=f"the server (default $DEADWOOD_URL or {DEFAULT_URL})",
    )


def seat_text(seat: Any) -> str:
    if seat["open"]:
        return f"{seat['seat']}: open"
    return f"{seat['seat']}: {seat['name']}" + (f" (bot {seat['bot']})" if seat["bot"] else "")


def lobby(args: argparse.Namespace) -> int:
    from cli.seek import seek_line

    shown = 0
    cursor = None
    seeks: list[Any] = []
    with Client(args.base_url) as client:
        while True:
            page = client.lobby(variant=args.variant, cursor=cursor, limit=args.limit)
            seeks = seeks or list(page.get("seeks", []))
            for entry in page["matches"]:
                seats = ", ".join(seat_text(s) for s in entry["seats"])
                print(f"{entry['id']}  {entry['variant']}  until {entry['expires_at']}  {seats}")
                shown += 1
            cursor = page["next"]
            if cursor is None:
                break
    if not shown:
        print("no match is waiting for players")
    for found in seeks:  # accounts waiting to be paired (issue 32)
        print(f"seek {seek_line(found)}")
    return 0


def join(args: argparse.Namespace) -> int:
    with Client(args.base_url) as client:
        joined = client.join(args.match, args.name, seat=args.seat)
    shown = joined["match"]["lobby"]
    lobby_status = shown["status"] if shown is not None else "started"
    print(f"seat {joined['seat']} of {joined['id']}: token {joined['token']}")
    print("the match has started" if lobby_status == "started" else "waiting for players")
    print(f"  deadwood play --match {joined['id']} --token {joined['token']} --bot expert")
    return 0
