"""The surface every game offers, and the registry that finds a game by name.

Each game module (`domain.gin`, `domain.manipulation`) defines `VARIANT: Game[ItsState]`, the
surface typed by its own state. The store, the API, the workers and the arena use only this
surface, so they treat both games alike: `Variant` is `Game[State]`, a game found by name, and
`State` the union of the games' states (adopt it where a state of either game flows).

    validate_options(options) -> dict          full options with defaults; InvalidOptions names
                                               the bad key
    create(players, options, seed, secret)     the events that open a match: MatchCreated (with
                                               the deal key, hidden until the end), the role draw
                                               or dealer draw, and the first RoundDealt.
                                               `players` is [{"name": str, "bot": str|None}];
                                               `seed` an int or None; `secret` a 64-hex string
                                               from a cryptographic source, used when no seed.
    initial_state() -> State                   the state before any event
    evolve(state, event) -> State              trusts recorded history; never raises
    decide(state, seat, move) -> events        validates and raises a RulesError subclass;
                                               `move` is the JSON move of api.md; `seat` is
                                               SYSTEM for the service's own moves
    pending(state) -> dict | None              the SYSTEM move due now (e.g. score the round)
    to_act(state) -> int | None                the seat whose move it is (None: nobody/system)
    legal_moves(state, seat) -> list[dict]     every legal JSON move of that seat now
    view(state, seat) -> dict                  the view of api.md minus `id`; seat None is a
                                               spectator
    event_view(before, event, seat) -> dict    `{"type", "v", "data"}` with every card the seat
                                               may not see as None (nothing hidden once the
                                               match is finished); `before` is the state the
                                               event was applied to
    is_finished(state) -> bool
    round_number(state) -> int                 the round (hand) being played, 0 before the first
    bot_seats(state) -> tuple[str | None, ...] per seat, the bot that plays it (None: a person)
    public_seats(state) -> list[dict]          the spectator view's `seats` (who sits where)
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeAlias, TypeVar, cast

from domain.errors import InvalidOptions
from domain.events import Event

if TYPE_CHECKING:
    from domain.gin.state import GinState
    from domain.manipulation.state import State as ManipState

State: TypeAlias = "GinState | ManipState"
"""The state of a match of any game (each game's own frozen dataclass)."""

S = TypeVar("S")


@dataclass(frozen=True)
class Game(Generic[S]):
    """The surface of one game whose states are `S` (the module docstring says what each does)."""

    name: str
    min_players: int
    max_players: int
    validate_options: Callable[[Mapping[str, Any]], dict[str, Any]]
    create: Callable[
        [Sequence[Mapping[str, Any]], Mapping[str, Any], int | None, str], tuple[Event, ...]
    ]
    initial_state: Callable[[], S]
    evolve: Callable[[S, Event], S]
    decide: Callable[[S, int, Mapping[str, Any]], tuple[Event, ...]]
    pending: Callable[[S], dict[str, Any] | None]
    to_act: Callable[[S], int | None]
    legal_moves: Callable[[S, int], list[dict[str, Any]]]
    view: Callable[[S, int | None], dict[str, Any]]
    event_view: Callable[[S, Event, int | None], dict[str, Any]]
    is_finished: Callable[[S], bool]
    round_number: Callable[[S], int]
    bot_seats: Callable[[S], tuple[str | None, ...]]
    public_seats: Callable[[S], list[dict[str, Any]]]


if TYPE_CHECKING:
    Variant: TypeAlias = Game[State]
else:
    Variant = Game
"""A game found by name at run time: its functions take and return any game's `State`
(the caller passes each the states of that same game, as the store and the arena do)."""


_MODULES = {
    "three-hand-gin": "domain.gin",
    "manipulation-rummy": "domain.manipulation",
}

NAMES = tuple(_MODULES)


def get_variant(name: str) -> Variant:
    """The game called `name`; InvalidOptions names the unknown variant."""
    try:
        module = _MODULES[name]
    except (KeyError, TypeError):
        raise InvalidOptions(
            f"variant {name!r} is unknown: expected one of {', '.join(NAMES)}"
        ) from None
    return cast(Variant, importlib.import_module(module).VARIANT)


def variant_of(events: Sequence[Event]) -> Variant:
    """The game a log belongs to, read from its first event (MatchCreated)."""
    if not events or events[0].type != "MatchCreated":
        raise InvalidOptions("a match log must start with a MatchCreated event")
    return get_variant(str(events[0].data.get("variant")))
