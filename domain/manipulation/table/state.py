"""The value-by-value dynamic program that arranges cards into melds (M2), after van Rijn,
Takes and Vis, "The Complexity of Rummikub Problems" (2015). Exact: no clock and no
heuristics; every pruning below only drops states that cannot lead to a valid arrangement
(or one above the floor of branch and bound), or states another one is at least as good as.
Its one limit is a count of states (`Budget`, carried by `Supply.budget`; None: no limit):
when a question's count runs out the search raises `BudgetSpent` and answers nothing, never
a worse arrangement (`solver.BUDGET` is the count `best_move` gives a question).
With `normal=True` free jokers go only where no other place, and no taking them off, serves
as well (see `choices`); `table.best_above` lays the taken-off jokers back on, or runs the
full program when there is no room, so the answer is exact either way.

The cards are counted per *identity* i = suit * 13 + rank - 1 (the card a slot counts as).
At each identity some cards are mandatory (table cards, and table jokers that keep their
declared card, I3), some optional (hand cards, worth their points, M1.4), and free jokers
(freed table jokers, which must be placed; hand jokers, 25 points each) may fill any slot.

The program walks the ranks 1 (ace low) .. 13 and, inside a rank, the four suits. A state
holds, per suit, how many open sequences end at the previous rank with length 1, 2 and
3-or-more, and how many aces of that suit were set aside at rank 1 for the high end (Q-K-A,
M2.4; they are placed, and scored, at rank 1); the free jokers used so far; and, inside a
rank, the number G of groups the rank makes (chosen when the rank starts) and the group
slots so far. At one suit and rank the choice is how many slots the identity gets (every
mandatory card, some hand cards, some free jokers), how many long sequences continue, how
many new ones start and how many slots go into groups. Group slots of a rank form G groups
of 3-4 distinct suits exactly when every suit gives at most G and the total is 3G..4G.

Two choices are left out because another choice reaches a state at least as good: starting
a sequence while a long one of that suit closes (continue it instead), and carrying more
long sequences than the next rank could continue (close the extra ones now). A sequence may
reach 14 cards (ace to ace) here; `table.build` splits it into two valid ones.

This module holds what there is to place (`Supply`), the work budget (`Budget`), the state's
layout in one int, a step's inputs (`Cell`) and outcome (`Choice`); `table.choices` lists
the choices of one step, `table.step` takes one step over every state, `table.breadth`
runs the steps breadth first, `table.depth` depth first, and `table.dominance` says which
states another is at least as good as.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

JOKER_POINTS = 25
NO_CAP = 7  # the most slots one identity can take (2 copies, kept and free jokers)
VALUES = tuple(min(i % 13 + 1, 10) for i in range(52))  # M1.4
# identity -> its mirror: the ranks 2..K turned end to end (r -> 15 - r), the ace kept
# (`table.depth.mirrored`); a mirrored supply scores each identity as the card it mirrors
MIRROR = tuple(i - i % 13 + (13 - i % 13) % 13 for i in range(52))
TURNED_VALUES = tuple(VALUES[j] for j in MIRROR)
ZERO = (0,) * 52  # no card of any identity (a Supply's counts)

# the state, one int: 15 bits per suit (short1, short2, long, aces set aside, long ones
# ending in a free joker: 3 bits each), then the free jokers used, then (inside a rank) the
# group slots so far and the most group slots one suit gave
WIDTH = 15
USED = 60
SUM = 63
LARGEST = 68
OUTER = (1 << SUM) - 1
SUIT = (1 << WIDTH) - 1


class BudgetSpent(Exception):
    """The work budget of a search ran out (see `Budget`)."""


class Budget:
    """How many more program states the caller lets the searches expand: a deterministic
    count (never a clock), shared by every search of one question."""

    __slots__ = ("left",)

    def __init__(self, left: int) -> None:
        self.left = left

    def spend(self, states: int) -> None:
        self.left -= states
        if self.left < 0:
            raise BudgetSpent


@dataclass(frozen=True, slots=True)
class Supply:
    """What there is to place, per identity 0..51 (see the module docstring)."""

    table_real: tuple[int, ...]  # real table cards (mandatory)
    fixed_jokers: tuple[int, ...]  # table jokers that keep this declared card (mandatory)
    hand_real: tuple[int, ...]  # real hand cards (optional, scored)
    hand_min: tuple[int, ...]  # at least this many hand cards here (to free a joker, I3)
    cap: tuple[int, ...] | None  # at most this many slots here (copy count, M5.7)
    jokers_hand: int  # optional free jokers, 25 points each
    jokers_freed: int  # mandatory free jokers (freed table jokers)
    budget: Budget | None = field(default=None, compare=False)  # states left to expand
    turned: bool = False  # the ranks mirrored (`table.depth.mirrored`): points as unmirrored

    @property
    def values(self) -> tuple[int, ...]:
        """The points of a hand card at each identity (M1.4, of the card it mirrors when
        `turned`)."""
        return TURNED_VALUES if self.turned else VALUES

    @property
    def jokers(self) -> int:
        return self.jokers_hand + self.jokers_freed

    def mandatory(self, i: int) -> int:
        return self.table_real[i] + self.fixed_jokers[i]

    def limit(self, i: int) -> int:
        return NO_CAP if self.cap is None else min(self.cap[i], NO_CAP)

    @property
    def sparse(self) -> bool:
        """At most two jokers in all, so every meld holds a real card, and every joker in a
        sequence is within 2 ranks of one (the pruning of `Cell.lone`)."""
        return self.jokers + sum(self.fixed_jokers) <= 2

    def reach(self, i: int) -> int:
        """The most slots identity i can take without jokers."""
        return min(self.limit(i), self.mandatory(i) + self.hand_real[i])


@dataclass(frozen=True, slots=True)
class Choice:
    """One suit at one rank: hand cards and free jokers placed, long sequences continued,
    sequences started, group slots and (rank 1) aces set aside for the high end."""

    hand: int
    jokers: int
    kept: int
    new: int
    group: int
    high: int
    tail: int = 0  # free jokers continuing long sequences (which must then go on)
    high_jokers: int = 0  # rank 13: free jokers taking the high ace of Q-K sequences
    group_jokers: int = 0  # a rank's last suit: free jokers its groups take (normal form)


class Cell(NamedTuple):
    """The inputs of one (rank, suit) step. (A named tuple: the walks build 52 of them
    per question and memoise choices on them, and a tuple is made and hashed in C.)"""

    rank: int
    suit: int
    mandatory: int
    hand: int
    hand_min: int
    limit: int
    value: int
    next_reach: int  # slots the next rank of this suit reaches without jokers
    next_limit: int
    high_reach: int  # rank 1: the most aces worth setting aside (kings there could be)
    lone: bool  # no real card of the suit within 2 ranks: a joker here only fits a group
    normal: bool  # free jokers only where they cannot be taken off (see `choices`)


def code(short1: int, short2: int, long: int, high: int, tail: int = 0) -> int:
    return short1 | short2 << 3 | long << 6 | high << 9 | tail << 12


def decode(value: int) -> tuple[int, int, int, int, int]:
    return value & 7, value >> 3 & 7, value >> 6 & 7, value >> 9 & 7, value >> 12 & 7


def cells(supply: Supply, normal: bool) -> list[Cell]:
    """The 52 steps, rank by rank and suit by suit inside a rank."""
    hand = supply.hand_real
    mandatory = [t + f for t, f in zip(supply.table_real, supply.fixed_jokers, strict=True)]
    real = [t + h for t, h in zip(supply.table_real, hand, strict=True)]
    cap = supply.cap
    limit = [NO_CAP] * 52 if cap is None else [min(c, NO_CAP) for c in cap]
    reach = [min(most, m + h) for most, m, h in zip(limit, mandatory, hand, strict=True)]
    sparse = supply.sparse
    jokers = supply.jokers
    values = supply.values
    out = []
    for i, after, rank, suit in _ORDER:
        lone = sparse and not real[i] and not any(real[j] for j in _NEAR[i])
        out.append(
            Cell(
                rank,
                suit,
                mandatory[i],
                hand[i],
                supply.hand_min[i],
                limit[i],
                values[i],
                reach[after],
                limit[after],
                min(reach[suit * 13 + 12] + jokers, NO_CAP),
                lone,
                normal,
            )
        )
    return out


def near(rank: int, suit: int) -> tuple[int, ...]:
    """The identities of the suit within 2 ranks (the ace both below 2 and above K)."""
    ranks = {r if r <= 13 else 1 for r in range(rank - 2, rank + 3) if 1 <= r <= 14}
    if rank == 1:
        ranks |= {12, 13}
    ranks.discard(rank)
    return tuple(suit * 13 + r - 1 for r in sorted(ranks))


# the steps in order: (identity, the identity of the next rank of its suit, rank, suit)
_ORDER = tuple(
    (suit * 13 + rank - 1, suit * 13 + rank % 13, rank, suit)
    for rank in range(1, 14)
    for suit in range(4)
)
# per identity, those of `near` (a real card there: no joker here is `Cell.lone`)
_NEAR = tuple(near(i % 13 + 1, i // 13) for i in range(52))


# the set-aside aces of every suit (the `high` fields)
HIGH = sum(7 << (WIDTH * suit + 9) for suit in range(4))
