"""The table program run over the 52 steps of `table.dp`, breadth first: `search` (or a
step at a time, `stepwise`, and up the ranks against down, `race`), the best end state
(`best_final`) and its choices (`trace`).

Rank 1 runs on whole states. When it leaves states that differ only in the aces set aside
for the high end, the ranks that do not read them run on a smaller form: the classed form
when hand cards are optional (points -> the aces at those points), the masked form when
nothing is (the aces that reach a state); the ranks that read them (13, and 12 outside
the normal form) run on the grouped form (aces -> points). Each form keeps back pointers
for `trace`.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from dataclasses import dataclass, replace
from typing import cast

from domain.manipulation.table.cover import drop_covered, points_left
from domain.manipulation.table.depth import mirrored
from domain.manipulation.table.dp import (
    HIGH,
    JOKER_POINTS,
    OUTER,
    SUIT,
    USED,
    WIDTH,
    Back,
    Cell,
    Choice,
    Highs,
    Limits,
    Needs,
    Option,
    Supply,
    advance,
    cells,
    close_rank,
    closed,
    entered,
    group_room,
    needs,
    options,
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
    history: list[Back | Grouped | Classed | Masked] = []
    layer: dict[int, int] = {0: 0}
    highs = Highs()
    classed: dict[int, Classes] | None = None  # ranks 2..11 (or 12)
    grouped: dict[int, dict[int, int]] | None = None  # the ranks that read the aces
    flat = not any(supply.hand_real) and not supply.jokers_hand
    need = needs(normal)
    for rank in range(1, 14):
        if rank == 2 and len({key & HIGH for key in layer}) > 1:
            if flat:
                return _search_flat(supply, steps, (layer, history), floor)
            classed = _classify(layer, highs)
        row = steps[4 * (rank - 1) : 4 * rank]
        room = group_room(row, supply.jokers)
        for cell in row:
            k = 4 * (rank - 1) + cell.suit
            limits = Limits(floor - rest[k], room[cell.suit], cell.suit == 3, supply.jokers, need)
            taken = len(classed or grouped or layer)
            if supply.budget is not None:
                supply.budget.spend(taken)
            yield taken
            if classed is not None and (rank == 13 or (rank == 12 and not normal)):
                grouped, classed = _unclassify(classed, highs), None
            if classed is not None:
                classed, classed_back = _step_classed(cell, classed, supply.jokers, limits)
                history.append(Classed(classed_back, highs))
            elif grouped is not None:
                grouped, grouped_back = _step_aware(cell, grouped, supply.jokers, limits)
                history.append(Grouped(grouped_back, aware=True))
            else:
                layer, back = advance(cell, layer, supply.jokers, limits)
                history.append(back)
        if classed is not None:
            classed, classed_back = _close_classed(classed, need)
            history.append(Classed(classed_back, highs))
            if normal:
                drop_covered(classed, _classes_left)
            if not classed:
                return Run(tuple(history), {})
            continue
        if grouped is not None:
            grouped, grouped_back = _close_rank_grouped(grouped, need)
            history.append(Grouped(grouped_back))
            if not grouped:
                return Run(tuple(history), {})
            if rank == 13:
                layer = _ungroup(grouped)
            continue
        layer, back = close_rank(layer, need)
        history.append(back)
        if normal:
            drop_covered(layer, points_left)
        if not layer:
            break
    return Run(tuple(history), layer)


# --- the classed form of ranks 2..11 -------------------------------------------------------
#
# The aces set aside at rank 1 for the high end (the `high` fields) are read again only at
# ranks 12 and 13, and no choice of ranks 2..11 depends on them. When rank 1 leaves states
# that differ in them, ranks 2..11 run on the state without them, each holding its
# set-aside aces in classes of equal points (points -> a bit mask of the aces, `Highs`):
# the work per step is one pass per state and class instead of one per (state, set-aside
# aces) (a state holds 10-40 such aces on a full table, and 1-3 classes), and the answer is
# the same. The ranks that read the aces run on the grouped form, state -> aces -> points.


@dataclass(frozen=True, slots=True)
class Grouped:
    """The back pointers of one grouped step: state -> set-aside aces -> (state before,
    choice)."""

    back: dict[int, dict[int, tuple[int, Choice | None]]]
    aware: bool = False  # the states before are whole (with their set-aside aces)


Classes = dict[int, int]  # points -> the set-aside aces (bits of a `Highs`) at them


@dataclass(frozen=True, slots=True)
class Classed:
    """The back pointers of one classed step: state -> [(the aces it raised, state before,
    choice)]; the last entry that raised an ace is where its points came from."""

    back: dict[int, list[tuple[int, int, Choice | None]]]
    highs: Highs


def _classify(layer: dict[int, int], highs: Highs) -> dict[int, Classes]:
    out: dict[int, Classes] = {}
    for key, pts in layer.items():
        classes = out.setdefault(key & ~HIGH, {})
        classes[pts] = classes.get(pts, 0) | highs.bit(key & HIGH)
    return out


def _unclassify(states: dict[int, Classes], highs: Highs) -> dict[int, dict[int, int]]:
    """The grouped form: state -> set-aside aces -> points."""
    return {
        key: {high: pts for pts, mask in classes.items() for high in highs.each(mask)}
        for key, classes in states.items()
    }


def _ungroup(grouped: dict[int, dict[int, int]]) -> dict[int, int]:
    return {key | high: pts for key, by_high in grouped.items() for high, pts in by_high.items()}


def _lift(into: Classes, pts: int, mask: int) -> int:
    """Give the aces of `mask` the points `pts` in `into` where they have fewer (or none);
    the aces so raised."""
    for held, aces in into.items():
        if held >= pts:
            mask &= ~aces
    if not mask:
        return 0
    for held in [held for held in into if held < pts]:
        left = into[held] & ~mask
        if left:
            into[held] = left
        else:
            del into[held]
    into[pts] = into.get(pts, 0) | mask
    return mask


def _classes_left(worse: Classes, better: Classes) -> Classes | None:
    """`drop_covered` on classed states: the set-aside aces of `worse` that `better` does
    not hold at as many points."""
    out: Classes = {}
    for pts, mask in worse.items():
        for held, aces in better.items():
            if held >= pts:
                mask &= ~aces
        if mask:
            out[pts] = mask
    if out == worse:
        return worse
    return out or None


def _raise(into: Classes, classes: Classes, gain: int, below: int) -> int:
    raised = 0
    for pts, mask in classes.items():
        if pts + gain > below:
            raised |= _lift(into, pts + gain, mask)
    return raised


def _step_classed(
    cell: Cell, states: dict[int, Classes], jokers: int, limits: Limits
) -> tuple[dict[int, Classes], dict[int, list[tuple[int, int, Choice | None]]]]:
    """`advance` on classed states (see above)."""
    shift = WIDTH * cell.suit
    nxt: dict[int, Classes] = {}
    back: dict[int, list[tuple[int, int, Choice | None]]] = {}
    below = limits.below
    cache: dict[tuple[int, int], tuple[Option, ...]] = {}
    for key, classes in states.items():
        code, left = key >> shift & SUIT, jokers - (key >> USED & 7)
        found = cache.get((code, left))
        if found is None:
            found = cache[code, left] = options(cell, code, left)
        if len(classes) == 1:
            _step_one(nxt, back, (key, classes), found, limits)
            continue
        top, low = max(classes), min(classes)
        every = 0
        for mask in classes.values():
            every |= mask
        for delta, group, gain, choice in found:
            if top + gain <= below:
                continue
            new_key = entered(key, delta, group, limits)
            if new_key < 0:
                continue
            held = nxt.get(new_key)
            if held is None and low + gain > below:  # every class, as it is
                nxt[new_key] = {pts + gain: mask for pts, mask in classes.items()}
                back[new_key] = [(every, key, choice)]
                continue
            if held is None:
                held = nxt[new_key] = {}
                back[new_key] = []
            raised = _raise(held, classes, gain, below)
            if raised:
                back[new_key].append((raised, key, choice))
    return nxt, back


def _step_one(
    nxt: dict[int, Classes],
    back: dict[int, list[tuple[int, int, Choice | None]]],
    state: tuple[int, Classes],
    found: tuple[Option, ...],
    limits: Limits,
) -> None:
    """`_step_classed` from a state of one class (the usual case): no bounds over the
    classes, and the one class lifted (`_lift`) where the new state is reached again."""
    key, classes = state
    [(pts, mask)] = classes.items()
    below = limits.below
    for delta, group, gain, choice in found:
        total = pts + gain
        if total <= below:
            continue
        new_key = entered(key, delta, group, limits)
        if new_key < 0:
            continue
        held = nxt.get(new_key)
        if held is None:
            nxt[new_key] = {total: mask}
            back[new_key] = [(mask, key, choice)]
            continue
        raised = _lift(held, total, mask)
        if raised:
            back[new_key].append((raised, key, choice))


def _close_classed(
    states: dict[int, Classes], need: Needs
) -> tuple[dict[int, Classes], dict[int, list[tuple[int, int, Choice | None]]]]:
    """`close_rank` on classed states."""
    layer: dict[int, Classes] = {}
    back: dict[int, list[tuple[int, int, Choice | None]]] = {}
    for key, classes in states.items():
        short = closed(key, need)
        held = layer.get(short)
        if held is None:
            held = layer[short] = {}
            back[short] = []
        raised = _raise(held, classes, 0, -1)
        if raised:
            back[short].append((raised, key, None))
    return layer, back


def _step_aware(
    cell: Cell, states: dict[int, dict[int, int]], jokers: int, limits: Limits
) -> tuple[dict[int, dict[int, int]], dict[int, dict[int, tuple[int, Choice | None]]]]:
    """`advance` on grouped states at a rank whose choices read the suit's set-aside aces
    (12 outside the normal form, 13): each state is taken with each of its aces in turn;
    the back pointers hold the whole state before."""
    shift = WIDTH * cell.suit
    mine = 7 << (shift + 9)
    nxt: dict[int, dict[int, int]] = {}
    back: dict[int, dict[int, tuple[int, Choice | None]]] = {}
    below = limits.below
    cache: dict[tuple[int, int], tuple[Option, ...]] = {}
    for key, by_high in states.items():
        left = jokers - (key >> USED & 7)
        for high, pts in by_high.items():
            whole = key | high
            code = whole >> shift & SUIT
            found = cache.get((code, left))
            if found is None:
                found = cache[code, left] = options(cell, code, left)
            for delta, group, gain, choice in found:
                total = pts + gain
                if total <= below:
                    continue
                new_key = entered(whole, delta, group, limits)
                if new_key < 0:
                    continue
                new_high = high & ~mine | new_key & mine
                reduced = new_key & ~HIGH
                held = nxt.get(reduced)
                if held is None:
                    nxt[reduced] = {new_high: total}
                    back[reduced] = {new_high: (whole, choice)}
                elif held.get(new_high, -1) < total:
                    held[new_high] = total
                    back[reduced][new_high] = (whole, choice)
    return nxt, back


def _merge(
    into: dict[int, int],
    back: dict[int, tuple[int, Choice | None]],
    found: dict[int, int],
    came: tuple[int, Choice | None],
) -> None:
    for high, pts in found.items():
        if into.get(high, -1) < pts:
            into[high] = pts
            back[high] = came


def _close_rank_grouped(
    states: dict[int, dict[int, int]], need: Needs
) -> tuple[dict[int, dict[int, int]], dict[int, dict[int, tuple[int, Choice | None]]]]:
    """`close_rank` on grouped states."""
    layer: dict[int, dict[int, int]] = {}
    back: dict[int, dict[int, tuple[int, Choice | None]]] = {}
    for key, by_high in states.items():
        short = closed(key, need)
        came: tuple[int, Choice | None] = (key, None)
        held = layer.get(short)
        if held is None:
            layer[short] = dict(by_high)
            back[short] = dict.fromkeys(by_high, came)
        else:
            _merge(held, back[short], by_high, came)
    return layer, back


# --- the grouped form with nothing optional ------------------------------------------------
#
# With nothing optional (every card placed, `flat`) every state has the same points, so a
# grouped state holds only which set-aside aces reach it: a bit mask over the aces seen,
# and a step ORs masks instead of copying maps.


@dataclass(frozen=True, slots=True)
class Masked:
    """The back pointers of one masked step: state -> [(aces it brought, state before,
    choice)], with the aces' bits in `highs`; `aware` as for `Grouped`."""

    back: dict[int, list[tuple[int, int, Choice | None]]]
    highs: Highs
    mine: int = 0  # aware: the field of the suit whose aces the step read


