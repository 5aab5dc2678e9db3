"""Arranging a multiset of cards into melds (M2): the table program run once, read back.

`solve(supply)` is the arrangement placing every mandatory card that sheds the most hand
points, or None; `can_arrange(cards)` asks whether all of `cards` (jokers free, each
declared as needed) split into valid melds. Both are exact (see `table.state`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from domain.cards import JOKER, JOKER_INDEX, Card
from domain.manipulation.table.breadth import best_final, race, search, trace
from domain.manipulation.table.build import Arrangement, build, build_fit, lay_jokers, turned_back
from domain.manipulation.table.collector import paused
from domain.manipulation.table.depth import first_fit
from domain.manipulation.table.meld import Table
from domain.manipulation.table.quick import quick_arrangement
from domain.manipulation.table.rules import TableRules
from domain.manipulation.table.state import JOKER_POINTS, USED, VALUES, ZERO, Budget, Supply
from domain.manipulation.table.window_proof import Window, refutes, refuting_window, window_ranks


@dataclass(frozen=True, slots=True)
class Shortcut:
    """What one shortcut of `solve` settled. `known` False: it could not say (its states ran
    out, or the jokers it took off found no room to go back on), and the next step asks.
    Otherwise `found` is the answer (None: there is none above the floor asked), and
    `window` a window of ranks that refuted going out on the way (`table.window_proof`)."""

    found: Arrangement | None = None
    known: bool = True
    window: Window | None = None


UNKNOWN = Shortcut(known=False)


def solve(supply: Supply, floor: int = -1) -> Arrangement | None:
    """The best arrangement of `supply` (every mandatory card placed) shedding more than
    `floor` points, or None (memoised: the plans of one position ask some questions twice,
    e.g. the table without its free jokers).

    First every hand card played (going out, M8.3, the usual best on a full table): a
    question with nothing optional, answered depth first (`table.depth`, two walks racing,
    up the ranks and down), usually after a few hundred states. With one free joker the
    walk gives up after `GIVE_UP` states and the program answers at once (the floor below
    hardly changes its work then). With two, after `PROBE` states a few windows of ranks
    are asked whether they alone refute going out (`table.window_proof`). When going out is
    refused, nothing beats the top less the least a hand card is worth, and with a free
    joker an arrangement of all but one such card is tried first (`_all_but_one`): it is
    the best. Then, with two free jokers, if a window refutes going out (asked now if the
    walk answered first), every arrangement leaves in the hand a card of its ranks, and
    all but one such card of the least value is tried (`_window_drops`): it is the best.
    Then without free jokers, laying them on afterwards where there is room: when that
    plays every hand card it is the best, and otherwise it is a floor. Then the program
    with a floor halfway between that one and the top, halving the gap while it finds
    nothing, last with the floor itself (`_falling`): it drops only states that cannot
    beat its floor, so what it finds is the best. The program runs up the ranks and down
    (`breadth.race`): down from the king the courts come first, so a floor prunes sooner.
    (Up the ranks alone, a falling floor cost more in all, measured in `bench/table.py`:
    there a floor hardly prunes before the last ranks.) Every shortcut answers exactly or
    hands over to the next step, so the answer is the program's. Every search spends from
    `supply.budget` when it has one (a question of `solver.best_move`, `BUDGET` states):
    when that runs out `BudgetSpent` ends the question, and `best_move` answers unproven.
    The shortcuts' own caps (`GIVE_UP`, `PROBE`, `NEXT_BEST_STATES`, `WINDOW_DROP_STATES`)
    only hand over to the next step.
    """
    floor = max(floor, -1)
    asked = _asked(supply, supply.budget)
    for before, found in asked:
        if found is not None:
            return found if found.points > floor else None  # the best, whatever the floor
        if floor >= before:
            return None  # nothing above a lower floor
    found = _solve(supply, floor)
    asked.append((floor, found))
    return found


@lru_cache(maxsize=64)
def _asked(supply: Supply, budget: Budget | None) -> list[tuple[int, Arrangement | None]]:
    """The answers `solve` gave for `supply` (the floor asked, the answer): an answer is
    the best arrangement, whatever the floor, and None says there is none above its floor;
    `budget` (by identity) keeps a question asked under one work budget from being answered
    from another's. (A repeated question is answered here, so `_solve` keeps no cache.)"""
    return []


