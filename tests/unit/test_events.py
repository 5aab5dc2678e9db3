"""Event, the record of a match (domain/events.py): a frozen value whose `__init__` is
written out for speed (issue 14) and behaves as the dataclass it replaced."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from domain.events import Event


def test_event_fields_by_position_and_by_keyword() -> None:
    by_position = Event("CardDiscarded", {"seat": 1, "card": "AS"}, 2)
    by_keyword = Event(type="CardDiscarded", data={"seat": 1, "card": "AS"}, v=2)
    assert by_position == by_keyword
    assert (by_position.type, by_position.data, by_position.v) == (
        "CardDiscarded",
        {"seat": 1, "card": "AS"},
        2,
    )
    assert repr(by_position) == "Event(type='CardDiscarded', data={'seat': 1, 'card': 'AS'}, v=2)"


def test_event_defaults_are_empty_data_of_its_own_and_version_one() -> None:
    first, second = Event("MatchFinished"), Event("MatchFinished")
    assert first.data == {} and first.v == 1 and first == second
    assert first.data is not second.data
    assert [f.name for f in dataclasses.fields(Event)] == ["type", "data", "v"]


def test_event_is_frozen() -> None:
    event = Event("UpcardPassed", {"seat": 0, "card": "5H"})
    with pytest.raises(dataclasses.FrozenInstanceError):
        event.type = "UpcardTaken"  # type: ignore[misc]
    assert event != Event("UpcardPassed", {"seat": 1, "card": "5H"})


def test_event_copies_and_pickles_as_itself() -> None:
    event = Event("CardDrawn", {"seat": 2, "from": "stock", "card": "KD"})
    assert pickle.loads(pickle.dumps(event)) == event
    assert copy.deepcopy(event) == event and copy.copy(event) == event
    assert Event.from_json(event.to_json()) == event
