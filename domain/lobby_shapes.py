"""The lobby's events and view, declared once (issue 30: strangers at one table).

A match created with open seats waits in a lobby until every seat is taken. Its MatchCreated
carries a `lobby` member (`LobbyCreated`); then each seat taken or given up is an event, and
the match starts (or is cancelled) with one more:

    MatchCreated   {..., players: [{name, bot, open?}], lobby: LobbyCreated}
    SeatJoined     {seat, name}          a person took an open seat (their token is stored
                                         beside the log, never in it)
    SeatLeft       {seat, name}          the seat's holder gave it up before the start
    MatchStarted   {players}             every seat is taken: the role or dealer draw and the
                                         first deal follow at once, in the same append
    MatchCancelled {reason}              `lobby_expired` or `cancelled_by_creator`

All are v1 (domain/upcast.py has nothing to do for them yet). `LobbyView` is the `lobby`
member of every view (null for a match created without open seats); `LobbyEntry` is one
match of `GET /v1/lobby`.
"""

from __future__ import annotations

from typing import Literal, TypedDict

from domain.shapes import OptionsView

LobbyStatus = Literal["waiting", "started", "cancelled"]
CancelReason = Literal["lobby_expired", "cancelled_by_creator"]


class LobbyCreated(TypedDict):
    """MatchCreated's `lobby` member: how the match waits for its players."""

    listed: bool
    ttl_s: int
    expires_ms: int  # epoch milliseconds: the deadline the store compares with its clock
    expires_at: str  # the same deadline in RFC 3339 UTC, for people
    creator_seats: list[int]  # the seats the creator holds tokens of (may cancel)
    rematch_of: str | None  # the finished match this one replays, its seats reserved


class PlayerData(TypedDict):
    name: str
    bot: str | None


class SeatJoinedData(TypedDict):
    seat: int
    name: str


class SeatLeftData(TypedDict):
    seat: int
    name: str


class MatchStartedData(TypedDict):
    players: list[PlayerData]


class MatchCancelledData(TypedDict):
    reason: CancelReason


class LobbyView(TypedDict):
    """A match's lobby as every view shows it (the same for every seat)."""

    status: LobbyStatus
    listed: bool
    expires_at: str
    open_seats: list[int]
    rematch_of: str | None
    cancelled: CancelReason | None


class LobbySeat(TypedDict):
    seat: int
    name: str
    bot: str | None
    open: bool


class LobbyEntry(TypedDict):
    """One match waiting for players, as `GET /v1/lobby` lists it."""

    id: str
    variant: Literal["three-hand-gin", "manipulation-rummy"]
    options: OptionsView
    seats: list[LobbySeat]
    created_at: str
    expires_at: str