def _solve(supply: Supply, floor: int) -> Arrangement | None:
    """`solve` of a question not answered yet for this floor."""
    top = most = _top(supply)  # the most any arrangement sheds
    if top > floor and any(supply.hand_real) and not _cannot_go_out(supply):
        gone = _going_out(supply)
        if gone.found is not None:
            return gone.found
        if gone.known:  # it cannot go out
            _no_going_out(supply.table_real, supply.cap, supply.budget).append(supply)
            least = _least(supply)
            if least is None or top - least <= floor:
                return None  # only going out would beat the floor
            most = top - least
            if supply.jokers >= NEXT_BEST_FROM:
                near = _all_but_one(supply, least)
                if near is not None:
                    return near
                window = gone.window or _window(supply)
                if window is not None:
                    kept = _window_drops(supply, window, floor)
                    if kept.known:
                        return kept.found
        else:
            return _above(supply, floor)  # one free joker: a floor hardly helps here
    best = _laid_on(supply, floor)
    if best is not None and best.points <= floor:
        best = None
    if best is not None:
        if best.points >= most:
            return best
        floor = best.points
    return _falling(supply, floor, most) or best


BOTH: tuple[bool, ...] = (False, True)  # the ways `breadth.race` runs: up the ranks and down


def _falling(supply: Supply, floor: int, most: int) -> Arrangement | None:
    """The best arrangement above `floor`, halving the gap from the top: asked above the
    middle of `floor` and the most it can shed (`most` at first: every hand card, or all
    but the least one when going out is refused), an answer is the best, and
    None says the best is at most that middle, which then bounds the next question; the
    last is asked above `floor` itself. The program's floor prunes a state only once its
    points and the hand cards still to come cannot pass it, so a floor near the answer
    spares most of the states (on the 60-card positions of `bench/table.py --solver`, a
    floor 19 points below the answer took 36,430 states, one just below it 4,707). The
    first question races the program up the ranks and down (`breadth.race`), the others
    go the way that answered it."""
    ways = BOTH
    while supply.cap is None:
        middle = (floor + most) // 2
        if middle <= floor:
            break
        found, way = _normal(supply, middle, ways)
        if not found.known:
            break  # no room to lay the jokers back on: only the full program can say (`_above`)
        if found.found is not None:
            return found.found
        ways, most = (way,), middle
    return _above(supply, floor, ways)


@lru_cache(maxsize=16)
def _no_going_out(
    table: tuple[int, ...], cap: tuple[int, ...] | None, budget: Budget | None
) -> list[Supply]:
    """The supplies with these real table cards and copy caps (asked under this work
    budget, by identity) that cannot go out (`_going_out` said None)."""
    return []


def _cannot_go_out(supply: Supply) -> bool:
    """Whether `supply` cannot go out because one that cannot is it with some of its table
    jokers that keep their card (fixed) free instead: whatever goes out with a fixed joker
    goes out with that joker free and declared the same card (every hand card played
    meets a freeing's `hand_min`; a free joker counts against the caps as a fixed one)."""
    fixed = supply.fixed_jokers
    for other in _no_going_out(supply.table_real, supply.cap, supply.budget):
        if other.hand_real != supply.hand_real:
            continue
        moved = sum(fixed) - sum(other.fixed_jokers)
        if other.jokers == supply.jokers + moved and all(
            o <= f for o, f in zip(other.fixed_jokers, fixed, strict=True)
        ):
            return True
    return False


# The most states the going-out question may take with one free joker before it gives
# up (`_going_out`); with more jokers it goes on to the end (see there). Counted over both
# racing walks (`depth.first_fit`), so twice the 13,000 that one walk up the ranks was
# given: on the 450 60-card positions of `bench/table.py --solver --positions 150` seeds
# 7, 8 and 20150, its 176 one-joker walks that go out took at most 12,424 states.
GIVE_UP = {1: 26_000}
# The states a going-out walk with two free jokers takes before `window_proof.refuting_window` is
# asked (`_Probe`; the walk goes on when no window refutes it). On the 450 60-card
# positions of `bench/table.py --solver --positions 150` seeds 7, 8 and 20150, the walks
# that go out past 20,000 states end by 38,160 (four of them; the windows cost each
# 30-65 ms for nothing), and those that cannot go out take 61,000-69,000.
PROBE = 45_000
PROBE_FROM = 2


