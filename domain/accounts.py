"""Accounts (issue 32): handles, kinds, key scopes and the built-in bots' own accounts.

An account is a `handle` (3 to 24 characters of `a-z 0-9 _ -`, starting with a letter or a
digit) of one `kind`: `human` or `bot`. The kind is chosen once and never changes, so a bot
is shown as a bot in every view of it. Handles that start with `deadwood-` belong to the
built-in bots (`deadwood-expert` plays the `expert` seats of both games) and cannot be taken.

An API key carries scopes, each a right of its own:

    create_matches   create matches as the account (POST /v1/matches with the key)
    join_seats       take a seat of a match for the account (the lobby's join, issue 30)
    play_rated       create and play rated matches
"""

from __future__ import annotations

import re

from domain.errors import InvalidOptions

HUMAN = "human"
BOT = "bot"
KINDS = (HUMAN, BOT)

CREATE_MATCHES = "create_matches"
JOIN_SEATS = "join_seats"
PLAY_RATED = "play_rated"
SCOPES = (CREATE_MATCHES, JOIN_SEATS, PLAY_RATED)

BUILTIN_PREFIX = "deadwood-"
HANDLE_RULE = "3 to 24 characters of a-z, 0-9, '_' and '-', starting with a letter or digit"
_HANDLE = re.compile(r"[a-z0-9][a-z0-9_-]{2,23}")


class InvalidHandle(InvalidOptions):
    """A handle that breaks the handle rule, or one reserved for the built-in bots."""

    code = "invalid_handle"


def check_handle(handle: object) -> str:
    """The handle, or InvalidHandle naming the rule it breaks."""
    if not isinstance(handle, str) or not _HANDLE.fullmatch(handle):
        raise InvalidHandle(f"handle {str(handle)[:40]!r} is not {HANDLE_RULE}")
    return handle


def check_new_handle(handle: object) -> str:
    """A handle a person or a bot author may take (not one of the built-in bots')."""
    checked = check_handle(handle)
    if is_builtin(checked):
        raise InvalidHandle(f"handles starting {BUILTIN_PREFIX!r} belong to the built-in bots")
    return checked


def check_scopes(scopes: object) -> tuple[str, ...]:
    """The scopes in their canonical order; InvalidOptions names an unknown one."""
    if not isinstance(scopes, list | tuple) or not scopes:
        raise InvalidOptions(f"scopes must be a non-empty list of {', '.join(SCOPES)}")
    for scope in scopes:
        if scope not in SCOPES:
            raise InvalidOptions(f"scope {scope!r} is unknown: expected one of {', '.join(SCOPES)}")
    return tuple(s for s in SCOPES if s in scopes)


def bot_account(bot: str) -> str:
    """The account of a built-in bot (the same in both games: one handle, a rating per game)."""
    return BUILTIN_PREFIX + bot


def is_builtin(handle: str) -> bool:
    return handle.startswith(BUILTIN_PREFIX)
