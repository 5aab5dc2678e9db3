"""JSON values and the shapes both games share (issue 29: the domain declares its surface once).

`JSON` is a JSON-ready value. The moves, views and event payloads of each game are declared
in its `shapes.py` (domain/gin/shapes.py, domain/manipulation/shapes.py) as TypedDicts, not
frozen dataclasses: a view and a legal move are built per request on the hot paths
(bench/views.py) as dicts that share read-only parts between states (domain/frozen.py), and
they are sent as they are. A TypedDict costs nothing at run time (no object per view, no
conversion at the edge), while mypy checks every key and value type where a view or a move
is made or read; `tests/unit/test_declarations.py` checks the OpenAPI components and the
client's types against these declarations field by field. Inside a game a move is parsed
once into its own value (`domain.gin.parse.Move`) before it is decided.

Event payloads are declared the same way, one TypedDict per event type (`MatchCreatedData`
here, shared by both games; each game's others in its shapes.py), and
tests/unit/test_event_payloads.py holds every event of random matches of both games to its
declaration, key by key. An event carries its payload as JSON (`Event.data`): a payload is
made as its TypedDict and recorded with `as_json`, and a fold step reads it back as its
TypedDict (each game's `_FOLD` table types its steps once). So a new event is four edits:
declare its payload here (or in its game's shapes.py) and add it to that module's
`PAYLOADS`, its fold in the game's `evolve` (state.py), its render in `event_view`
(views.py: what each seat may see of it), and its test.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal, NotRequired, TypeAlias, TypedDict, cast

JSON: TypeAlias = "str | int | float | bool | Sequence[JSON] | Mapping[str, JSON] | None"
"""A JSON-ready value (what `json.dumps` writes and `json.loads` reads). Read-only containers
(`Sequence`, `Mapping`), so a `list[str]` or a `dict[str, int]` is one too."""

JSONObject: TypeAlias = "dict[str, JSON]"
"""A JSON object."""

Code = str
"""A card code: rank A 2-9 T J Q K + suit C D H S, `JK`, `JK=8S` for a placed joker."""

Status = Literal["active", "finished"]

OptionsView = dict[str, "int | bool | str | None"]
"""A match's full options as a view shows them (each game's options.py names the keys)."""


class Seat(TypedDict):
    """Who sits at a seat, as every view shows it (a game may add members)."""

    seat: int
    name: str
    bot: str | None
    hand_size: int
    open: bool  # waiting for a person to join (issue 30); an open seat's name is ""
    account: str | None  # the account the seat plays for (issue 32), or reserved for
    account_bot: bool  # that account's kind is bot (false without an account)


class PlayerData(TypedDict):
    """A seat's player as MatchCreated records it (`account`: the account it plays for,
    recorded only when given, issue 32; `open`: a seat waiting for a person to join, its name
    empty or, in a rematch, its previous player's; domain/lobby.py)."""

    name: str
    bot: str | None
    account: NotRequired[str]
    account_bot: NotRequired[bool]  # the account's kind is bot (recorded with `account`)
    open: NotRequired[bool]


CancelReason = Literal["lobby_expired", "cancelled_by_creator"]


class LobbyCreated(TypedDict):
    """MatchCreated's `lobby` member (issue 30): how the match waits for its players."""

    listed: bool
    ttl_s: int
    expires_ms: int  # epoch milliseconds: the deadline the store compares with its clock
    expires_at: str  # the same deadline in RFC 3339 UTC, for people
    creator_seats: list[int]  # the seats the creator holds tokens of (may cancel)
    rematch_of: str | None  # the finished match this one replays, its seats reserved


class MatchCreatedData(TypedDict):
    """MatchCreated (both games): the players, the full options, the seed and the deal key
    (hidden until the end), and a seeded match's `salt_key` (its secret for the salts)."""

    variant: str
    players: list[PlayerData]
    options: dict[str, JSON]
    seeded: bool
    seed: int | None
    deal_key: str
    salt_key: NotRequired[str]
    lobby: NotRequired[LobbyCreated]  # a match with open seats (domain/lobby.py)


class SeatData(TypedDict):
    """An event that names only the seat that acted."""

    seat: int


class SeatJoinedData(TypedDict):
    """A person took an open seat (their token is stored beside the log, never in it);
    joined with an account key (issue 32), the seat is the account's (`account`, its kind
    `account_bot`), which a rated match's result reads (domain/rated.py)."""

    seat: int
    name: str
    account: NotRequired[str]
    account_bot: NotRequired[bool]


class SeatLeftData(TypedDict):
    """The seat's holder gave it up before the start."""

    seat: int
    name: str


class MatchStartedData(TypedDict):
    """Every seat is taken: the draw and the first deal follow in the same append."""

    players: list[PlayerData]


class MatchCancelledData(TypedDict):
    """The match ended before it started."""

    reason: CancelReason


PAYLOADS: dict[str, type] = {
    "MatchCreated": MatchCreatedData,
    "SeatJoined": SeatJoinedData,
    "SeatLeft": SeatLeftData,
    "MatchStarted": MatchStartedData,
    "MatchCancelled": MatchCancelledData,
}
"""The payload declaration of each event type both games share (each game's shapes.py has
its own `PAYLOADS`)."""


def as_json(payload: Mapping[str, object]) -> JSONObject:
    """A payload declared as a TypedDict, as the JSON an event records: every payload
    declaration holds JSON values only (a TypedDict is a `Mapping[str, object]` to mypy,
    which will not see that its values are JSON)."""
    return cast("JSONObject", payload)


class EventView(TypedDict):
    """An event as one seat may see it: `data` with every card it may not see as None."""

    type: str
    v: int
    data: JSONObject


# Reading recorded event data (trusted history): each helper says what a member holds, and
# raises TypeError (as `int(None)` would) when it holds something else.


def json_int(value: JSON) -> int:
    """A recorded number as an int (`int(value)`)."""
    if isinstance(value, int | float | str):
        return int(value)
    raise TypeError(f"expected a number, not {value!r:.40}")


def json_str(value: JSON) -> str:
    """A recorded string."""
    if isinstance(value, str):
        return value
    raise TypeError(f"expected a string, not {value!r:.40}")


def json_list(value: JSON) -> Sequence[JSON]:
    """A recorded list; None (or a missing member read with `.get`) is an empty one."""
    if value is None:
        return ()
    if isinstance(value, Sequence) and not isinstance(value, str):
        return value
    raise TypeError(f"expected a list, not {value!r:.40}")


def json_object(value: JSON) -> Mapping[str, JSON]:
    """A recorded object; None (or a missing member read with `.get`) is an empty one."""
    if value is None:
        return {}
    if isinstance(value, Mapping):
        return value
    raise TypeError(f"expected an object, not {value!r:.40}")
