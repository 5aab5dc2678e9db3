"""Three-handed Gin: what each seat may see (G1.4, api.md views and redacted events).

- A seat sees its own hand. ADVISOR also sees CAPTAIN's hand when `advisor_sees_captain_hand`
  (G1.4), including the cards CAPTAIN draws from the stock and his face-down knock card.
  Nobody sees BOX's hand, the stock order, the deal salt, the seed or the deal key.
- Public: the upcard and every discard (`discard_pile`, bottom to top), draws from the
  discard pile (`picked`: per seat, the cards it took from the pile this hand and still
  holds), the knocker's spread (G3.5, G6.3) and, once a hand is scored, both hands (the
  round result).
- The face-down knock card (G6.3.1) stays hidden from the other seats for the rest of the
  match: it appears only in the Knocked event, which is public in full once the match is
  finished.
- AdviceGiven text and suggested move are seen by ADVISOR and CAPTAIN only (G1.4).
- Spectators (seat None) see only the public part.
- Once the match is finished nothing is hidden (api.md): `event_view` with a finished
  `before` returns the event as recorded. A store serving the log of a finished match should
  serve the raw events, because `before` of an earlier event is never finished.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import NamedTuple, cast

from domain.cards import Card
from domain.events import Event
from domain.frozen import FrozenList, freeze, frozen_dict
from domain.gin.moves import legal_moves
from domain.gin.options import GinOptions
from domain.gin.shapes import GinSeat, GinView, GinYou, KnockView, Role
from domain.gin.shapes import Roles as RolesView
from domain.gin.state import (
    CODE,
    DISCARD,
    DRAW,
    FINISHED,
    UPCARD_OFFER,
    GinState,
    Knock,
    Roles,
    codes,
)
from domain.memo import Memo, by_identity
from domain.players import Player
from domain.shapes import JSON, EventView, OptionsView, json_int, json_list

VARIANT_NAME = "three-hand-gin"


_NESTED = (dict, list)


def json_copy(value: JSON) -> JSON:
    """A deep copy of JSON-ready data (dicts and lists copied, leaves shared)."""
    if isinstance(value, Mapping):
        return {k: json_copy(v) if type(v) in _NESTED else v for k, v in value.items()}
    if isinstance(value, list):
        return [json_copy(v) if type(v) in _NESTED else v for v in value]
    return value


def sees_hand(options: GinOptions, roles: Roles | None, viewer: int | None, owner: int) -> bool:
    """G1.4: a seat sees its own cards; ADVISOR sees CAPTAIN's if the option allows."""
    if viewer is None or roles is None:
        return False
    if viewer == owner:
        return True
    return options.advisor_sees_captain_hand and viewer == roles.advisor and owner == roles.captain


def view(state: GinState, seat: int | None, cache: ViewCache | None = None) -> GinView:
    """The api.md view of the match for `seat` (None: a spectator), without `id`.

    The view's dict and its `you` are its own; every other list and dict in it is read-only
    (domain/frozen.py). With a `cache` (the game's own: `domain.gin.VIEWS`, which
    `VARIANT.view` uses) those parts are shared with the views of the states around it
    (`_Shown`), so a view's cost does not grow with the rounds played or the cards in the
    discard pile; without one, every part is rendered afresh (the plain code the cache
    stands for: tests/unit/test_gin_fast_paths.py holds the two equal)."""
    if cache is None:
        return _Shown().render(state, seat)
    return cache.view(state, seat)