class _Spent(Exception):
    """The going-out question spent the states it may take (`GIVE_UP`)."""


class _Capped(Budget):
    """A work budget of its own that also spends from the question's budget."""

    __slots__ = ("outer",)

    def __init__(self, left: int, outer: Budget | None) -> None:
        super().__init__(left)
        self.outer = outer

    def spend(self, states: int) -> None:
        if self.outer is not None:
            self.outer.spend(states)
        self.left -= states
        if self.left < 0:
            raise _Spent


class _Refuted(Exception):
    """A window of ranks proved that the going-out question has no answer (`window_proof`)."""

    def __init__(self, window: Window) -> None:
        super().__init__(window)
        self.window = window


class _Probe(Budget):
    """The going-out walk's budget with two free jokers: it spends from the question's
    budget, and once PROBE states are spent asks `window_proof.refuting_window` (once), raising
    _Refuted when a window proves the walk cannot succeed (the walk goes on otherwise)."""

    __slots__ = ("outer", "question")

    def __init__(self, question: Supply, outer: Budget | None) -> None:
        super().__init__(PROBE)
        self.question: Supply | None = question
        self.outer = outer

    def spend(self, states: int) -> None:
        if self.outer is not None:
            self.outer.spend(states)
        self.left -= states
        if self.left < 0 and self.question is not None:
            question, self.question = self.question, None
            window = refuting_window(question)
            if window is not None:
                raise _Refuted(window)


def _going_out(supply: Supply, budget: Budget | None = None) -> Shortcut:
    """Every hand card and hand joker placed (M8.3), asked of the program with them all
    mandatory (fewer choices than a floor at the top): the arrangement, or none (with the
    window of ranks that refuted it, when one did); unknown when the walk took more states
    than `GIVE_UP` allows, or than `budget` (a `_Capped` one) holds. Then the program
    with a floor (which finds going out too) answers: with one free joker that costs about
    what a walk that fails costs, while most walks that go out do so within the limit;
    with two, the program costs several times more, so the walk goes on."""
    every = _every(supply)
    if budget is None and supply.jokers >= PROBE_FROM and supply.cap is None:
        try:  # most walks that go out do so within PROBE states; then `window_proof` is asked
            found = _above(replace(every, budget=_Probe(every, supply.budget)), -1)
        except _Refuted as refuted:
            return Shortcut(window=refuted.window)
        return Shortcut(_gone(supply, found))
    cap = GIVE_UP.get(supply.jokers)
    if budget is not None:
        every = replace(every, budget=budget)
    elif cap is not None:
        every = replace(every, budget=_Capped(cap, supply.budget))
    try:
        found = _above(every, -1)
    except _Spent:
        return UNKNOWN
    return Shortcut(_gone(supply, found))


def _gone(supply: Supply, found: Arrangement | None) -> Arrangement | None:
    """The going-out arrangement of `supply` from the program's answer to its question."""
    if found is None:
        return None
    played = [tc.card for meld in found.melds for tc in meld if not tc.card.is_joker]
    hand = Counter({Card(i): n for i, n in enumerate(supply.hand_real) if n})
    assert Counter(played) - Counter({Card(i): n for i, n in enumerate(supply.table_real)}) == hand
    cards = [*hand.elements(), *[JOKER] * supply.jokers_hand]
    return Arrangement(found.melds, tuple(sorted(cards)), _top(supply))


def _every(supply: Supply) -> Supply:
    """The going-out question of `supply`: its hand cards and hand jokers mandatory."""
    table = tuple(t + h for t, h in zip(supply.table_real, supply.hand_real, strict=True))
    return replace(
        supply,
        table_real=table,
        hand_real=ZERO,
        hand_min=ZERO,
        jokers_hand=0,
        jokers_freed=supply.jokers,
    )


def _window(supply: Supply) -> Window | None:
    """A window of ranks that refutes going out (`window_proof`), asked with PROBE_FROM free
    jokers or more. With one, the windows cost about what they save: on the 600 60-card
    positions of `bench/table.py --solver --positions 150` seeds 20150, 7, 8 and 10,
    asking them too took 8.2 s of CPU in all against 7.5 s (same process, alternating)."""
    return refuting_window(_every(supply)) if supply.jokers >= PROBE_FROM else None


