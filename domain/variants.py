"""The surface every game offers, and the registry that finds a game by name.

Each game module (`domain.gin`, `domain.manipulation`) defines `VARIANT: Game[ItsState,
ItsMove, ItsView]`, the surface typed by its own state and by the move and view shapes its
shapes.py declares. The store, the API, the workers and the arena use only this surface, so
they treat both games alike: `Variant` is `Game[State, Move, View]`, a game found by name,
with `State`, `Move` and `View` the unions of the games' own (adopt them where a state, move or
view of either game flows).

    validate_options(options) -> dict          full options with defaults (None: no options
                                               given, every default); InvalidOptions names
                                               the bad key
    create(players, options, seed, secret,     the events that open a match: MatchCreated (with
           clock=None)                         the deal key, hidden until the end, and the
                                               clock pinned), the role draw or dealer draw, and
                                               the first RoundDealt. `players` is
                                               [{"name": str, "bot": str|None}]; `seed` an int
                                               or None; `secret` a 64-hex string from a
                                               cryptographic source, used when no seed; `clock`
                                               the checked ClockOptions (a rated match needs one)
    initial_state() -> State                   the state before any event
    evolve(state, event) -> State              trusts recorded history; never raises
    decide(state, seat, move) -> events        validates and raises a RulesError subclass;
                                               `move` is the JSON move of api.md (typed `M`,
                                               but checked: it comes from a client); `seat` is
                                               SYSTEM for the service's own moves
    pending(state) -> M | None                 the SYSTEM move due now (e.g. score the round)
    to_act(state) -> int | None                the seat whose move it is (None: nobody/system)
    legal_moves(state, seat) -> list[M]        every legal JSON move of that seat now
    view(state, seat) -> V                     the view of api.md minus `id`; seat None is a
                                               spectator
    event_view(before, event, seat)            EventView: `{"type", "v", "data"}` with every
                                               card the seat may not see as None (nothing
                                               hidden once the match is finished); `before`
                                               is the state the event was applied to
    is_finished(state) -> bool
    round_number(state) -> int                 the round (hand) being played, 0 before the first
    bot_seats(state) -> tuple[str | None, ...] per seat, the bot that plays it (None: a person)
    public_seats(state) -> Sequence[Seat]      the spectator view's `seats` (who sits where)
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, Protocol, TypeAlias, TypeVar, cast

from domain.clock import ClockOptions
from domain.errors import InvalidOptions
from domain.events import Event
from domain.shapes import JSON, EventView, Seat

if TYPE_CHECKING:
    from domain.gin.shapes import GinMove, GinView
    from domain.gin.state import GinState
    from domain.manipulation.shapes import ManipulationMove, ManipulationView
    from domain.manipulation.state import State as ManipState

State: TypeAlias = "GinState | ManipState"
"""The state of a match of any game (each game's own frozen dataclass)."""

Move: TypeAlias = "GinMove | ManipulationMove"
"""A move of any game, in its JSON shape (each game's shapes.py declares its own)."""

View: TypeAlias = "GinView | ManipulationView"
"""A view of a match of any game (each game's shapes.py declares its own)."""

S = TypeVar("S")
M = TypeVar("M")
V = TypeVar("V")


class Create(Protocol):
    """A game's `create`: the opening events (the clock, when given, pinned in MatchCreated)."""

    def __call__(
        self,
        players: Sequence[Mapping[str, JSON]],
        options: Mapping[str, JSON] | None,
        seed: int | None,
        secret: str,
        clock: ClockOptions | None = None,
    ) -> tuple[Event, ...]: ...


@dataclass(frozen=True)
class Game(Generic[S, M, V]):
    """The surface of one game whose states are `S`, moves `M` and views `V` (the module
    docstring says what each does)."""

    name: str
    min_players: int
    max_players: int
    validate_options: Callable[[Mapping[str, JSON] | None], dict[str, JSON]]
    create: Create
    initial_state: Callable[[], S]
    evolve: Callable[[S, Event], S]
    decide: Callable[[S, int, M], tuple[Event, ...]]
    pending: Callable[[S], M | None]
    to_act: Callable[[S], int | None]
    legal_moves: Callable[[S, int], list[M]]
    view: Callable[[S, int | None], V]
    event_view: Callable[[S, Event, int | None], EventView]
    is_finished: Callable[[S], bool]
    round_number: Callable[[S], int]
    bot_seats: Callable[[S], tuple[str | None, ...]]
    public_seats: Callable[[S], Sequence[Seat]]


if TYPE_CHECKING:
    Variant: TypeAlias = Game[State, Move, View]
else:
    Variant = Game
"""A game found by name at run time: its functions take and return any game's `State`
(the caller passes each the states of that same game, as the store and the arena do)."""


def move_from_json(move: Mapping[str, object]) -> Move:
    """A move as a client (or a bot, or a recorded log) sent it, at the JSON edge: typed as a
    move without a check, because `decide` checks every member and refuses a malformed one
    (MalformedMove names the field)."""
    return cast("Move", move)


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
