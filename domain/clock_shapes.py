"""The shapes of clocks and of the events time causes (issue 31), declared once.

The option (`clock` of a create and of MatchCreated), the payload of each event a clock, an
abort, a resignation or a claim appends, and the `clock` member the store adds to a view at
render time. An event that ends the match carries `ends: true` and its `winners`, so both
games fold it alike (domain/conduct.py).
"""

from __future__ import annotations

from typing import Literal, TypedDict

Mode = Literal["per_move", "fischer"]
OnTimeout = Literal["autoplay", "forfeit"]


class ClockJSON(TypedDict):
    """A match's clock options (domain/clock.py says what each does)."""

    mode: Mode
    move_s: int
    initial_s: int
    increment_s: int
    on_timeout: OnTimeout
    autoplay_bot: str
    max_timeouts: int
    first_move_s: int
    claim_after_s: int


class TurnTimedOutData(TypedDict):
    """The seat to act ran out of time. `action` autoplay: the next events are the move its
    autoplay bot made (the auto move); forfeit: the match ends (`ends`, `winners`)."""

    seat: int
    timeouts: int  # this seat's timeouts so far, this one included
    action: Literal["autoplay", "forfeit"]
    ends: bool
    winners: list[int]


class SeatReplacedByBotData(TypedDict):
    """From now on `bot` plays `seat` (too many timeouts, a resignation, a claim)."""

    seat: int
    bot: str
    reason: Literal["timeouts", "resigned", "claimed"]


class MatchAbortedData(TypedDict):
    """The match ended unscored and unrated: `by` a seat, or None when nobody started."""

    by: int | None
    reason: Literal["aborted", "no_first_move"]
    ends: bool
    winners: list[int]


class SeatResignedData(TypedDict):
    """`seat` gave up: with two seats the other wins (`ends`); with more a bot plays on."""

    seat: int
    ends: bool
    winners: list[int]


class VictoryClaimedData(TypedDict):
    """`seat` claimed against `against`, absent while to act: two seats, `seat` wins."""

    seat: int
    against: int
    ends: bool
    winners: list[int]


class EventClock(TypedDict):
    """The clock beside an event of a clocked match (the last of each append), as the events
    pages, the live stream and the export show it (Lichess's `%clk`): what each seat had left
    right after it, and the running turn's deadline. The fold never reads it."""

    left_ms: list[int]
    timeouts: list[int]
    turn_seat: int | None
    deadline_ms: int | None


class SeatClockView(TypedDict):
    """One seat's clock in a view: what it has left now, and whether it is running."""

    seat: int
    left_ms: int
    running: bool
    timeouts: int
    present: bool | None  # None in a move's answer (presence is read for views only)


class ClockView(TypedDict):
    """The `clock` member of a clocked match's view (null without a clock)."""

    options: ClockJSON
    seats: list[SeatClockView]
    turn_seat: int | None
    deadline: str | None  # RFC 3339 UTC: when the seat to act times out
    deadline_ms: int | None  # the same, in Unix milliseconds
    abortable: bool
    stalled: str | None  # a system job that used its retries (what failed), or None


class BotMoveFailedData(TypedDict):
    """The bot of `seat` failed on its job's last attempt (`job`, the error's class): the
    next events are the `random` bot's legal move in its place."""

    seat: int
    bot: str
    job: str
    error: str


class MatchStalledData(TypedDict):
    """A system job (`job`) failed after its retries (`error`: the exception's class); the
    match waits for an operator (the view's `stalled`, /v1/health's `stalled`)."""

    job: str
    error: str
