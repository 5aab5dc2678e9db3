"""The value-by-value dynamic program that arranges cards into melds (M2), after van Rijn,
Takes and Vis, "The Complexity of Rummikub Problems" (2015). Exact: no budget, no clock, no
heuristics; every pruning below only drops states that cannot lead to a valid arrangement
(or one above the floor of branch and bound), or states another one is at least as good as.
With `normal=True` free jokers go only where no other place, and no taking them off, serves
as well (see `choices`); `table.arrange` lays the taken-off jokers back on, or runs the
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

This module holds the state, the choices of one step and the step over plain states;
`table.program` runs the steps breadth first, `table.depth` depth first, and
`table.cover` says which states another is at least as good as.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache
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


# --- the choices at one (rank, suit) --------------------------------------------------------

Option = tuple[int, int, int, Choice]  # state delta, group slots, points, the choice


def choices(cell: Cell, suit_code: int, left: int) -> list[tuple[int, Choice]]:
    """Every choice from this suit's open sequences with `left` free jokers to use:
    (the suit's code after it, the choice), duplicates of the same outcome dropped.

    In the normal form (`cell.normal`) a free joker is never where it could be taken off
    with the meld still valid at the high end of a sequence: it does not end a sequence of
    4 or more (one that a joker continues must go on), nor is it an ace set aside for the
    high end (a free joker takes the high ace only of a Q-K sequence, at the end). Nor does
    it start a sequence below Q (J-x-y is as good as x-y-J, and J-x-y-z as x-y-z with the
    joker taken off; at Q, J-K-A cannot move), nor sit in a group here: the groups of a
    rank take free jokers only when the rank closes, as few as make its group slots into
    groups (`NEED`; a joker in a group of 4 comes off). Every arrangement becomes one in
    the normal form by moving or taking off such jokers (never using more, never moving a
    real card), and `table.arrange` lays the taken-off ones back on melds with room."""
    seen: dict[tuple[int, int, int, int], tuple[int, Choice]] = {}
    for n in range(cell.mandatory, min(cell.limit, cell.mandatory + cell.hand + left) + 1):
        for hand in range(max(cell.hand_min, n - cell.mandatory - left), cell.hand + 1):
            jokers = n - cell.mandatory - hand
            if jokers < 0:
                break
            for after, choice in _splits(cell, suit_code, (n, jokers), left - jokers):
                key = (after, choice.group, jokers + choice.high_jokers, hand)
                if key not in seen:
                    c = choice
                    made = Choice(
                        hand, jokers, c.kept, c.new, c.group, c.high, c.tail, c.high_jokers
                    )
                    seen[key] = (after, made)
    return list(seen.values())


def _splits(
    cell: Cell, suit_code: int, slots: tuple[int, int], left: int
) -> list[tuple[int, Choice]]:
    """How the slots (n of them, `jokers` free jokers among them) split between the open
    sequences, new ones, groups and set-aside aces."""
    n, jokers = slots
    short1, short2, long, high, tail = decode(suit_code)
    opened = (short1, short2, high, tail)
    if cell.lone:
        if short1 or short2 or tail or (cell.normal and jokers):
            return []
        return _keep(cell, opened, [Choice(0, 0, 0, 0, n, 0)], left)
    rest = n - short1 - short2 - tail
    found: list[Choice] = []
    for kept in range(min(long, rest) + 1):
        free = rest - kept
        most_new = free if kept == long and cell.rank <= 12 else 0
        for new in range(most_new + 1):
            for aside in _asides(cell, free - new, n - jokers):
                group = free - new - aside
                others = short1 + short2 + (new if cell.rank >= 12 else 0)
                for x in _tails(cell, jokers, kept + tail, others):
                    found.append(Choice(0, 0, kept, new, group, aside, x))
    return _keep(cell, opened, found, left)


def _asides(cell: Cell, most: int, real: int) -> range:
    """Aces set aside for the high end: rank 1 only; real cards only in the normal form."""
    if cell.rank != 1:
        return range(1)
    return range(min(most, cell.high_reach, real if cell.normal else most) + 1)


def _tails(cell: Cell, jokers: int, longs: int, others: int) -> range:
    """How many of the free jokers continue long sequences; the rest (normal form) continue
    short ones or start one at Q (see `choices`)."""
    if not cell.normal:
        return range(1)
    return range(max(0, jokers - others), min(jokers, longs) + 1)


def _keep(
    cell: Cell, opened: tuple[int, int, int, int], found: list[Choice], left: int
) -> list[tuple[int, Choice]]:
    out = []
    for choice in found:
        after = _after(cell, opened, choice, left)
        if after is not None:
            if after[1] != choice.high_jokers:
                choice = replace(choice, high_jokers=after[1])
            out.append((after[0], choice))
    return out


def _after(
    cell: Cell, opened: tuple[int, int, int, int], choice: Choice, left: int
) -> tuple[int, int] | None:
    """The suit's code after the choice (and the free jokers the high end takes), or None
    when its sequences cannot be finished."""
    short1, short2, high, tail = opened
    if cell.rank == 1:
        high = choice.high
    plain = short2 + choice.kept + tail - choice.tail  # long ones ending in a real card
    if cell.rank == 13:
        return _close(cell, (short1, plain, choice.tail), high, left - choice.jokers)
    if cell.rank == 12 and not cell.normal and choice.new > high:
        return None  # a sequence started at Q needs K and a high ace
    room = min(cell.next_limit, cell.next_reach + left)
    shorts = choice.new + short1 + choice.tail  # these must go on at the next rank
    if shorts > room:
        return None
    long = min(plain, room - shorts)
    return code(choice.new, short1, long, high, choice.tail), 0


def _close(cell: Cell, runs: tuple[int, int, int], high: int, left: int) -> tuple[int, int] | None:
    """After the king: Q-K sequences must take a high ace, sequences ending in a free joker
    a real one; every set-aside ace must end a sequence. (0, free jokers taken) or None."""
    twos, plain, tails = runs
    if not cell.normal:
        return (0, 0) if twos <= high <= twos + plain else None
    if high < tails:
        return None
    spare = high - tails
    covered = min(twos, spare)
    need = twos - covered
    if need > left or spare - covered > plain:
        return None
    return 0, need


@lru_cache(maxsize=1 << 16)
def options(cell: Cell, suit_code: int, left: int) -> tuple[Option, ...]:
    """The choices as state deltas (memoised: cells repeat across positions)."""
    shift = WIDTH * cell.suit
    shape = _shape(cell)
    if shape.rank == 2:
        suit_code &= ~HIGH_FIELD  # passed through unchanged: the delta is the same
    out: list[Option] = []
    for after, choice in _shaped(shape, suit_code, left):
        delta = (after - suit_code) << shift
        delta += (choice.jokers + choice.high_jokers) << USED
        delta += choice.group << SUM
        out.append((delta, choice.group, choice.hand * cell.value, choice))
    return tuple(out)


HIGH_FIELD = 7 << 9  # the aces set aside, in a suit's code


def _shape(cell: Cell) -> Cell:
    """`cell` with only what `choices` reads: not its suit or value; ranks 2..11 alike
    (as 2: only ranks 1, 12 and 13 have rules of their own), whose choices pass the
    set-aside aces through unchanged; `high_reach` at rank 1 only, the next rank's reach
    below 13 only. Cells of one shape have the same choices, so the shapes are memoised
    (`_shaped`) and a new table mostly meets choices already worked out."""
    rank = cell.rank if cell.rank in (1, 12, 13) else 2
    return cell._replace(
        rank=rank,
        suit=0,
        value=0,
        high_reach=cell.high_reach if rank == 1 else 0,
        next_reach=cell.next_reach if rank < 13 else 0,
        next_limit=cell.next_limit if rank < 13 else 0,
    )


@lru_cache(maxsize=1 << 14)
def _shaped(shape: Cell, suit_code: int, left: int) -> tuple[tuple[int, Choice], ...]:
    return tuple(choices(shape, suit_code, left))


# --- one step over every state (the plain form) --------------------------------------------

Back = dict[int, tuple[int, Choice | None]]


def _groups_fit(total: int, largest: int) -> bool:
    """Group slots of one rank (`largest` from one suit) make groups of 3-4 distinct suits:
    some G has largest <= G and 3G <= total <= 4G."""
    return any(largest <= g and 3 * g <= total <= 4 * g for g in range(total // 3 + 1))


FITS = tuple(tuple(_groups_fit(t, m) for m in range(8)) for t in range(32))


def _jokers_needed(total: int, largest: int) -> int:
    """Free jokers that make `total` group slots (`largest` from one suit) into groups of
    3-4 distinct suits: none when they fit, else G = max(largest, ceil(total / 3)) groups
    of 3 (fewer groups cannot hold the suit that gave `largest`, and more take more)."""
    if FITS[total][largest]:
        return 0
    return 3 * max(largest, -(-total // 3)) - total


NEVER = 8  # more free jokers than a supply holds
# jokers a rank's groups take at its close: the normal form (NEED), else none (FIT_ONLY)
NEED = tuple(tuple(_jokers_needed(t, m) for m in range(8)) for t in range(32))
FIT_ONLY = tuple(tuple(0 if FITS[t][m] else NEVER for m in range(8)) for t in range(32))
Needs = tuple[tuple[int, ...], ...]


def needs(normal: bool) -> Needs:
    return NEED if normal else FIT_ONLY


# the set-aside aces of every suit (the `high` fields)
HIGH = sum(7 << (WIDTH * suit + 9) for suit in range(4))


@dataclass(frozen=True, slots=True)
class Limits:
    """What a state after one step must meet: more points than `below`, and group slots
    that the suits still to come at this rank can still complete (`room` more at most);
    after the rank's last suit, groups that its free jokers left (of `jokers`) complete."""

    below: int
    room: int
    last: bool
    jokers: int
    need: Needs


def entered(key: int, delta: int, group: int, limits: Limits) -> int:
    """The state after an option (`options`) from `key`, or -1 when the rank's group
    slots can no longer form groups (this rank's suits to come, or its free jokers)."""
    new_key = key + delta
    largest = new_key >> LARGEST
    if group > largest:
        new_key += (group - largest) << LARGEST
        largest = group
    slots = new_key >> SUM & 31
    if limits.last:
        if limits.need[slots][largest] > limits.jokers - (new_key >> USED & 7):
            return -1
    elif slots + limits.room < 3 * largest:
        return -1
    return new_key


def closed(key: int, need: Needs) -> int:
    """The state after its rank closes: the group slots forgotten, the free jokers that
    complete the groups counted as used (`entered` checked there are enough)."""
    return (key & OUTER) + (need[key >> SUM & 31][key >> LARGEST] << USED)


def group_room(row: list[Cell], jokers: int) -> list[int]:
    """room[s]: the most group slots the suits after s at this rank can add."""
    _, second, third, last = (min(c.limit, c.mandatory + c.hand + jokers) for c in row)
    return [second + third + last, third + last, last, 0]


def advance(
    cell: Cell, states: dict[int, int], jokers: int, limits: Limits
) -> tuple[dict[int, int], Back]:
    """One (rank, suit) step over every state."""
    shift = WIDTH * cell.suit
    nxt: dict[int, int] = {}
    back: Back = {}
    below = limits.below
    cache: dict[int, tuple[Option, ...]] = {}
    for key, pts in states.items():
        local = (key >> shift & SUIT) | (key >> USED & 7) << WIDTH
        found = cache.get(local)
        if found is None:
            found = options(cell, key >> shift & SUIT, jokers - (key >> USED & 7))
            cache[local] = found
        for delta, group, gain, choice in found:
            total = pts + gain
            if total <= below:
                continue
            new_key = entered(key, delta, group, limits)
            if new_key < 0:
                continue
            if nxt.get(new_key, -1) < total:
                nxt[new_key] = total
                back[new_key] = (key, choice)
    return nxt, back


def close_rank(states: dict[int, int], need: Needs) -> tuple[dict[int, int], Back]:
    """The end of a rank: its group slots form groups (`closed`); forget them."""
    layer: dict[int, int] = {}
    back: Back = {}
    for key, pts in states.items():
        short = closed(key, need)
        if layer.get(short, -1) < pts:
            layer[short] = pts
            back[short] = (key, None)
    return layer, back


class Highs:
    """The set-aside aces seen in one search, each given a bit."""

    __slots__ = ("index", "values")

    def __init__(self) -> None:
        self.values: list[int] = []
        self.index: dict[int, int] = {}

    def bit(self, high: int) -> int:
        found = self.index.get(high)
        if found is None:
            found = self.index[high] = len(self.values)
            self.values.append(high)
        return 1 << found

    def parts(self, mine: int) -> dict[int, int]:
        """The aces seen, split by the value of one suit's field (`mine`)."""
        out: dict[int, int] = {}
        for number, high in enumerate(self.values):
            out[high & mine] = out.get(high & mine, 0) | 1 << number
        return out

    def closed(self, mask: int, mine: int) -> int:
        """The aces of `mask` with one suit's field (`mine`) cleared."""
        out = 0
        for high in self.each(mask):
            out |= self.bit(high & ~mine)
        return out

    def each(self, mask: int) -> list[int]:
        out = []
        while mask:
            low = mask & -mask
            out.append(self.values[low.bit_length() - 1])
            mask ^= low
        return out
