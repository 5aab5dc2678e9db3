"""Rated matches (issue 32): which matches may be rated, and how each seat placed.

A match is rated when its MatchCreated options say `rated: true` (both games have the
option, default false). `check_create` is the one rule check of a rated create, called from
`domain.creation.match_created` so both games and the replay checker apply it alike:

- no seed (422 `rated_match_seeded`): a seeded deal is known to whoever knows the seed;
- every seat is an account or a built-in bot, each account at most once (422
  `rated_seat_not_account`): a bot seat is played by its built-in bot's own account
  (`domain.accounts.bot_account`);
- CLOCK RULE (issue 31): `_check_clock` is the single place where "a rated match needs a
  clock" goes once the clock work lands; until then it accepts every match.

When the match is over, `result_of(created, last)` reads what the ladder needs from the
match's first event and its last one, never the whole log:

- a match whose last event is not MatchFinished (still in play, or aborted: `ABORTED`) is
  not rated (None);
- each seat's account comes from MatchCreated's players (`account`, or the bot's account);
- each seat's score is MatchFinished's `scores` (final, with bonuses; higher is better);
- a seat listed in MatchFinished's `abandoned` (ABANDONED_FIELD) ranks last. This is the
  hook of the clock work: a seat that timed out, left, or was replaced after timeouts is
  written there by the event that ends the match, so a rating needs no other event.
- LOBBY HOOK (issue 30): a seat joined after the create is tied to its account by the join's
  event; the lobby passes those events as `joins` (each `{"seat", "account"}` in its data).

`ranks` turns placings into Plackett-Luce ranks: 1 is best, ties share a rank, abandoners
share the last.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from domain.accounts import bot_account
from domain.errors import InvalidOptions
from domain.events import Event
from domain.shapes import JSON

ABORTED = "MatchAborted"
"""The event a match that ends without a result would end with (the clock work's abort)."""
ABANDONED_FIELD = "abandoned"
"""MatchFinished's list of seats that abandoned or were replaced (they rank last)."""


class RatedMatchSeeded(InvalidOptions):
    """A rated match was asked for with a seed."""

    code = "rated_match_seeded"


class RatedSeatNotAccount(InvalidOptions):
    """A rated match's seat is neither an account nor a built-in bot, or an account sits twice."""

    code = "rated_seat_not_account"


@dataclass(frozen=True, slots=True)
class Placing:
    """One seat's part in a finished rated match."""

    seat: int
    account: str
    score: int
    abandoned: bool = False


@dataclass(frozen=True, slots=True)
class RatedResult:
    """A finished rated match as the ladder rates it: a free-for-all of its seats."""

    match_id: str
    variant: str
    placings: tuple[Placing, ...]

    def ranks(self) -> tuple[int, ...]:
        return ranks(self.placings)

    def accounts(self) -> tuple[str, ...]:
        return tuple(p.account for p in self.placings)


def is_rated(options: Mapping[str, JSON]) -> bool:
    return options.get("rated") is True


def is_rated_state(state: object) -> bool:
    """True for the state of a rated match (every game's state holds its options)."""
    return getattr(getattr(state, "options", None), "rated", False) is True


def check_create(
    players: Sequence[Mapping[str, JSON]], options: Mapping[str, JSON], seed: int | None
) -> None:
    """The rules of a rated create (nothing to check for an unrated one)."""
    if not is_rated(options):
        return
    if seed is not None:
        raise RatedMatchSeeded("a rated match deals from a secret key: leave out the seed")
    seen: set[str] = set()
    for seat, player in enumerate(players):
        account = account_of(player)
        if account is None:
            raise RatedSeatNotAccount(
                f"player {seat} of a rated match must be an account or a built-in bot"
            )
        if account in seen:
            raise RatedSeatNotAccount(f"account {account!r} sits twice in one rated match")
        seen.add(account)
    _check_clock(options)


def _check_clock(options: Mapping[str, JSON]) -> None:
    """CLOCK RULE (issue 31): a rated match needs a clock. Accepts all until clocks land."""
    del options


def account_of(player: Mapping[str, JSON]) -> str | None:
    """The account a recorded player plays for: its `account`, or its built-in bot's."""
    account, bot = player.get("account"), player.get("bot")
    if isinstance(account, str) and account:
        return account
    return bot_account(bot) if isinstance(bot, str) and bot else None


def result_of(
    match_id: str, created: Event, last: Event, joins: Iterable[Event] = ()
) -> RatedResult | None:
    """The rated result of a finished rated match; None when it is not one to rate."""
    if created.type != "MatchCreated" or last.type != "MatchFinished":
        return None
    options = created.data.get("options")
    if not isinstance(options, Mapping) or not is_rated(options):
        return None
    accounts = _accounts(created, joins)
    scores = last.data.get("scores")
    if not isinstance(scores, list) or len(scores) != len(accounts) or None in accounts:
        return None
    gone = _abandoned(last)
    placings = tuple(
        Placing(seat, str(account), int(str(score)), seat in gone)
        for seat, (account, score) in enumerate(zip(accounts, scores, strict=True))
    )
    return RatedResult(match_id, str(created.data.get("variant")), placings)


def _accounts(created: Event, joins: Iterable[Event]) -> list[str | None]:
    players = created.data.get("players")
    listed = players if isinstance(players, list) else []
    seats = [account_of(p) if isinstance(p, Mapping) else None for p in listed]
    for join in joins:  # LOBBY HOOK: a seat joined later is its joiner's
        seat, account = join.data.get("seat"), join.data.get("account")
        if isinstance(seat, int) and 0 <= seat < len(seats) and isinstance(account, str):
            seats[seat] = account
    return seats


def _abandoned(last: Event) -> frozenset[int]:
    seats = last.data.get(ABANDONED_FIELD)
    if not isinstance(seats, list):
        return frozenset()
    return frozenset(s for s in seats if isinstance(s, int))


def ranks(placings: Sequence[Placing]) -> tuple[int, ...]:
    """1 for the best score; equal scores share a rank; every abandoner ranks after all who
    stayed (sharing the last rank)."""
    staying = sorted({p.score for p in placings if not p.abandoned}, reverse=True)
    rank_of = {score: index + 1 for index, score in enumerate(staying)}
    last = len(staying) + 1
    return tuple(last if p.abandoned else rank_of[p.score] for p in placings)
