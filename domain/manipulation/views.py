"""Manipulation Rummy views (api.md): what a seat, or a spectator, may see of a state or an event.

Other seats' hands, drawn cards, the stock order, the salt and the seed stay hidden until the
match is finished.
"""

from __future__ import annotations

from operator import add, attrgetter
from typing import NamedTuple, cast

from domain.cards import FULL_DECK, JOKER
from domain.events import Event
from domain.frozen import FrozenDict, FrozenList, freeze, frozen_dict
from domain.manipulation.melds import Listings
from domain.manipulation.moves import is_finished, seat_moves, to_act
from domain.manipulation.shapes import ManipulationRoundResult, ManipulationSeat, ManipulationView
from domain.manipulation.state import NAME, Phase, RoundResult, State, shown_table
from domain.memo import by_identity
from domain.shapes import JSON, EventView, OptionsView, json_list


class ViewCache:
    """Each match's latest round template (`_template`), by the identity of its players
    tuple (one object for the whole match), and the meld listings of its hands
    (`melds.Listings`). An explicit object, owned by the game (`domain.manipulation.VIEWS`)
    or handed in (`view`), never a module global of this module."""

    __slots__ = ("_size", "_templates", "listings")

    def __init__(self, listings: Listings | None = None, size: int = 256) -> None:
        self._templates: dict[int, _Template] = {}
        self._size = size
        self.listings = Listings() if listings is None else listings

    def template(self, state: State) -> _Template:
        """The round's template of `state`'s match, remembered while its fields stay."""
        t = self._templates.get(id(state.players))
        if t is None or t[0] != _round_fields(state):  # one compare (`is` first, in C)
            t = _template(state)
            if len(self._templates) >= self._size:
                self._templates.clear()
            self._templates[id(state.players)] = t
        return t

    def view(self, state: State, seat: int | None) -> ManipulationView:
        """`view(state, seat, self)`."""
        return view(state, seat, self)


def view(state: State, seat: int | None, cache: ViewCache | None = None) -> ManipulationView:
    """The api.md view minus id; `you` only for a seat of this match: a copy of the round's
    template (the contract's key order; the values that change only between rounds) with
    this state's values set. The view's dict and its `you` are its own; every other list
    and dict in it is read-only (domain/frozen.py). With a `cache` they are shared with the
    views around it (the template and the meld listing are remembered); without one, made
    afresh (the plain code the cache stands for: tests/unit/test_manipulation_fast_paths.py
    holds the two equal)."""
    players = state.players
    t = _template(state) if cache is None else cache.template(state)
    listings = None if cache is None else cache.listings
    phase = state.phase
    out: ManipulationView = t[1].copy()
    out["version"] = state.version
    if phase is Phase.FINISHED:
        out["status"] = "finished"
    out["phase"] = phase._value_
    out["turn"] = to_act(state)
    sizes = tuple(map(len, state.hands))
    seats = t[2].get(sizes)
    out["seats"] = _seats(state, t, sizes) if seats is None else seats
    out["stock_size"] = len(state.stock)
    table = out["table"] = shown_table(state.table)
    if seat is not None and 0 <= seat < len(players):  # the seat's hand and legal moves
        hands = state.hands
        out["you"] = (
            {
                "seat": seat,
                "hand": list(map(_CODE, map(_INDEX, hands[seat]))),
                "legal_moves": seat_moves(state, seat, table, listings),
            }
            if hands
            else {"seat": seat, "hand": [], "legal_moves": []}  # before the first deal
        )
    out["draws_this_turn"] = state.draws
    out["final_turns_left"] = len(state.lap)
    lobby = state.lobby
    if lobby is not None:  # rendered once per lobby event (domain/lobby.py)
        out["lobby"] = lobby.view
    return out


class _Template(NamedTuple):
    """A round's template: the fields it was made from (one tuple, compared in one go), the
    view's template, its seats by hand sizes and each seat's part by hand size."""

    fields: tuple[object, ...]
    view: ManipulationView
    seats: dict[tuple[int, ...], FrozenList[ManipulationSeat]]
    parts: _SeatParts


def _round_fields(state: State) -> tuple[object, ...]:
    """The fields a round's template is made from (they change only between rounds)."""
    return (
        state.players,
        state.options_dict,
        state.results,
        state.scores,
        state.winners,
        state.rounds_won,
        state.round,
        state.dealer,
        state.commitment,
        state.seeded,
    )


