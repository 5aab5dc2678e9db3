"""Three-handed Gin: the state and the fold (`evolve`) of its events (rules.md G1-G9).

The state is a frozen dataclass of tuples. `evolve` trusts recorded history and never raises:
every card it moves is read from the event, never from a random generator.

Events (past tense; data is JSON-ready):

    MatchCreated   {variant, players: [{name, bot}], options, seeded, seed, deal_key,
                    salt_key (seeded matches only)}
    RolesDrawn     {draws: [[{seat, card}, ...], ...], tiebreak, box, captain, advisor}   G1.2
    RoundDealt     {round, box, captain, advisor, hands: [codes | None], upcard,
                    stock: [codes, 0 = top], salt, commitment}                            G4
    UpcardPassed, UpcardTaken  {seat, card}                                               G5.1
    CardDrawn      {seat, from: "stock" | "discard", card}                                G5.2
    CardDiscarded  {seat, card}   (a discard leaving 2 stock cards ends the hand, G5.6)   G5.2
    Knocked        {seat, card (face down), melds, deadwood_cards, count, gin}            G6
    AdviceGiven    {seat, captain, text, move}                                            G1.4
    RoundScored    {the round result of api.md, plus scores: running totals}              G7
    MatchFinished  {scores, winners, totals, bonuses}                                     G8
    TurnTimedOut, MatchAborted, ... (conduct.py); SeatJoined, MatchStarted, ... (lobby_fold.py)"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from types import SimpleNamespace
from typing import Protocol, TypeVar, cast

from domain import conduct, lobby
from domain.cards import FULL_DECK, Card
from domain.events import Event
from domain.frozen import freeze
from domain.gin.options import GinOptions, options_of
from domain.gin.shapes import (
    AdviceGivenData,
    CardDrawnData,
    CardPlayedData,
    GinMatchFinishedData,
    GinRoundDealtData,
    GinRoundResult,
    KnockedData,
    RolesDrawnData,
)
from domain.players import Player
from domain.shapes import JSON, MatchCreatedData

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


NEW, ROLE_DRAW, DEALING = Phase.NEW, Phase.ROLE_DRAW, Phase.DEALING
UPCARD_OFFER, DRAW, DISCARD = Phase.UPCARD_OFFER, Phase.DRAW, Phase.DISCARD
SCORING, FINISHED = Phase.SCORING, Phase.FINISHED
"""The phases as module constants: `Phase.X` is a lookup on the enum class (about 0.1 us),
and the fold, the moves and the views test the phase several times per move."""


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
    phase: Phase = NEW
    options: GinOptions = field(default_factory=GinOptions)
    players: tuple[Player, ...] = ()
    seeded: bool = False
    seed: int | None = None
    deal_key: str = ""
    salt_key: str = ""  # a seeded match's secret for the commitment salts ("" = deal_key)
    round: int = 0
    roles: Roles | None = None
    hands: tuple[tuple[Card, ...], ...] = ((), (), ())
    held: int = 0  # every hand as one mask: bit SEAT_BITS * seat + Card.index (`hand_mask`)
    stock: tuple[Card, ...] = ()  # index 0 is the top card
    discard: tuple[Card, ...] = ()  # the last card is the top card
    turn: int | None = None
    stock_only: bool = False  # G5.1.4: both passed the upcard, CAPTAIN opens from the stock
    taken: Card | None = None  # the card taken from the discard pile this turn (G5.3)
    picked: tuple[tuple[Card, ...], ...] = ((), (), ())  # per seat: taken from the pile, held
    knock: Knock | None = None
    commitment: str | None = None
    scores: tuple[int, ...] = (0, 0, 0)
    rounds: tuple[GinRoundResult, ...] = ()  # round results, read-only (domain/frozen.py)
    winners: tuple[int, ...] = ()
    advice: int = 0  # AdviceGiven since the CAPTAIN's last turn ended (or the deal), G1.4
    lobby: lobby.Lobby | None = None  # a match that waits or waited for its players


class _Draft:
    """The next state while a fold step writes it: the slots of GinState, in the same order,
    on a plain class, so the step sets them as ordinary attributes; `evolve` then makes it a
    GinState (`__class__` can be reassigned between classes of the same slots).

    Why slots: the state is read far more often than it is made (the views, `legal_moves`,
    `decide`, `pending` and the next step read its fields), and a slot is read by a
    specialised instruction several times faster than a field of an instance whose `__dict__`
    was replaced, which is how the fold made states before (a frozen dataclass's `__init__`
    sets each of the 23 fields through `object.__setattr__`, which costs more than a step).

    The plain code it stands for is `evolve_plainly` (below `evolve`): the same steps writing
    to a plain namespace, then `dataclasses.replace`; tests/unit/test_gin_fold_copy.py folds
    random matches both ways and compares every state. Its gain: bench/README.md."""

    __slots__ = GinState.__slots__


_new = cast("Callable[[type[_Draft]], Changes]", object.__new__)


def initial_state() -> GinState:
    """The state before MatchCreated."""
    return GinState()


CODE = tuple(str(c) for c in FULL_DECK)
CARD_OF = {str(c): c for c in FULL_DECK}


def cards(codes: Iterable[str]) -> tuple[Card, ...]:
    """The cards of recorded codes (trusted history: a plain lookup)."""
    return tuple(CARD_OF[c] for c in codes)


def codes(cards: Iterable[Card]) -> list[str]:
    """The codes of cards, in order (the JSON form); a table lookup, cheaper than str()."""
    return [CODE[c.index] for c in cards]


class Changes(Protocol):
    """The draft of the new state (`_Draft`): a copy of the old state's fields, which each fold
    step updates with the fields its event changes (`version` is set by `evolve`). As mypy
    sees it: GinState's fields, writable (tests/unit/test_declarations.py keeps the two
    lists equal)."""

    version: int
    phase: Phase
    options: GinOptions
    players: tuple[Player, ...]
    seeded: bool
    seed: int | None
    deal_key: str
    salt_key: str
    round: int
    roles: Roles | None
    hands: tuple[tuple[Card, ...], ...]
    held: int
    stock: tuple[Card, ...]
    discard: tuple[Card, ...]
    turn: int | None
    stock_only: bool
    taken: Card | None
    picked: tuple[tuple[Card, ...], ...]
    knock: Knock | None
    commitment: str | None
    scores: tuple[int, ...]
    rounds: tuple[GinRoundResult, ...]
    winners: tuple[int, ...]
    advice: int
    lobby: lobby.Lobby | None


SEAT_BITS = 64
_HAND_FIELD = (1 << SEAT_BITS) - 1


def hand_mask(state: GinState, seat: int) -> int:
    """The cards of `seat`'s hand as a card mask (bit = Card.index), without a loop over the
    hand: the fold keeps every hand's bits in `held` as it keeps `hands` (G6.2's count and
    the checks that a card is held read it)."""
    return state.held >> SEAT_BITS * seat & _HAND_FIELD


def _held(hands: tuple[tuple[Card, ...], ...]) -> int:
    """`held` of dealt hands."""
    bits = 0
    for seat, hand in enumerate(hands):
        for card in hand:
            bits |= 1 << (SEAT_BITS * seat + card.index)
    return bits


T = TypeVar("T")


def _put(items: tuple[T, ...], seat: int, item: T) -> tuple[T, ...]:
    """`items` (one per seat) with `seat`'s replaced."""
    changed = list(items)
    changed[seat] = item
    return tuple(changed)


