"""The events time and conduct cause, for both games: timeouts, bots taking seats, aborts,
resignations and claims (issue 31).

The store decides WHEN (it has the clock and the presence); this module says WHAT each of
these events records and how a game folds it, so a replay needs no clock:

    TurnTimedOut       {seat, timeouts, action, ends, winners}   then the auto move's events
    SeatReplacedByBot  {seat, bot, reason}                        the seat's player gets `bot`
    MatchAborted       {by, reason, ends, winners: []}            unscored, unrated end
    SeatResigned       {seat, ends, winners}
    VictoryClaimed     {seat, against, ends, winners}
    MatchStalled       {job, error}                               a system job used its retries
    BotMoveFailed      {seat, bot, job, error}                    then the random bot's move

An event with `ends: true` finishes the match with its `winners` (each game's fold calls
`ending`); SeatReplacedByBot changes one player (`replaced`). `check` is what `deadwood
verify` (domain/log_check.py) asks of such an event in an uploaded log.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Literal, cast

from domain.clock_shapes import (
    BotMoveFailedData,
    MatchAbortedData,
    MatchStalledData,
    SeatReplacedByBotData,
    SeatResignedData,
    TurnTimedOutData,
    VictoryClaimedData,
)
from domain.events import Event
from domain.players import Player
from domain.shapes import JSON, JSONObject, json_int, json_list

MAY_END = ("TurnTimedOut", "MatchAborted", "SeatResigned", "VictoryClaimed")
"""The events that may end a match (`ends: true`, with its `winners`)."""

TYPES = (
    "TurnTimedOut",
    "SeatReplacedByBot",
    "MatchAborted",
    "SeatResigned",
    "VictoryClaimed",
    "MatchStalled",
    "BotMoveFailed",
)


def _event(kind: str, data: Mapping[str, object]) -> Event:
    """An event of a declared payload (its TypedDict holds JSON values only)."""
    return Event(kind, cast("JSONObject", data))


def _others(seats: int, seat: int) -> list[int]:
    return [s for s in range(seats) if s != seat]


def turn_timed_out(seat: int, timeouts: int, seats: int, forfeit: bool) -> Event:
    """The timeout of `seat` (its `timeouts`-th); a forfeit ends a two-seat match (with more
    seats the store puts a bot in the seat: SeatReplacedByBot)."""
    ends = forfeit and seats == 2
    data: TurnTimedOutData = {
        "seat": seat,
        "timeouts": timeouts,
        "action": "forfeit" if forfeit else "autoplay",
        "ends": ends,
        "winners": _others(seats, seat) if ends else [],
    }
    return _event("TurnTimedOut", data)


Reason = Literal["timeouts", "resigned", "claimed"]


def seat_replaced(seat: int, bot: str, reason: Reason) -> Event:
    data: SeatReplacedByBotData = {"seat": seat, "bot": bot, "reason": reason}
    return _event("SeatReplacedByBot", data)


def match_aborted(by: int | None) -> Event:
    data: MatchAbortedData = {
        "by": by,
        "reason": "aborted" if by is not None else "no_first_move",
        "ends": True,
        "winners": [],
    }
    return _event("MatchAborted", data)


def resigned(seat: int, seats: int, bot: str) -> tuple[Event, ...]:
    """A resignation: two seats, the other wins; more, `bot` plays the seat on."""
    ends = seats == 2
    data: SeatResignedData = {
        "seat": seat,
        "ends": ends,
        "winners": _others(seats, seat) if ends else [],
    }
    event = _event("SeatResigned", data)
    return (event,) if ends else (event, seat_replaced(seat, bot, "resigned"))


def claimed(seat: int, against: int, seats: int, bot: str) -> tuple[Event, ...]:
    """A claim against the absent seat to act: two seats, a victory; more, a bot replaces it."""
    ends = seats == 2
    data: VictoryClaimedData = {
        "seat": seat,
        "against": against,
        "ends": ends,
        "winners": [seat] if ends else [],
    }
    event = _event("VictoryClaimed", data)
    return (event,) if ends else (event, seat_replaced(against, bot, "claimed"))


def bot_move_failed(seat: int, bot: str, job: str, error: str) -> Event:
    data: BotMoveFailedData = {"seat": seat, "bot": bot, "job": job, "error": error}
    return _event("BotMoveFailed", data)


def match_stalled(job: str, error: str) -> Event:
    data: MatchStalledData = {"job": job, "error": error}
    return _event("MatchStalled", data)


def ending(data: Mapping[str, JSON]) -> tuple[int, ...] | None:
    """The winners when the event ends the match, else None."""
    if data.get("ends") is not True:
        return None
    return tuple(json_int(w) for w in json_list(data.get("winners")))


def replaced(players: Sequence[Player], data: Mapping[str, JSON]) -> tuple[Player, ...]:
    """The players after SeatReplacedByBot."""
    seat, bot = json_int(data["seat"]), str(data["bot"])
    return tuple(replace(p, bot=bot) if s == seat else p for s, p in enumerate(players))


def check(event: Event, seats: int, to_act: int | None) -> str | None:
    """Why a recorded conduct event could not have been written here (None: it could)."""
    data = event.data
    seat = data.get("seat", data.get("by"))
    if seat is not None and not (isinstance(seat, int) and 0 <= seat < seats):
        return f"{event.type} names seat {seat!r}, not a seat of this match"
    if event.type in ("TurnTimedOut", "BotMoveFailed") and seat != to_act:
        return f"{event.type} names seat {seat}, but seat {to_act} was to act"
    if event.type == "VictoryClaimed" and data.get("against") != to_act:
        return "VictoryClaimed is against a seat that was not to act"
    winners = ending(data)
    if winners is not None and not all(0 <= w < seats for w in winners):
        return f"{event.type} names winners that are not seats"
    return None