class ViewCache:
    """The view parts of the matches viewed lately (`_Shown`), each found by the match's
    players tuple: one object for the whole match (MatchCreated makes it; every later state
    passes it on), so its identity names the match. An explicit object, handed in (`view`)
    or owned by the game (`domain.gin.VIEWS`), never a module global of this module.

    The last match found is also kept in `_last`, which `view` reads without a call: one
    tuple, replaced whole, so a reader sees a matching pair."""

    __slots__ = ("_last", "_shown")

    def __init__(self, size: int = 1024) -> None:
        self._last: tuple[tuple[Player, ...] | None, _Shown | None] = (None, None)
        self._shown: Memo[tuple[Player, ...], _Shown] = by_identity(size)(_new_shown)

    def view(self, state: GinState, seat: int | None) -> GinView:
        """`view(state, seat, self)`."""
        players = state.players
        last_players, last = self._last
        if last_players is players and last is not None:  # most calls: the match viewed last
            return last.render(state, seat)
        shown = self._shown(players)
        self._last = (players, shown)
        return shown.render(state, seat)

    def clear(self) -> None:
        """Forget every match's view parts."""
        self._last = (None, None)
        self._shown.cache_clear()


def _new_shown(players: tuple[Player, ...]) -> _Shown:
    return _Shown()


_PLAYING = (UPCARD_OFFER, DRAW, DISCARD)  # as moves.to_act, inlined


class _Shown:
    """One match's read-only view parts, each kept with the state fields it was rendered from.

    A fold step replaces only the fields it changes and passes the others on as the same
    objects, so a part is reused while its fields are the very same objects (`is`, no hashing)
    and rendered again, once, when one was replaced. Each part is held as one tuple of
    (fields..., rendered) and replaced whole, so a reader never sees a half-updated part.
    `render` checks every part inline and calls a method only to render one again: a view
    is one call here, not one per part."""

    __slots__ = ("_discard", "_hand", "_knock", "_picked")

    def __init__(self) -> None:
        self._hand: _HandPart | None = None
        self._discard: tuple[tuple[Card, ...] | None, FrozenList[str]] = (None, _NO_CODES)
        self._picked: tuple[_Picked | None, FrozenList[list[str]]] = (None, FrozenList())
        self._knock: tuple[Knock | None, KnockView | None] = (None, None)

    def render(self, state: GinState, seat: int | None) -> GinView:
        """The view: a copy of the hand's template (the keys in api.md's order, the values
        that change only between hands) with this move's values and `you` set."""
        h = self._hand
        if h is None or not (
            h[0] is state.roles and h[1] is state.scores and h[2] is state.commitment
        ):
            h = self._new_hand(state)  # see _new_hand for why these three fields suffice
        hands, discard, picked, knock = state.hands, state.discard, state.picked, state.knock
        phase = state.phase
        out: GinView = h[3].copy()
        out["version"] = state.version
        out["status"] = "finished" if phase == FINISHED else "active"
        out["phase"] = phase._value_
        out["turn"] = state.turn if phase in _PLAYING else None
        sizes = (len(hands[0]), len(hands[1]), len(hands[2]))  # 2 or 3 sizes a hand (G5.2)
        seats = h[4].get(sizes)
        out["seats"] = _seats(state, h[4], sizes, h[5]) if seats is None else seats
        out["stock_size"] = len(state.stock)
        out["discard_top"] = CODE[discard[-1].index] if discard else None
        out["discard_size"] = len(discard)
        d = self._discard
        if d[0] is not discard:  # a card went on or came off the pile (G5.2): from the last
            d = self._discard = (discard, _pile_codes(d[0], d[1], discard))
        out["discard_pile"] = d[1]
        p = self._picked
        out["picked"] = p[1] if p[0] is picked else self._new_picked(picked)
        k = self._knock
        if knock is not None:
            out["knock"] = k[1] if k[0] is knock else self._new_knock(knock)
        lobby = state.lobby
        if lobby is not None:  # rendered once per lobby event (domain/lobby.py)
            out["lobby"] = lobby.view
        if seat is not None and 0 <= seat < len(state.players):
            you: GinYou = {  # the seat's own part (G1.1 role, its hand, its legal moves)
                "seat": seat,
                "role": h[5][seat],
                "hand": [CODE[c.index] for c in hands[seat]],
                "legal_moves": legal_moves(state, seat),
            }
            roles = state.roles
            if roles is not None and seat == roles.advisor:
                shown = sees_hand(state.options, roles, seat, roles.captain)
                you["team_hand"] = codes(hands[roles.captain]) if shown else None
            out["you"] = you
        return out

    def _new_hand(self, state: GinState) -> _HandPart:
        """The three fields the part was made from, the template of a hand's views, its seats
        by hand sizes (none made yet) and each seat's role (G1.1).

        The template's fields change only with one of three, which `render` checks: every
        event that sets one of them sets `scores` (MatchCreated: options, seeded; RoundScored:
        rounds; MatchFinished: winners) or `roles` and `commitment` (RolesDrawn, RoundDealt:
        round), each to a new object, and no other event sets any of them (state.py). So two
        states of a match with the same three objects have the same template."""
        hand = _HandPart(
            state.roles,
            state.scores,
            state.commitment,
            _template(state),
            {},  # the seats part by hand sizes
            _role_names(state.roles, len(state.players)),
        )
        self._hand = hand
        return hand

    def _new_picked(self, picked: _Picked) -> FrozenList[list[str]]:
        """A copy of the last list with the seats whose tuple was replaced rendered again (a
        step changes one seat's picked cards at most, G1.4: one taken from the pile, or one
        of them discarded), each from its last codes where it can be (`_pile_codes`); one
        empty list is shared by the seats that hold none (every seat after a deal)."""
        old, shown = self._picked
        if old is None or len(old) != len(picked):
            made: FrozenList[list[str]] = FrozenList(
                [_codes(held) if held else _NO_CODES for held in picked]
            )
        else:
            made = FrozenList(shown)
            for seat, held in enumerate(picked):
                if held is not old[seat]:
                    codes = _pile_codes(old[seat], shown[seat], held) if held else _NO_CODES
                    _fill(made, seat, codes)
        self._picked = (picked, made)
        return made

    def _new_knock(self, knock: Knock) -> KnockView:
        made: KnockView = freeze(_public_knock(knock))
        self._knock = (knock, made)
        return made