def drop(cards: tuple[Card, ...], index: int) -> tuple[Card, ...]:
    """`cards` without the card of `index` (compared by index: `Card.__eq__` is Python): the
    two slices around it, found by a walk that stops there (a hand holds a card once). The
    last card is looked at first: a card just drawn or taken is there (G5.2.1)."""
    if cards and cards[-1].index == index:
        return cards[:-1]
    for at, card in enumerate(cards):
        if card.index == index:
            return cards[:at] + cards[at + 1 :]
    return cards


def _card_in(state: GinState, seat: int, card: Card, out: Changes) -> None:
    """`card` joins `seat`'s hand (a draw, the upcard taken): in `hands` and in `held`."""
    out.hands = _put(state.hands, seat, (*state.hands[seat], card))
    out.held = state.held | 1 << (SEAT_BITS * seat + card.index)


def _card_out(state: GinState, seat: int, index: int, out: Changes) -> None:
    """The card of `index` leaves `seat`'s hand (a discard, the face-down knock card): in
    `hands`, in `held` and, if it was one, in `picked`."""
    out.hands = _put(state.hands, seat, drop(state.hands[seat], index))
    out.held = state.held & ~(1 << (SEAT_BITS * seat + index))
    out.picked = _unpicked(state.picked, seat, index)


