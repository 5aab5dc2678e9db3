"""The Manipulation Rummy meld move: the options that bear on it (`TableRules`) and the
invariants I1-I6 (M6) a submitted table must meet (`validate_meld_move`).

A table is a tuple of melds, each a tuple of `TableCard`s (a plain card, or a joker with the
card it is declared as, M5.1); what a valid meld is (M2) is `table.meld`, whose names are
exported here too. Cards inside a meld may be submitted in any order; the normalised table
of `validate_meld_move` sorts each meld (groups by suit, sequences by rank, the ace last
when it is high) and keeps the melds in the order submitted.

Identical cards of a two-deck game (M1.3) are a multiset of codes: a hand is a tuple of
`Card`s with possible repeats, and every count below is a count of codes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from domain.cards import JOKER, JOKER_INDEX, Card, TableCard
from domain.errors import IllegalMove, InvalidCard
from domain.manipulation.table.meld import (
    Meld,
    MeldKind,
    Table,
    card_points,
    is_group,
    is_sequence,
    meld_kind,
    meld_problem,
    meld_text,
    normalise_meld,
    normalised,
    parse_meld,
    parse_table_text,
)


@dataclass(frozen=True, slots=True)
class TableRules:
    """The section-5 options that bear on a meld move, with the rules.md defaults."""

    joker_replacement_source: str = "hand_or_table"  # A-M18: or "hand_only"
    freed_joker_placement: str = "anywhere"  # A-M18: or "new_meld_from_hand"
    one_real_card_frees_one_joker: bool = True  # M5.6
    joker_identity_respects_copy_count: bool = False  # M5.7, A-M17
    initial_meld_per_player: bool = False  # I6, A-M6
    initial_meld_from_hand_only: bool = False  # I6
    initial_meld_min_points: int = 0  # I6

    @classmethod
    def of(cls, options: object = None) -> TableRules:
        """Read the options from a dict, from an object with these attributes, or defaults."""
        if isinstance(options, TableRules):
            return options
        if options is None:
            return cls()
        hit = _RULES_OF.get(id(options))  # only frozen objects are kept, so ask first
        if hit is not None and hit[0] is options:
            return hit[1]
        if _frozen(options):
            rules = cls._read(options)
            if len(_RULES_OF) >= 256:
                _RULES_OF.clear()
            _RULES_OF[id(options)] = (options, rules)
            return rules
        return cls._read(options)

    @classmethod
    def _read(cls, options: object) -> TableRules:
        values: dict[str, object] = {}
        for name in cls.__slots__:
            if isinstance(options, Mapping):
                if name in options:
                    values[name] = options[name]
            elif hasattr(options, name):
                values[name] = getattr(options, name)
        return cls(**values)  # type: ignore[arg-type]

    @property
    def hand_only(self) -> bool:
        return self.joker_replacement_source == "hand_only"

    @property
    def freed_to_new_meld(self) -> bool:
        return self.freed_joker_placement == "new_meld_from_hand"

    def is_opening(self, table_before: Sequence[Sequence[TableCard]], has_opened: bool) -> bool:
        """I6: the first meld of the round, or (per-player opening) this player's first meld."""
        return not table_before or (self.initial_meld_per_player and not has_opened)


_RULES_OF: dict[int, tuple[object, TableRules]] = {}
"""TableRules of frozen option objects (ManipOptions) by identity: a match keeps one
options object, and reading it field by field is a cost on every listing."""


def _frozen(options: object) -> bool:
    params = getattr(type(options), "__dataclass_params__", None)
    return bool(getattr(params, "frozen", False))


@dataclass(frozen=True, slots=True)
class MeldOutcome:
    """An accepted meld move: the normalised table, the cards that left the hand (jokers as
    JOKER, sorted by code index) and the declared cards of the table jokers it freed."""

    table: Table
    played: tuple[Card, ...]
    freed: tuple[Card, ...] = ()

    @property
    def points(self) -> int:
        """The points shed from the hand (M1.4)."""
        return card_points(self.played)


