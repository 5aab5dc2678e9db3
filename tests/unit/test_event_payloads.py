"""Every recorded event is what its payload declaration says (issue 29: one description of
every event): the events of random matches of both games, key by key and value by value,
against the TypedDict its game's `PAYLOADS` names (domain/gin/shapes.py,
domain/manipulation/shapes.py, and MatchCreated in domain/shapes.py).

A value is checked against its declared type one level deep for lists (`list[Code]` is a
list of strings) and through unions (`Code | None`), literals and nested TypedDicts.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Iterable
from typing import Literal, NotRequired, Union, get_args, get_origin, get_type_hints, is_typeddict

import pytest

from domain.events import Event
from domain.gin import shapes as gin_shapes
from domain.manipulation import shapes as manipulation_shapes
from domain.shapes import JSON, PAYLOADS
from tests.support.manipulation_helpers import random_match as manipulation_match
from tests.unit.test_gin_support import random_match as gin_match


def _fits(value: object, declared: object) -> bool:
    """`value` is of the type `declared` (as far as JSON values go)."""
    origin = get_origin(declared)
    if declared is typing.Any or declared is object or declared == JSON:
        return True
    if origin in (Union, types.UnionType):
        return any(_fits(value, arm) for arm in get_args(declared))
    if origin is Literal:
        return value in get_args(declared)
    if origin is list:
        (item,) = get_args(declared)
        return isinstance(value, list) and all(_fits(v, item) for v in value)
    if origin is dict:
        return isinstance(value, dict)
    if is_typeddict(declared):
        return isinstance(value, dict) and not _misfits(value, typing.cast(type, declared))
    if declared is type(None):
        return value is None
    if declared is int:
        return isinstance(value, int) and not isinstance(value, bool)
    assert isinstance(declared, type), declared
    return isinstance(value, declared)


def _misfits(data: typing.Mapping[str, object], declared: type) -> list[str]:
    """What of `data` does not fit the TypedDict `declared` (empty: it fits)."""
    hints = get_type_hints(declared)
    # NotRequired read from the hints: under `from __future__ import annotations` the class's
    # __required_keys__ holds every key (the strings are not evaluated when it is made)
    extras = get_type_hints(declared, include_extras=True)
    required = {k for k, hint in extras.items() if get_origin(hint) is not NotRequired}
    wrong = [f"missing {k}" for k in sorted(required - data.keys())]
    wrong += [f"undeclared {k}" for k in sorted(data.keys() - hints.keys())]
    for key, value in data.items():
        if key in hints and not _fits(value, hints[key]):
            wrong.append(f"{key}={value!r:.60} is not {hints[key]}")
    return wrong


def _check(events: Iterable[Event], payloads: dict[str, type]) -> set[str]:
    seen = set()
    for event in events:
        assert event.type in payloads, f"{event.type} has no payload declaration"
        assert not _misfits(event.data, payloads[event.type]), (
            event.type,
            _misfits(event.data, payloads[event.type]),
        )
        seen.add(event.type)
    return seen


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_gin_events_are_their_declared_payloads(seed: int) -> None:
    events, _ = gin_match(seed, {"target_score": 60, "advice_enabled": True})
    seen = _check(events, gin_shapes.PAYLOADS)
    assert {"MatchCreated", "RoundDealt", "CardDiscarded", "RoundScored"} <= seen


@pytest.mark.parametrize(("seed", "players"), [(1, 2), (2, 3), (3, 4)])
def test_manipulation_events_are_their_declared_payloads(seed: int, players: int) -> None:
    _, events = manipulation_match(seed, players, {"target_score": 60})
    seen = _check(events, manipulation_shapes.PAYLOADS)
    assert {"MatchCreated", "RoundDealt", "TableMelded", "RoundScored"} <= seen


def test_the_shared_events_are_declared_once() -> None:
    """An event both games record (MatchCreated) has one declaration, in domain/shapes.py."""
    for shared, declared in PAYLOADS.items():
        assert gin_shapes.PAYLOADS[shared] is declared
        assert manipulation_shapes.PAYLOADS[shared] is declared


def test_a_payload_that_does_not_fit_is_found() -> None:
    """The check itself: a missing, an undeclared and a mistyped member are each found."""
    bad = {"seat": "1", "from": "table", "extra": 0}
    assert _misfits(bad, gin_shapes.PAYLOADS["CardDrawn"]) == [
        "missing card",
        "undeclared extra",
        "seat='1' is not <class 'int'>",
        "from='table' is not typing.Literal['stock', 'discard']",
    ]
