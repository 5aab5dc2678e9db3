"""Three-handed Gin Rummy (rules.md section 1, G1-G9): the variant surface.

The engine is split by phase:
    options.py    the match options (section 5), checked and frozen
    state.py      the state and the fold of every event (`evolve`), the event list
    lobby_fold.py the fold of the lobby's events (issue 30), registered into state's table
    deal.py       chance: the role draw (G1.2), the deal (G4), the role rotation (G1.5)
    parse.py      a JSON move parsed once into a `Move` (MalformedMove, InvalidCard)
    moves.py      `decide`, `legal_moves`, `to_act`, `pending` (G1.3, G5, G6.1)
    fast_play.py  `accepted_play`: the common moves decided with fewer checks (a speed trick
                  beside `moves.decide_in_full`, bench/README.md)
    knock.py      knock, gin, lay-offs and scoring (G6, G7, G8)
    views.py      per-seat views and redacted events (G1.4); `ViewCache`
    shapes.py     the moves, views, round results and event payloads as types (TypedDicts:
                  the JSON of api.md)
    melds/        melds and deadwood (G3, G6), on card masks
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from domain.clock import ClockOptions
from domain.creation import match_created
from domain.events import SYSTEM, Event
from domain.gin import lobby_fold  # noqa: F401  # the lobby events' folds, registered
from domain.gin.moves import decide, is_finished, legal_moves, pending, to_act
from domain.gin.options import GinOptions, recorded_options, validate_options
from domain.gin.shapes import GinMove, GinSeat, GinView
from domain.gin.state import GinState, Phase, evolve, initial_state
from domain.gin.views import ViewCache, event_view
from domain.players import bot_seats as players_bots
from domain.players import roster as players_roster
from domain.shapes import JSON
from domain.variants import Game

__all__ = [
    "VARIANT",
    "VIEWS",
    "GinOptions",
    "GinState",
    "Phase",
    "autoplay_system",
    "create",
    "decide",
    "event_view",
    "evolve",
    "initial_state",
    "is_finished",
    "legal_moves",
    "pending",
    "to_act",
    "validate_options",
    "view",
]

PLAYERS = 3

VIEWS = ViewCache()
"""The game's view cache: the read-only parts of each match's views, shared between the
views of its states (domain/gin/views.py). Owned here, by the game, and handed to every
view `VARIANT.view` renders; `views.view(state, seat)` without it renders afresh."""

view = VIEWS.view


def create(
    players: Sequence[Mapping[str, JSON]],
    options: Mapping[str, JSON] | None,
    seed: int | None,
    secret: str,
    clock: ClockOptions | None = None,
) -> tuple[Event, ...]:
    """MatchCreated, RolesDrawn (G1.2) and the first RoundDealt (G4). `secret` is the caller's
    secret (the store's `secrets.token_hex(32)`): the deal key of an unseeded match, the salt
    key of a seeded one."""
    roster = players_roster(players, VARIANT_NAME, (PLAYERS, PLAYERS), "G1.1")
    full = recorded_options(options)  # the service validated a new match's options
    created = match_created(VARIANT_NAME, roster, full, seed, secret, clock)
    _, opening = autoplay_system(evolve(initial_state(), created))
    return (created, *opening)


def autoplay_system(state: GinState) -> tuple[GinState, tuple[Event, ...]]:
    """Apply every due SYSTEM move (role draw, deal, scoring, end); for tests and the arena."""
    events: list[Event] = []
    due = pending(state)
    while due is not None:
        for event in decide(state, SYSTEM, due):
            state = evolve(state, event)
            events.append(event)
        due = pending(state)
    return state, tuple(events)


def round_number(state: GinState) -> int:
    """The round being played (0 before the first deal)."""
    return state.round


def bot_seats(state: GinState) -> tuple[str | None, ...]:
    """Per seat, the bot that plays it (None: a person's seat)."""
    return players_bots(state.players)


def public_seats(state: GinState) -> list[GinSeat]:
    """The spectator view's `seats`: seat, name, bot, hand size (and the gin role)."""
    return list(view(state, None)["seats"])


VARIANT_NAME = "three-hand-gin"

VARIANT: Game[GinState, GinMove, GinView] = Game(
    name=VARIANT_NAME,
    min_players=PLAYERS,
    max_players=PLAYERS,
    validate_options=validate_options,
    create=create,
    initial_state=initial_state,
    evolve=evolve,
    decide=decide,
    pending=pending,
    to_act=to_act,
    legal_moves=legal_moves,
    view=view,
    event_view=event_view,
    is_finished=is_finished,
    round_number=round_number,
    bot_seats=bot_seats,
    public_seats=public_seats,
)