# --- the meld move (M6: I1-I6) ----------------------------------------------------------


def _counts(cards: Iterable[Card]) -> list[int]:
    counts = [0] * 53
    for card in cards:
        counts[card.index] += 1
    return counts


def _table_counts(table: Sequence[Sequence[TableCard]]) -> tuple[list[int], list[int]]:
    """Counts of physical codes (jokers at index 52) and of joker declarations per card."""
    cards = [0] * 53
    declared = [0] * 52
    for meld in table:
        for tc in meld:
            cards[tc.card.index] += 1
            if tc.declared is not None:
                declared[tc.declared.index] += 1
    return cards, declared


def _check_cards(table_after: Sequence[Sequence[TableCard]]) -> None:
    """I4 and the notation: a joker carries a plain declared card, a plain card none."""
    for meld in table_after:
        for tc in meld:
            if tc.card.is_joker:
                if tc.declared is None:
                    raise IllegalMove(
                        "a joker played to the table must declare its rank and suit, "
                        "e.g. JK=8S (I4, M5.1)"
                    )
                if tc.declared.is_joker:
                    raise InvalidCard("a joker must be declared as a plain card, not JK")
            elif tc.declared is not None:
                raise InvalidCard(f"card {tc.card}: only a joker carries a declared card")


def _played(before: list[int], after: list[int], hand: list[int]) -> list[int]:
    """I1: T1 = T0 + P with P a non-empty part of the hand; the counts of P."""
    played = [0] * 53
    for index in range(53):
        extra = after[index] - before[index]
        if extra < 0:
            if index == JOKER_INDEX:
                raise IllegalMove(
                    "a joker on the table is missing from the submitted table: nothing leaves "
                    "the table, and a freed joker must be placed again (I1, M5.4)"
                )
            raise IllegalMove(
                f"card {Card(index)} on the table is missing from the submitted table: "
                "no card may leave the table (I1)"
            )
        if extra > hand[index]:
            name = "a joker" if index == JOKER_INDEX else f"card {Card(index)}"
            if hand[index] == 0:
                raise IllegalMove(f"{name} is not in your hand or on the table (I1)")
            raise IllegalMove(
                f"{name} is played {extra} times but your hand holds {hand[index]} (I1)"
            )
        played[index] = extra
    if not any(played):
        raise IllegalMove("no card from your hand was played: add at least one (I1, A-M19)")
    return played


@lru_cache(maxsize=4096)
def _known_problem(meld: tuple[TableCard, ...]) -> str | None:
    """`meld_problem`, memoised: a listed move re-checks the same melds many times."""
    return meld_problem(meld)


def _check_melds(table_after: Sequence[Sequence[TableCard]]) -> None:
    """I2: every meld of T1 a valid group or sequence."""
    for number, meld in enumerate(table_after, 1):
        problem = _known_problem(tuple(meld))
        if problem is not None:
            raise IllegalMove(f"meld {number} {meld_text(meld)}: {problem}")


def _freed(
    declared_before: list[int],
    declared_after: list[int],
    after: list[int],
    played: list[int],
    rules: TableRules,
) -> list[int]:
    """I3, M5.6, A-M18: the jokers whose declared card changed, each freed by a real card."""
    freed = [0] * 52
    for index in range(52):
        changed = declared_before[index] - declared_after[index]
        if changed <= 0:
            continue
        card = Card(index)
        source = played[index] if rules.hand_only else after[index]
        if source == 0:
            where = "from your hand " if rules.hand_only else ""
            raise IllegalMove(
                f"the joker declared as {card} must keep its card unless a real {card} "
                f"{where}frees it (I3, M5.2"
                + (", joker_replacement_source=hand_only)" if rules.hand_only else ")")
            )
        if rules.one_real_card_frees_one_joker and changed > source:
            raise IllegalMove(
                f"{changed} jokers declared as {card} changed their card but only {source} "
                f"real {card} {'came from your hand' if rules.hand_only else 'is on the table'}"
                ": one real card frees one joker (I3, M5.6)"
            )
        freed[index] = changed
    return freed


