"""The table program run over the 52 steps (`table.step`), breadth first: `search` (or a
step at a time, `stepwise`, and up the ranks against down, `race`), the best end state
(`best_final`) and its choices (`trace`).

Rank 1 runs on whole states. When it leaves states that differ only in the aces set aside
for the high end, the ranks that do not read them run on a smaller form: the classed form
when hand cards are optional (points -> the aces at those points), the masked form when
nothing is (the aces that reach a state); the ranks that read them (13, and 12 outside
the normal form) run on the grouped form (aces -> points), as `table.forms` says. Each
form keeps back pointers for `trace`.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from dataclasses import dataclass, replace
from typing import cast

from domain.manipulation.table.depth import mirrored
from domain.manipulation.table.dominance import drop_dominated, points_left
from domain.manipulation.table.forms import (
    Classed,
    Classes,
    Grouped,
    Masked,
    MaskedLayer,
    classes_left,
    classify,
    close_classed,
    close_grouped,
    close_masked,
    step_aware,
    step_classed,
    step_masked,
    unclassify,
    ungroup,
)
from domain.manipulation.table.state import (
    HIGH,
    JOKER_POINTS,
    OUTER,
    USED,
    WIDTH,
    Cell,
    Choice,
    Supply,
    cells,
)
from domain.manipulation.table.step import (
    Back,
    Highs,
    Limits,
    Needs,
    advance,
    close_rank,
    group_room,
    needs,
)


@dataclass(frozen=True, slots=True)
class Run:
    """A finished program: the back pointers of every step, and the states at the end
    (free jokers used -> best points of the hand cards)."""

    history: tuple[Back | Grouped | Classed | Masked, ...]
    final: dict[int, int]


def search(supply: Supply, floor: int = -1, normal: bool = False) -> Run:
    """The program over ranks 1..13, suit by suit inside a rank (see the module doc).
    States that cannot end with more than `floor` points (their points plus every hand
    card still to come and every hand joker) are dropped: a best answer above the floor
    is still found exactly. (With nothing optional, `table.depth` answers sooner.)"""
    return _finished(stepwise(supply, floor, normal))


def _finished(steps: Iterator[int]) -> Run:
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return cast(Run, done.value)


def race(
    supply: Supply, floor: int = -1, ways: tuple[bool, ...] = (False, True)
) -> tuple[Supply, Run]:
    """`search` in the normal form of `supply` (way False: up the ranks) and of its mirror
    (True: `depth.mirrored`, down the ranks), of those in `ways`, by turns, the one that
    has taken fewer states stepping next, until one ends: that supply and its run (each
    is exact, and both end with the same best points). Which way takes fewer states
    varies by up to about ten times either way, with the table's shape at each end and with
    where the hand's points lie (down from the king the courts come first, so a floor
    prunes sooner); the race costs at most about twice the cheaper way."""
    racers = []
    for way in ways:
        which = mirrored(supply) if way else supply
        racers.append((which, stepwise(which, floor, True)))
    taken = [0] * len(racers)
    while True:
        k = taken.index(min(taken))
        which, steps = racers[k]
        try:
            taken[k] += next(steps)
        except StopIteration as done:
            return which, cast(Run, done.value)


def stepwise(supply: Supply, floor: int = -1, normal: bool = False) -> Generator[int, None, Run]:
    """`search` a step at a time: yields the states each step takes, returns the run."""
    steps = cells(supply, normal)
    rest = _rest_points(supply)
    states = _Layers({0: 0}, [], Highs())
    flat = not any(supply.hand_real) and not supply.jokers_hand
    need = needs(normal)
    for rank in range(1, 14):
        if rank == 2 and len({key & HIGH for key in states.layer}) > 1:
            if flat:
                return _search_flat(supply, steps, (states.layer, states.history), floor)
            states.classed = classify(states.layer, states.highs)
        row = steps[4 * (rank - 1) : 4 * rank]
        room = group_room(row, supply.jokers)
        aware = rank == 13 or (rank == 12 and not normal)  # the ranks that read the aces
        for cell in row:
            k = 4 * (rank - 1) + cell.suit
            limits = Limits(floor - rest[k], room[cell.suit], cell.suit == 3, supply.jokers, need)
            taken = states.size()
            if supply.budget is not None:
                supply.budget.spend(taken)
            yield taken
            states.step(cell, supply.jokers, limits, aware)
        if not states.close(rank, need, normal):
            return Run(tuple(states.history), {})
    return Run(tuple(states.history), states.layer)


@dataclass(slots=True)
class _Layers:
    """The states between two steps of `stepwise`, in the one form they are in (plain
    `layer`, `classed` or `grouped`, see the module doc), and the back pointers so far."""

    layer: dict[int, int]
    history: list[Back | Grouped | Classed | Masked]
    highs: Highs
    classed: dict[int, Classes] | None = None  # ranks 2..11 (or 12)
    grouped: dict[int, dict[int, int]] | None = None  # the ranks that read the aces

    def size(self) -> int:
        """The states the next step takes (an empty form counts the next one's)."""
        return len(self.classed or self.grouped or self.layer)

    def step(self, cell: Cell, jokers: int, limits: Limits, aware: bool) -> None:
        """One (rank, suit) step; at a rank that reads the aces the classed form turns
        grouped."""
        if self.classed is not None and aware:
            self.grouped, self.classed = unclassify(self.classed, self.highs), None
        if self.classed is not None:
            self.classed, classed_back = step_classed(cell, self.classed, jokers, limits)
            self.history.append(Classed(classed_back, self.highs))
        elif self.grouped is not None:
            self.grouped, grouped_back = step_aware(cell, self.grouped, jokers, limits)
            self.history.append(Grouped(grouped_back, aware=True))
        else:
            self.layer, back = advance(cell, self.layer, jokers, limits)
            self.history.append(back)

    def close(self, rank: int, need: Needs, normal: bool) -> bool:
        """The rank's close (dominated states dropped in the normal form); False when no
        state is left. After the kings the grouped form turns plain again."""
        if self.classed is not None:
            self.classed, classed_back = close_classed(self.classed, need)
            self.history.append(Classed(classed_back, self.highs))
            if normal:
                drop_dominated(self.classed, classes_left)
            return bool(self.classed)
        if self.grouped is not None:
            self.grouped, grouped_back = close_grouped(self.grouped, need)
            self.history.append(Grouped(grouped_back))
            if self.grouped and rank == 13:
                self.layer = ungroup(self.grouped)
            return bool(self.grouped)
        self.layer, back = close_rank(self.layer, need)
        self.history.append(back)
        if normal:
            drop_dominated(self.layer, points_left)
        return bool(self.layer)


def _search_flat(
    supply: Supply,
    steps: list[Cell],
    start: tuple[dict[int, int], list[Back | Grouped | Classed | Masked]],
    floor: int,
) -> Run:
    """`search` from rank 2 on, masked (see above); `start` is the layer after rank 1 and
    the history so far."""
    layer, history = start
    need = needs(steps[0].normal)
    highs = Highs()
    masked: MaskedLayer = {}
    for key in layer:
        masked[key & ~HIGH] = masked.get(key & ~HIGH, 0) | highs.bit(key & HIGH)
    for rank in range(2, 14):
        row = steps[4 * (rank - 1) : 4 * rank]
        room = group_room(row, supply.jokers)
        for cell in row:
            if supply.budget is not None:
                supply.budget.spend(len(masked))
            if floor >= 0:  # nothing optional: no arrangement sheds a point
                return Run(tuple(history), {})
            aware = rank == 13 or (rank == 12 and not cell.normal)
            limits = Limits(-1, room[cell.suit], cell.suit == 3, supply.jokers, need)
            masked, back = step_masked(cell, masked, supply.jokers, limits, (highs, aware))
            history.append(Masked(back, highs, (7 << (WIDTH * cell.suit + 9)) * aware))
        masked, back = close_masked(masked, need)
        history.append(Masked(back, highs))
        if not masked:
            return Run(tuple(history), {})
    final = {key | high: 0 for key, mask in masked.items() for high in highs.each(mask)}
    return Run(tuple(history), final)


def _back(entry: Back | Grouped | Classed | Masked, key: int) -> tuple[int, Choice | None]:
    """The state before `key` (with its set-aside aces) and the choice that led to it."""
    if isinstance(entry, Masked):
        high = key & HIGH
        bit = entry.highs.bit(high)
        for fresh, before, choice in entry.back[key & ~HIGH]:
            if fresh & bit:
                return before | high & ~entry.mine, choice
        raise AssertionError("no way into a traced state")
    if isinstance(entry, Classed):
        high = key & HIGH
        bit = entry.highs.bit(high)
        for raised, before, choice in reversed(entry.back[key & ~HIGH]):
            if raised & bit:
                return before | high, choice
        raise AssertionError("no way into a traced state")
    if isinstance(entry, Grouped):
        before, choice = entry.back[key & ~HIGH][key & HIGH]
        return (before if entry.aware else before | key & HIGH), choice
    return entry[key]


def _rest_points(supply: Supply) -> list[int]:
    """rest[k]: the most points still to come after step k (hand cards, hand jokers)."""
    rest = [JOKER_POINTS * supply.jokers_hand] * 52
    values = supply.values
    for k in range(50, -1, -1):
        rank, suit = divmod(k + 1, 4)
        i = suit * 13 + rank
        rest[k] = rest[k + 1] + supply.hand_real[i] * values[i]
    return rest


def best_final(supply: Supply, run: Run) -> tuple[int, int] | None:
    """(free jokers used, points with the hand jokers placed) of the best end state."""
    best: tuple[int, int] | None = None
    for key, pts in run.final.items():
        used = key >> USED
        hand_jokers = used - supply.jokers_freed
        if not 0 <= hand_jokers <= supply.jokers_hand:
            continue
        total = pts + JOKER_POINTS * hand_jokers
        if best is None or total > best[1]:
            best = (used, total)
    return best


def trace(run: Run, used: int) -> list[Choice]:
    """The 52 choices, rank by rank and suit by suit, of the end state `used` (the free
    jokers a rank's groups took at its close on the choice of its last suit)."""
    key = used << USED
    out: list[Choice] = []
    position = len(run.history)
    for _ in range(13):
        position -= 1
        before = _back(run.history[position], key)[0]
        grouped = (key >> USED & 7) - (before >> USED & 7)
        key = before
        for suit in range(3, -1, -1):
            position -= 1
            key, choice = _back(run.history[position], key)
            assert choice is not None
            out.append(replace(choice, group_jokers=grouped) if suit == 3 and grouped else choice)
        key &= OUTER
    out.reverse()
    return out
