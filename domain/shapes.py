"""JSON values and the shapes both games share (issue 29: the domain declares its surface once).

`JSON` is a JSON-ready value. The moves, views and event payloads of each game are declared
in its `shapes.py` (domain/gin/shapes.py, domain/manipulation/shapes.py) as TypedDicts, not
frozen dataclasses: a view and a legal move are built per request on the hot paths
(bench/views.py) as dicts that share read-only parts between states (domain/frozen.py), and
they are sent as they are. A TypedDict costs nothing at run time (no object per view, no
conversion at the edge), while mypy checks every key and value type where a view or a move
is made or read; `tests/unit/test_declarations.py` checks the OpenAPI components and the
client's types against these declarations field by field. Inside a game a move is parsed
once into its own value (`domain.gin.moves.Move`) before it is decided.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal, TypeAlias, TypedDict

JSON: TypeAlias = "str | int | float | bool | Sequence[JSON] | Mapping[str, JSON] | None"
"""A JSON-ready value (what `json.dumps` writes and `json.loads` reads). Read-only containers
(`Sequence`, `Mapping`), so a `list[str]` or a `dict[str, int]` is one too."""

JSONObject: TypeAlias = "dict[str, JSON]"
"""A JSON object."""

Code = str
"""A card code: rank A 2-9 T J Q K + suit C D H S, `JK`, `JK=8S` for a placed joker."""

Status = Literal["active", "finished"]

OptionsView = dict[str, "int | bool | str | None"]
"""A match's full options as a view shows them (each game's options.py names the keys)."""


class Seat(TypedDict):
    """Who sits at a seat, as every view shows it (a game may add members)."""

    seat: int
    name: str
    bot: str | None
    hand_size: int
    open: bool  # waiting for a person to join (issue 30); an open seat's name is ""


class EventView(TypedDict):
    """An event as one seat may see it: `data` with every card it may not see as None."""

    type: str
    v: int
    data: JSONObject


# Reading recorded event data (trusted history): each helper says what a member holds, and
# raises TypeError (as `int(None)` would) when it holds something else.


def json_int(value: JSON) -> int:
    """A recorded number as an int (`int(value)`)."""
    if isinstance(value, int | float | str):
        return int(value)
    raise TypeError(f"expected a number, not {value!r:.40}")


def json_str(value: JSON) -> str:
    """A recorded string."""
    if isinstance(value, str):
        return value
    raise TypeError(f"expected a string, not {value!r:.40}")


def json_list(value: JSON) -> Sequence[JSON]:
    """A recorded list; None (or a missing member read with `.get`) is an empty one."""
    if value is None:
        return ()
    if isinstance(value, Sequence) and not isinstance(value, str):
        return value
    raise TypeError(f"expected a list, not {value!r:.40}")


def json_object(value: JSON) -> Mapping[str, JSON]:
    """A recorded object; None (or a missing member read with `.get`) is an empty one."""
    if value is None:
        return {}
    if isinstance(value, Mapping):
        return value
    raise TypeError(f"expected an object, not {value!r:.40}")
