"""Three-handed Gin: moves (api.md), `decide`, `legal_moves`, `to_act` and `pending`.

`decide(state, seat, move)` validates and returns events, or raises:
MalformedMove (bad shape), InvalidCard (bad code), ForbiddenMove (a move the seat's role can
never make: the advisor playing, G1.3; anyone but the advisor advising, G1.4; a seat giving a
SYSTEM move), NotYourTurn, IllegalMove (a rule). It never changes the state it is given.

The SYSTEM moves (`pending`): `score_round` when a hand has ended (G7), and, between events
that `create` and `score_round` emit together, `draw_roles`, `deal_round` and `finish_match`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from domain.cards import Card
from domain.errors import (
    AdviceLimit,
    ForbiddenMove,
    IllegalMove,
    NotYourTurn,
)
from domain.events import SYSTEM, Event
from domain.frozen import FrozenDict
from domain.gin.deal import deal_round, draw_roles, next_roles
from domain.gin.fast_play import accepted_play
from domain.gin.knock import (
    discardable,
    finish_event,
    knock_among,
    knock_event,
    match_over,
    round_result,
)
from domain.gin.parse import SYSTEM_TYPES, Move, parse_move
from domain.gin.shapes import GinMove
from domain.gin.state import (
    CODE,
    DEALING,
    DISCARD,
    DRAW,
    FINISHED,
    NEW,
    ROLE_DRAW,
    SCORING,
    UPCARD_OFFER,
    GinState,
    Phase,
    evolve,
    hand_mask,
)
from domain.lobby import refuse_move
from domain.shapes import JSON, as_json
from domain.shuffle import salt_key

MAX_ADVICE_PER_TURN = 3
"""AdviceGiven events per turn of the CAPTAIN (G1.4): advice is a few suggestions, not a
channel to flood the log with (issue 11). The count starts again when the CAPTAIN's turn ends
and at each deal; with `advice_window: after_knock_only` it is 3 per hand."""


_PLAYING = (UPCARD_OFFER, DRAW, DISCARD)


def to_act(state: GinState) -> int | None:
    """The seat whose move it is; None while a SYSTEM move is due or the match is over."""
    return state.turn if state.phase in _PLAYING else None


def pending(state: GinState) -> GinMove | None:
    """The SYSTEM move due now, if any (G9)."""
    if state.phase in _PLAYING:  # most calls: a seat is to act
        return None
    if state.phase == ROLE_DRAW:
        return {"type": "draw_roles"}
    if state.phase == SCORING:
        return {"type": "score_round"}
    if state.phase == DEALING:
        return {"type": "finish_match" if match_over(state) else "deal_round"}
    return None


def is_finished(state: GinState) -> bool:
    return state.phase == FINISHED


# --- decide ------------------------------------------------------------------------------


def decide(state: GinState, seat: int, move: GinMove) -> tuple[Event, ...]:
    """Validate `move` by `seat` and return its events (G1.3-G8); raise a RulesError else."""
    accepted = accepted_play(state, seat, move)
    if accepted is not None:
        return accepted
    return decide_in_full(state, seat, move)


def decide_in_full(state: GinState, seat: int, move: GinMove) -> tuple[Event, ...]:
    """`decide` through every check, in the order that picks the error to raise."""
    parsed = parse_move(move)
    if state.lobby is not None and state.lobby.status != "started":
        refuse_move(state.lobby)  # waiting for players, or cancelled (domain/lobby.py)
    if state.phase == FINISHED:
        raise IllegalMove(f"cannot {parsed.type}: the match is finished (G8.1)")
    if state.phase == NEW:
        raise IllegalMove(f"cannot {parsed.type}: the match has not been created")
    if parsed.type in SYSTEM_TYPES or seat == SYSTEM:
        return _decide_system(state, seat, parsed)
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(state.players):
        raise ForbiddenMove(f"seat {seat!r:.20} is not a seat of this match: spectators only watch")
    if parsed.type == "advise":
        return _advise(state, seat, parsed)
    _check_turn(state, seat, parsed.type)
    return _PLAY[parsed.type](state, seat, parsed)


def _check_turn(state: GinState, seat: int, kind: str) -> None:
    """G1.3: only BOX or CAPTAIN plays, and only the seat whose turn it is."""
    if state.roles is None:
        raise NotYourTurn(f"cannot {kind}: nobody plays before the role draw (G1.2)")
    if seat == state.roles.advisor:
        raise ForbiddenMove(
            f"cannot {kind}: seat {seat} is the ADVISOR this hand, who may only advise; "
            "CAPTAIN plays for the team (G1.3)"
        )
    current = to_act(state)
    if current != seat:
        who = f"nobody: the {state.phase} step is due" if current is None else f"seat {current}"
        raise NotYourTurn(f"cannot {kind}: it is the turn of {who}, not seat {seat}")


def _decide_system(state: GinState, seat: int, move: Move) -> tuple[Event, ...]:
    if seat != SYSTEM:
        raise ForbiddenMove(f"{move.type} is made by the service itself, not by seat {seat}")
    if move.type not in SYSTEM_TYPES:
        raise ForbiddenMove(f"the service makes only {', '.join(SYSTEM_TYPES)}, not {move.type}")
    due = pending(state)
    if due is None or due["type"] != move.type:
        raise IllegalMove(f"cannot {move.type} now: {due['type'] if due else 'nothing'} is due")
    return _SYSTEM[move.type](state)


def _draw_roles(state: GinState) -> tuple[Event, ...]:
    return (draw_roles(state.deal_key, state.options.role_draw_tiebreak, len(state.players)),)


def _deal_round(state: GinState) -> tuple[Event, ...]:
    salts = salt_key(state.deal_key, state.salt_key)
    roles = next_roles(state)
    return (deal_round(state.deal_key, state.round + 1, roles, len(state.players), salts),)


def _finish_match(state: GinState) -> tuple[Event, ...]:
    return (finish_event(state),)


def _score_round(state: GinState) -> tuple[Event, ...]:
    """G7 then G8.1: RoundScored, then the next deal (G1.5 roles) or MatchFinished."""
    scored = Event("RoundScored", as_json(round_result(state)))
    after = evolve(state, scored)
    return (scored, *_SYSTEM[finish_or_deal(after)](after))


def finish_or_deal(state: GinState) -> str:
    return "finish_match" if match_over(state) else "deal_round"


_SYSTEM: dict[str, Callable[[GinState], tuple[Event, ...]]] = {
    "draw_roles": _draw_roles,
    "deal_round": _deal_round,
    "score_round": _score_round,
    "finish_match": _finish_match,
}


def advice_open(state: GinState) -> bool:
    """G1.4 / A-G4: when the advisor may advise (advice_window)."""
    if state.options.advice_window == "after_knock_only":
        return state.phase == SCORING and state.knock is not None
    return state.phase in (UPCARD_OFFER, DRAW, DISCARD)


def _advise(state: GinState, seat: int, move: Move) -> tuple[Event, ...]:
    """G1.4: advice from ADVISOR to CAPTAIN; seen by those two only; binds nobody."""
    roles = state.roles
    if roles is None or seat != roles.advisor:
        raise ForbiddenMove(f"cannot advise: seat {seat} is not the ADVISOR this hand (G1.4)")
    if not state.options.advice_enabled:
        raise ForbiddenMove("cannot advise: advice is off in this match (advice_enabled, G1.4)")
    if not advice_open(state):
        window = state.options.advice_window
        raise IllegalMove(f"cannot advise now: the advice window is {window} (G1.4, A-G4)")
    if state.advice >= MAX_ADVICE_PER_TURN:
        raise AdviceLimit(
            f"cannot advise: {state.advice} pieces of advice were given since the CAPTAIN "
            f"(seat {roles.captain}) last moved; at most {MAX_ADVICE_PER_TURN} per turn of the "
            "CAPTAIN (G1.4)"
        )
    data: dict[str, JSON] = {
        "seat": seat,
        "captain": roles.captain,
        "text": move.text,
        "move": cast("JSON", move.advice),  # a TypedDict is JSON, though mypy will not say so
    }
    return (Event("AdviceGiven", data),)


def _need_phase(state: GinState, move: Move, phase: Phase, rule: str) -> None:
    if state.phase != phase:
        raise IllegalMove(
            f"cannot {move.type} now: the hand is in the {state.phase} phase ({rule})"
        )


def _take_upcard(state: GinState, seat: int, move: Move) -> tuple[Event, ...]:
    """G5.1.1 / G5.1.3: the offered player takes the upcard (it counts as the draw)."""
    _need_phase(state, move, UPCARD_OFFER, "G5.1")
    return (Event("UpcardTaken", {"seat": seat, "card": str(state.discard[-1])}),)


def _pass_upcard(state: GinState, seat: int, move: Move) -> tuple[Event, ...]:
    """G5.1: CAPTAIN, then BOX, may pass; after both, CAPTAIN draws from the stock."""
    _need_phase(state, move, UPCARD_OFFER, "G5.1")
    return (Event("UpcardPassed", {"seat": seat, "card": str(state.discard[-1])}),)


def _draw(state: GinState, seat: int, move: Move) -> tuple[Event, ...]:
    """G5.2.1: the top of the stock or of the discard pile (not after both passed, G5.1.4)."""
    _need_phase(state, move, DRAW, "G5.2")
    if move.source == "discard":
        if state.stock_only:
            raise IllegalMove(
                "cannot draw from the discard pile: both players passed the upcard, so CAPTAIN "
                "opens from the stock (G5.1.4)"
            )
        if not state.discard:
            raise IllegalMove("cannot draw from the discard pile: it is empty (G5.2)")
        card = state.discard[-1]
    elif not state.stock:
        raise IllegalMove("cannot draw from the stock: it is empty (G5.6)")
    else:
        card = state.stock[0]
    return (Event("CardDrawn", {"seat": seat, "from": move.source, "card": CODE[card.index]}),)


def _discard(state: GinState, seat: int, move: Move) -> tuple[Event, ...]:
    """G5.2.2 / G5.3: discard face up any card but one just taken from the discard pile."""
    _need_phase(state, move, DISCARD, "G5.2")
    card = _held(state, seat, move)
    return (Event("CardDiscarded", {"seat": seat, "card": CODE[card.index]}),)


def _knock(state: GinState, seat: int, move: Move) -> tuple[Event, ...]:
    """G6.1-G6.4: knock after drawing, discarding face down; melds checked (G6.3)."""
    _need_phase(state, move, DISCARD, "G6.1: knock after drawing, instead of discarding")
    card = _held(state, seat, move)
    return (knock_event(state, seat, card, move.melds),)


def _held(state: GinState, seat: int, move: Move) -> Card:
    assert move.card is not None
    card = move.card
    index = card.index
    if not hand_mask(state, seat) >> index & 1:
        raise IllegalMove(f"cannot {move.type} {card}: it is not in your hand")
    taken = state.taken
    if taken is not None and taken.index == index and state.options.no_discard_of_taken_card:
        raise IllegalMove(
            f"cannot {move.type} {card}: you took it from the discard pile this turn (G5.3)"
        )
    return card


_PLAY: dict[str, Callable[[GinState, int, Move], tuple[Event, ...]]] = {
    "take_upcard": _take_upcard,
    "pass_upcard": _pass_upcard,
    "draw": _draw,
    "discard": _discard,
    "knock": _knock,
}


# --- legal moves ---------------------------------------------------------------------------


def legal_moves(state: GinState, seat: int) -> list[GinMove]:
    """Every legal move of `seat` now: each concrete card choice; knocks without "melds"."""
    roles = state.roles
    if (  # the seat to act (most calls): as `_other_moves` finds it, in fewer steps
        seat == state.turn
        and state.phase in _PLAYING
        and roles is not None
        and seat != roles.advisor
    ):
        return _turn_moves(state, seat)
    return _other_moves(state, seat)


def _other_moves(state: GinState, seat: int) -> list[GinMove]:
    """`legal_moves` of every seat but the one to act: SYSTEM, the ADVISOR, the others."""
    if seat == SYSTEM:
        due = pending(state)
        return [] if due is None else [due]
    roles = state.roles
    if roles is None or state.phase == FINISHED:
        return []
    if seat == roles.advisor:
        ok = state.options.advice_enabled and advice_open(state)
        ok = ok and state.advice < MAX_ADVICE_PER_TURN
        return [{"type": "advise"}] if ok else []
    if to_act(state) != seat:
        return []
    return _turn_moves(state, seat)


def _move(**fields: str) -> GinMove:
    return cast("GinMove", FrozenDict(fields))


_UPCARD_MOVES = (_move(type="take_upcard"), _move(type="pass_upcard"))
_FROM_STOCK = _move(type="draw", **{"from": "stock"})
_FROM_DISCARD = _move(type="draw", **{"from": "discard"})
_DISCARDS = tuple(_move(type="discard", card=code) for code in CODE)
_KNOCKS = tuple(_move(type="knock", card=code) for code in CODE)
"""Every listed move is one of these read-only dicts (domain/frozen.py), made once: a list of
legal moves is a list of shared values, not a dict built per card per view."""


def _turn_moves(state: GinState, seat: int) -> list[GinMove]:
    """The moves of the seat to act in this phase: discard/knock, draw, or upcard offer."""
    phase = state.phase
    if phase == DISCARD:
        free = discardable(state, state.hands[seat])
        discards = _DISCARDS
        moves: list[GinMove] = [discards[c.index] for c in free]
        knocking = knock_among(state, hand_mask(state, seat), free)
        if knocking:  # most hands: none (G6.2)
            knocks = _KNOCKS
            moves += [knocks[c.index] for c in knocking]
        return moves
    if phase == DRAW:
        if not state.stock_only and state.discard:
            return [_FROM_STOCK, _FROM_DISCARD]
        return [_FROM_STOCK]
    return list(_UPCARD_MOVES)
