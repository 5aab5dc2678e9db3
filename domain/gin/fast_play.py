"""Three-handed Gin's fast path for the common moves: `accepted_play`, which stands for
`moves.decide_in_full` on the moves a seat makes most (take or pass the upcard, draw,
discard) when they are well formed and legal, and returns None for anything else.

The plain code it stands for: `decide_in_full` (parse_move, the phase and turn checks,
`_take_upcard`, `_pass_upcard`, `_draw`, `_discard`, `_held`). Its equivalence test:
tests/unit/test_gin_fast_paths.py (both paths on every listed move and on many unlisted ones,
same events or the fast path declines). Its gain: bench/README.md.
"""

from __future__ import annotations

from domain.events import Event
from domain.frozen import FrozenDict
from domain.gin.state import (
    CARD_OF,
    CODE,
    DISCARD,
    DRAW,
    SEATS,
    UPCARD_OFFER,
    GinState,
    hand_mask,
)

_MOVE_TYPES = (dict, FrozenDict)


def accepted_play(state: GinState, seat: int, move: object) -> tuple[Event, ...] | None:
    """The events of the common moves (upcard, draw, discard) when the seat to act makes one
    of them in its exact JSON shape and the rules accept it; None for anything else, which
    `decide` then checks in full (and refuses with the precise error, or accepts).

    It accepts only what the full checks accept, with the same events (tests/unit/
    test_gin_fast_paths.py compares both on every listed and many unlisted moves): the paths
    differ in cost (random play: about 2 us a move against 3.5 us), not in outcome."""
    if type(move) not in _MOVE_TYPES or type(seat) is not int or seat != state.turn:
        return None
    assert isinstance(move, dict)  # a dict or a FrozenDict (its subclass)
    if not 0 <= seat < SEATS:  # not a seat of the tables below (no state of a match)
        return None
    phase = state.phase
    kind = move.get("type")
    if kind == "discard":
        return _accepted_discard(state, seat, move) if phase == DISCARD else None
    if kind == "draw":
        return _accepted_draw(state, seat, move) if phase == DRAW else None
    if phase == UPCARD_OFFER and len(move) == 1 and type(kind) is str and kind in _UPCARD_EVENTS:
        return _UPCARD_EVENTS[kind][seat][state.discard[-1].index]
    return None


def _accepted_discard(
    state: GinState, seat: int, move: dict[str, object]
) -> tuple[Event, ...] | None:
    """G5.2.2 / G5.3, as `_discard` and `_held`."""
    code = move.get("card")
    if len(move) != 2 or type(code) is not str:
        return None
    card = CARD_OF.get(code)
    if card is None or not hand_mask(state, seat) >> card.index & 1:
        return None
    taken = state.taken
    if taken is not None and taken.index == card.index and state.options.no_discard_of_taken_card:
        return None
    return _DISCARDED[seat][card.index]


def _accepted_draw(state: GinState, seat: int, move: dict[str, object]) -> tuple[Event, ...] | None:
    """G5.2.1 / G5.1.4, as `_draw`."""
    source = move.get("from")
    if len(move) != 2:
        return None
    if source == "stock" and state.stock:
        return _FROM_STOCK_DRAWN[seat][state.stock[0].index]
    if source == "discard" and state.discard and not state.stock_only:
        return _FROM_PILE_DRAWN[seat][state.discard[-1].index]
    return None


def _recorded(kind: str, **fields: str) -> tuple[tuple[tuple[Event], ...], ...]:
    """`(Event(kind, {"seat": seat, **fields, "card": code}),)` of every seat and card code,
    by seat then Card.index: the accepted common moves' events, made once. An event is never
    changed once made (domain/events.py) and its data here is read-only (domain/frozen.py),
    so one object serves every match; it equals the event `decide_in_full` makes."""
    return tuple(
        tuple((Event(kind, FrozenDict({"seat": seat, **fields, "card": code})),) for code in CODE)
        for seat in range(SEATS)
    )


_DISCARDED = _recorded("CardDiscarded")
_FROM_STOCK_DRAWN = _recorded("CardDrawn", **{"from": "stock"})
_FROM_PILE_DRAWN = _recorded("CardDrawn", **{"from": "discard"})
_UPCARD_EVENTS = {"take_upcard": _recorded("UpcardTaken"), "pass_upcard": _recorded("UpcardPassed")}
