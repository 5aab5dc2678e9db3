"""Depth first through the table program, for a supply with nothing optional (every card
mandatory: `can_arrange`, and going out, M8.3), where the question is only whether
everything fits and any one arrangement answers it.

The breadth-first program (`table.breadth.search`) builds every state of every step before it
knows the answer; with free jokers that is up to a few hundred thousand states on a full
table, though an arrangement usually exists and a walk that keeps to one path finds it
after a few hundred. This walk runs the same steps (the same choices, the same checks)
one path at a time, so every path it completes is one the program would have found, and
remembers each state it has left without completing, so that no state is walked twice for
the same endings: the answer is the same. Rank 1 runs breadth first, and from rank 2 on a
state carries the set of rank-1 endings (aces set aside for the high end, read again only
at the king) that can still complete it, as in the program's masked form, so a wrong guess about
the high aces costs no second walk through ranks 2..12.

One state dominates another: a state left without completing, for some set-aside aces,
is as dead with more free jokers used (whatever completes it completes the one with fewer,
whose spare joker is laid on after), and, between ranks, as dead as any state at least as
good as it by the wider rule of `dominance.better` (asked only there: inside a rank it costs
the walk more time than it saves).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from functools import lru_cache

from domain.manipulation.table.choices import Option, options
from domain.manipulation.table.dominance import SUITS, drop_dominated, lift_index, points_left
from domain.manipulation.table.state import (
    HIGH,
    MIRROR,
    SUIT,
    USED,
    WIDTH,
    Cell,
    Choice,
    Supply,
    cells,
)
from domain.manipulation.table.step import (
    NEED,
    Back,
    Limits,
    advance,
    close_rank,
    closed,
    group_room,
    successors,
)

_ONE = 1 << USED
_CHUNK = 256  # states counted against the budget at a time
_FIRST_TURN = 512  # the states each root may walk in the first round of `first_fit`
_KINGS = 48  # the first step of rank 13, the only rank whose choices read the aces


class _TurnOver(Exception):
    """A root's turn in `first_fit` walked all the states it was allowed."""


@dataclass(frozen=True, slots=True)
class Fit:
    """An arrangement found: the free jokers it uses and its 52 choices (see `breadth.trace`),
    made for `supply`, which is the question's own or its mirror (`mirrored`)."""

    used: int
    choices: list[Choice]
    supply: Supply
    mirrored: bool = False


