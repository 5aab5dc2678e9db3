"""Manipulation Rummy views (api.md): what a seat, or a spectator, may see of a state or an event.

Other seats' hands, drawn cards, the stock order, the salt and the seed stay hidden until the
match is finished.
"""

from __future__ import annotations

from typing import Any

from domain.cards import codes
from domain.events import Event
from domain.frozen import FrozenDict, FrozenList, freeze
from domain.manipulation.moves import is_finished, legal_moves, to_act
from domain.manipulation.state import NAME, RoundResult, State, shown_table
from domain.memo import by_identity


def view(state: State, seat: int | None) -> dict[str, Any]:
    """The api.md view minus id; `you` only for a seat of this match (built as one dict,
    in the contract's key order)."""
    return {
        "variant": NAME,
        "version": state.version,
        "seeded": state.seeded,
        "status": "finished" if is_finished(state) else "active",
        "options": _shown_options(state.options_dict),
        "round": state.round,
        "phase": state.phase.value,
        "turn": to_act(state),
        "seats": _seats(state),
        "scores": list(state.scores),
        "winners": list(state.winners),
        "stock_size": len(state.stock),
        "rounds": _shown_rounds(state.results),
        "deal_commitment": state.commitment,
        "you": _you(state, seat),
        "dealer": state.dealer,
        "table": shown_table(state.table),
        "draws_this_turn": state.draws,
        "rounds_won": list(state.rounds_won),
        "final_turns_left": len(state.lap),
    }


@by_identity(256)
def _shown_options(options: tuple[tuple[str, Any], ...]) -> dict[str, Any]:
    """The match's options, rendered once per options object and shared read-only."""
    return FrozenDict(options)


@by_identity(1024)
def _shown_rounds(results: tuple[RoundResult, ...]) -> list[dict[str, Any]]:
    """The past rounds (M8), rendered once per results tuple (a state's tuple stays the same
    object until the next round ends) and shared read-only by every view of those states."""
    return FrozenList(freeze(r.to_json()) for r in results)


def _seats(state: State) -> list[dict[str, Any]]:
    return [
        {
            "seat": i,
            "name": p.name,
            "bot": p.bot,
            "hand_size": len(state.hands[i]) if state.hands else 0,
        }
        for i, p in enumerate(state.players)
    ]


def _you(state: State, seat: int | None) -> dict[str, Any] | None:
    """The seat's own hand and legal moves (an empty hand before the first deal)."""
    if seat is None or not 0 <= seat < state.n:
        return None
    if not state.hands:
        return {"seat": seat, "hand": [], "legal_moves": []}
    return {"seat": seat, "hand": codes(state.hands[seat]), "legal_moves": legal_moves(state, seat)}


def event_view(before: State, event: Event, seat: int | None) -> dict[str, Any]:
    """The event as `seat` may see it: other hands, drawn cards, stock order, salt, seed hidden."""
    data = dict(event.data)
    if is_finished(before):
        return {"type": event.type, "v": event.v, "data": data}
    if event.type == "MatchCreated":
        data["seed"] = None
        data["deal_key"] = None
        if "salt_key" in data:
            data["salt_key"] = None
    elif event.type == "RoundDealt":
        data["hands"] = [
            list(h) if s == seat else [None] * len(h) for s, h in enumerate(data["hands"])
        ]
        data["stock"] = [None] * len(data["stock"])
        data["salt"] = None
    elif event.type == "CardDrawn" and data.get("seat") != seat:
        data["card"] = None
    return {"type": event.type, "v": event.v, "data": data}
