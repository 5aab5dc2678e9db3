"""Manipulation Rummy's moves, view and round result, declared once (api.md).

TypedDicts, not dataclasses: see domain/shapes.py for why. A new view field is one key here,
set in views.py; tests/unit/test_declarations.py holds the OpenAPI document and the client
to it.
"""

from __future__ import annotations

from typing import NotRequired, TypedDict

from domain.lobby_shapes import LobbyView
from domain.shapes import Code, OptionsView, Seat, Status


class ManipulationMove(TypedDict):
    """One move: `draw`, `meld` (the whole `table` after), `knock`, `end_turn`, `pass`;
    SYSTEM's `score_round` and `deal`."""

    type: str
    table: NotRequired[list[list[Code]]]


class ManipulationSeat(Seat):
    """Who sits at a seat: nothing more than every game shows."""


class ManipulationYou(TypedDict):
    seat: int
    hand: list[Code]
    legal_moves: list[ManipulationMove]


class ManipulationRoundResult(TypedDict):
    """A scored round (M10)."""

    round: int
    outcome: str
    hands: list[list[Code]]
    points: list[int]
    winners: list[int]
    knocker: int | None
    hand_points: list[int]


class ManipulationView(TypedDict):
    """The match as one seat (or a spectator) may see it, without the API's `id`."""

    variant: str
    version: int
    seeded: bool
    status: Status
    options: OptionsView
    round: int
    phase: str
    turn: int | None
    seats: list[ManipulationSeat]
    scores: list[int]
    winners: list[int]
    stock_size: int
    rounds: list[ManipulationRoundResult]
    deal_commitment: str | None
    you: ManipulationYou | None
    dealer: int | None
    table: list[list[Code]]
    draws_this_turn: int
    rounds_won: list[int]
    final_turns_left: int
    lobby: LobbyView | None  # null for a match created with every seat given (issue 30)
