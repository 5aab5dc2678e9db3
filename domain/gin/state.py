"""Three-handed Gin: the state and the fold (`evolve`) of its events (rules.md G1-G9).

The state is a frozen dataclass of tuples. `evolve` trusts recorded history and never raises:
every card it moves is read from the event, never from a random generator.

Events (past tense; data is JSON-ready):

    MatchCreated   {variant, players: [{name, bot}], options, seeded, seed, deal_key,
                    salt_key (seeded matches only)}
    RolesDrawn     {draws: [[{seat, card}, ...], ...], tiebreak, box, captain, advisor}   G1.2
    RoundDealt     {round, box, captain, advisor, hands: [codes | None], upcard,
                    stock: [codes, 0 = top], salt, commitment}                            G4
    UpcardPassed   {seat, card}                                                           G5.1
    UpcardTaken    {seat, card}                                                           G5.1
    CardDrawn      {seat, from: "stock" | "discard", card}                                G5.2
    CardDiscarded  {seat, card}   (a discard leaving 2 stock cards ends the hand, G5.6)   G5.2
    Knocked        {seat, card (face down), melds, deadwood_cards, count, gin}            G6
    AdviceGiven    {seat, captain, text, move}                                            G1.4
    RoundScored    {the round result of api.md, plus scores: running totals}              G7
    MatchFinished  {scores, winners, totals, bonuses}                                     G8
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from enum import StrEnum
from operator import attrgetter
from typing import Any

from domain.cards import FULL_DECK, Card
from domain.events import Event
from domain.frozen import freeze
from domain.gin.options import GinOptions, options_of
from domain.players import Player

SEATS = 3


class Phase(StrEnum):
    """Where a match stands (G9). Play phases use the suggested names of api.md."""

    NEW = "new"  # no event yet
    ROLE_DRAW = "role_draw"  # created; the role draw is due (SYSTEM)
    DEALING = "dealing"  # between hands; the next deal (or the end) is due (SYSTEM)
    UPCARD_OFFER = "upcard_offer"  # G5.1
    DRAW = "draw"  # G5.2.1
    DISCARD = "discard"  # G5.2.2: discard or knock
    SCORING = "scoring"  # the hand ended (knock or G5.6 draw); score_round is due
    FINISHED = "finished"  # G8.1


@dataclass(frozen=True, slots=True)
class Roles:
    """The seats holding each role in the current hand (G1.1)."""

    box: int
    captain: int
    advisor: int

    def of(self, seat: int) -> str:
        if seat == self.box:
            return "box"
        if seat == self.captain:
            return "captain"
        if seat == self.advisor:
            return "advisor"
        raise KeyError(seat)

    def other(self, seat: int) -> int:
        """The other active player: BOX for CAPTAIN and CAPTAIN for BOX."""
        return self.captain if seat == self.box else self.box


@dataclass(frozen=True, slots=True)
class Knock:
    """A knock as spread on the table (G6.3); `card` is the face-down discard."""

    seat: int
    card: Card
    melds: tuple[tuple[Card, ...], ...]
    deadwood_cards: tuple[Card, ...]
    count: int
    gin: bool


@dataclass(frozen=True, slots=True)
class GinState:
    version: int = 0
    phase: Phase = Phase.NEW
    options: GinOptions = field(default_factory=GinOptions)
    players: tuple[Player, ...] = ()
    seeded: bool = False
    seed: int | None = None
    deal_key: str = ""
    salt_key: str = ""  # a seeded match's secret for the commitment salts ("" = deal_key)
    round: int = 0
    roles: Roles | None = None
    hands: tuple[tuple[Card, ...], ...] = ((), (), ())
    stock: tuple[Card, ...] = ()  # index 0 is the top card
    discard: tuple[Card, ...] = ()  # the last card is the top card
    turn: int | None = None
    stock_only: bool = False  # G5.1.4: both passed the upcard, CAPTAIN opens from the stock
    taken: Card | None = None  # the card taken from the discard pile this turn (G5.3)
    knock: Knock | None = None
    commitment: str | None = None
    scores: tuple[int, ...] = (0, 0, 0)
    rounds: tuple[Mapping[str, Any], ...] = ()  # round results, read-only (domain/frozen.py)
    winners: tuple[int, ...] = ()
    advice: int = 0  # AdviceGiven since the CAPTAIN's last turn ended (or the deal), G1.4


_NAMES = tuple(f.name for f in fields(GinState))
_SLOT = {name: i for i, name in enumerate(_NAMES)}
_VALUES = attrgetter(*_NAMES)


def replace(state: GinState, **changes: Any) -> GinState:
    """`dataclasses.replace` for the fold's hot path: the same new state, built positionally
    (the generic one re-inspects every field of the class on each call)."""
    values = list(_VALUES(state))
    for name, value in changes.items():
        values[_SLOT[name]] = value
    return GinState(*values)


def initial_state() -> GinState:
    """The state before MatchCreated."""
    return GinState()


CODE = tuple(str(c) for c in FULL_DECK)
CARD_OF = {str(c): c for c in FULL_DECK}


def cards(codes: Any) -> tuple[Card, ...]:
    """The cards of recorded codes (trusted history: a plain lookup)."""
    return tuple(CARD_OF[c] for c in codes)


def codes(cards: Any) -> list[str]:
    """The codes of cards, in order (the JSON form); a table lookup, cheaper than str()."""
    return [CODE[c.index] for c in cards]


def _without(hand: tuple[Card, ...], card: Card) -> tuple[Card, ...]:
    index = card.index
    return tuple(c for c in hand if c.index != index)


def _set_hand(state: GinState, seat: int, hand: tuple[Card, ...]) -> tuple[tuple[Card, ...], ...]:
    return tuple(hand if s == seat else h for s, h in enumerate(state.hands))


def _match_created(state: GinState, data: Mapping[str, Any], **stamp: int) -> GinState:
    players = tuple(Player.of(p) for p in data["players"])
    return replace(
        state,
        phase=Phase.ROLE_DRAW,
        options=options_of(data["options"]),
        players=players,
        seeded=bool(data["seeded"]),
        seed=data.get("seed"),
        deal_key=str(data["deal_key"]),
        salt_key=str(data.get("salt_key") or ""),
        scores=(0,) * len(players),
        **stamp,
    )


def _roles_drawn(state: GinState, data: Mapping[str, Any], **stamp: int) -> GinState:
    roles = Roles(int(data["box"]), int(data["captain"]), int(data["advisor"]))
    return replace(state, phase=Phase.DEALING, roles=roles, **stamp)


def _round_dealt(state: GinState, data: Mapping[str, Any], **stamp: int) -> GinState:
    roles = Roles(int(data["box"]), int(data["captain"]), int(data["advisor"]))
    hands = tuple(() if h is None else cards(h) for h in data["hands"])
    return replace(
        state,
        phase=Phase.UPCARD_OFFER,
        round=int(data["round"]),
        roles=roles,
        hands=hands,
        stock=cards(data["stock"]),
        discard=(CARD_OF[data["upcard"]],),
        turn=roles.captain,
        stock_only=False,
        taken=None,
        knock=None,
        commitment=str(data["commitment"]),
        **stamp,
    )


def _upcard_passed(state: GinState, data: Mapping[str, Any], **stamp: int) -> GinState:
    assert state.roles is not None
    if int(data["seat"]) == state.roles.captain:
        return replace(state, turn=state.roles.box, **stamp)
    return replace(state, phase=Phase.DRAW, turn=state.roles.captain, stock_only=True, **stamp)


def _upcard_taken(state: GinState, data: Mapping[str, Any], **stamp: int) -> GinState:
    seat, card = int(data["seat"]), CARD_OF[data["card"]]
    return replace(
        state,
        phase=Phase.DISCARD,
        hands=_set_hand(state, seat, (*state.hands[seat], card)),
        discard=state.discard[:-1],
        taken=card,
        **stamp,
    )


def _card_drawn(state: GinState, data: Mapping[str, Any], **stamp: int) -> GinState:
    seat, card = int(data["seat"]), CARD_OF[data["card"]]
    hands = _set_hand(state, seat, (*state.hands[seat], card))
    if data["from"] == "stock":
        return replace(
            state,
            phase=Phase.DISCARD,
            hands=hands,
            stock=state.stock[1:],
            stock_only=False,
            **stamp,
        )
    return replace(
        state, phase=Phase.DISCARD, hands=hands, discard=state.discard[:-1], taken=card, **stamp
    )


def _card_discarded(state: GinState, data: Mapping[str, Any], **stamp: int) -> GinState:
    """G5.2; G5.6: a discard that leaves exactly two stock cards ends the hand as a draw."""
    assert state.roles is not None
    seat, card = int(data["seat"]), CARD_OF[data["card"]]
    ended = len(state.stock) == 2
    return replace(
        state,
        hands=_set_hand(state, seat, _without(state.hands[seat], card)),
        discard=(*state.discard, card),
        taken=None,
        phase=Phase.SCORING if ended else Phase.DRAW,
        turn=None if ended else state.roles.other(seat),
        **stamp,
    )


def _knocked(state: GinState, data: Mapping[str, Any], **stamp: int) -> GinState:
    seat, card = int(data["seat"]), CARD_OF[data["card"]]
    knock = Knock(
        seat=seat,
        card=card,
        melds=tuple(cards(m) for m in data["melds"]),
        deadwood_cards=cards(data["deadwood_cards"]),
        count=int(data["count"]),
        gin=bool(data["gin"]),
    )
    return replace(
        state,
        phase=Phase.SCORING,
        turn=None,
        taken=None,
        hands=_set_hand(state, seat, _without(state.hands[seat], card)),
        knock=knock,
        **stamp,
    )


def _round_scored(state: GinState, data: Mapping[str, Any], **stamp: int) -> GinState:
    points = tuple(int(p) for p in data["points"])
    scores = tuple(s + p for s, p in zip(state.scores, points, strict=True))
    return replace(
        state, phase=Phase.DEALING, scores=scores, rounds=(*state.rounds, freeze(data)), **stamp
    )


def _match_finished(state: GinState, data: Mapping[str, Any], **stamp: int) -> GinState:
    return replace(
        state,
        phase=Phase.FINISHED,
        turn=None,
        scores=tuple(int(s) for s in data["scores"]),
        winners=tuple(int(w) for w in data["winners"]),
        **stamp,
    )


_FOLD: dict[str, Callable[..., GinState]] = {
    # each step folds its event in and stamps `version` and `advice` (evolve) in one replace
    "MatchCreated": _match_created,
    "RolesDrawn": _roles_drawn,
    "RoundDealt": _round_dealt,
    "UpcardPassed": _upcard_passed,
    "UpcardTaken": _upcard_taken,
    "CardDrawn": _card_drawn,
    "CardDiscarded": _card_discarded,
    "Knocked": _knocked,
    "RoundScored": _round_scored,
    "MatchFinished": _match_finished,
}


def evolve(state: GinState, event: Event) -> GinState:
    """Fold one recorded event into the state (AdviceGiven only counts, G1.4)."""
    step = _FOLD.get(event.type)
    version, advice = state.version + 1, _advice_count(state, event)
    if step is None:
        return replace(state, version=version, advice=advice)
    return step(state, event.data, version=version, advice=advice)


_CAPTAIN_TURN_ENDS = ("UpcardPassed", "CardDiscarded", "Knocked")


def _advice_count(state: GinState, event: Event) -> int:
    """The advice counter after `event`: +1 for advice, 0 at a deal and when the CAPTAIN's
    turn ends (a pass of the upcard, a discard, a knock)."""
    if event.type == "AdviceGiven":
        return state.advice + 1
    if event.type == "RoundDealt":
        return 0
    captain = state.roles.captain if state.roles is not None else None
    if event.type in _CAPTAIN_TURN_ENDS and event.data.get("seat") == captain:
        return 0
    return state.advice


def card_places(state: GinState) -> dict[str, tuple[Card, ...]]:
    """Every place a card of the current hand can be, for conservation checks."""
    out_of_play = (state.knock.card,) if state.knock is not None else ()
    return {
        **{f"hand:{s}": h for s, h in enumerate(state.hands)},
        "stock": state.stock,
        "discard": state.discard,
        "out_of_play": out_of_play,
    }