def _template(state: State) -> _Template:
    """The template of a round's views: every key in the contract's order, the values that
    change only between rounds (or at the end of the match) filled in."""
    template: ManipulationView = {
        "variant": NAME,
        "version": 0,
        "seeded": state.seeded,
        "status": "active",
        "options": _shown_options(state.options_dict),
        "round": state.round,
        "phase": "",
        "turn": None,
        "seats": _NO_SEATS,
        "scores": FrozenList(state.scores),
        "winners": FrozenList(state.winners),
        "stock_size": 0,
        "rounds": _shown_rounds(state.results),
        "deal_commitment": state.commitment,
        "you": None,
        "dealer": state.dealer,
        "table": _NO_TABLE,
        "draws_this_turn": 0,
        "rounds_won": FrozenList(state.rounds_won),
        "final_turns_left": 0,
        "lobby": None,
    }
    made = _Template(
        _round_fields(state),
        template,
        {},  # the seats part by hand sizes
        _SeatParts(state),  # each seat's part by seat and hand size
    )
    return made


def _seats(state: State, t: _Template, sizes: tuple[int, ...]) -> FrozenList[ManipulationSeat]:
    """The seats part for these hand sizes (no hands before the first deal), read-only and
    kept in the round's template (`t`) by hand sizes, made of each seat's part by its hand
    size (`_SeatParts`)."""
    parts = t[3]
    if sizes:
        shown = FrozenList(map(parts.__getitem__, map(add, _SEAT_OFFSETS, sizes)))
    else:
        shown = FrozenList(parts[_SEAT_STEP * i] for i in range(len(state.players)))
    t[2][sizes] = shown
    return shown


_NO_SEATS: FrozenList[ManipulationSeat] = FrozenList()
_NO_TABLE: FrozenList[list[str]] = FrozenList()

_SEAT_STEP = 1 << 10  # a seat's part is keyed by seat * _SEAT_STEP + hand size
_SEAT_OFFSETS = tuple(_SEAT_STEP * i for i in range(16))


class _SeatParts(dict[int, ManipulationSeat]):
    """Each seat's part of the seats list by `seat * _SEAT_STEP + hand size`, made when
    first asked for."""

    def __init__(self, state: State) -> None:
        super().__init__()
        self.players = state.players

    def __missing__(self, key: int) -> ManipulationSeat:
        seat, size = divmod(key, _SEAT_STEP)
        shown: ManipulationSeat = self.players[seat].seat_view(seat, size)
        part = frozen_dict(shown)
        self[key] = part
        return part


@by_identity(256)
def _shown_options(options: tuple[tuple[str, JSON], ...]) -> OptionsView:
    """The match's options, rendered once per options object and shared read-only (each a
    number, a flag, a name or None: the game's options.py)."""
    return cast("OptionsView", FrozenDict(options))


@by_identity(1024)
def _shown_rounds(results: tuple[RoundResult, ...]) -> list[ManipulationRoundResult]:
    """The past rounds (M8), rendered once per results tuple (a state's tuple stays the same
    object until the next round ends) and shared read-only by every view of those states."""
    return FrozenList(freeze(r.to_json()) for r in results)


_CODE = tuple(map(str, (*FULL_DECK, JOKER))).__getitem__  # a card's code by its index
_INDEX = attrgetter("index")


def event_view(before: State, event: Event, seat: int | None) -> EventView:
    """The event as `seat` may see it: other hands, drawn cards, stock order, salt, seed hidden."""
    data: dict[str, JSON] = dict(event.data)  # recorded data (trusted), redacted below
    if is_finished(before):
        return {"type": event.type, "v": event.v, "data": data}
    if event.type == "MatchCreated":
        data["seed"] = None
        data["deal_key"] = None
        if "salt_key" in data:
            data["salt_key"] = None
    elif event.type == "RoundDealt":
        data["hands"] = [
            list(json_list(h)) if s == seat else [None] * len(json_list(h))
            for s, h in enumerate(json_list(data["hands"]))
        ]
        data["stock"] = [None] * len(json_list(data["stock"]))
        data["salt"] = None
    elif event.type == "CardDrawn" and data.get("seat") != seat:
        data["card"] = None
    return {"type": event.type, "v": event.v, "data": data}
