"""Read-only JSON values: rendered once, shared by every view that shows them.

A gin round result (G8) never changes once recorded, yet every view of the match lists all
of them; copying them into each view made a view's cost grow with the rounds played. The
state keeps each result as a `FrozenDict` of `FrozenList`s instead: real dict and list
subclasses (so `json.dumps`, equality and `isinstance` treat them as JSON) whose mutators
raise, so a view can share them and no reader can change the match through a view.
A deep copy is an ordinary mutable dict or list.

A speed trick (bench/README.md): the plain code it stands for is a fresh deep copy of each
part in every view (`domain.gin.views.json_copy`). Its tests: tests/unit/test_gin_hot_paths.py
(a frozen round result is read-only all the way down and equals its JSON) and
tests/unit/test_gin_fast_paths.py (shared parts refuse changes; views equal fresh ones).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, NoReturn, TypeVar, cast

K = TypeVar("K")
V = TypeVar("V")
T = TypeVar("T")


def _refuse(self: object, *args: object, **kwargs: object) -> NoReturn:
    raise TypeError(f"a recorded {type(self).__name__} is read-only")


if TYPE_CHECKING:

    class FrozenDict(dict[K, V]):
        """A dict that refuses every change (as mypy sees it: generic in keys and values)."""

        def __deepcopy__(self, memo: dict[int, object]) -> dict[K, V]: ...

    class FrozenList(list[T]):
        """A list that refuses every change (as mypy sees it: generic in its items)."""

        def __deepcopy__(self, memo: dict[int, object]) -> list[T]: ...

else:
    # At run time plain subclasses of dict and list: a subclass of `list[T]` has
    # `typing.Generic` in its bases, which on Python 3.11 makes every instance cost more to
    # make (a FrozenList and a FrozenDict: 0.84 -> 1.23 us; views make several per move).

    class FrozenDict(dict):
        """A dict that refuses every change."""

        __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _refuse
        __ior__ = _refuse

        def __deepcopy__(self, memo):
            return {k: copy.deepcopy(v, memo) for k, v in self.items()}

        def __reduce__(self):
            return (FrozenDict, (dict(self),))

    class FrozenList(list):
        """A list that refuses every change."""

        __setitem__ = __delitem__ = append = extend = insert = pop = remove = _refuse
        clear = sort = reverse = __iadd__ = __imul__ = _refuse

        def __deepcopy__(self, memo):
            return [copy.deepcopy(v, memo) for v in self]

        def __reduce__(self):
            return (FrozenList, (list(self),))


_LEAVES = frozenset({str, int, bool, float, type(None)})
"""The JSON leaf types, tested by exact type first: most values of a round result are card
codes and numbers, and `isinstance` against the Mapping ABC costs several times more."""


def freeze(value: T) -> T:
    """`value` (JSON data) with every dict and list made read-only, all the way down: the
    same JSON value, of the same declared type (a FrozenDict is a dict, a FrozenList a list)."""
    return cast(T, _freeze(value))


def _freeze(value: object) -> object:
    kind = type(value)
    if kind in _LEAVES:
        return value
    if kind is list or kind is tuple:  # as the list branch below, without the ABC check first
        items = cast("Sequence[object]", value)
        return FrozenList([v if type(v) in _LEAVES else _freeze(v) for v in items])
    if kind is dict or isinstance(value, Mapping):
        pairs = cast("Mapping[str, object]", value).items()
        return FrozenDict({k: v if type(v) in _LEAVES else _freeze(v) for k, v in pairs})
    if isinstance(value, list | tuple):
        return FrozenList([v if type(v) in _LEAVES else _freeze(v) for v in value])
    return value


D = TypeVar("D", bound=Mapping[str, object])


def frozen_dict(value: D) -> D:
    """`value` with its top level read-only (a FrozenDict of its items), of its own declared
    type (a TypedDict's read-only copy is still that TypedDict to its readers)."""
    return cast(D, FrozenDict(value))
