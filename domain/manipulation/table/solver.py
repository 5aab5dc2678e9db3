"""Arranging cards into melds and finding the meld move that sheds the most points (M6).

`can_arrange(cards)` decides whether a multiset of cards (jokers free) splits into valid melds
(M2) and returns one arrangement. `best_move(table, hand, options)` finds a legal meld move
(a whole table T1 satisfying I1-I6 from T0 = table) that sheds the most points (M1.4) from
the hand, rearranging the table as it likes, or None when no meld is possible.

Both run the dynamic program of `domain.manipulation.table.dp` through the searches of
`domain.manipulation.table.arrange`. Jokers need care (I3): a table joker keeps
its declared card (it is a mandatory card of that identity) unless a real copy of that card
frees it, when it becomes a free joker that must be placed again (M5.4). There are at most
two jokers in the pack, so `best_move` tries each set of table jokers to free that a real card
could free (M5.6 and `joker_replacement_source`) and keeps the best result. Options that
require a meld made from the hand alone (`freed_joker_placement=new_meld_from_hand`, and a
per-player opening, I6) are met by trying each small meld of 3-5 hand cards (any longer one
splits into a small one and a rest that stays valid) and solving the rest of the table.

`best_move` is exact unless its deterministic work budget (WORK_BUDGET option expansions,
no clock) runs out; then it returns the best move found so far, always a legal one, never
worse than the move that frees no joker and plays the hand's jokers only as extensions.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations

from domain.cards import JOKER, JOKER_INDEX, Card, TableCard
from domain.manipulation.table.arrange import extend_jokers, solve
from domain.manipulation.table.dp import Arrangement, Budget, OutOfWork, Supply
from domain.manipulation.table.rules import Table, TableRules, card_points

WORK_BUDGET = 300_000
"""Options the exact search of one `best_move` may expand (deterministic; no clock)."""


@dataclass(frozen=True, slots=True)
class BestMove:
    """A legal meld move: the whole table after it, the hand cards played, their points."""

    table: Table
    played: tuple[Card, ...]
    points: int


def _count(cards: Sequence[Card]) -> list[int]:
    counts = [0] * 53
    for card in cards:
        counts[card.index] += 1
    return counts


def can_arrange(cards: Sequence[Card], options: object = None, *, decks: int = 2) -> Table | None:
    """An arrangement of all `cards` into valid melds (jokers declared as needed), or None.

    With `joker_identity_respects_copy_count` in `options`, no card is shown more often than
    the `decks` packs hold (M5.7).
    """
    if not cards:
        return ()
    counts = _count(cards)
    rules = TableRules.of(options)
    cap = (decks,) * 52 if rules.joker_identity_respects_copy_count else None
    zero = (0,) * 52
    supply = Supply(
        table_real=tuple(counts[:52]),
        fixed_jokers=zero,
        hand_real=zero,
        hand_min=zero,
        cap=cap,
        jokers_hand=0,
        jokers_freed=counts[JOKER_INDEX],
    )
    found = solve(supply)
    return None if found is None else found.melds


# --- best move ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Small:
    """A small meld built from the hand: its real cards, and its jokers' declared cards."""

    real: tuple[int, ...]
    jokers: tuple[int, ...]

    def cards(self) -> tuple[TableCard, ...]:
        return tuple(TableCard(Card(i)) for i in self.real) + tuple(
            TableCard(JOKER, Card(i)) for i in self.jokers
        )


