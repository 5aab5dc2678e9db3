"""The lobby's events and view, declared once (issue 30: strangers at one table).

A match created with open seats waits in a lobby until every seat is taken. Its MatchCreated
carries a `lobby` member (`LobbyCreated`); then each seat taken or given up is an event, and
the match starts (or is cancelled) with one more:

    MatchCreated   {..., players: [{name, bot, open?}], lobby: LobbyCreated}
    SeatJoined     {seat, name, account?, account_bot?}
                                         a person took an open seat (their token is stored
                                         beside the log, never in it); with an account key,
                                         the account and its kind (issue 32)
    SeatLeft       {seat, name}          the seat's holder gave it up before the start
    MatchStarted   {players}             every seat is taken: the role or dealer draw and the
                                         first deal follow at once, in the same append
    MatchCancelled {reason}              `lobby_expired` or `cancelled_by_creator`

All are v1 (domain/upcast.py has nothing to do for them yet); their payloads are declared in
domain/shapes.py beside MatchCreated's (both games share them, `PAYLOADS`) and re-exported
here. `LobbyView` is the `lobby` member of every view (null for a match created without open
seats); `LobbyEntry` is one match of `GET /v1/lobby`.
"""

from __future__ import annotations

from typing import Literal, TypedDict

from domain.shapes import (
    CancelReason,
    LobbyCreated,
    MatchCancelledData,
    MatchStartedData,
    OptionsView,
    SeatJoinedData,
    SeatLeftData,
)

LobbyStatus = Literal["waiting", "started", "cancelled"]

__all__ = [
    "CancelReason",
    "LobbyCreated",
    "LobbyEntry",
    "LobbySeat",
    "LobbyStatus",
    "LobbyView",
    "MatchCancelledData",
    "MatchStartedData",
    "SeatJoinedData",
    "SeatLeftData",
]


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
    account: str | None  # the seat's account (joined with a key, or reserved for it)
    account_bot: bool  # that account's kind is bot


class LobbyEntry(TypedDict):
    """One match waiting for players, as `GET /v1/lobby` lists it."""

    id: str
    variant: Literal["three-hand-gin", "manipulation-rummy"]
    options: OptionsView
    seats: list[LobbySeat]
    created_at: str
    expires_at: str
