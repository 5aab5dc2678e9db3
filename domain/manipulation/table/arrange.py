"""Arranging a multiset of cards into melds (M2): the order in which the questions are
asked, each answering exactly or handing over to the next.

`solve(supply)` is the arrangement placing every mandatory card that sheds the most hand
points, or None: going out and its shortcuts first (`table.going_out`), then the jokers
laid on, then searches above a falling floor (`table.best_above`). `can_arrange(cards)`
asks whether all of `cards` (jokers free, each declared as needed) split into valid melds:
simple splits first (`table.quick`), then `solve`. Both are exact (see `table.state`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache

from domain.cards import JOKER, JOKER_INDEX, Card
from domain.manipulation.table.best_above import BOTH, best_above, normal_best, top_points
from domain.manipulation.table.build import Arrangement, lay_jokers
from domain.manipulation.table.collector import paused
from domain.manipulation.table.going_out import (
    NEXT_BEST_FROM,
    all_but_one,
    cannot_go_out,
    going_out,
    going_out_window,
    least_left,
    no_going_out,
    window_drops,
)
from domain.manipulation.table.meld import Table
from domain.manipulation.table.quick import quick_arrangement
from domain.manipulation.table.rules import TableRules
from domain.manipulation.table.state import JOKER_POINTS, ZERO, Budget, Supply


def solve(supply: Supply, floor: int = -1) -> Arrangement | None:
    """The best arrangement of `supply` (every mandatory card placed) shedding more than
    `floor` points, or None (memoised: the plans of one position ask some questions twice,
    e.g. the table without its free jokers).

    First every hand card played (going out, M8.3, the usual best on a full table): a
    question with nothing optional, answered depth first (`table.depth`, two walks racing,
    up the ranks and down), usually after a few hundred states. With one free joker the
    walk gives up after `going_out.GIVE_UP` states and the program answers at once (the floor below
    hardly changes its work then). With two, after `going_out.PROBE` states a few windows of ranks
    are asked whether they alone refute going out (`table.window_proof`). When going out is
    refused, nothing beats the top less the least a hand card is worth, and with a free
    joker an arrangement of all but one such card is tried first (`all_but_one`): it is
    the best. Then, with two free jokers, if a window refutes going out (asked now if the
    walk answered first), every arrangement leaves in the hand a card of its ranks, and
    all but one such card of the least value is tried (`window_drops`): it is the best.
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
    top = most = top_points(supply)  # the most any arrangement sheds
    if top > floor and any(supply.hand_real) and not cannot_go_out(supply):
        gone = going_out(supply)
        if gone.found is not None:
            return gone.found
        if gone.known:  # it cannot go out
            no_going_out(supply.table_real, supply.cap, supply.budget).append(supply)
            least = least_left(supply)
            if least is None or top - least <= floor:
                return None  # only going out would beat the floor
            most = top - least
            if supply.jokers >= NEXT_BEST_FROM:
                near = all_but_one(supply, least)
                if near is not None:
                    return near
                window = gone.window or going_out_window(supply)
                if window is not None:
                    kept = window_drops(supply, window, floor)
                    if kept.known:
                        return kept.found
        else:
            return best_above(supply, floor)  # one free joker: a floor hardly helps here
    best = _laid_on(supply, floor)
    if best is not None and best.points <= floor:
        best = None
    if best is not None:
        if best.points >= most:
            return best
        floor = best.points
    return _falling(supply, floor, most) or best


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
        found, way = normal_best(supply, middle, ways)
        if not found.known:
            break  # no room to lay the jokers back on: only the full program can say (`best_above`)
        if found.found is not None:
            return found.found
        ways, most = (way,), middle
    return best_above(supply, floor, ways)


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
