"""The going-out question (M8.3) and what its answer settles: does every hand card and
hand joker go out (`going_out`, depth first, with a window proof asked on the way), and
when it cannot, is an arrangement of all but one card of the least value the best
(`all_but_one`), or all but one card of a refuting window's ranks (`window_drops`)? Each
stops after its own count of states (`GIVE_UP`, `PROBE`, `NEXT_BEST_STATES`,
`WINDOW_DROP_STATES`) and then hands over to the next step of `table.arrange.solve`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from functools import lru_cache

from domain.cards import JOKER, Card
from domain.manipulation.table.best_above import UNKNOWN, Shortcut, best_above, top_points
from domain.manipulation.table.build import Arrangement
from domain.manipulation.table.state import JOKER_POINTS, VALUES, ZERO, Budget, Supply
from domain.manipulation.table.window_proof import Window, refutes, refuting_window, window_ranks


@lru_cache(maxsize=16)
def no_going_out(
    table: tuple[int, ...], cap: tuple[int, ...] | None, budget: Budget | None
) -> list[Supply]:
    """The supplies with these real table cards and copy caps (asked under this work
    budget, by identity) that cannot go out (`going_out` said None)."""
    return []


def cannot_go_out(supply: Supply) -> bool:
    """Whether `supply` cannot go out because one that cannot is it with some of its table
    jokers that keep their card (fixed) free instead: whatever goes out with a fixed joker
    goes out with that joker free and declared the same card (every hand card played
    meets a freeing's `hand_min`; a free joker counts against the caps as a fixed one)."""
    fixed = supply.fixed_jokers
    for other in no_going_out(supply.table_real, supply.cap, supply.budget):
        if other.hand_real != supply.hand_real:
            continue
        moved = sum(fixed) - sum(other.fixed_jokers)
        if other.jokers == supply.jokers + moved and all(
            o <= f for o, f in zip(other.fixed_jokers, fixed, strict=True)
        ):
            return True
    return False


# The most states the going-out question may take with one free joker before it gives
# up (`going_out`); with more jokers it goes on to the end (see there). Counted over both
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


def going_out(supply: Supply, budget: Budget | None = None) -> Shortcut:
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
            found = best_above(replace(every, budget=_Probe(every, supply.budget)), -1)
        except _Refuted as refuted:
            return Shortcut(window=refuted.window)
        return Shortcut(_gone(supply, found))
    cap = GIVE_UP.get(supply.jokers)
    if budget is not None:
        every = replace(every, budget=budget)
    elif cap is not None:
        every = replace(every, budget=_Capped(cap, supply.budget))
    try:
        found = best_above(every, -1)
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
    return Arrangement(found.melds, tuple(sorted(cards)), top_points(supply))


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


def going_out_window(supply: Supply) -> Window | None:
    """A window of ranks that refutes going out (`window_proof`), asked with PROBE_FROM free
    jokers or more. With one, the windows cost about what they save: on the 600 60-card
    positions of `bench/table.py --solver --positions 150` seeds 20150, 7, 8 and 10,
    asking them too took 8.2 s of CPU in all against 7.5 s (same process, alternating)."""
    return refuting_window(_every(supply)) if supply.jokers >= PROBE_FROM else None


def least_left(supply: Supply) -> int | None:
    """The fewest points an arrangement that does not go out leaves in the hand: the least
    a hand card it need not play (beyond `hand_min`) is worth, or a hand joker's; None
    when it must play every hand card and has no hand joker."""
    worth = [VALUES[i] for i, n in enumerate(supply.hand_real) if n > supply.hand_min[i]]
    if supply.jokers_hand:
        worth.append(JOKER_POINTS)
    return min(worth, default=None)


# With this many free jokers or more, when going out fails, `_solve` asks first whether
# every hand card but one of the least value goes out, taking at most NEXT_BEST_STATES
# in all (see `all_but_one`; twice what one walk was given, as for `GIVE_UP`). With the
# racing walks a failed question mostly costs a few thousand states, so one free joker
# asks too (it was left to the program before).
NEXT_BEST_FROM = 1


NEXT_BEST_STATES = 20_000


def all_but_one(supply: Supply, least: int) -> Arrangement | None:
    """When `supply` cannot go out, an arrangement of every hand card and hand joker but
    one card worth `least` (`least_left`) is the best: every other arrangement leaves out at
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
        found = going_out(replace(supply, hand_real=tuple(fewer)), budget)
        if found.found is not None:
            return found.found
        if not found.known:
            return None
    return None


WINDOW_DROP_STATES = 80_000  # twice one walk's 40,000, as for `GIVE_UP`


def window_drops(supply: Supply, window: Window, floor: int) -> Shortcut:
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
        if top_points(supply) - least <= floor:
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
            found = going_out(without, budget)
            if found.found is not None:
                return found
            if not found.known:
                return UNKNOWN
            walked = True
        if walked:  # leaving it and a card outside the window may cost less than the next
            return UNKNOWN
    return UNKNOWN