MaskedLayer = dict[int, int]


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
            masked, back = _step_masked(cell, masked, supply.jokers, limits, (highs, aware))
            history.append(Masked(back, highs, (7 << (WIDTH * cell.suit + 9)) * aware))
        masked, back = _close_masked(masked, need)
        history.append(Masked(back, highs))
        if not masked:
            return Run(tuple(history), {})
    final = {key | high: 0 for key, mask in masked.items() for high in highs.each(mask)}
    return Run(tuple(history), final)


def _step_masked(
    cell: Cell,
    states: MaskedLayer,
    jokers: int,
    limits: Limits,
    how: tuple[Highs, bool],
) -> tuple[MaskedLayer, dict[int, list[tuple[int, int, Choice | None]]]]:
    """`advance` on masked states. When `aware` (see `_step_aware`), each state is taken once
    per value of this suit's set-aside aces, with the aces of that value; a suit that
    closes forgets its aces (`Highs.closed`)."""
    highs, aware = how
    shift = WIDTH * cell.suit
    mine = 7 << (shift + 9)
    parts = highs.parts(mine) if aware else {0: -1}
    nxt: MaskedLayer = {}
    back: dict[int, list[tuple[int, int, Choice | None]]] = {}
    cache: dict[tuple[int, int], tuple[Option, ...]] = {}
    for key, mask in states.items():
        left = jokers - (key >> USED & 7)
        for value, part in parts.items():
            sub = mask & part
            if not sub:
                continue
            whole = key | value
            code = whole >> shift & SUIT
            found = cache.get((code, left))
            if found is None:
                found = cache[code, left] = options(cell, code, left)
            for delta, group, _gain, choice in found:
                new_key = entered(whole, delta, group, limits)
                if new_key < 0:
                    continue
                bits = sub
                if aware:
                    if new_key & mine != value:
                        bits = highs.closed(sub, mine)
                    new_key &= ~HIGH
                held = nxt.get(new_key, 0)
                fresh = bits & ~held
                if fresh:
                    nxt[new_key] = held | fresh
                    back.setdefault(new_key, []).append((fresh, whole, choice))
    return nxt, back


def _close_masked(
    states: MaskedLayer, need: Needs
) -> tuple[MaskedLayer, dict[int, list[tuple[int, int, Choice | None]]]]:
    layer: MaskedLayer = {}
    back: dict[int, list[tuple[int, int, Choice | None]]] = {}
    for key, mask in states.items():
        short = closed(key, need)
        held = layer.get(short, 0)
        fresh = mask & ~held
        if fresh:
            layer[short] = held | fresh
            back.setdefault(short, []).append((fresh, key, None))
    return layer, back


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