class _HandPart(NamedTuple):
    """A hand's part of its views: the three fields it was made from, the template of its
    views, its seats by hand sizes and each seat's role (`_Shown._new_hand`)."""

    roles: Roles | None
    scores: tuple[int, ...]
    commitment: str | None
    template: GinView
    seats: dict[tuple[int, ...], FrozenList[GinSeat]]
    role_names: list[Role | None]


_Picked = tuple[tuple[Card, ...], ...]


def _codes(cards: tuple[Card, ...]) -> FrozenList[str]:
    return FrozenList([CODE[c.index] for c in cards])


_NO_CODES: FrozenList[str] = FrozenList()
_fill = list.__setitem__
"""Sets an item of a FrozenList still being made (its own `__setitem__` refuses): only for a
list no view has been given yet."""


def _pile_codes(
    old: tuple[Card, ...] | None, shown: list[str], new: tuple[Card, ...]
) -> FrozenList[str]:
    """The codes of the pile `new`, given `shown`, the codes of the pile `old`: one card more
    or one fewer on top is a copy of `shown` (the tuples compare by identity of their cards,
    in C); anything else is rendered in full."""
    if old is not None:
        size, before = len(new), len(old)
        if size == before + 1 and new[:before] == old:
            return FrozenList([*shown, CODE[new[-1].index]])
        if size == before - 1 and old[:size] == new:
            return FrozenList(shown[:size])
    return _codes(new)


def _template(state: GinState) -> GinView:
    """The keys of a view in api.md's order, with the values that change only between hands;
    `render` sets every other one (a placeholder here) but `knock` and `you`."""
    roles = state.roles
    return {
        "variant": VARIANT_NAME,
        "version": 0,
        "seeded": state.seeded,
        "status": "active",
        "options": cast("OptionsView", frozen_dict(state.options.as_dict())),
        "round": state.round,
        "phase": "",
        "turn": None,
        "seats": _NO_SEATS,
        "scores": FrozenList(state.scores),
        "winners": FrozenList(state.winners),
        "stock_size": 0,
        "rounds": FrozenList(state.rounds),  # each result is read-only already (frozen.py)
        "deal_commitment": state.commitment,
        "roles": None if roles is None else frozen_dict(_roles_view(roles)),
        "discard_top": None,
        "discard_size": 0,
        "discard_pile": _NO_CODES,
        "picked": _NO_PICKED,
        "knock": None,
        "you": None,
        "lobby": None,
    }