def _least(supply: Supply) -> int | None:
    """The fewest points an arrangement that does not go out leaves in the hand: the least
    a hand card it need not play (beyond `hand_min`) is worth, or a hand joker's; None
    when it must play every hand card and has no hand joker."""
    worth = [VALUES[i] for i, n in enumerate(supply.hand_real) if n > supply.hand_min[i]]
    if supply.jokers_hand:
        worth.append(JOKER_POINTS)
    return min(worth, default=None)


# With this many free jokers or more, when going out fails, `_solve` asks first whether
# every hand card but one of the least value goes out, taking at most NEXT_BEST_STATES
# in all (see `_all_but_one`; twice what one walk was given, as for `GIVE_UP`). With the
# racing walks a failed question mostly costs a few thousand states, so one free joker
# asks too (it was left to the program before).
NEXT_BEST_FROM = 1
NEXT_BEST_STATES = 20_000


def _all_but_one(supply: Supply, least: int) -> Arrangement | None:
    """When `supply` cannot go out, an arrangement of every hand card and hand joker but
    one card worth `least` (`_least`) is the best: every other arrangement leaves out at
    least that many points. Asked for each such card in turn, depth first, within
    NEXT_BEST_STATES in all (the program costs several times more with two free jokers,
    and often ends at such an arrangement); None when none is found within them (then
    the program answers as before)."""
    budget = _Capped(NEXT_BEST_STATES, supply.budget)
    for i, n in enumerate(supply.hand_real):
        if not n or VALUES[i] != least or supply.hand_min[i] >= n:
            continue
        fewer = list(supply.hand_real)
        fewer[i] -= 1
        found = _going_out(replace(supply, hand_real=tuple(fewer)), budget)
        if found.found is not None:
            return found.found
        if not found.known:
            return None
    return None


WINDOW_DROP_STATES = 80_000  # twice one walk's 40,000, as for `GIVE_UP`


def _window_drops(supply: Supply, window: Window, floor: int) -> Shortcut:
    """When the cards of `window` refute going out (`window_proof`), every arrangement leaves in
    the hand a card of the window's ranks that it need not play (a hand joker left out
    does not help the window, where free jokers are optional already), so it sheds at most
    the top less the least such a card is worth. An arrangement of every hand card but one
    such card is then the best: asked for each in turn (skipping those whose window still
    refutes), depth first within WINDOW_DROP_STATES in all. None found when nothing can
    beat `floor`; unknown when none is found (the program answers)."""
    ranks = window_ranks(window)
    free = [
        i for i, n in enumerate(supply.hand_real) if n > supply.hand_min[i] and i % 13 + 1 in ranks
    ]
    if not free:
        return UNKNOWN
    worth = sorted(VALUES[i] for i in free for _ in range(supply.hand_real[i] - supply.hand_min[i]))
    pair = sum(worth[:2]) if len(worth) > 1 else None  # the least two cards can leave
    budget = _Capped(WINDOW_DROP_STATES, supply.budget)
    for least in sorted(set(worth)):
        if pair is not None and least > pair:
            return UNKNOWN  # leaving two cards may cost less than one of these
        if _top(supply) - least <= floor:
            return Shortcut(None)
        walked = False  # a card whose window arranges but which does not go out
        for i in free:
            if VALUES[i] != least:
                continue
            fewer = list(supply.hand_real)
            fewer[i] -= 1
            without = replace(supply, hand_real=tuple(fewer))
            if refutes(_every(without), window):
                continue
            found = _going_out(without, budget)
            if found.found is not None:
                return found
            if not found.known:
                return UNKNOWN
            walked = True
        if walked:  # leaving it and a card outside the window may cost less than the next
            return UNKNOWN
    return UNKNOWN


def _laid_on(supply: Supply, floor: int) -> Arrangement | None:
    """The best arrangement without the free jokers, with them laid on melds with room
    (None if it cannot beat `floor`)."""
    if not supply.jokers or supply.cap is not None:
        return None
    bonus = JOKER_POINTS * supply.jokers_hand
    found = solve(replace(supply, jokers_hand=0, jokers_freed=0), floor - bonus)
    if found is None:
        return None
    melds = lay_jokers(found.melds, supply.jokers)
    if melds is None:
        return None
    played = tuple(sorted([*found.played, *[JOKER] * supply.jokers_hand]))
    return Arrangement(melds, played, found.points + JOKER_POINTS * supply.jokers_hand)


