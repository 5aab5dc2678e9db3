"""The shapes of api.md as TypedDicts: what the client sends and what it gets back.

They are plain JSON dicts at run time (card codes stay strings like "7H" or "JK=8S"), so a
bot can pass them on, print them or store them as they are; the types are for the reader
and for a type checker. Keys marked NotRequired belong to one variant only. Each game's
shapes are declared in domain/gin/shapes.py and domain/manipulation/shapes.py;
tests/unit/test_declarations.py checks these types against them key by key.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict


class ClockOptions(TypedDict):
    """A match's clock (issue 31; domain/clock_shapes.py ClockJSON)."""

    mode: Literal["per_move", "fischer"]
    move_s: int
    initial_s: int
    increment_s: int
    on_timeout: Literal["autoplay", "forfeit"]
    autoplay_bot: str
    max_timeouts: int
    first_move_s: int
    claim_after_s: int


class SeatClock(TypedDict):
    """One seat's clock in a view (domain/clock_shapes.py SeatClockView)."""

    seat: int
    left_ms: int
    running: bool
    timeouts: int
    present: bool | None


class ClockView(TypedDict):
    """The `clock` of a clocked match's view (domain/clock_shapes.py ClockView)."""

    options: ClockOptions
    seats: list[SeatClock]
    turn_seat: int | None
    deadline: str | None
    deadline_ms: int | None
    abortable: bool
    stalled: str | None


Card = str
"""A two-character card code: rank A 2-9 T J Q K + suit C D H S; `JK`, `JK=8S` (api.md)."""

Move = TypedDict(
    "Move",
    {
        "type": str,
        "from": NotRequired[Literal["stock", "discard"]],
        "card": NotRequired[Card],
        "melds": NotRequired[list[list[Card]]],
        "table": NotRequired[list[list[Card]]],
        "text": NotRequired[str],
        "move": NotRequired[dict[str, Any]],
    },
)
"""One move of api.md "Moves", e.g. `{"type": "discard", "card": "7H"}`."""


class Player(TypedDict):
    name: NotRequired[str]
    bot: NotRequired[str | None]
    open: NotRequired[bool]
    """An open seat (`{"open": True}`, no name): anyone may join it (issue 30)."""
    account: NotRequired[str]
    """The caller's own account's seat (with its key), or an open seat reserved for that
    account: only its key joins it (issue 32)."""


class CreatedSeat(TypedDict):
    seat: int
    name: str
    bot: str | None
    token: str | None
    """The seat's bearer token, shown only in this response (None for a bot or open seat)."""
    open: bool


class LobbyView(TypedDict):
    """How a match waits for its players (domain/lobby_shapes.py)."""

    status: Literal["waiting", "started", "cancelled"]
    listed: bool
    expires_at: str
    open_seats: list[int]
    rematch_of: str | None
    cancelled: Literal["lobby_expired", "cancelled_by_creator"] | None


class Created(TypedDict):
    id: str
    variant: str
    version: int
    seeded: bool
    options: dict[str, Any]
    seats: list[CreatedSeat]
    lobby: LobbyView | None


class Seat(TypedDict):
    seat: int
    name: str
    bot: str | None
    hand_size: int
    open: bool
    account: str | None
    """The account that holds (or, open, is reserved) the seat (issue 32), else None."""
    account_bot: bool
    """True when that account is a bot account."""
    role: NotRequired[str | None]


class You(TypedDict):
    seat: int
    hand: list[Card]
    legal_moves: list[Move]
    role: NotRequired[str | None]
    team_hand: NotRequired[list[Card] | None]


class Roles(TypedDict):
    box: int
    captain: int
    advisor: int


class Knock(TypedDict):
    """Three-hand gin: the knocker's spread while it is on the table (G6.3)."""

    seat: int
    melds: list[list[Card]]
    deadwood_cards: list[Card]
    count: int
    gin: bool