_NO_SEATS: FrozenList[GinSeat] = FrozenList()
_NO_PICKED: FrozenList[list[str]] = FrozenList()


def _roles_view(roles: Roles) -> RolesView:
    return {"box": roles.box, "captain": roles.captain, "advisor": roles.advisor}


def _role_names(roles: Roles | None, count: int) -> list[Role | None]:
    """Each seat's role this hand (G1.1), None before the role draw."""
    names: list[Role | None] = [None] * count
    if roles is not None:
        names[roles.advisor] = "advisor"
        names[roles.captain] = "captain"
        names[roles.box] = "box"
    return names


def _seats(
    state: GinState,
    made: dict[tuple[int, ...], FrozenList[GinSeat]],
    sizes: tuple[int, ...],
    names: list[Role | None],
) -> FrozenList[GinSeat]:
    """The seats part of a hand's views with these hand sizes, kept in `made`."""
    seats = made[sizes] = FrozenList(
        frozen_dict(_seat(seat, player, sizes[seat], names[seat]))
        for seat, player in enumerate(state.players)
    )
    return seats


def _seat(seat: int, player: Player, size: int, role: Role | None) -> GinSeat:
    return {**player.seat_view(seat, size), "role": role}


def _public_knock(knock: Knock) -> KnockView:
    """G6.3: the knocker's spread is face up; his knock card is not shown here."""
    return {
        "seat": knock.seat,
        "melds": [codes(m) for m in knock.melds],
        "deadwood_cards": codes(knock.deadwood_cards),
        "count": knock.count,
        "gin": knock.gin,
    }


def event_view(before: GinState, event: Event, seat: int | None) -> EventView:
    """`{"type", "v", "data"}` with every card `seat` may not see as None (G1.4)."""
    data = {k: json_copy(v) if type(v) in _NESTED else v for k, v in event.data.items()}
    if before.phase != FINISHED:
        redact = _REDACT.get(event.type)
        if redact is not None:
            redact(before, data, seat)
    return {"type": event.type, "v": event.v, "data": data}


def _redact_created(before: GinState, data: dict[str, JSON], seat: int | None) -> None:
    data["seed"] = None
    data["deal_key"] = None
    if "salt_key" in data:
        data["salt_key"] = None


def _redact_dealt(before: GinState, data: dict[str, JSON], seat: int | None) -> None:
    roles = Roles(json_int(data["box"]), json_int(data["captain"]), json_int(data["advisor"]))
    hands = list(json_list(data["hands"]))
    for owner, hand in enumerate(hands):
        if hand is not None and not sees_hand(before.options, roles, seat, owner):
            hands[owner] = [None] * len(json_list(hand))
    data["hands"] = hands
    data["stock"] = [None] * len(json_list(data["stock"]))
    data["salt"] = None


def _redact_drawn(before: GinState, data: dict[str, JSON], seat: int | None) -> None:
    owner = json_int(data["seat"])
    if data["from"] == "stock" and not sees_hand(before.options, before.roles, seat, owner):
        data["card"] = None


def _redact_knocked(before: GinState, data: dict[str, JSON], seat: int | None) -> None:
    if not sees_hand(before.options, before.roles, seat, json_int(data["seat"])):
        data["card"] = None


def _redact_advice(before: GinState, data: dict[str, JSON], seat: int | None) -> None:
    if seat is None or seat not in (data["seat"], data["captain"]):
        data["text"] = None
        data["move"] = None


_REDACT: Mapping[str, Callable[[GinState, dict[str, JSON], int | None], None]] = {
    "MatchCreated": _redact_created,
    "RoundDealt": _redact_dealt,
    "CardDrawn": _redact_drawn,
    "Knocked": _redact_knocked,
    "AdviceGiven": _redact_advice,
}
