"""Events: the only record of a match. Chance is data, so replay never draws a random number.

An event is a past-tense `type`, a schema version `v` and JSON-ready `data` (str, int, bool,
None, lists and dicts of those). Event data is never mutated after it is made. Time (`at`) and
the sequence number belong to the store, not to the domain.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from domain.shapes import JSON, json_int, json_object


@dataclass(frozen=True, slots=True, init=False)
class Event:
    """One recorded event. `__init__` is written out: it sets the slots through their
    descriptors, where the generated one of a frozen dataclass calls `object.__setattr__`
    through a global per field (0.37 -> 0.24 us; a gin move makes one Event, random play
    about 117 a hand). The plain code it stands for is that generated `__init__`
    (bench/tricks.py's `PlainEvent`); tests/unit/test_events.py holds this one to it (fields
    by position and keyword, defaults, frozen, copy and pickle)."""

    type: str
    data: Mapping[str, JSON] = field(default_factory=dict)
    v: int = 1

    def __init__(self, type: str, data: Mapping[str, JSON] | None = None, v: int = 1) -> None:
        _set_type(self, type)
        _set_data(self, {} if data is None else data)
        _set_v(self, v)

    def to_json(self) -> dict[str, JSON]:
        return {"type": self.type, "v": self.v, "data": dict(self.data)}

    @classmethod
    def from_json(cls, obj: Mapping[str, JSON]) -> Event:
        data, v = json_object(obj.get("data") or None), json_int(obj.get("v", 1))
        return cls(type=str(obj["type"]), data=dict(data), v=v)


_set_type = Event.__dict__["type"].__set__
_set_data = Event.__dict__["data"].__set__
_set_v = Event.__dict__["v"].__set__

SYSTEM = -1
"""The seat number used for moves the service itself makes (scoring a round, dealing the next)."""