class RoundResult(TypedDict):
    """One round's result (api.md "Views"); the variant's own keys are NotRequired."""

    round: int
    outcome: str
    hands: list[list[Card] | None]
    points: list[int]
    winners: list[int]
    knocker: int | None
    box: NotRequired[int]
    captain: NotRequired[int]
    advisor: NotRequired[int]
    melds: NotRequired[list[list[list[Card]] | None]]
    layoffs: NotRequired[list[Card]]
    deadwood: NotRequired[list[int | None]]
    hand_points: NotRequired[list[int]]
    scores: NotRequired[list[int]]
    """Three-hand gin: the running totals after this hand."""


class View(TypedDict):
    """The match as one caller may see it (api.md "Views")."""

    id: str | None
    variant: str
    version: int
    seeded: bool
    status: Literal["active", "finished"]
    options: dict[str, Any]
    round: int
    phase: str
    turn: int | None
    seats: list[Seat]
    scores: list[int]
    winners: list[int]
    stock_size: int
    rounds: list[RoundResult]
    deal_commitment: str | None
    you: You | None
    roles: NotRequired[Roles | None]
    discard_top: NotRequired[Card | None]
    discard_size: NotRequired[int]
    discard_pile: NotRequired[list[Card]]
    picked: NotRequired[list[list[Card]]]
    knock: NotRequired[Knock | None]
    dealer: NotRequired[int | None]
    table: NotRequired[list[list[Card]]]
    draws_this_turn: NotRequired[int]
    rounds_won: NotRequired[list[int]]
    final_turns_left: NotRequired[int]
    lobby: LobbyView | None
    clock: NotRequired[ClockView]  # a clocked match only (issue 31)


class LobbySeat(TypedDict):
    seat: int
    name: str
    bot: str | None
    open: bool
    account: str | None
    account_bot: bool


class LobbyEntry(TypedDict):
    """One match waiting for players (GET /v1/lobby)."""

    id: str
    variant: str
    options: dict[str, Any]
    seats: list[LobbySeat]
    created_at: str
    expires_at: str


class LobbyPage(TypedDict):
    matches: list[LobbyEntry]
    next: str | None
    seeks: list[OpenSeek]
    """The open seeks (issue 32), public fields only."""


class Joined(TypedDict):
    """A join's or a rematch's answer: the seat's token, shown only here."""

    id: str
    seat: int
    token: str | None
    version: int
    match: View


class SeatsChanged(TypedDict):
    version: int
    match: View


class Event(TypedDict):
    """One event of the log: `seq` is 1-based; hidden cards are None (api.md "Events")."""

    seq: int
    type: str
    v: int
    at: str
    data: dict[str, Any]


class EventPage(TypedDict):
    version: int
    events: list[Event]


class MoveResult(TypedDict):
    """The answer to a move: the new version, the events it appended, the caller's view."""

    version: int
    events: list[Event]
    match: View


class LegalMoves(TypedDict):
    version: int
    seat: int | None
    moves: list[Move]


class Hint(TypedDict):
    move: Move
    reason: str
    bot: str


class Bot(TypedDict):
    name: str
    variant: str
    description: str


class Health(TypedDict):
    status: str


class ReplayResult(TypedDict):
    """POST /v1/replays: the final spectator view, every seat's final hand, every round."""

    version: int
    match: View
    hands: list[list[Card] | None]
    rounds: list[RoundResult]


class SeekMatch(TypedDict):
    """The match a paired seek was put in: the seat reserved for the seeker, and where to
    join it (with the account's key)."""

    id: str
    seat: int
    join: str


class OpenSeek(TypedDict):
    """A request to be paired (issue 32, `POST /v1/seeks`) as anyone sees it (`GET /v1/seeks`,
    the lobby's `seeks`). `status`: open, then paired, or cancelled, or expired (after its
    ttl: `expires`). `clock` and `options` are the full ones (every member filled)."""

    id: str
    account: str
    bot: bool
    variant: str
    rated: bool
    clock: dict[str, Any] | None
    seats: int
    options: dict[str, Any]
    status: Literal["open", "paired", "cancelled", "expired"]
    created: str
    expires: str


class Seek(OpenSeek):
    """A seek as its owner sees it: `match` is None until it is paired."""

    match: SeekMatch | None
