"""The smaller forms of the breadth-first program's states (`table.breadth`) after rank 1:
one step and one rank's close on each, with the back pointers `breadth.trace` reads.

The aces set aside at rank 1 for the high end (the `high` fields) are read again only at
ranks 12 and 13, and no choice of ranks 2..11 depends on them. When rank 1 leaves states
that differ in them, ranks 2..11 run on the state without them:

- the classed form (hand cards optional): each state holds its set-aside aces in classes
  of equal points (points -> a bit mask of the aces, `Highs`): the work per step is one
  pass per state and class instead of one per (state, set-aside aces) (a state holds 10-40
  such aces on a full table, and 1-3 classes), and the answer is the same;
- the grouped form, at the ranks that read the aces (13, and 12 outside the normal form):
  state -> aces -> points;
- the masked form (nothing optional, every card placed): every state has the same points,
  so a state holds only which set-aside aces reach it, a bit mask over the aces seen, and
  a step ORs masks instead of copying maps.
"""

from __future__ import annotations

from dataclasses import dataclass

from domain.manipulation.table.choices import Option, options
from domain.manipulation.table.state import HIGH, SUIT, USED, WIDTH, Cell, Choice
from domain.manipulation.table.step import Highs, Limits, Needs, closed, successors


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


def classify(layer: dict[int, int], highs: Highs) -> dict[int, Classes]:
    out: dict[int, Classes] = {}
    for key, pts in layer.items():
        classes = out.setdefault(key & ~HIGH, {})
        classes[pts] = classes.get(pts, 0) | highs.bit(key & HIGH)
    return out


def unclassify(states: dict[int, Classes], highs: Highs) -> dict[int, dict[int, int]]:
    """The grouped form: state -> set-aside aces -> points."""
    return {
        key: {high: pts for pts, mask in classes.items() for high in highs.each(mask)}
        for key, classes in states.items()
    }


def ungroup(grouped: dict[int, dict[int, int]]) -> dict[int, int]:
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


def classes_left(worse: Classes, better: Classes) -> Classes | None:
    """`drop_dominated` on classed states: the set-aside aces of `worse` that `better` does
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


def step_classed(
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
        for new_key, total, choice in successors(key, top, found, limits):
            gain = total - top
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
    """`step_classed` from a state of one class (the usual case): no bounds over the
    classes, and the one class lifted (`_lift`) where the new state is reached again."""
    key, classes = state
    [(pts, mask)] = classes.items()
    for new_key, total, choice in successors(key, pts, found, limits):
        held = nxt.get(new_key)
        if held is None:
            nxt[new_key] = {total: mask}
            back[new_key] = [(mask, key, choice)]
            continue
        raised = _lift(held, total, mask)
        if raised:
            back[new_key].append((raised, key, choice))


def close_classed(
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


def step_aware(
    cell: Cell, states: dict[int, dict[int, int]], jokers: int, limits: Limits
) -> tuple[dict[int, dict[int, int]], dict[int, dict[int, tuple[int, Choice | None]]]]:
    """`advance` on grouped states at a rank whose choices read the suit's set-aside aces
    (12 outside the normal form, 13): each state is taken with each of its aces in turn;
    the back pointers hold the whole state before."""
    shift = WIDTH * cell.suit
    mine = 7 << (shift + 9)
    nxt: dict[int, dict[int, int]] = {}
    back: dict[int, dict[int, tuple[int, Choice | None]]] = {}
    cache: dict[tuple[int, int], tuple[Option, ...]] = {}
    for key, by_high in states.items():
        left = jokers - (key >> USED & 7)
        for high, pts in by_high.items():
            whole = key | high
            code = whole >> shift & SUIT
            found = cache.get((code, left))
            if found is None:
                found = cache[code, left] = options(cell, code, left)
            for new_key, total, choice in successors(whole, pts, found, limits):
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


def close_grouped(
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


@dataclass(frozen=True, slots=True)
class Masked:
    """The back pointers of one masked step: state -> [(aces it brought, state before,
    choice)], with the aces' bits in `highs`; `aware` as for `Grouped`."""

    back: dict[int, list[tuple[int, int, Choice | None]]]
    highs: Highs
    mine: int = 0  # aware: the field of the suit whose aces the step read


MaskedLayer = dict[int, int]


def step_masked(
    cell: Cell,
    states: MaskedLayer,
    jokers: int,
    limits: Limits,
    how: tuple[Highs, bool],
) -> tuple[MaskedLayer, dict[int, list[tuple[int, int, Choice | None]]]]:
    """`advance` on masked states. When `aware` (see `step_aware`), each state is taken once
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
            for new_key, _, choice in successors(whole, 0, found, limits):  # no floor here
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


def close_masked(
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