def _above(supply: Supply, floor: int, ways: tuple[bool, ...] = BOTH) -> Arrangement | None:
    """The best arrangement above `floor`: the normal form first (`table.state`, run the
    `ways` of `breadth.race`), the full program when taken-off jokers find no room to go
    back on."""
    if supply.cap is None:
        found = _normal(supply, floor, ways)[0]
        if found.known:
            return found.found
    run = search(supply, floor)
    best = best_final(supply, run)
    if best is None or best[1] <= floor:
        return None
    return build(supply, trace(run, best[0]))


def _normal(supply: Supply, floor: int, ways: tuple[bool, ...]) -> tuple[Shortcut, bool]:
    """Every end state of the normal form, best hope first, with the jokers it left out
    laid back on (each hand joker placed is worth the most). If a state that could beat
    the best so far has no room for them, only the full program can say: unknown. With
    the answer, the way that answered (`breadth.race`: True down the ranks)."""
    fixed = not any(supply.hand_real) and not supply.jokers_hand
    if fixed:
        return (_fits(supply) if floor < 0 else Shortcut(None)), False  # nothing optional: no point
    ran, run = race(supply, floor, ways)
    way = ran is not supply
    best: Arrangement | None = None
    ends = sorted(run.final.items(), key=lambda item: -item[1])
    for key, pts in ends:
        used = key >> USED
        if used > supply.jokers or pts + JOKER_POINTS * supply.jokers_hand <= floor:
            continue
        if best is not None and pts + JOKER_POINTS * supply.jokers_hand <= best.points:
            break
        built = build(ran, trace(run, used))
        melds = lay_jokers(built.melds, supply.jokers - used)
        if melds is None:
            return UNKNOWN, way
        real = tuple(card for card in built.played if not card.is_joker)
        if way:
            melds, real = turned_back(melds, real)
        played = tuple(sorted([*real, *[JOKER] * supply.jokers_hand]))
        best = Arrangement(melds, played, pts + JOKER_POINTS * supply.jokers_hand)
    return Shortcut(best), way


def _fits(supply: Supply) -> Shortcut:
    """`_normal` with nothing optional: any one arrangement is the answer, so it is found
    depth first (`table.depth`), the jokers it left out laid back on (or unknown)."""
    fit = first_fit(supply)
    if fit is None:
        return Shortcut(None)
    built = build_fit(fit)
    melds = lay_jokers(built.melds, supply.jokers - fit.used)
    real = tuple(sorted(card for card in built.played if not card.is_joker))
    return UNKNOWN if melds is None else Shortcut(Arrangement(melds, real, 0))


def _top(supply: Supply) -> int:
    """The points of every hand card and hand joker: no arrangement sheds more."""
    cards = sum(n * VALUES[i] for i, n in enumerate(supply.hand_real))
    return cards + JOKER_POINTS * supply.jokers_hand


def counts(cards: Sequence[Card]) -> list[int]:
    """How many of each code 0..52 (jokers at 52)."""
    out = [0] * 53
    for card in cards:
        out[card.index] += 1
    return out


def can_arrange(cards: Sequence[Card], options: object = None, *, decks: int = 2) -> Table | None:
    """An arrangement of all `cards` into valid melds (jokers declared as needed), or None.

    With `joker_identity_respects_copy_count` in `options`, no card is shown more often than
    the `decks` packs hold (M5.7). Exact, with no state budget.
    """
    if not cards:
        return ()
    held = counts(cards)
    rules = TableRules.of(options)
    cap = (decks,) * 52 if rules.joker_identity_respects_copy_count else None
    if cap is None:  # a simple split answers most tables (`table.quick`)
        quick = quick_arrangement(held[:52], held[JOKER_INDEX])
        if quick is not None:
            return quick
    supply = Supply(tuple(held[:52]), ZERO, ZERO, ZERO, cap, 0, held[JOKER_INDEX])
    with paused():
        found = solve(supply)
    return None if found is None else found.melds