def _small_melds(
    hand: list[int], jokers: int, with_identity: bool, forbidden: frozenset[int] = frozenset()
) -> list[_Small]:
    """Every group of 3-4 and sequence of 3-5 from the hand's real cards plus up to `jokers`
    jokers declared as no card in `forbidden`; with `with_identity` False, melds differing
    only in joker declarations are one."""
    found: dict[tuple[tuple[int, ...], tuple[int, ...]], _Small] = {}
    shapes: list[list[int]] = []
    for rank in range(1, 14):
        for size in (3, 4):
            for suits in combinations(range(4), size):
                shapes.append([s * 13 + rank - 1 for s in suits])
    for suit in range(4):
        for size in (3, 4, 5):
            for start in range(1, 16 - size):
                shapes.append([suit * 13 + (r - 1) % 13 for r in range(start, start + size)])
    for shape in shapes:
        for joker_spots in _spots(len(shape), jokers):
            real = tuple(sorted(shape[k] for k in range(len(shape)) if k not in joker_spots))
            need = _count([Card(i) for i in real])
            if any(need[i] > hand[i] for i in real):
                continue
            declared = tuple(sorted(shape[k] for k in joker_spots))
            if forbidden.intersection(declared):
                continue
            key = (real, declared if with_identity else (len(declared),))
            found.setdefault(key, _Small(real, declared))
    return list(found.values())


def _spots(size: int, jokers: int) -> Iterator[tuple[int, ...]]:
    for n in range(min(jokers, size - 1) + 1):
        yield from combinations(range(size), n)


@dataclass(frozen=True, slots=True)
class _Plan:
    """One way to try: which table jokers are freed, and which small melds are laid first."""

    freed: tuple[int, ...]  # declared identities of the freed table jokers
    kept: tuple[int, ...]  # declared identities of the table jokers that keep their card
    placed: tuple[_Small, ...] = ()
    freed_in_placed: int = 0  # freed jokers seated in the placed melds


