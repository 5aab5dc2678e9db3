"""Small melds built from the hand: groups of 3-4 and sequences of 3-5 (M2), some slots
taken by jokers declared as the card they stand for (M5.1).

`table.solver` lays one of these first when a rule needs a meld wholly from the hand
(I6 per-player opening, A-M18 `freed_joker_placement=new_meld_from_hand`): any longer meld
from the hand holds one of them and a valid rest.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations

from domain.cards import JOKER, Card, TableCard
from domain.manipulation.table.rules import TableRules


@dataclass(frozen=True, slots=True)
class Small:
    """A small meld: its real cards, and its jokers' declared cards (identities 0..51)."""

    real: tuple[int, ...]
    jokers: tuple[int, ...]

    def cards(self) -> tuple[TableCard, ...]:
        real = tuple(TableCard(Card(i)) for i in self.real)
        return real + tuple(TableCard(JOKER, Card(i)) for i in self.jokers)

    def key(self, rules: TableRules) -> tuple[object, ...]:
        """Melds alike for the rules: joker declarations matter only with the copy count."""
        jokers = self.jokers if rules.joker_identity_respects_copy_count else len(self.jokers)
        return (self.real, jokers)


@lru_cache(maxsize=1)
def shapes() -> tuple[tuple[int, ...], ...]:
    """The identities of every group of 3-4 and sequence of 3-5 (the ace low or high)."""
    out: list[tuple[int, ...]] = []
    for rank in range(13):
        for size in (3, 4):
            out += [tuple(s * 13 + rank for s in suits) for suits in combinations(range(4), size)]
    for suit in range(4):
        for size in (3, 4, 5):
            for start in range(1, 16 - size):
                out.append(tuple(suit * 13 + (r - 1) % 13 for r in range(start, start + size)))
    return tuple(out)


def _spots(size: int, jokers: int) -> Iterator[tuple[int, ...]]:
    for n in range(min(jokers, size - 1) + 1):
        yield from combinations(range(size), n)


def small_melds(
    pool: Sequence[int], jokers: int, identity: bool, forbidden: frozenset[int] = frozenset()
) -> list[Small]:
    """Every small meld from the real cards `pool` (counts) plus up to `jokers` jokers
    declared as no card in `forbidden`; with `identity` False, melds differing only in joker
    declarations count once."""
    found: dict[tuple[object, ...], Small] = {}
    for shape in shapes():
        for spots in _spots(len(shape), jokers):
            real = tuple(sorted(shape[k] for k in range(len(shape)) if k not in spots))
            if any(pool[i] < real.count(i) for i in real):
                continue
            declared = tuple(sorted(shape[k] for k in spots))
            if forbidden.intersection(declared):
                continue
            key = (real, declared if identity else len(declared))
            found.setdefault(key, Small(real, declared))
    return list(found.values())