def _check_copy_count(after: list[int], declared_after: list[int], decks: int) -> None:
    """M5.7 with joker_identity_respects_copy_count: no more X on the table than the pack has."""
    for index in range(52):
        if declared_after[index] and after[index] + declared_after[index] > decks:
            card = Card(index)
            raise IllegalMove(
                f"a joker may not be declared as {card}: the pack holds {decks} {card} and "
                f"the table would show {after[index] + declared_after[index]} "
                "(joker_identity_respects_copy_count, M5.7)"
            )


def _fits(cards: Iterable[TableCard], pool: list[int]) -> bool:
    """Whether a meld's plain cards come out of `pool` (counts, consumed on success)."""
    need = _counts(tc.card for tc in cards if not tc.card.is_joker)
    if any(need[i] > pool[i] for i in range(52)):
        return False
    for i in range(52):
        pool[i] -= need[i]
    return True


def _check_freed_placement(
    table_after: Sequence[Sequence[TableCard]],
    declared_before: list[int],
    declared_after: list[int],
    played: list[int],
    freed_total: int,
) -> None:
    """A-M18 `freed_joker_placement=new_meld_from_hand`: the freed jokers sit in melds built
    from the hand, i.e. melds whose plain cards all come from the hand and whose jokers are
    all new declarations (the freed jokers or jokers from the hand, never a table joker that
    kept its card). Jokers are interchangeable, so a joker counts as new when its
    declaration is one of the new ones (more jokers declared X than before)."""
    new = [max(0, declared_after[i] - declared_before[i]) for i in range(52)]
    candidates = [tuple(meld) for meld in table_after if _has_joker(meld)]
    if _best_cover(candidates, played, new) < freed_total:
        raise IllegalMove(
            "a freed joker must go into a new meld built from cards of your hand "
            "(freed_joker_placement=new_meld_from_hand, A-M18)"
        )


def _take_new_jokers(meld: Meld, left: list[int]) -> int | None:
    """Consume the meld's jokers from the new declarations `left`; None if one is not new."""
    seats = 0
    for tc in meld:
        if tc.declared is not None:
            if left[tc.declared.index] == 0:
                return None
            left[tc.declared.index] -= 1
            seats += 1
    return seats


def _best_cover(candidates: list[Meld], played: list[int], new: list[int]) -> int:
    """The most new-joker seats in disjoint hand-built melds (tiny exact search)."""
    best = 0

    def search(start: int, pool: list[int], left: list[int], total: int) -> None:
        nonlocal best
        best = max(best, total)
        for k in range(start, len(candidates)):
            trial = pool[:]
            taken = left[:]
            if not _fits(candidates[k], trial):
                continue
            seats = _take_new_jokers(candidates[k], taken)
            if seats is not None:
                search(k + 1, trial, taken, total + seats)

    search(0, played[:52], new[:], 0)
    return best


def _check_opening(
    table_before: Sequence[Sequence[TableCard]],
    table_after: Sequence[Sequence[TableCard]],
    played: list[int],
    rules: TableRules,
    seats: tuple[int, list[int]],
) -> None:
    """I6 and its options, for an opening meld (the first of the round or of this player).
    `seats` is (freed jokers that must sit in melds built from hand, the new declarations)."""
    if rules.initial_meld_from_hand_only:
        remaining = list(table_after)
        for number, meld in enumerate(table_before, 1):
            key = _meld_key(meld)
            for k, candidate in enumerate(remaining):
                if _meld_key(candidate) == key:
                    del remaining[k]
                    break
            else:
                raise IllegalMove(
                    f"meld {number} {meld_text(meld)} of the table was changed: an opening "
                    "meld is built from your hand alone (initial_meld_from_hand_only, I6)"
                )
    elif table_before and not _has_hand_meld(table_after, played, *seats):
        raise IllegalMove(
            "your first meld must lay down at least one new group or sequence of 3 or more "
            "cards from your hand (initial_meld_per_player, I6)"
        )
    points = sum(Card(i).value * played[i] for i in range(53))
    if points < rules.initial_meld_min_points:
        raise IllegalMove(
            f"an opening meld must play at least {rules.initial_meld_min_points} points "
            f"from your hand, this one plays {points} (initial_meld_min_points, I6)"
        )


