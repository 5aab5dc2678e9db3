"""The meld move that sheds the most points (M6): `best_move(table, hand, options)`.

A legal meld move is a whole table T1 satisfying I1-I6 from T0 = table. The table program
(`table.state`) answers "which hand cards can join the table, and how, for the most
points": table cards mandatory, hand cards optional, free jokers in its state. What it does
not see is settled here by trying each case, so the answer is exact (no clock; within `BUDGET`
states, else marked not `proven`):

- Freeing (I3, M5.6, `joker_replacement_source`): for each declared card X of the table
  jokers, how many of them are freed. A freed joker must be placed again (a mandatory free
  joker), and enough real X must be on T1 (or come from the hand): the program is told the
  hand cards it must play. Freeing costs nothing when the table already holds the real X,
  and a freed joker may be declared X again, so then only "free them all" is tried.
- Melds built from the hand (a per-player opening, I6; `freed_joker_placement=
  new_meld_from_hand`, A-M18): each small meld of 3-5 hand cards (and jokers) is laid first
  and the program solves the rest; any longer meld from the hand splits into a small one
  and a valid rest, so nothing is lost.
- An opening from the hand alone (an empty table, or `initial_meld_from_hand_only`): the
  program on the hand alone, next to the untouched table; `initial_meld_min_points` is
  checked on the best, which is the most points any opening can play.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace

from domain.cards import JOKER, JOKER_INDEX, Card, TableCard
from domain.manipulation.table.arrange import can_arrange, counts, solve
from domain.manipulation.table.build import Arrangement
from domain.manipulation.table.collector import paused
from domain.manipulation.table.local_moves import going_out_by_local_moves
from domain.manipulation.table.meld import Table, card_points
from domain.manipulation.table.rules import TableRules, validate_meld_move
from domain.manipulation.table.small import Small, small_melds
from domain.manipulation.table.state import JOKER_POINTS, ZERO, Budget, BudgetSpent, Supply

__all__ = ["BUDGET", "BestMove", "Fallback", "best_move", "can_arrange"]

# Program states best_move may expand in all (counted, never timed, so the answer is the
# same on every machine). On the 2-core dev machine under load this is about 0.2-0.5 s,
# which leaves room for the `_cheap` fallback within ~1 s a bot move; oracle-sized
# positions stay far inside it (the differential test asserts `proven`).
BUDGET = 100_000


@dataclass(frozen=True, slots=True)
class BestMove:
    """A legal meld move: the whole table after it, the hand cards played, their points.
    `proven` says the points are the most any legal move sheds; False when the work
    budget ran out and this is only the best move found before that."""

    table: Table
    played: tuple[Card, ...]
    points: int
    proven: bool = True


# Meld moves to fall back on when the budget runs out before any move is found: called with
# the table and the hand, it lists whole tables after a move (`domain.manipulation.melds`
# passes its listing of representative meld moves, `meld_candidates`).
Fallback = Callable[[Table, tuple[Card, ...]], Iterable[Table]]


@dataclass(frozen=True, slots=True)
class Position:
    """T0 and the hand as counts, with the rules and the pack size."""

    table: tuple[tuple[TableCard, ...], ...]
    table_real: tuple[int, ...]
    table_jokers: tuple[int, ...]  # declared identity of each table joker
    held: tuple[int, ...]  # 53 counts, jokers at 52
    rules: TableRules
    decks: int
    budget: Budget | None = None

    @property
    def hand_jokers(self) -> int:
        return self.held[JOKER_INDEX]


@dataclass(frozen=True, slots=True)
class Freeing:
    """Which table jokers are freed (by declared identity) and which keep their card."""

    freed: tuple[int, ...]
    kept: tuple[int, ...]
    hand_min: tuple[int, ...]  # hand cards the program must play so a real card frees them


@dataclass(frozen=True, slots=True)
class Plan:
    """A freeing, and the small melds laid first (with how many freed jokers they seat)."""

    freeing: Freeing
    placed: tuple[Small, ...] = ()
    seated: int = 0


def best_move(
    table: Sequence[Sequence[TableCard]],
    hand: Sequence[Card],
    options: object = None,
    *,
    has_opened: bool = False,
    decks: int = 2,
    budget: int | None = BUDGET,
    fallback: Fallback | None = None,
) -> BestMove | None:
    """The legal meld move from `table` that sheds the most points from `hand`, or None.

    `options`, `has_opened` and `decks` are as for `validate_meld_move`. Exact: the table
    returned passes `validate_meld_move` and no legal move sheds more points, unless the
    program expanded more than `budget` states (None: no limit): then the best move found
    so far, or if none yet the best of the `fallback` moves (`_cheap`; None without one),
    with `proven` False. `domain.manipulation.melds.best_move` is this with the listing's
    representative meld moves as the fallback.
    """
    position = _position(table, hand, TableRules.of(options), decks)
    if budget is not None:
        position = replace(position, budget=Budget(budget))
    with paused():
        try:
            return _best(position, has_opened)
        except BudgetSpent:
            if fallback is None:
                return None
            return _cheap(position.table, hand, options, (has_opened, decks), fallback)


def _best(position: Position, has_opened: bool) -> BestMove | None:
    table, rules = position.table, position.rules
    opening = rules.is_opening(table, has_opened)
    if not opening:
        hand = [Card(i) for i, n in enumerate(position.held) for _ in range(n)]
        out = going_out_by_local_moves(table, hand, rules, has_opened, position.decks)
        if out is not None:  # the whole hand: nothing sheds more (M8.3)
            return BestMove(out.table, tuple(sorted(out.played)), card_points(out.played))
    if opening and (not table or rules.initial_meld_from_hand_only):
        found = _hand_alone(position)
    else:
        found = _best_plan(position, needs_hand_meld=opening)
    if found is None or found.points <= 0:
        return None
    if opening and found.points < rules.initial_meld_min_points:
        return None
    return found


def _cheap(
    table: Table,
    hand: Sequence[Card],
    options: object,
    player: tuple[bool, int],
    fallback: Fallback,
) -> BestMove | None:
    """The budget ran out before any move was found: the best of the `fallback` moves (the
    representative meld moves `legal_moves` lists: new melds from the hand, one-card
    extensions, joker swaps), not proven best; None if there is none. `player` is
    (`has_opened`, `decks`)."""
    has_opened, decks = player
    best: BestMove | None = None
    cards = tuple(hand)
    for after in fallback(table, cards):
        played = validate_meld_move(
            table, cards, after, options, has_opened=has_opened, decks=decks
        ).played
        points = sum(card.value for card in played)
        if best is None or points > best.points:
            best = BestMove(after, tuple(sorted(played)), points, proven=False)
    return best


def _position(
    table: Sequence[Sequence[TableCard]], hand: Sequence[Card], rules: TableRules, decks: int
) -> Position:
    real = [0] * 52
    jokers: list[int] = []
    for meld in table:
        for tc in meld:
            if tc.declared is not None:
                jokers.append(tc.declared.index)
            else:
                real[tc.card.index] += 1
    frozen = tuple(tuple(meld) for meld in table)
    held = tuple(counts(hand))
    return Position(frozen, tuple(real), tuple(sorted(jokers)), held, rules, decks)


def _shown(position: Position) -> list[int]:
    """How often each card shows on T0 (real cards and joker declarations)."""
    shown = list(position.table_real)
    for x in position.table_jokers:
        shown[x] += 1
    return shown


def _caps(position: Position, extra: Sequence[int] = ZERO) -> tuple[int, ...] | None:
    """M5.7 with the copy-count option: how many more of each card may show."""
    if not position.rules.joker_identity_respects_copy_count:
        return None
    return tuple(max(0, position.decks - extra[i]) for i in range(52))


def _hand_alone(position: Position) -> BestMove | None:
    """An opening from the hand alone next to the untouched table (I6 options)."""
    supply = Supply(
        ZERO,
        ZERO,
        position.held[:52],
        ZERO,
        _caps(position, _shown(position)),
        position.hand_jokers,
        0,
        position.budget,
    )
    found = solve(supply)
    if found is None:
        return None
    return BestMove(position.table + found.melds, found.played, found.points)


# --- freeing table jokers (I3, M5.6) -------------------------------------------------------


def _needed(freed: int, rules: TableRules) -> int:
    """Real cards of X that free `freed` jokers declared X (M5.6 and its option)."""
    return freed if rules.one_real_card_frees_one_joker else min(freed, 1)


def _hand_needed(position: Position, x: int, freed: int) -> int | None:
    """Hand cards of X that must be played to free `freed` jokers declared X; None if the
    hand cannot."""
    need = _needed(freed, position.rules)
    if not position.rules.hand_only:
        need = max(0, need - position.table_real[x])
    return need if need <= position.held[x] else None


def _choices_for(position: Position, x: int, count: int) -> list[int]:
    """How many of the `count` jokers declared X to try freeing."""
    rules = position.rules
    if not rules.freed_to_new_meld and _hand_needed(position, x, count) == 0:
        return [count]  # free, and a freed joker may take X again: it can only help
    return [f for f in range(count + 1) if _hand_needed(position, x, f) is not None]


def freeings(position: Position) -> list[Freeing]:
    """Every freeing worth trying (see the module doc): the first frees the fewest of each
    declared card, the last the most."""
    found: list[tuple[tuple[int, ...], tuple[int, ...], list[int]]] = [((), (), [0] * 52)]
    for x in sorted(set(position.table_jokers)):
        count = position.table_jokers.count(x)
        grown = []
        for freed, kept, hand_min in found:
            for f in _choices_for(position, x, count):
                need = hand_min[:]
                need[x] = _hand_needed(position, x, f) or 0
                grown.append(((*freed, *[x] * f), (*kept, *[x] * (count - f)), need))
        found = grown
    return [Freeing(freed, kept, tuple(need)) for freed, kept, need in found]


# --- plans ---------------------------------------------------------------------------------


def _best_plan(position: Position, *, needs_hand_meld: bool) -> BestMove | None:
    """The best over every plan; with no joker on the table, the first, cheap one (the
    hand's jokers kept back) gives a floor that prunes the others (and is the question the
    next plan asks first, memoised). With table jokers it would be a search of its own, and
    freeing them all, which the plans try, can only help."""
    best: BestMove | None = None
    try:
        if not needs_hand_meld and not position.table_jokers:
            keep_all = Freeing((), position.table_jokers, ZERO)
            best = _solve_plan(position, Plan(keep_all), -1, withhold=True)
        top = sum(Card(i).value * n for i, n in enumerate(position.held))
        for plan in _plans(position, needs_hand_meld):
            if best is not None and best.points >= top:
                break  # every hand card played: nothing sheds more
            floor = -1 if best is None else best.points
            found = _solve_plan(position, plan, floor)
            if found is not None and (best is None or found.points > best.points):
                best = found
    except BudgetSpent:
        if best is None:
            raise
        return replace(best, proven=False)
    return best


def _plans(position: Position, needs_hand_meld: bool) -> Iterator[Plan]:
    """Every plan, those freeing the most jokers first: a freed joker goes anywhere and
    freeing costs only hand cards that then score, so these usually shed the most, and
    one that plays the whole hand ends the search (`_best_plan`)."""
    for freeing in reversed(freeings(position)):
        seat = len(freeing.freed) if position.rules.freed_to_new_meld else 0
        if not seat and not needs_hand_meld:
            yield Plan(freeing)
        else:
            yield from _placements(position, freeing, seat, needs_hand_meld)


@dataclass(frozen=True, slots=True)
class _Laying:
    """Small melds being chosen: the hand cards left, hand jokers left, freed jokers seated,
    and whether one meld is wholly from the hand."""

    placed: tuple[Small, ...]
    pool: tuple[int, ...]
    spare: int
    seated: int
    hand_meld: bool


def _placements(
    position: Position, freeing: Freeing, seat: int, needs_hand_meld: bool
) -> Iterator[Plan]:
    """Plans whose small melds hold a meld wholly from the hand (if needed) and seat the
    freed jokers (if they must go into new melds built from the hand)."""
    seen: set[tuple[tuple[object, ...], ...]] = set()
    start = _Laying((), position.held[:52], position.hand_jokers, 0, False)
    for laying in _lay(position, freeing, seat, needs_hand_meld, start):
        key = tuple(sorted(small.key(position.rules) for small in laying.placed))
        if key not in seen:
            seen.add(key)
            yield Plan(freeing, laying.placed, laying.seated)


def _lay(
    position: Position, freeing: Freeing, seat: int, needs_hand_meld: bool, laying: _Laying
) -> Iterator[_Laying]:
    if laying.seated >= seat and (laying.hand_meld or not needs_hand_meld):
        yield laying
        return
    forbidden = frozenset(freeing.freed) if seat else frozenset()
    jokers = laying.spare + seat - laying.seated
    identity = position.rules.joker_identity_respects_copy_count
    for small in small_melds(laying.pool, jokers, identity, forbidden):
        grown = _with(laying, small, seat, needs_hand_meld)
        if grown is not None:
            yield from _lay(position, freeing, seat, needs_hand_meld, grown)


def _with(laying: _Laying, small: Small, seat: int, needs_hand_meld: bool) -> _Laying | None:
    """The laying with one more small meld, or None if it helps neither requirement."""
    n = len(small.jokers)
    if needs_hand_meld and not laying.hand_meld:
        into = 0  # the first meld is the one wholly from the hand
    else:
        into = min(n, seat - laying.seated)
        if into == 0:
            return None
    if n - into > laying.spare:
        return None
    pool = list(laying.pool)
    for i in small.real:
        pool[i] -= 1
    return _Laying(
        (*laying.placed, small),
        tuple(pool),
        laying.spare - (n - into),
        laying.seated + into,
        laying.hand_meld or into == 0,
    )


def _placed_points(plan: Plan) -> int:
    real = sum(Card(i).value for small in plan.placed for i in small.real)
    jokers = sum(len(small.jokers) for small in plan.placed) - plan.seated
    return real + JOKER_POINTS * jokers


def _solve_plan(
    position: Position, plan: Plan, floor: int, *, withhold: bool = False
) -> BestMove | None:
    """Lay the plan's small melds, then let the program place everything else (shedding
    more than `floor` in all); `withhold` keeps the hand's jokers back."""
    supply = _supply(position, plan)
    if withhold:
        supply = replace(supply, jokers_hand=0)
    found: Arrangement | None = solve(supply, floor - _placed_points(plan))
    if found is None:
        return None
    placed_jokers = sum(len(small.jokers) for small in plan.placed) - plan.seated
    played = list(found.played) + [Card(i) for small in plan.placed for i in small.real]
    played += [JOKER] * placed_jokers
    melds = tuple(small.cards() for small in plan.placed) + found.melds
    return BestMove(melds, tuple(sorted(played)), found.points + _placed_points(plan))


def _supply(position: Position, plan: Plan) -> Supply:
    hand = list(position.held[:52])
    shown = [0] * 52
    for small in plan.placed:
        for i in small.real:
            hand[i] -= 1
            shown[i] += 1
        for i in small.jokers:
            shown[i] += 1
    fixed = [0] * 52
    for x in plan.freeing.kept:
        fixed[x] += 1
    hand_min = [
        max(0, need - (position.held[i] - hand[i])) for i, need in enumerate(plan.freeing.hand_min)
    ]
    placed_jokers = sum(len(small.jokers) for small in plan.placed) - plan.seated
    return Supply(
        table_real=position.table_real,
        fixed_jokers=tuple(fixed),
        hand_real=tuple(hand),
        hand_min=tuple(hand_min),
        cap=_caps(position, shown),
        jokers_hand=position.hand_jokers - placed_jokers,
        jokers_freed=len(plan.freeing.freed) - plan.seated,
        budget=position.budget,
    )
