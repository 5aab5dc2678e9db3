"""Manipulation Rummy's moves, view and round result, declared once (api.md).

TypedDicts, not dataclasses: see domain/shapes.py for why. A new view field is one key here,
set in views.py; tests/unit/test_declarations.py holds the OpenAPI document and the client
to it.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from domain.lobby_shapes import LobbyView
from domain.shapes import PAYLOADS as SHARED_PAYLOADS
from domain.shapes import Code, OptionsView, Seat, SeatData, Status


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


# --- event payloads (state.py folds them, views.py renders them per seat) -------------------


class DealerChosenData(TypedDict):
    """M3.1: the first dealer."""

    round: int
    dealer: int


class ManipulationRoundDealtData(TypedDict):
    """M3: every hand, the stock (index 0 is the top), the commitment and its salt."""

    round: int
    dealer: int
    hands: list[list[Code]]
    stock: list[Code]
    salt: str
    commitment: str


class ManipulationCardDrawnData(TypedDict):
    """M4: the card drawn and which draw of the turn it is (1-3)."""

    seat: int
    card: Code
    draw: int


class TableMeldedData(TypedDict):
    """M6: the whole table after the move and the cards played from the hand."""

    seat: int
    table: list[list[Code]]
    played: list[Code]


class ManipulationKnockedData(TypedDict):
    """M7: the knocker and his hand's points."""

    seat: int
    points: int


class ManipulationMatchFinishedData(TypedDict):
    """M11: the final scores (with bonuses), the winners, the scores before the bonuses."""

    scores: list[int]
    winners: list[int]
    round_scores: list[int]
    bonuses: list[int]
    ended_by: NotRequired[Literal["max_rounds"]]
    abandoned: NotRequired[list[int]]  # the clock work's seats that rank last (domain/rated.py)


PAYLOADS: dict[str, type] = {
    **SHARED_PAYLOADS,  # MatchCreated and the lobby's events (domain/shapes.py)
    "DealerChosen": DealerChosenData,
    "RoundDealt": ManipulationRoundDealtData,
    "CardDrawn": ManipulationCardDrawnData,
    "StockExhausted": SeatData,
    "TableMelded": TableMeldedData,
    "Passed": SeatData,
    "TurnEnded": SeatData,
    "Knocked": ManipulationKnockedData,
    "RoundScored": ManipulationRoundResult,
    "MatchFinished": ManipulationMatchFinishedData,
}
"""Each Manipulation Rummy event's payload declaration (tests/unit/test_event_payloads.py
checks every recorded event against it)."""