def _captain_moved(roles: Roles | None, seat: int, out: Changes) -> None:
    """G1.4: the advice count starts again when the CAPTAIN's turn ends (a pass of the
    upcard, a discard, a knock)."""
    if roles is not None and seat == roles.captain:
        out.advice = 0


def _match_created(state: GinState, data: MatchCreatedData, out: Changes) -> None:
    players = tuple(Player.of(p) for p in data["players"])
    out.lobby = lobby.created(data, players)  # a lobby draws its roles at MatchStarted
    out.phase = ROLE_DRAW if out.lobby is None else NEW
    out.options = options_of(data["options"])
    out.players = players
    out.seeded = bool(data["seeded"])
    out.seed = data.get("seed")
    out.deal_key = str(data["deal_key"])
    out.salt_key = str(data.get("salt_key") or "")
    out.scores = (0,) * len(players)


def _roles_drawn(state: GinState, data: RolesDrawnData, out: Changes) -> None:
    out.phase = DEALING
    out.roles = Roles(int(data["box"]), int(data["captain"]), int(data["advisor"]))


def _round_dealt(state: GinState, data: GinRoundDealtData, out: Changes) -> None:
    roles = Roles(int(data["box"]), int(data["captain"]), int(data["advisor"]))
    hands = tuple(() if h is None else cards(h) for h in data["hands"])
    out.phase = UPCARD_OFFER
    out.round = int(data["round"])
    out.roles = roles
    out.hands = hands
    out.held = _held(hands)
    out.stock = cards(data["stock"])
    out.discard = (CARD_OF[data["upcard"]],)
    out.turn = roles.captain
    out.stock_only = False
    out.taken = None
    out.picked = ((),) * len(hands)
    out.knock = None
    out.commitment = str(data["commitment"])
    out.advice = 0  # G1.4: the advice count starts again at each deal


def _upcard_passed(state: GinState, data: CardPlayedData, out: Changes) -> None:
    roles = state.roles
    assert roles is not None
    seat = data["seat"]
    if int(seat) == roles.captain:
        out.turn = roles.box
    else:
        out.phase = DRAW
        out.turn = roles.captain
        out.stock_only = True
    _captain_moved(roles, seat, out)


def _upcard_taken(state: GinState, data: CardPlayedData, out: Changes) -> None:
    seat, card = int(data["seat"]), CARD_OF[data["card"]]
    out.phase = DISCARD
    _card_in(state, seat, card, out)
    out.discard = state.discard[:-1]
    out.taken = card
    out.picked = _put(state.picked, seat, (*state.picked[seat], card))


def _card_drawn(state: GinState, data: CardDrawnData, out: Changes) -> None:
    """G5.2.1; G1.4: a card taken from the discard pile is seen by all while held
    (`picked`)."""
    seat, card = int(data["seat"]), CARD_OF[data["card"]]
    out.phase = DISCARD
    _card_in(state, seat, card, out)
    if data["from"] == "stock":
        out.stock = state.stock[1:]
        out.stock_only = False
    else:
        out.discard = state.discard[:-1]
        out.taken = card
        out.picked = _put(state.picked, seat, (*state.picked[seat], card))


def _card_discarded(state: GinState, data: CardPlayedData, out: Changes) -> None:
    """G5.2; G5.6: a discard that leaves exactly two stock cards ends the hand as a draw."""
    roles = state.roles
    assert roles is not None
    seat, card = int(data["seat"]), CARD_OF[data["card"]]
    _card_out(state, seat, card.index, out)
    out.discard = (*state.discard, card)
    out.taken = None
    if len(state.stock) == 2:
        out.phase = SCORING
        out.turn = None
    else:
        out.phase = DRAW
        out.turn = roles.other(seat)
    _captain_moved(roles, seat, out)


def _unpicked(
    picked: tuple[tuple[Card, ...], ...], seat: int, index: int
) -> tuple[tuple[Card, ...], ...]:
    """`picked` once the card of `index` left `seat`'s hand: a picked card discarded again (or
    knocked with) is no longer held; the same tuple when it was not a picked card."""
    held = picked[seat]
    if not held:
        return picked
    kept = drop(held, index)
    return picked if len(kept) == len(held) else _put(picked, seat, kept)


