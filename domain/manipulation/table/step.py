"""One step of the program: the states one state leads to (`successors`, the one step
loop every form and the walk share; `entered` is its check in plain code, and
tests/unit/test_table_step.py holds the two equal), the step over every plain state
(`advance`: state -> best points, with back pointers), and the close of a rank
(`close_rank`: its group slots form groups, with the free jokers the normal form gives
them, `NEED`); `Highs` numbers the aces set aside for the high end, for `table.forms`.
"""

from __future__ import annotations

from dataclasses import dataclass

from domain.manipulation.table.choices import Option, options
from domain.manipulation.table.state import LARGEST, OUTER, SUIT, SUM, USED, WIDTH, Cell, Choice

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


Successor = tuple[int, int, Choice]  # the state after an option, its points, the choice


def successors(key: int, pts: int, found: tuple[Option, ...], limits: Limits) -> list[Successor]:
    """The one step loop: the states the options `found` lead to from the state `key` at
    `pts` points, with their points and choices, in the options' order; those at no more
    than `limits.below` points, and those whose rank's group slots can no longer form
    groups (`entered`, inlined: this runs for every state of every step), left out. Each
    form of the program (`advance`, `table.forms`) and the walk (`table.depth`) folds them
    into its own states."""
    below = limits.below
    last = limits.last
    out: list[Successor] = []
    for delta, group, gain, choice in found:
        total = pts + gain
        if total <= below:
            continue
        new_key = key + delta
        largest = new_key >> LARGEST
        if group > largest:
            new_key += (group - largest) << LARGEST
            largest = group
        slots = new_key >> SUM & 31
        if last:
            if limits.need[slots][largest] > limits.jokers - (new_key >> USED & 7):
                continue
        elif slots + limits.room < 3 * largest:
            continue
        out.append((new_key, total, choice))
    return out


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
    cache: dict[int, tuple[Option, ...]] = {}
    for key, pts in states.items():
        local = (key >> shift & SUIT) | (key >> USED & 7) << WIDTH
        found = cache.get(local)
        if found is None:
            found = options(cell, key >> shift & SUIT, jokers - (key >> USED & 7))
            cache[local] = found
        for new_key, total, choice in successors(key, pts, found, limits):
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
