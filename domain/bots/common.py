"""Shared bot plumbing: `choose` from `explain`, the no-move guard, unseen-card sampling and
the plain fallbacks every bot ends with.

A bot module defines `explain(view, legal_moves, rng) -> (move, reason)`; `choose_of(explain)`
is its `choose`, the same move without the reason.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar, cast

from domain.shapes import JSON, json_list, json_object, json_str

ViewJSON = Mapping[str, object]
"""A seat's view as a bot reads it: the domain's own (a GinView or a ManipulationView: to
mypy a TypedDict is a `Mapping[str, object]`) or a client's, parsed from JSON. Bots read it
at this edge (each game's `SeatView.of`), through domain/shapes.py's JSON readers."""
MoveJSON = Mapping[str, object]
"""A legal move as listed in a view (the game's GinMove or ManipulationMove)."""
Legal = Sequence[MoveJSON]
Move = dict[str, object]
"""The move a bot makes: a copy of a listed move, or one built in the game's move shape
(`variants.move_from_json` types it for `decide`, which checks it)."""
Explain = Callable[[ViewJSON, Legal, random.Random], tuple[Move, str]]
Choose = Callable[[ViewJSON, Legal, random.Random], Move]
T = TypeVar("T")


def json_view(view: Mapping[str, object]) -> Mapping[str, JSON]:
    """A view or a move a bot was handed, read as the JSON it is (the domain renders views and
    moves as JSON values only; a client parses them from JSON): the edge where a bot starts
    reading it with domain/shapes.py's readers."""
    return cast("Mapping[str, JSON]", view)


def table_of(move: MoveJSON) -> list[list[str]]:
    """The table of a meld move (empty for any other move), as card codes."""
    return [
        list(map(json_str, json_list(meld))) for meld in json_list(json_view(move).get("table"))
    ]


def choose_of(explain: Explain) -> Choose:
    """The `choose` of a bot: its `explain` without the reason."""

    def choose(view: ViewJSON, legal_moves: Legal, rng: random.Random) -> Move:
        return explain(view, legal_moves, rng)[0]

    choose.__doc__ = f"The move of {explain.__module__}.explain, without its reason."
    return choose


def require_moves(legal_moves: Legal, bot: str) -> None:
    """A bot is only asked to move when it has a legal move (ValueError otherwise)."""
    if not legal_moves:
        raise ValueError(f"the {bot} bot was asked to move with no legal move")


def sample_split(rng: random.Random, pool: Sequence[T], sizes: Sequence[int]) -> list[list[T]]:
    """One uniformly random deal of distinct `pool` items into parts of these sizes."""
    dealt = rng.sample(pool, sum(sizes))
    parts, start = [], 0
    for size in sizes:
        parts.append(dealt[start : start + size])
        start += size
    return parts


def first_listed(legal_moves: Legal, choices: Sequence[tuple[str, str]]) -> tuple[Move, str]:
    """The first `(type, reason)` of `choices` whose type is listed, else the first move."""
    kinds = {m.get("type") for m in legal_moves}
    for kind, reason in choices:
        if kind in kinds:
            return {"type": kind}, reason
    return dict(legal_moves[0]), "the only move listed"


def follow_advice(view: ViewJSON, legal_moves: Legal) -> Move | None:
    """G1.4: the advised move when CAPTAIN's view carries advice (`you.advice`) that is legal."""
    advice = json_object(json_object(json_view(view).get("you")).get("advice"))
    move = advice.get("move")
    if not isinstance(move, Mapping):
        return None
    for legal in legal_moves:
        if all(move.get(k) == v for k, v in legal.items()) and move.get("type") == legal.get(
            "type"
        ):
            return dict(move)
    return None