def mirrored(supply: Supply) -> Supply:
    """`supply` with its ranks mirrored (`MIRROR`). Mirroring is a symmetry of the melds
    (M2): a group keeps its rank, a sequence stays a run of one suit, A-2-3 and Q-K-A trade
    places and K-A-2 stays out, so the cards of `supply` arrange exactly when those of its
    mirror do, and an arrangement of either mirrors into one of the other. A hand card of
    the mirror scores as the card it mirrors (`Supply.turned`), so the best points are the
    same too; the mirror of the mirror is `supply`."""

    def turned(counts: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(counts[j] for j in MIRROR)

    return replace(
        supply,
        table_real=turned(supply.table_real),
        fixed_jokers=turned(supply.fixed_jokers),
        hand_real=turned(supply.hand_real),
        hand_min=turned(supply.hand_min),
        cap=None if supply.cap is None else turned(supply.cap),
        turned=not supply.turned,
    )


def first_fit(supply: Supply) -> Fit | None:
    """One arrangement of every card of `supply` (nothing optional), or None when there
    is none, in the normal form (`choices.choices`): an answer exactly when
    `breadth.search(supply, normal=True)` has an end state.

    Two walks take turns, a root's turn each (`_rounds`): one up the ranks of `supply`, one up
    those of its mirror (`mirrored`), that is down from the king, and the first to answer
    answers (each is exact). Where going out fails for want of a card at one end of the
    ranks, or a path must be guessed early, the walk that meets that end first answers
    after a few hundred or thousand states where the other can take tens of thousands
    (on the 60-card positions of `bench/table.py --solver`, the walks of 464 questions
    took 797,000 states one way and 311,000 at the better of the two); the race costs
    about twice the better walk."""
    racers = (_rounds(supply, mirror=False), _rounds(supply, mirror=True))
    while True:
        for racer in racers:
            done, fit = next(racer)
            if done:
                return fit


def _rounds(supply: Supply, *, mirror: bool) -> Iterator[tuple[bool, Fit | None]]:
    """The walk of `supply` (or of its mirror): (False, None) after each turn that ran
    out of states, then (True, the arrangement or None).

    The states after rank 1 (the roots) take turns, in rounds that double the states
    each may walk: a root that dead-ends after a long walk no longer holds up one that
    completes soon, and a walk cut short keeps the dead states it proved (the rounds
    cost at most about twice as much when no root completes)."""
    if mirror:
        supply = mirrored(supply)
    steps = cells(supply, normal=True)
    layer, history = _rank_one(supply, steps)
    highs = sorted({key & HIGH for key in layer})
    roots: dict[int, int] = {}
    for key in layer:
        bit = 1 << highs.index(key & HIGH)
        roots[key & ~HIGH] = roots.get(key & ~HIGH, 0) | bit
    walk = _Walk(supply, steps, highs)
    waiting = sorted(roots, key=lambda k: (k >> USED, -roots[k].bit_count()))
    allowance = _FIRST_TURN
    while waiting:
        for root in list(waiting):
            won = walk.turn(root, roots[root], allowance)
            if won is None:
                yield False, None
                continue  # its turn is over: again in the next round, with twice as many
            waiting.remove(root)
            if won:
                high = highs[(won & -won).bit_length() - 1]
                choices = _trace_rank_one(history, root | high) + walk.path
                walk.settle()
                yield True, Fit(walk.end >> USED, choices, supply, mirror)
                return
        allowance *= 2
    walk.settle()
    yield True, None


def _rank_one(supply: Supply, steps: list[Cell]) -> tuple[dict[int, int], list[Back]]:
    """Rank 1 breadth first (as the breadth-first program): the states after it, with their
    set-aside aces, and the back pointers of its 4 steps and its close."""
    layer: dict[int, int] = {0: 0}
    history: list[Back] = []
    room = group_room(steps[:4], supply.jokers)
    for cell in steps[:4]:
        limits = Limits(-1, room[cell.suit], cell.suit == 3, supply.jokers, NEED)
        layer, back = advance(cell, layer, supply.jokers, limits)
        drop_dominated(layer, points_left)
        history.append(back)
    layer, back = close_rank(layer, NEED)
    drop_dominated(layer, points_left)
    history.append(back)
    if supply.budget is not None:
        supply.budget.spend(sum(len(back) for back in history))
    return layer, history


def _trace_rank_one(history: list[Back], key: int) -> list[Choice]:
    before = history[4][key][0]
    grouped = (key >> USED & 7) - (before >> USED & 7)  # as `breadth.trace`
    key = before
    out: list[Choice] = []
    for back in reversed(history[:4]):
        key, choice = back[key]
        assert choice is not None
        out.append(choice)
    out[0] = replace(out[0], group_jokers=grouped)
    out.reverse()
    return out


@dataclass(slots=True)
class _Walk:
    """The walk from rank 2: the steps, the states left without completing (step -> state
    -> the rank-1 endings it failed for), and the path so far."""

    supply: Supply
    steps: list[Cell]
    highs: list[int]
    dead: list[dict[int, int]] = field(default_factory=lambda: [{} for _ in range(52)])
    path: list[Choice] = field(default_factory=list)
    limits: list[Limits] = field(default_factory=list)
    parts: list[tuple[tuple[int, int], ...]] = field(default_factory=list)
    menus: list[dict[int, tuple[Option, ...]]] = field(
        default_factory=lambda: [{} for _ in range(52)]
    )
    end: int = 0
    count: int = 0
    every: int = 0  # the mask of every rank-1 ending
    jokers: int = 0  # the supply's free jokers
    allowance: int = 0  # the states the current turn may still walk

    def __post_init__(self) -> None:
        self.every = (1 << len(self.highs)) - 1
        jokers = self.jokers = self.supply.jokers
        for rank in range(1, 14):
            rooms = group_room(self.steps[4 * (rank - 1) : 4 * rank], jokers)
            self.limits += [_limits(room, s == 3, jokers) for s, room in enumerate(rooms)]
        for suit in range(4):
            mine = 7 << (WIDTH * suit + 9)
            split: dict[int, int] = {}
            for number, high in enumerate(self.highs):
                split[high & mine] = split.get(high & mine, 0) | 1 << number
            self.parts.append(tuple(split.items()))

    def go(self, k: int, key: int, wide: int, need: int) -> tuple[int, int]:
        """Walk on from the state `key` before step k with the rank-1 endings `wide`, until
        a path completes one of `need` (`path` then holds the choices of steps k.., and
        `end` the end state). Endings of `wide` outside `need` are asked on the way (at
        ranks 2..12 that costs nothing, and a state then dies for them all). Returns the
        endings found to complete, and those left unasked (neither found nor refuted)."""
        if k == 52:
            self.end = key
            return wide, 0
        held = self.dead[k]
        for fewer in range(key >> USED & 7, -1, -1):
            wide &= ~held.get(key - fewer * _ONE, 0)
        if not k & 3 and wide & need and held:  # between ranks: `dominance.better`, inlined
            for shift, lifts in SUITS:
                for delta in lifts[lift_index(key >> shift)]:
                    wide &= ~held.get(key + delta, 0)
        if not wide & need:
            return 0, wide
        self.count += 1
        if self.count == _CHUNK:
            self.settle()
        self.allowance -= 1
        if self.allowance < 0:
            raise _TurnOver
        if k < _KINGS:  # ranks 2..12 read no set-aside aces
            alive, unasked = self._try(k, key, wide, need)
            if alive & need:
                return alive, 0
        else:  # the kings: each value of the suit's set-aside aces in turn
            alive = unasked = 0
            for value, part in self.parts[k & 3]:
                sub = wide & part
                if not sub & need:
                    unasked |= sub
                    continue
                won, left = self._try(k, key | value, sub, need)
                if won & need:
                    return won, 0
                alive |= won
                unasked |= left
        held[key] = held.get(key, 0) | wide & ~alive & ~unasked
        return alive, unasked

    def turn(self, root: int, need: int, allowance: int) -> int | None:
        """Walk from `root` (after rank 1) for the endings `need`: those it completes (then
        `path` holds the choices from rank 2), or None when `allowance` states ran out."""
        self.allowance = allowance
        self.path = []
        try:
            return self.go(4, root, self.every, need)[0] & need
        except _TurnOver:
            return None

    def _try(self, k: int, whole: int, wide: int, need: int) -> tuple[int, int]:
        """Step k's choices from `whole`, as `go`."""
        limits = self.limits[k]
        last = limits.last
        path = self.path
        alive = unasked = 0
        code = whole >> (WIDTH * (k & 3)) & SUIT
        index = code << 3 | self.jokers - (whole >> USED & 7)
        menu = self.menus[k]  # `_ordered`, memoised per step too (hashing a Cell costs more)
        found = menu.get(index)
        if found is None:
            found = menu[index] = _ordered(self.steps[k], code, index & 7)
        for new_key, _, choice in successors(whole, 0, found, limits):  # no floor here
            if last:  # the rank closes (`breadth.trace` keeps its group jokers so)
                grouped = closed(new_key, NEED)
                extra = (grouped >> USED) - (new_key >> USED & 7)
                if extra:
                    choice = _grouped(choice, extra)
                new_key = grouped
            new_key &= ~HIGH  # the high aces travel in the masks
            path.append(choice)
            won, left = self.go(k + 1, new_key, wide, need)
            if won & need:
                return won, 0
            path.pop()
            alive |= won
            unasked |= left
            wide &= ~won
            if not wide & need:
                return alive, unasked | wide
        return alive, unasked

    def settle(self) -> None:
        """Count the states walked so far against the budget."""
        if self.supply.budget is not None:
            self.supply.budget.spend(self.count)
        self.count = 0


@lru_cache(maxsize=1 << 10)
def _limits(room: int, last: bool, jokers: int) -> Limits:
    """A step's `Limits` in the walk (memoised: the walks of many questions share them)."""
    return Limits(-1, room, last, jokers, NEED)


@lru_cache(maxsize=1 << 12)
def _grouped(choice: Choice, jokers: int) -> Choice:
    """The choice of a rank's last suit with the free jokers its groups took at the close."""
    return replace(choice, group_jokers=jokers)


@lru_cache(maxsize=1 << 16)
def _ordered(cell: Cell, code: int, left: int) -> tuple[Option, ...]:
    """`choices.options`, those using fewer free jokers first."""
    return tuple(sorted(options(cell, code, left), key=_jokers))


def _jokers(option: Option) -> int:
    return option[3].jokers + option[3].high_jokers
