"""Manipulation Rummy (Carousel), rules M1-M11 of rules.md section 2, as pure functions.

The surface is the one of domain/variants.py; `VARIANT` at the bottom. The state and its fold
live in state.py, the deal in deal.py, decide and legal moves in moves.py, the views in
views.py, the move, view and event payload types in shapes.py, the scoring in scoring.py,
the options in options.py, and the link to the table maths (table/) in melds.py, whose
listing's remembered parts are meld_parts.py and its joker swaps swaps.py; this module
creates a match and names the surface.

Events (past tense, JSON-ready data):

    MatchCreated   {variant, players, options, seeded, seed, deal_key, salt_key (seeded only)}
    DealerChosen   {round, dealer}                  chance: DealRng(deal_key, "dealer") (M3.1)
    RoundDealt     {round, dealer, hands, stock, salt, commitment}             (M3)
    CardDrawn      {seat, card, draw}               draw is 1, 2 or 3 (M4)
    StockExhausted {seat}                           right after the draw of the last card (M9.1)
    TableMelded    {seat, table, played}            the whole table after, and the hand cards
    Passed         {seat}                           no meld: last lap, or stock gone (M9)
    TurnEnded      {seat}                           play passes on (M4 step 4)
    Knocked        {seat, points}                   the round ends at once (M8.2)
    RoundScored    {round, outcome, hands, points, winners, knocker, hand_points}  (M10)
    MatchFinished  {scores, winners, round_scores, bonuses}                         (M11)

Choices where rules.md leaves the engine free:

- When a turn is over (after a meld, the third draw, or a pass) and the mover may not knock,
  `decide` returns TurnEnded together with the event that ended the turn; when he may knock
  the phase is `knock_or_end` and he chooses `knock` or `end_turn`. Going out (an empty hand
  after TableMelded) ends the round with no further event; the phase becomes `scoring`.
- A player who drew the last stock card with D1 or D2 declines to meld with `pass` (M9.1: the
  draw he would owe is skipped); `pass` is otherwise the no-meld move of the last lap.
- DealerChosen is the chance event of the first dealer only; a later dealer (M3.3, also with
  `next_dealer = random`) is recorded in its RoundDealt.
- Phase `setup` is the state before the first RoundDealt (create returns all three opening
  events at once, so only a view of an early log prefix shows it).
- `legal_moves` lists draw, knock, end_turn and pass exactly and a representative set of meld
  moves (domain/manipulation/melds.py); any table passing I1-I6 is accepted.
- Identical cards of two packs (M1.3) are separate physical cards counted as a multiset of
  codes; no per-copy id is kept, because the rules and the API never tell two copies apart.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from domain.clock import ClockOptions
from domain.creation import match_created
from domain.events import Event
from domain.manipulation.deal import deal_event
from domain.manipulation.moves import (
    autoplay_system,
    decide,
    is_finished,
    pending,
    to_act,
)
from domain.manipulation.moves import legal_moves as _legal_moves
from domain.manipulation.options import recorded_options
from domain.manipulation.options import validate_options as _validate_options
from domain.manipulation.scoring import score_round
from domain.manipulation.shapes import ManipulationMove, ManipulationSeat, ManipulationView
from domain.manipulation.state import NAME, Phase, RoundEnd, State, evolve, pack
from domain.manipulation.views import ViewCache, event_view
from domain.players import bot_seats as players_bots
from domain.players import roster as players_roster
from domain.shapes import JSON, json_str
from domain.shuffle import DealRng, salt_key
from domain.variants import Game

MIN_PLAYERS, MAX_PLAYERS = 2, 5

VIEWS = ViewCache()
"""The game's cache: each match's round template and its hands' meld listings
(domain/manipulation/views.py, melds.py). Owned here, by the game, and handed to every view
and legal-move listing `VARIANT` makes; `views.view(state, seat)` and
`moves.legal_moves(state, seat)` without it make theirs afresh."""

view = VIEWS.view


def legal_moves(state: State, seat: int) -> list[ManipulationMove]:
    """Every legal move of `seat` now (`moves.legal_moves`, with the game's listings)."""
    return _legal_moves(state, seat, VIEWS.listings)


# ---------------------------------------------------------------- creation (M1, M3)


def validate_options(options: Mapping[str, JSON] | None) -> dict[str, JSON]:
    """Every option of section 5 with its default; unknown keys are refused by name."""
    return _validate_options(options)


def create(
    players: Sequence[Mapping[str, JSON]],
    options: Mapping[str, JSON] | None,
    seed: int | None,
    secret: str,
    clock: ClockOptions | None = None,
) -> tuple[Event, ...]:
    """MatchCreated, the chance draw of the first dealer (M3.1) and the first deal."""
    roster = players_roster(players, NAME, (MIN_PLAYERS, MAX_PLAYERS), "M1.1")
    full = recorded_options(options)  # the service validated a new match's options
    created = match_created(NAME, roster, full, seed, secret, clock)
    key = json_str(created.data["deal_key"])
    dealer = DealRng(key, "dealer").randbelow(len(roster))
    chosen = Event("DealerChosen", {"round": 1, "dealer": dealer})
    recorded_salt = created.data.get("salt_key")
    salts = salt_key(key, None if recorded_salt is None else json_str(recorded_salt))
    return created, chosen, deal_event(key, 1, len(roster), dealer, salts)


def initial_state() -> State:
    return State()


def round_number(state: State) -> int:
    """The round being played (0 before the first deal)."""
    return state.round


def bot_seats(state: State) -> tuple[str | None, ...]:
    """Per seat, the bot that plays it (None: a person's seat)."""
    return players_bots(state.players)


def public_seats(state: State) -> list[ManipulationSeat]:
    """The spectator view's `seats`: seat, name, bot, hand size (and the gin role)."""
    return list(view(state, None)["seats"])


VARIANT: Game[State, ManipulationMove, ManipulationView] = Game(
    name=NAME,
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
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

__all__ = [
    "NAME",
    "VARIANT",
    "VIEWS",
    "Phase",
    "RoundEnd",
    "State",
    "autoplay_system",
    "create",
    "deal_event",
    "decide",
    "event_view",
    "evolve",
    "initial_state",
    "is_finished",
    "legal_moves",
    "pack",
    "pending",
    "score_round",
    "to_act",
    "validate_options",
    "view",
]
