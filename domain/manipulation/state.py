"""Manipulation Rummy state, and `evolve`: the fold of one recorded event into a new state.

`evolve` trusts recorded history and never raises on a log that `decide` produced. Every card
travels in the events (chance is data): RoundDealt carries the hands and the stock order,
CardDrawn the card drawn, TableMelded the whole table and the cards played from hand.

Physical cards (M1.3): in a two-pack game two cards of one code are identical for the rules
and for every message of the API, so a hand, the stock and the table hold card values and a
place holds a multiset of them; conservation is checked as multiset equality with the pack.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from enum import StrEnum
from functools import lru_cache
from typing import cast

from domain import conduct
from domain.cards import FULL_DECK, JOKER, Card, TableCard
from domain.events import Event
from domain.frozen import FrozenList
from domain.lobby import LOBBY_EVENTS, Lobby
from domain.lobby import created as lobby_created
from domain.lobby import step as lobby_step
from domain.manipulation.options import DEFAULTS, ManipOptions, options_of
from domain.manipulation.shapes import (
    DealerChosenData,
    ManipulationCardDrawnData,
    ManipulationKnockedData,
    ManipulationMatchFinishedData,
    ManipulationRoundDealtData,
    ManipulationRoundResult,
    TableMeldedData,
)
from domain.memo import by_identity
from domain.players import Player
from domain.shapes import JSON, MatchCreatedData, SeatData

NAME = "manipulation-rummy"

Table = tuple[tuple[TableCard, ...], ...]
Hand = tuple[Card, ...]


class Phase(StrEnum):
    """Where a round stands (api.md's suggested phase names, plus `setup` before the deal)."""

    SETUP = "setup"
    DRAW = "draw"  # D1 is due
    MELD_OR_DRAW = "meld_or_draw"  # after D1 or D2: meld, or draw the next card (M4)
    KNOCK_OR_END = "knock_or_end"  # the turn is over: knock or end it (M8.1)
    FINAL_TURNS = "final_turns"  # the last lap: meld or pass (M9.2)
    SCORING = "scoring"  # the round has ended; the system scores it
    FINISHED = "finished"


@dataclass(frozen=True, slots=True)
class RoundResult:
    """A scored round (api.md round result, manipulation-rummy keys)."""

    round: int
    outcome: str
    hands: tuple[tuple[str, ...], ...]
    points: tuple[int, ...]
    winners: tuple[int, ...]
    knocker: int | None
    hand_points: tuple[int, ...]

    def to_json(self) -> ManipulationRoundResult:
        return {
            "round": self.round,
            "outcome": self.outcome,
            "hands": [list(h) for h in self.hands],
            "points": list(self.points),
            "winners": list(self.winners),
            "knocker": self.knocker,
            "hand_points": list(self.hand_points),
        }

    @classmethod
    def from_json(cls, data: ManipulationRoundResult) -> RoundResult:
        knocker = data["knocker"]
        return cls(
            round=int(data["round"]),
            outcome=str(data["outcome"]),
            hands=tuple(tuple(map(str, h)) for h in data["hands"]),
            points=tuple(map(int, data["points"])),
            winners=tuple(map(int, data["winners"])),
            knocker=None if knocker is None else int(knocker),
            hand_points=tuple(map(int, data["hand_points"])),
        )


@dataclass(frozen=True, slots=True)
class RoundEnd:
    """How the current round ended (M7): `knock` by, `out` by, or `exhausted` (ender None)."""

    outcome: str
    ender: int | None


_DEFAULT_OPTIONS = ManipOptions()


@dataclass(frozen=True, slots=True)
class State:
    version: int = 0
    players: tuple[Player, ...] = ()
    options: ManipOptions = _DEFAULT_OPTIONS
    options_dict: tuple[tuple[str, JSON], ...] = ()
    seeded: bool = False
    seed: int | None = None
    deal_key: str | None = None
    salt_key: str | None = None  # a seeded match's secret for the commitment salts
    round: int = 0
    dealer: int | None = None
    phase: Phase = Phase.SETUP
    turn: int | None = None
    hands: tuple[Hand, ...] = ()
    stock: tuple[Card, ...] = ()
    table: Table = ()
    draws: int = 0
    exhausted_by: int | None = None
    lap: tuple[int, ...] = ()
    ending: RoundEnd | None = None
    opened: tuple[bool, ...] = ()
    scores: tuple[int, ...] = ()
    rounds_won: tuple[int, ...] = ()
    results: tuple[RoundResult, ...] = ()
    winners: tuple[int, ...] = ()
    commitment: str | None = None
    salt: str | None = None
    lobby: Lobby | None = None  # a match that waited for players (domain/lobby.py)

    @property
    def n(self) -> int:
        return len(self.players)

    def next_seat(self, seat: int) -> int:
        """Clockwise is to the left, i.e. the next seat number (M3.2)."""
        return (seat + 1) % self.n


_SLOTS = tuple(
    (f.name, State.__dict__[f.name].__get__, State.__dict__[f.name].__set__) for f in fields(State)
)
_NAMES = frozenset(name for name, _, _ in _SLOTS)


def _with(state: State, **changes: object) -> State:
    """`dataclasses.replace` for State, without its per-call field walk (evolve runs it on
    every event): copy each slot, taking `changes` where given. A speed trick beside the
    plain code it stands for (`dataclasses.replace`); tests/unit/test_manipulation_fast_paths.py
    (`test_state_replace_matches_dataclasses_replace`) holds the two equal."""
    if not changes.keys() <= _NAMES:
        raise TypeError(f"State has no field(s) {sorted(changes.keys() - _NAMES)}")
    new = object.__new__(State)
    for name, get, put in _SLOTS:
        put(new, changes[name] if name in changes else get(state))
    return new


def pack(players: int) -> tuple[Card, ...]:
    """The pack in canonical order (M1.2): 52 + 1 joker for 2 players, 2 x (52 + 1) for 3-5."""
    one = (*FULL_DECK, JOKER)
    return one if players == 2 else one + one


def sort_hand(cards: Iterable[Card]) -> Hand:
    return tuple(sorted(cards))


def remove_cards(hand: Sequence[Card], cards: Iterable[Card]) -> Hand:
    """The hand less a multiset of cards (each occurrence removes one physical card)."""
    left = Counter(hand)
    left.subtract(Counter(cards))
    return sort_hand(left.elements())


def parse_table(melds: Iterable[Iterable[str]]) -> Table:
    out = []
    for meld in melds:
        codes = tuple(meld)
        if all(isinstance(code, str) for code in codes):
            out.append(_parse_meld(codes))
        else:
            out.append(tuple(TableCard.parse(code) for code in codes))
    return tuple(out)


@lru_cache(maxsize=8192)
def _parse_meld(codes: tuple[str, ...]) -> tuple[TableCard, ...]:
    """One meld from its codes (memoised: the same melds come back move after move); its
    shown form is these codes (`shown_meld`)."""
    meld = tuple(TableCard.parse(code) for code in codes)
    shown_meld.remember(meld, FrozenList(codes))
    return meld


def table_codes(table: Table) -> list[list[str]]:
    return [list(meld_codes(meld)) for meld in table]


@by_identity(1024)
def shown_table(table: Table) -> list[list[str]]:
    """`table_codes` for views, read-only (domain.frozen) and shared: by every view of a
    state with this very table (draws leave it as it is), and, meld by meld, by the listed
    moves that keep the meld."""
    return FrozenList(map(shown_meld, table))


@by_identity(8192)
def shown_meld(meld: tuple[TableCard, ...]) -> FrozenList[str]:
    """A meld's codes for views, read-only and shared, remembered by the meld's identity
    (a meld parsed from a recorded table is remembered with the codes it came from)."""
    return FrozenList(map(str, meld))


@by_identity(8192)
@lru_cache(maxsize=8192)
def meld_codes(meld: tuple[TableCard, ...]) -> tuple[str, ...]:
    return tuple(str(tc) for tc in meld)


def table_cards(table: Table) -> list[Card]:
    """The physical cards on the table (a joker is a joker, whatever it declares)."""
    return [tc.card for meld in table for tc in meld]


def evolve(state: State, event: Event) -> State:
    """Fold one recorded event (see the module docstring); unknown types only bump version."""
    handler = _HANDLERS.get(event.type)
    new = handler(state, event.data) if handler is not None else state
    return _with(new, version=state.version + 1)


def _created(state: State, data: MatchCreatedData) -> State:
    players = tuple(Player.of(p) for p in data["players"])
    full = {**DEFAULTS, **dict(data["options"])}
    n = len(players)
    return _with(
        state,
        players=players,
        options=options_of(full),
        options_dict=tuple(full.items()),
        seeded=bool(data.get("seeded")),
        seed=data.get("seed"),
        deal_key=data.get("deal_key"),
        salt_key=data.get("salt_key"),
        scores=(0,) * n,
        rounds_won=(0,) * n,
        opened=(False,) * n,
        lobby=lobby_created(data, players),
    )


def _lobby_step(kind: str) -> Callable[[State, Mapping[str, JSON]], State]:
    """The fold of one lobby event (domain/lobby.py); a cancelled match is over."""

    def fold(state: State, data: Mapping[str, JSON]) -> State:
        lobby, players = lobby_step(state.lobby, state.players, Event(kind, data))
        if kind == "MatchCancelled":
            return _with(state, lobby=lobby, players=players, phase=Phase.FINISHED, turn=None)
        return _with(state, lobby=lobby, players=players)

    return fold


def _dealer_chosen(state: State, data: DealerChosenData) -> State:
    return _with(state, dealer=int(data["dealer"]))


def _dealt(state: State, data: ManipulationRoundDealtData) -> State:
    dealer = int(data["dealer"])
    return _with(
        state,
        round=int(data["round"]),
        dealer=dealer,
        phase=Phase.DRAW,
        turn=(dealer + 1) % state.n,
        hands=tuple(sort_hand(Card.parse(c) for c in hand) for hand in data["hands"]),
        stock=tuple(Card.parse(c) for c in data["stock"]),
        table=(),
        draws=0,
        exhausted_by=None,
        lap=(),
        ending=None,
        opened=(False,) * state.n,
        salt=data.get("salt"),
        commitment=data.get("commitment"),
    )


def _set_hand(state: State, seat: int, hand: Hand) -> tuple[Hand, ...]:
    return tuple(hand if s == seat else h for s, h in enumerate(state.hands))


def _drawn(state: State, data: ManipulationCardDrawnData) -> State:
    seat, draw = int(data["seat"]), int(data["draw"])
    card = Card.parse(data["card"])
    hand = sort_hand((*state.hands[seat], card))
    phase = Phase.KNOCK_OR_END if draw >= 3 else Phase.MELD_OR_DRAW  # M4 D3: no meld
    return _with(
        state, hands=_set_hand(state, seat, hand), stock=state.stock[1:], draws=draw, phase=phase
    )


def _exhausted(state: State, data: SeatData) -> State:
    return _with(state, exhausted_by=int(data["seat"]))


def _melded(state: State, data: TableMeldedData) -> State:
    seat = int(data["seat"])
    hand = remove_cards(state.hands[seat], (Card.parse(c) for c in data["played"]))
    opened = tuple(o or s == seat for s, o in enumerate(state.opened))
    new = _with(
        state,
        hands=_set_hand(state, seat, hand),
        table=parse_table(data["table"]),
        opened=opened,
        phase=Phase.KNOCK_OR_END,
    )
    if not hand:  # M8.3: going out ends the round at once
        return _with(new, phase=Phase.SCORING, turn=None, ending=RoundEnd("out", seat))
    return new


def _passed(state: State, data: SeatData) -> State:
    return _with(state, phase=Phase.KNOCK_OR_END)


def _turn_ended(state: State, data: SeatData) -> State:
    """Play passes on (M4 step 4); after the exhauster's turn the last lap starts (M9.2)."""
    seat = int(data["seat"])
    if state.lap:
        lap = state.lap[1:]
        if not lap:  # M9.3: the lap is over, hands are counted
            return _with(
                state, lap=(), phase=Phase.SCORING, turn=None, ending=RoundEnd("exhausted", None)
            )
        return _with(state, lap=lap, turn=lap[0], phase=Phase.FINAL_TURNS, draws=0)
    if state.exhausted_by is not None:
        lap = tuple((seat + 1 + i) % state.n for i in range(state.n))
        return _with(state, lap=lap, turn=lap[0], phase=Phase.FINAL_TURNS, draws=0)
    return _with(state, turn=state.next_seat(seat), phase=Phase.DRAW, draws=0)


def _knocked(state: State, data: ManipulationKnockedData) -> State:
    return _with(state, phase=Phase.SCORING, turn=None, ending=RoundEnd("knock", data["seat"]))


def _scored(state: State, data: ManipulationRoundResult) -> State:
    result = RoundResult.from_json(data)
    won = set(result.winners)
    return _with(
        state,
        scores=tuple(s + p for s, p in zip(state.scores, result.points, strict=True)),
        rounds_won=tuple(r + (s in won) for s, r in enumerate(state.rounds_won)),
        results=(*state.results, result),
    )


def _finished(state: State, data: ManipulationMatchFinishedData) -> State:
    return _with(
        state,
        phase=Phase.FINISHED,
        turn=None,
        scores=tuple(data["scores"]),
        winners=tuple(data["winners"]),
    )


def _conduct(state: State, data: Mapping[str, JSON]) -> State:
    """A timeout, abort, resignation or claim (domain/conduct.py): an ending finishes the
    match with its winners, the scores as they stand."""
    winners = conduct.ending(data)
    if winners is None:
        return state
    return _with(state, phase=Phase.FINISHED, turn=None, winners=winners)


def _seat_replaced(state: State, data: Mapping[str, JSON]) -> State:
    return _with(state, players=conduct.replaced(state.players, data))


Fold = Callable[[State, Mapping[str, JSON]], State]
"""A fold step as `evolve` calls it: with the event's recorded data, which is the payload its
step declares (manipulation/shapes.py `PAYLOADS`; tests/unit/test_event_payloads.py checks
them)."""

_HANDLERS = cast(
    "dict[str, Fold]",
    {
        **{kind: _lobby_step(kind) for kind in sorted(LOBBY_EVENTS)},
        "MatchCreated": _created,
        "DealerChosen": _dealer_chosen,
        "RoundDealt": _dealt,
        "CardDrawn": _drawn,
        "StockExhausted": _exhausted,
        "TableMelded": _melded,
        "Passed": _passed,
        "TurnEnded": _turn_ended,
        "Knocked": _knocked,
        "RoundScored": _scored,
        "MatchFinished": _finished,
        **dict.fromkeys(conduct.MAY_END, _conduct),
        "SeatReplacedByBot": _seat_replaced,
    },
)
