"""Read-only JSON values: rendered once, shared by every view that shows them.

A gin round result (G8) never changes once recorded, yet every view of the match lists all
of them; copying them into each view made a view's cost grow with the rounds played. The
state keeps each result as a `FrozenDict` of `FrozenList`s instead: real dict and list
subclasses (so `json.dumps`, equality and `isinstance` treat them as JSON) whose mutators
raise, so a view can share them and no reader can change the match through a view.
A deep copy is an ordinary mutable dict or list.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, NoReturn


def _refuse(self: object, *args: Any, **kwargs: Any) -> NoReturn:
    raise TypeError(f"a recorded {type(self).__name__} is read-only")


class FrozenDict(dict[str, Any]):
    """A dict that refuses every change."""

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _refuse
    __ior__ = _refuse

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        return {k: copy.deepcopy(v, memo) for k, v in self.items()}

    def __reduce__(self) -> Any:
        return (FrozenDict, (dict(self),))


class FrozenList(list[Any]):
    """A list that refuses every change."""

    __setitem__ = __delitem__ = append = extend = insert = pop = remove = _refuse
    clear = sort = reverse = __iadd__ = __imul__ = _refuse

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        return [copy.deepcopy(v, memo) for v in self]

    def __reduce__(self) -> Any:
        return (FrozenList, (list(self),))


_LEAVES = frozenset({str, int, bool, float, type(None)})
"""The JSON leaf types, tested by exact type first: most values of a round result are card
codes and numbers, and `isinstance` against the Mapping ABC costs several times more."""


def freeze(value: Any) -> Any:
    """`value` (JSON data) with every dict and list made read-only, all the way down."""
    kind = type(value)
    if kind in _LEAVES:
        return value
    if kind is list or kind is tuple:  # as the list branch below, without the ABC check first
        return FrozenList([v if type(v) in _LEAVES else freeze(v) for v in value])
    if kind is dict or isinstance(value, Mapping):
        return FrozenDict({k: v if type(v) in _LEAVES else freeze(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return FrozenList([v if type(v) in _LEAVES else freeze(v) for v in value])
    return value
