"""Three-hand gin's moves, view and round result, declared once (api.md "Moves", "Views").

TypedDicts, not dataclasses: see domain/shapes.py for why. A move arrives as JSON and is
parsed once into `domain.gin.parse.Move` (which refuses a malformed one, naming the field);
`GinMove` is its JSON shape, the one `legal_moves` lists and `decide` takes. A new view field
is one key here, set in views.py; tests/unit/test_declarations.py then holds the OpenAPI
document (api/contract_views.py) and the client (deadwood_client/types.py) to it.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from domain.lobby_shapes import LobbyView
from domain.shapes import PAYLOADS as SHARED_PAYLOADS
from domain.shapes import Code, OptionsView, Seat, Status

Role = Literal["box", "captain", "advisor"]
Source = Literal["stock", "discard"]

AdvisedMove = TypedDict(
    "AdvisedMove",
    {
        "type": str,
        "from": NotRequired[Source],
        "card": NotRequired[Code],
        "melds": NotRequired[list[list[Code]]],
    },
)
"""A play move the advisor suggests (take_upcard, pass_upcard, draw, discard, knock)."""

GinMove = TypedDict(
    "GinMove",
    {
        "type": str,
        "from": NotRequired[Source],
        "card": NotRequired[Code],
        "melds": NotRequired[list[list[Code]]],
        "text": NotRequired[str],
        "move": NotRequired[AdvisedMove],
    },
)
"""One move: `take_upcard`, `pass_upcard`, `draw` (from), `discard` (card), `knock` (card,
melds), `advise` (text, move); SYSTEM's `draw_roles`, `deal`, `score_round`, `finish`."""


class Roles(TypedDict):
    box: int
    captain: int
    advisor: int


class GinSeat(Seat):
    role: Role | None


class KnockView(TypedDict):
    """The knocker's spread while it is on the table (G6.3); the knock card stays hidden."""

    seat: int
    melds: list[list[Code]]
    deadwood_cards: list[Code]
    count: int
    gin: bool


class GinYou(TypedDict):
    seat: int
    role: Role | None
    hand: list[Code]
    legal_moves: list[GinMove]
    team_hand: NotRequired[list[Code] | None]
    """The advisor only: the captain's hand when the options let him see it (G1.4)."""


class GinRoundResult(TypedDict):
    """A scored hand (G7), as RoundScored records it: `melds` and `deadwood` per seat."""

    round: int
    outcome: Literal["draw", "knock", "gin", "undercut"]
    hands: list[list[Code] | None]
    points: list[int]
    winners: list[int]
    knocker: int | None
    box: NotRequired[int]
    captain: NotRequired[int]
    advisor: NotRequired[int]
    melds: NotRequired[list[list[list[Code]] | None]]
    layoffs: NotRequired[list[Code]]
    deadwood: NotRequired[list[int | None]]
    scores: list[int]


class GinView(TypedDict):
    """The match as one seat (or a spectator) may see it, without the API's `id`."""

    variant: str
    version: int
    seeded: bool
    status: Status
    options: OptionsView
    round: int
    phase: str
    turn: int | None
    seats: list[GinSeat]
    scores: list[int]
    winners: list[int]
    stock_size: int
    rounds: list[GinRoundResult]
    deal_commitment: str | None
    roles: Roles | None
    discard_top: Code | None
    discard_size: int
    discard_pile: list[Code]
    picked: list[list[Code]]
    knock: KnockView | None
    you: GinYou | None
    lobby: LobbyView | None  # null for a match created with every seat given (issue 30)


# --- event payloads (state.py folds them, views.py renders them per seat) -------------------


class RoleDraw(TypedDict):
    seat: int
    card: Code


class RolesDrawnData(TypedDict):
    """G1.2: each round of draws (a tied group draws again), the tiebreak, the roles."""

    draws: list[list[RoleDraw]]
    tiebreak: str
    box: int
    captain: int
    advisor: int


class GinRoundDealtData(TypedDict):
    """G4: the hands (None for ADVISOR's), the upcard, the stock (index 0 is the top), the
    commitment and its salt."""

    round: int
    box: int
    captain: int
    advisor: int
    hands: list[list[Code] | None]
    upcard: Code
    stock: list[Code]
    salt: str
    commitment: str


class CardPlayedData(TypedDict):
    """UpcardPassed, UpcardTaken, CardDiscarded: the seat and the card (G5.1, G5.2)."""

    seat: int
    card: Code


CardDrawnData = TypedDict("CardDrawnData", {"seat": int, "from": Source, "card": Code})
"""G5.2.1: the pile drawn from and the card."""


class KnockedData(TypedDict):
    """G6: the face-down card, the knocker's spread and its deadwood."""

    seat: int
    card: Code
    melds: list[list[Code]]
    deadwood_cards: list[Code]
    count: int
    gin: bool


class AdviceGivenData(TypedDict):
    """G1.4: the advice and the play it suggests, for CAPTAIN."""

    seat: int
    captain: int
    text: str
    move: AdvisedMove | None


class GinMatchFinishedData(TypedDict):
    """G8: the final scores (with bonuses), the winners, the totals before the bonuses."""

    scores: list[int]
    winners: list[int]
    totals: list[int]
    bonuses: list[int]
    ended_by: NotRequired[Literal["max_rounds"]]
    abandoned: NotRequired[list[int]]  # the clock work's seats that rank last (domain/rated.py)


PAYLOADS: dict[str, type] = {
    **SHARED_PAYLOADS,  # MatchCreated and the lobby's events (domain/shapes.py)
    "RolesDrawn": RolesDrawnData,
    "RoundDealt": GinRoundDealtData,
    "UpcardPassed": CardPlayedData,
    "UpcardTaken": CardPlayedData,
    "CardDrawn": CardDrawnData,
    "CardDiscarded": CardPlayedData,
    "Knocked": KnockedData,
    "AdviceGiven": AdviceGivenData,
    "RoundScored": GinRoundResult,
    "MatchFinished": GinMatchFinishedData,
}
"""Each gin event's payload declaration (tests/unit/test_event_payloads.py checks every
recorded event against it)."""