def _freeable(
    jokers: list[int], table: list[int], hand: list[int], rules: TableRules
) -> Iterator[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Each (freed, kept) split of the table jokers that real cards could free (I3, M5.6)."""
    seen: set[tuple[int, ...]] = set()
    for n in range(len(jokers) + 1):
        for chosen in combinations(range(len(jokers)), n):
            freed = tuple(sorted(jokers[k] for k in chosen))
            if freed in seen:
                continue
            seen.add(freed)
            kept = tuple(sorted(jokers[k] for k in range(len(jokers)) if k not in chosen))
            if all(
                _sources(x, table, hand, rules) >= _needed(freed.count(x), rules) for x in freed
            ):
                yield freed, kept


def _sources(x: int, table: list[int], hand: list[int], rules: TableRules) -> int:
    return hand[x] if rules.hand_only else hand[x] + table[x]


def _needed(freed: int, rules: TableRules) -> int:
    return freed if rules.one_real_card_frees_one_joker else min(freed, 1)


def best_move(
    table: Sequence[Sequence[TableCard]],
    hand: Sequence[Card],
    options: object = None,
    *,
    has_opened: bool = False,
    decks: int = 2,
) -> BestMove | None:
    """The legal meld move from `table` that sheds the most points from `hand`, or None.

    `options`, `has_opened` and `decks` are as for `validate_meld_move`. Exact: the table
    returned passes `validate_meld_move` and no legal move sheds more points.
    """
    rules = TableRules.of(options)
    held = _count(hand)
    opening = rules.is_opening(table, has_opened)
    if opening and (not table or rules.initial_meld_from_hand_only):
        found = _solve_hand_alone(table, held, rules, decks)
    else:
        found = _solve_with_table(table, held, rules, decks, needs_hand_meld=opening)
    if found is None or found.points <= 0:
        return None
    if opening and found.points < rules.initial_meld_min_points:
        return None
    return BestMove(found.table, found.played, found.points)


def _solve_hand_alone(
    table: Sequence[Sequence[TableCard]], held: list[int], rules: TableRules, decks: int
) -> BestMove | None:
    """An opening from the hand alone next to the untouched table (I6 options)."""
    shown = _shown(table)
    zero = (0,) * 52
    supply = Supply(
        table_real=zero,
        fixed_jokers=zero,
        hand_real=tuple(held[:52]),
        hand_min=zero,
        cap=_caps(rules, decks, shown),
        jokers_hand=held[JOKER_INDEX],
        jokers_freed=0,
    )
    found = solve(supply)
    if found is None:
        return None
    melds = tuple(tuple(m) for m in table) + found.melds
    return BestMove(melds, found.played, found.points)


def _shown(table: Sequence[Sequence[TableCard]]) -> list[int]:
    """How often each card shows on a table (real cards and joker declarations)."""
    shown = [0] * 52
    for meld in table:
        for tc in meld:
            shown[tc.acts_as.index] += 1
    return shown


def _caps(rules: TableRules, decks: int, shown: list[int]) -> tuple[int, ...] | None:
    if not rules.joker_identity_respects_copy_count:
        return None
    return tuple(max(0, decks - shown[i]) for i in range(52))


def _solve_with_table(
    table: Sequence[Sequence[TableCard]],
    held: list[int],
    rules: TableRules,
    decks: int,
    *,
    needs_hand_meld: bool,
) -> BestMove | None:
    """Try every plan (which table jokers to free, which small melds to lay first). First a
    cheap answer: free nothing and keep the hand's jokers out of the search (they are laid
    as extensions where there is room). Then, within WORK_BUDGET, the exact search: going out
    under every plan (the usual best on a full table), then every plan in full. Stopped by
    the budget it returns the best found so far, a legal move all the same."""
    real = [0] * 52
    jokers: list[int] = []
    for meld in table:
        for tc in meld:
            if tc.declared is not None:
                jokers.append(tc.declared.index)
            else:
                real[tc.card.index] += 1
    best = _baseline(jokers, real, held, rules, decks, needs_hand_meld)
    top = sum(Card(i).value * held[i] for i in range(53))
    budget = Budget(WORK_BUDGET)
    plans = list(_plans(jokers, real, held, rules, needs_hand_meld))
    # more free jokers make going out likelier: try those plans first for it
    by_freed = sorted(plans, key=lambda plan: -len(plan.freed))
    try:
        for stage, order in (("going_out", by_freed), ("rest", plans)):
            for plan in order:
                if best is not None and best.points >= top:
                    return best
                bound = _plan_points(plan) + _rest_points(plan, held)
                if best is not None and bound <= best.points:
                    continue
                floor = -1 if best is None else best.points
                found = _solve_plan(plan, real, held, rules, decks, floor, budget, stage)
                if found is not None and (best is None or found.points > best.points):
                    best = found
    except OutOfWork:
        pass
    return best


def _baseline(
    jokers: list[int],
    real: list[int],
    held: list[int],
    rules: TableRules,
    decks: int,
    needs_hand_meld: bool,
) -> BestMove | None:
    """The best move that frees no joker and plays the hand's jokers only as extensions."""
    plain = held[:]
    plain[JOKER_INDEX] = 0
    best: BestMove | None = None
    for plan in _plans(jokers, real, plain, rules, needs_hand_meld):
        if plan.freed:
            continue
        floor = -1 if best is None else best.points
        found = _solve_plan(plan, real, plain, rules, decks, floor, None, "all")
        if found is not None and (best is None or found.points > best.points):
            best = found
    if best is None or not held[JOKER_INDEX] or rules.joker_identity_respects_copy_count:
        return best
    melds, laid = extend_jokers(best.table, held[JOKER_INDEX])
    played = tuple(sorted((*best.played, *([JOKER] * laid))))
    return BestMove(melds, played, card_points(played))


def _plans(
    jokers: list[int],
    real: list[int],
    held: list[int],
    rules: TableRules,
    needs_hand_meld: bool,
) -> Iterator[_Plan]:
    hand_jokers = held[JOKER_INDEX]
    for freed, kept in _freeable(jokers, real, held, rules):
        seat_freed = len(freed) if rules.freed_to_new_meld else 0
        if not seat_freed and not needs_hand_meld:
            yield _Plan(freed, kept)
            continue
        yield from _placements(freed, kept, held, hand_jokers, seat_freed, needs_hand_meld, rules)


