"""Memoising by identity: a cache in front of a one-argument function keyed by the argument
object itself, for tuples of cards (melds, tables) that recur as the very same objects from
state to state. Python does not cache a tuple's hash, so an `lru_cache` lookup hashes every
card of the meld again; this looks the object up by `id` and checks it is the same object
(the entry keeps it alive, so its id cannot be reused while cached). Pure: results are
whatever the function returns for that argument.

A speed trick (bench/README.md): the plain code it stands for is `functools.lru_cache` (or
the call itself); tests/unit/test_manipulation_fast_paths.py
(`test_identity_memo_answers_each_object_by_its_own_value`) holds it to the function. A memo
remembers a pure function's answers, so it may live beside the function; what remembers a
match's renders (the view caches) is an object handed in instead (domain/gin/views.py).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Protocol, TypeVar, cast

K = TypeVar("K")
V = TypeVar("V")
K_contra = TypeVar("K_contra", contravariant=True)


class Memo(Protocol[K_contra, V]):
    """A function remembered by identity, with `cache_clear` (as functools' caches) and
    `remember(arg, value)`, which stores an answer known without calling the function."""

    def __call__(self, arg: K_contra, /) -> V: ...

    def cache_clear(self) -> None: ...

    def remember(self, arg: K_contra, value: V, /) -> None: ...


def by_identity(maxsize: int) -> Callable[[Callable[[K], V]], Memo[K, V]]:
    """Decorator: remember `fn(x)` for the last objects `x` (the cache empties when full)."""

    def decorate(fn: Callable[[K], V]) -> Memo[K, V]:
        seen: dict[int, tuple[K, V]] = {}

        def remember(arg: K, value: V) -> None:
            if len(seen) >= maxsize:
                seen.clear()
            seen[id(arg)] = (arg, value)

        @wraps(fn)
        def cached(arg: K) -> V:
            hit = seen.get(id(arg))
            if hit is not None and hit[0] is arg:
                return hit[1]
            value = fn(arg)
            remember(arg, value)
            return value

        setattr(cached, "cache_clear", seen.clear)  # noqa: B010  # a function's attributes
        setattr(cached, "remember", remember)  # noqa: B010
        return cast("Memo[K, V]", cached)

    return decorate
