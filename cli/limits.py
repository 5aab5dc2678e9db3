"""The rate limits `deadwood up` turns on by default (issue 11; api/ratelimit.py counts them).

    creates  20 per minute, per client address                 --rate-create
    moves    4 per second and 120 per minute, per seat token   --rate-moves
             40 per second and 1200 per minute, per address    --rate-moves-address
    hints    1 per second and 30 per minute, per seat token    --rate-hints
             4 per second and 120 per minute, per address      --rate-hints-address
    any      20 per second and 600 per minute, per account key  --rate-key (issue 32)

A person makes a move every few seconds at most, and a bot client over HTTP well under 4 a
second per seat once it waits for its turn; ten seats' worth per address lets one machine run
a table of bots. A flag wins over the environment (`DEADWOOD_RATELIMIT_CREATE`,
`DEADWOOD_RATELIMIT_MOVES`, `DEADWOOD_RATELIMIT_MOVES_ADDRESS`), which wins over the default;
`off` turns a limit off. Limits are strings of the `limits` package ("30 per minute",
"5/second", several joined by ";").
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable

DEFAULTS: tuple[tuple[str, str, str, str], ...] = (
    ("rate_create", "DEADWOOD_RATELIMIT_CREATE", "20 per minute", "creates per address"),
    ("rate_moves", "DEADWOOD_RATELIMIT_MOVES", "4 per second; 120 per minute", "moves per seat"),
    (
        "rate_moves_address",
        "DEADWOOD_RATELIMIT_MOVES_ADDRESS",
        "40 per second; 1200 per minute",
        "moves per address",
    ),
    ("rate_hints", "DEADWOOD_RATELIMIT_HINTS", "1 per second; 30 per minute", "hints per seat"),
    (
        "rate_hints_address",
        "DEADWOOD_RATELIMIT_HINTS_ADDRESS",
        "4 per second; 120 per minute",
        "hints per address",
    ),
    ("rate_key", "DEADWOOD_RATELIMIT_KEY", "20 per second; 600 per minute", "requests per key"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    for attr, env, default, what in DEFAULTS:
        flag = "--" + attr.replace("_", "-")
        text = f"{what} (default {default!r}, or ${env}; 'off' disables)"
        parser.add_argument(flag, dest=attr, default=None, metavar="LIMIT", help=text)


def limits_env(args: argparse.Namespace, say: Callable[[str], None]) -> dict[str, str]:
    """The DEADWOOD_RATELIMIT_* variables for the API: flag, else environment, else default."""
    chosen: dict[str, str] = {}
    shown: list[str] = []
    for attr, env, default, what in DEFAULTS:
        value = getattr(args, attr, None) or os.environ.get(env) or default
        chosen[env] = value
        shown.append(f"{what}: {value}")
    say("rate limits: " + " | ".join(shown))
    return chosen