def _placements(
    freed: tuple[int, ...],
    kept: tuple[int, ...],
    held: list[int],
    hand_jokers: int,
    seat_freed: int,
    needs_hand_meld: bool,
    rules: TableRules,
) -> Iterator[_Plan]:
    """Plans whose small melds hold a meld wholly from hand (if needed) and seat the freed
    jokers (if they must go into new melds built from hand)."""
    identity = rules.joker_identity_respects_copy_count
    # A joker declared as a freed card would count as kept (I3 counts declarations), and a
    # kept table joker does not make a meld "built from hand": seat none there.
    forbidden = frozenset(freed) if seat_freed else frozenset()
    seen: set[tuple[object, ...]] = set()

    def extend(
        placed: tuple[_Small, ...], pool: list[int], spare: int, seated: int, hand_meld: bool
    ) -> Iterator[_Plan]:
        if seated >= seat_freed and (hand_meld or not needs_hand_meld):
            key = tuple(
                sorted((m.real, m.jokers if identity else (len(m.jokers),)) for m in placed)
            )
            if key not in seen:
                seen.add(key)
                yield _Plan(freed, kept, placed, seated)
            return
        for small in _small_melds(pool, spare + seat_freed - seated, identity, forbidden):
            n = len(small.jokers)
            if not hand_meld and needs_hand_meld:
                if n > spare:
                    continue
                into = 0
            else:
                into = min(n, seat_freed - seated)
                if into == 0 or n - into > spare:
                    continue
            rest = pool[:]
            for i in small.real:
                rest[i] -= 1
            yield from extend(
                (*placed, small), rest, spare - (n - into), seated + into, hand_meld or into == 0
            )

    yield from extend((), held[:], hand_jokers, 0, False)


def _plan_points(plan: _Plan) -> int:
    points = 0
    for small in plan.placed:
        points += sum(Card(i).value for i in small.real)
    jokers_in_placed = sum(len(s.jokers) for s in plan.placed) - plan.freed_in_placed
    return points + 25 * jokers_in_placed


def _rest_points(plan: _Plan, held: list[int]) -> int:
    rest = held[:]
    for small in plan.placed:
        for i in small.real:
            rest[i] -= 1
    rest[JOKER_INDEX] -= sum(len(s.jokers) for s in plan.placed) - plan.freed_in_placed
    return sum(Card(i).value * rest[i] for i in range(53))


def _solve_plan(
    plan: _Plan,
    real: list[int],
    held: list[int],
    rules: TableRules,
    decks: int,
    floor: int,
    budget: Budget | None,
    stage: str,
) -> BestMove | None:
    """Solve the table for one plan, shedding more than `floor` points (or None); the small
    melds are laid first, the dynamic program does the rest."""
    hand = held[:]
    shown = [0] * 52
    for small in plan.placed:
        for i in small.real:
            hand[i] -= 1
            shown[i] += 1
        for i in small.jokers:
            shown[i] += 1
    hand_jokers_placed = sum(len(s.jokers) for s in plan.placed) - plan.freed_in_placed
    fixed = [0] * 52
    for x in plan.kept:
        fixed[x] += 1
    hand_min = [0] * 52
    for x in set(plan.freed):
        need = _needed(plan.freed.count(x), rules)
        have = held[x] - hand[x]  # real x in the small melds, from the hand
        if not rules.hand_only:
            have += real[x]
        hand_min[x] = max(0, need - have)
    supply = Supply(
        table_real=tuple(real),
        fixed_jokers=tuple(fixed),
        hand_real=tuple(hand[:52]),
        hand_min=tuple(hand_min),
        cap=_caps(rules, decks, shown),
        jokers_hand=hand[JOKER_INDEX] - hand_jokers_placed,
        jokers_freed=len(plan.freed) - plan.freed_in_placed,
    )
    found: Arrangement | None = solve(supply, floor - _plan_points(plan), budget, stage=stage)
    if found is None:
        return None
    placed_cards = tuple(small.cards() for small in plan.placed)
    played = list(found.played)
    for small in plan.placed:
        played += [Card(i) for i in small.real]
    played += [JOKER] * hand_jokers_placed
    played.sort()
    return BestMove(placed_cards + found.melds, tuple(played), card_points(played))
