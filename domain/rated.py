"""Rated matches (issue 32): which matches may be rated, and how each seat placed.

A match is rated when its MatchCreated options say `rated: true` (both games have the
option, default false). `check_create` is the one rule check of a rated create, called from
`domain.creation.match_created` so both games and the replay checker apply it alike:

- no seed (422 `rated_match_seeded`): a seeded deal is known to whoever knows the seed;
- every seat is an account or a built-in bot, each account at most once (422
  `rated_seat_not_account`): a bot seat is played by its built-in bot's own account
  (`domain.accounts.bot_account`);
- a clock (422 `rated_match_needs_clock`): a rated match's seats must not be able to stall
  it forever; the clock is not an option but its own input (`clock` of the create, pinned in
  MatchCreated: domain/clock.py), so the create path hands it in beside the options.

When the match is over, `result_of(match_id, created, last, between=...)` reads what the
ladder needs from the match's first event, its last one, and the few events between them
whose type is in `BETWEEN` (SeatReplacedByBot), never the whole log:

- a match ends either by MatchFinished or by a conduct event with `ends: true`
  (domain/conduct.py): SeatResigned, VictoryClaimed, or a TurnTimedOut forfeit. Both are
  rated. A match whose last event is neither (still in play) or is MatchAborted (`ABORTED`:
  unscored, never rated) is not rated (None);
- each seat's account comes from MatchCreated's players (`account`, or the bot's account);
  a seat later played by a bot (SeatReplacedByBot) still counts for the account that sat;
- after MatchFinished each seat's score is its `scores` (final, with bonuses; higher is
  better); a match ended by conduct has no final scores, so its `winners` score 1 and the
  other seats 0;
- seats that abandoned rank last: the seat that resigned (SeatResigned `seat`), was claimed
  against (VictoryClaimed `against`) or forfeited on time (TurnTimedOut `seat`), every seat
  replaced by a bot (SeatReplacedByBot: after timeouts, a resignation or a claim in a match
  of more than two seats, which then plays on to MatchFinished), and any seat MatchFinished
  lists in `abandoned` (ABANDONED_FIELD);
- a seat joined after the create (the lobby, issue 30) is tied to its account by the join's
  event: SeatJoined `{"seat", "name", "account"}` (domain/lobby.py, a join with an account
  key). SeatJoined is one of `BETWEEN`, so the store hands the joins in with the other events
  between; `joins` takes more (a seat's last join wins: a seat left and joined again is its
  last joiner's).

`ranks` turns placings into Plackett-Luce ranks: 1 is best, ties share a rank, abandoners
share the last.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from domain import conduct
from domain.accounts import bot_account
from domain.clock import ClockOptions
from domain.errors import InvalidOptions
from domain.events import Event
from domain.shapes import JSON

ABORTED = "MatchAborted"
"""The event of a match that ends without a result (never rated)."""
ABANDONED_FIELD = "abandoned"
"""MatchFinished's optional list of seats that abandoned (they rank last)."""
REPLACED = "SeatReplacedByBot"
JOINED = "SeatJoined"
BETWEEN = (REPLACED, JOINED)
"""The types of the events between the first and the last that a rating reads (the store
reads these and no others: store/rebuild.py)."""
LOSER_OF = {"SeatResigned": "seat", "VictoryClaimed": "against", "TurnTimedOut": "seat"}
"""A conduct event that may end a match, and the field naming the seat that lost by it."""


class RatedMatchSeeded(InvalidOptions):
    """A rated match was asked for with a seed."""

    code = "rated_match_seeded"


class RatedMatchNeedsClock(InvalidOptions):
    """A rated match was asked for without a clock."""

    code = "rated_match_needs_clock"


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
    players: Sequence[Mapping[str, JSON]],
    options: Mapping[str, JSON],
    seed: int | None,
    clock: ClockOptions | None = None,
) -> None:
    """The rules of a rated create (nothing to check for an unrated one); `clock` is the
    create's checked clock (None: the match has none)."""
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
    if clock is None:
        raise RatedMatchNeedsClock(
            "clock is required when options.rated is true: a rated match needs a clock "
            '(e.g. "clock": {"mode": "per_move", "move_s": 60})'
        )


def account_of(player: Mapping[str, JSON]) -> str | None:
    """The account a recorded player plays for: its `account`, or its built-in bot's."""
    account, bot = player.get("account"), player.get("bot")
    if isinstance(account, str) and account:
        return account
    return bot_account(bot) if isinstance(bot, str) and bot else None


def result_of(
    match_id: str,
    created: Event,
    last: Event,
    joins: Iterable[Event] = (),
    between: Iterable[Event] = (),
) -> RatedResult | None:
    """The rated result of a finished rated match; None when it is not one to rate.
    `between`: events between the first and the last (only those of `BETWEEN` are read)."""
    if created.type != "MatchCreated":
        return None
    options = created.data.get("options")
    if not isinstance(options, Mapping) or not is_rated(options):
        return None
    between = tuple(between)
    accounts = _accounts(created, [*(e for e in between if e.type == JOINED), *joins])
    if None in accounts:
        return None
    ended = _ending(last, len(accounts))
    if ended is None:
        return None
    scores, gone = ended
    gone |= _replaced(between)
    placings = tuple(
        Placing(seat, str(account), score, seat in gone)
        for seat, (account, score) in enumerate(zip(accounts, scores, strict=True))
    )
    return RatedResult(match_id, str(created.data.get("variant")), placings)


def _ending(last: Event, seats: int) -> tuple[list[int], set[int]] | None:
    """(each seat's score, the seats that abandoned) of a match's last event, or None when
    it did not end the match with a result (still in play, aborted)."""
    if last.type == "MatchFinished":
        scores = last.data.get("scores")
        if not isinstance(scores, list) or len(scores) != seats:
            return None
        return [int(str(score)) for score in scores], set(_abandoned(last))
    field = LOSER_OF.get(last.type)
    winners = conduct.ending(last.data) if field is not None else None
    loser = last.data.get(field) if field is not None else None
    if winners is None or not isinstance(loser, int) or not 0 <= loser < seats:
        return None
    return [1 if seat in winners else 0 for seat in range(seats)], {loser}


def _replaced(between: Iterable[Event]) -> set[int]:
    """The seats a bot took over during the match (SeatReplacedByBot)."""
    seats = (event.data.get("seat") for event in between if event.type == REPLACED)
    return {seat for seat in seats if isinstance(seat, int)}


def _accounts(created: Event, joins: Iterable[Event]) -> list[str | None]:
    players = created.data.get("players")
    listed = players if isinstance(players, list) else []
    seats = [account_of(p) if isinstance(p, Mapping) else None for p in listed]
    for join in joins:  # a seat joined later is its joiner's (None: joined without a key)
        seat, account = join.data.get("seat"), join.data.get("account")
        if isinstance(seat, int) and 0 <= seat < len(seats):
            seats[seat] = account if isinstance(account, str) else None
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
