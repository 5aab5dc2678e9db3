"""An independent brute-force arranger for small multisets (test support, pure).

It shares nothing with `table.state`: the lowest real card left must sit in some meld,
so it tries every meld through that card (every group of its rank, every sequence window of
its suit, the ace low or high, each slot filled by a real card when one is left or by a
joker), and recurses on what is left, memoised on the counts. Jokers left over with no real
card fail (with at most two jokers a meld always holds a real card). The rules it encodes
are M2.1-M2.4 read directly: groups of 3-4 distinct suits, sequences of 3-13 in one suit,
the ace below 2 or above K but never both, no wrap.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import lru_cache
from itertools import combinations

from domain.cards import Card

Counts = tuple[int, ...]


def _group_shapes(card: int) -> Iterator[tuple[int, ...]]:
    """Every group of 3 or 4 holding `card`: the identities of its slots."""
    rank = card % 13
    others = [s * 13 + rank for s in range(4) if s * 13 + rank != card]
    for size in (2, 3):
        for chosen in combinations(others, size):
            yield (card, *chosen)


def _sequence_shapes(card: int) -> Iterator[tuple[int, ...]]:
    """Every sequence of 3..13 holding `card` (positions 1..14, 14 the high ace), the
    card's own slot first."""
    suit, rank = divmod(card, 13)
    positions = [rank + 1] + ([14] if rank == 0 else [])
    for where in positions:
        for low in range(max(1, where - 12), where + 1):
            for high in range(max(where, low + 2), min(14, low + 12) + 1):
                others = (suit * 13 + (p - 1) % 13 for p in range(low, high + 1) if p != where)
                yield (card, *others)


def _fillings(
    shape: tuple[int, ...], counts: list[int], jokers: int
) -> Iterator[tuple[Counts, int]]:
    """Each way to fill the slots after the first (the lowest card, real by choice) with real
    cards or jokers: the counts and jokers left."""
    rest = list(shape[1:])

    def fill(k: int, left: list[int], spare: int) -> Iterator[tuple[Counts, int]]:
        if k == len(rest):
            yield tuple(left), spare
            return
        i = rest[k]
        if left[i]:
            left[i] -= 1
            yield from fill(k + 1, left, spare)
            left[i] += 1
        if spare:
            yield from fill(k + 1, left, spare - 1)

    left = counts[:]
    left[shape[0]] -= 1
    yield from fill(0, left, jokers)


@lru_cache(maxsize=200_000)
def arrangeable(counts: Counts, jokers: int) -> bool:
    """Whether the real cards `counts` (per identity 0..51) and `jokers` free jokers split
    wholly into valid melds."""
    lowest = next((i for i, n in enumerate(counts) if n), None)
    if lowest is None:
        return jokers == 0 or jokers >= 3
    shapes = {*_group_shapes(lowest), *_sequence_shapes(lowest)}
    for shape in shapes:
        for left, spare in _fillings(shape, list(counts), jokers):
            if arrangeable(left, spare):
                return True
    return False


def brute_can_arrange(cards: Sequence[Card]) -> bool:
    """Whether `cards` (jokers free, declared as needed) split wholly into valid melds."""
    counts = [0] * 52
    jokers = 0
    for card in cards:
        if card.is_joker:
            jokers += 1
        else:
            counts[card.index] += 1
    return arrangeable(tuple(counts), jokers)