def _meld_key(meld: Sequence[TableCard]) -> tuple[tuple[int, int], ...]:
    return tuple(
        sorted((tc.card.index, -1 if tc.declared is None else tc.declared.index) for tc in meld)
    )


def _has_hand_meld(
    table_after: Sequence[Sequence[TableCard]], played: list[int], freed: int, new: list[int]
) -> bool:
    """Some meld is made wholly of hand cards (its jokers from the hand too); and, when
    `freed` jokers must sit in melds built from hand, they fit in the other melds."""
    for k, meld in enumerate(table_after):
        need = _counts(tc.card for tc in meld)
        if any(need[i] > played[i] for i in range(53)):
            continue
        if not freed:
            return True
        left = new[:]
        if _take_new_jokers(tuple(meld), left) is None:
            continue  # its jokers would not all be new declarations from the hand
        pool = [played[i] - need[i] for i in range(53)]
        others = [tuple(m) for j, m in enumerate(table_after) if j != k and _has_joker(m)]
        if _best_cover(others, pool, left) >= freed:
            return True
    return False


def _has_joker(meld: Sequence[TableCard]) -> bool:
    return any(tc.declared is not None for tc in meld)


def validate_meld_move(
    table_before: Sequence[Sequence[TableCard]],
    hand: Sequence[Card],
    table_after: Sequence[Sequence[TableCard]],
    options: object = None,
    *,
    has_opened: bool = False,
    decks: int = 2,
) -> MeldOutcome:
    """Check a submitted table T1 against T0 and the hand H under I1-I6 (M6).

    `options` is the match options (a dict or an options object; missing keys take the
    section-5 defaults). `has_opened` says whether this player has already melded this round;
    it matters only with `initial_meld_per_player`. `decks` (1 or 2) is the number of packs,
    used only by `joker_identity_respects_copy_count`. Raises IllegalMove (or InvalidCard)
    naming the meld or card and the rule; on success returns the normalised table and P.
    """
    rules = TableRules.of(options)
    _check_cards(table_after)
    before, declared_before = _table_counts(table_before)
    after, declared_after = _table_counts(table_after)
    played = _played(before, after, _counts(hand))
    _check_melds(table_after)
    freed = _freed(declared_before, declared_after, after, played, rules)
    freed_total = sum(freed)
    if freed_total and rules.freed_to_new_meld:
        _check_freed_placement(table_after, declared_before, declared_after, played, freed_total)
    if rules.joker_identity_respects_copy_count:
        _check_copy_count(after, declared_after, decks)
    if rules.is_opening(table_before, has_opened):
        seats = freed_total if rules.freed_to_new_meld else 0
        new = [max(0, declared_after[i] - declared_before[i]) for i in range(52)]
        _check_opening(table_before, table_after, played, rules, (seats, new))
    return MeldOutcome(
        table=tuple(normalised(tuple(meld)) for meld in table_after),
        played=tuple(Card(i) for i in range(53) for _ in range(played[i])),
        freed=tuple(Card(i) for i in range(52) for _ in range(freed[i])),
    )


__all__ = [
    "JOKER",
    "Meld",
    "MeldKind",
    "MeldOutcome",
    "Table",
    "TableRules",
    "card_points",
    "is_group",
    "is_sequence",
    "meld_kind",
    "meld_problem",
    "normalise_meld",
    "parse_meld",
    "parse_table_text",
    "validate_meld_move",
]