def _knocked(state: GinState, data: KnockedData, out: Changes) -> None:
    seat, card = int(data["seat"]), CARD_OF[data["card"]]
    out.knock = Knock(
        seat=seat,
        card=card,
        melds=tuple(cards(m) for m in data["melds"]),
        deadwood_cards=cards(data["deadwood_cards"]),
        count=int(data["count"]),
        gin=bool(data["gin"]),
    )
    out.phase = SCORING
    out.turn = None
    out.taken = None
    _card_out(state, seat, card.index, out)  # the knock card is face down (G6.3.1)
    _captain_moved(state.roles, seat, out)


def _advice_given(state: GinState, data: AdviceGivenData, out: Changes) -> None:
    """G1.4: advice changes no card; it counts against the advice allowed this turn."""
    out.advice = state.advice + 1


def _round_scored(state: GinState, data: GinRoundResult, out: Changes) -> None:
    points = tuple(int(p) for p in data["points"])
    out.phase = DEALING
    out.scores = tuple(s + p for s, p in zip(state.scores, points, strict=True))
    out.rounds = (*state.rounds, freeze(data))


def _match_finished(state: GinState, data: GinMatchFinishedData, out: Changes) -> None:
    out.phase = FINISHED
    out.turn = None
    out.scores = tuple(int(s) for s in data["scores"])
    out.winners = tuple(int(w) for w in data["winners"])


def _conduct(state: GinState, data: Mapping[str, JSON], out: Changes) -> None:
    """A timeout, abort, resignation or claim: an ending finishes it, scores as they stand."""
    winners = conduct.ending(data)
    if winners is not None:
        out.phase = FINISHED
        out.turn = None
        out.winners = winners


def _seat_replaced(state: GinState, data: Mapping[str, JSON], out: Changes) -> None:
    out.players = conduct.replaced(state.players, data)


Fold = Callable[[GinState, Mapping[str, JSON], Changes], None]
"""A fold step as `evolve` calls it, with the recorded data: its step's payload (PAYLOADS)."""


_FOLD = cast(
    "dict[str, Fold]",
    {
        "MatchCreated": _match_created,
        "RolesDrawn": _roles_drawn,
        "RoundDealt": _round_dealt,
        "UpcardPassed": _upcard_passed,
        "UpcardTaken": _upcard_taken,
        "CardDrawn": _card_drawn,
        "CardDiscarded": _card_discarded,
        "Knocked": _knocked,
        "AdviceGiven": _advice_given,
        "RoundScored": _round_scored,
        "MatchFinished": _match_finished,
        **dict.fromkeys(conduct.MAY_END, _conduct),
        "SeatReplacedByBot": _seat_replaced,
    },
)


def evolve(state: GinState, event: Event) -> GinState:
    """Fold one recorded event into the state: a draft copy of its fields, updated by the
    event's step (an unknown event type changes nothing) and given the next version."""
    new = _new(_Draft)  # a draft of the next state: every field of `state`, as is
    new.phase = state.phase
    new.options = state.options
    new.players = state.players
    new.seeded = state.seeded
    new.seed = state.seed
    new.deal_key = state.deal_key
    new.salt_key = state.salt_key
    new.round = state.round
    new.roles = state.roles
    new.hands = state.hands
    new.held = state.held
    new.stock = state.stock
    new.discard = state.discard
    new.turn = state.turn
    new.stock_only = state.stock_only
    new.taken = state.taken
    new.picked = state.picked
    new.knock = state.knock
    new.commitment = state.commitment
    new.scores = state.scores
    new.rounds = state.rounds
    new.winners = state.winners
    new.advice = state.advice
    new.lobby = state.lobby
    step = _FOLD.get(event.type)
    if step is not None:
        step(state, event.data, new)
    new.version = state.version + 1
    new.__class__ = GinState  # type: ignore[assignment]  # the draft becomes the state
    return new  # type: ignore[return-value]  # the draft became a GinState


def evolve_plainly(state: GinState, event: Event) -> GinState:
    """`evolve` without the draft: the step writes the fields its event changes to a plain
    namespace, and `dataclasses.replace` makes the next state (what `_Draft` stands for)."""
    changes = SimpleNamespace()
    step = _FOLD.get(event.type)
    if step is not None:
        step(state, event.data, cast(Changes, changes))
    return replace(state, **vars(changes), version=state.version + 1)


def card_places(state: GinState) -> dict[str, tuple[Card, ...]]:
    """Every place a card of the current hand can be, for conservation checks."""
    out_of_play = (state.knock.card,) if state.knock is not None else ()
    return {
        **{f"hand:{s}": h for s, h in enumerate(state.hands)},
        "stock": state.stock,
        "discard": state.discard,
        "out_of_play": out_of_play,
    }
