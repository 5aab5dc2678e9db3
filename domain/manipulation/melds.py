"""The engine's thin adapter to the table maths (table/rules.py, table/solver.py).

`check_meld` is `validate_meld_move` with the engine's knowledge passed in (has this player
opened this round, one pack or two). `meld_candidates` lists a representative set of legal
meld moves for `legal_moves`, from cheap rules only (no search, so a view costs little): every
new meld from the hand alone, every one-card extension of a table meld, and every joker swap
(a real card from the hand takes a table joker's place, M5.2, and the freed joker joins
another meld as a one-card extension or a new meld with two hand cards, M5.4). Each is
checked by `validate_meld_move`, so every listed table is accepted by `decide`. The list is
not exhaustive: any table passing I1-I6 is, and the solver's best move
(`domain.manipulation.table.solver.best_move`) is what the hint and the bots use.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import lru_cache
from itertools import combinations

from domain.cards import JOKER, Card, TableCard
from domain.errors import IllegalMove
from domain.manipulation.options import ManipOptions
from domain.manipulation.table.rules import meld_kind, validate_meld_move

Meld = tuple[TableCard, ...]
Table = tuple[Meld, ...]


def check_meld(
    table: Table,
    hand: Sequence[Card],
    submitted: Table,
    options: ManipOptions,
    opened: bool,
    decks: int,
) -> tuple[tuple[Card, ...], Table]:
    """M6 / I1-I6: (cards played from the hand, normalised table), or IllegalMove."""
    outcome = validate_meld_move(table, hand, submitted, options, has_opened=opened, decks=decks)
    return outcome.played, outcome.table


@lru_cache(maxsize=512)
def meld_candidates(
    table: Table, hand: tuple[Card, ...], options: ManipOptions, opened: bool, decks: int
) -> tuple[Table, ...]:
    """A representative, validated, duplicate-free set of meld moves (see the module doc)."""
    seen: set[tuple[tuple[str, ...], ...]] = set()
    out: list[Table] = []
    for candidate in _raw_candidates(table, hand, options, opened, decks):
        try:
            _, normal = check_meld(table, hand, candidate, options, opened, decks)
        except IllegalMove:
            continue
        key = tuple(sorted(tuple(str(tc) for tc in meld) for meld in normal))
        if key not in seen:
            seen.add(key)
            out.append(normal)
    return tuple(out)


def _raw_candidates(
    table: Table, hand: tuple[Card, ...], options: ManipOptions, opened: bool, decks: int
) -> Iterator[Table]:
    for meld in hand_melds(hand):
        yield (*table, meld)
    for i, meld in enumerate(table):
        for extended in extensions(meld, hand):
            yield (*table[:i], extended, *table[i + 1 :])
    yield from joker_swaps(table, hand)


def joker_swaps(table: Table, hand: Sequence[Card]) -> Iterator[Table]:
    """M5.2, M5.4: a hand card equal to a table joker's declared card takes its place, and
    the freed joker goes on as a one-card extension of a meld, or into a new meld with two
    hand cards (declared as the card they miss)."""
    plain = sorted({c for c in hand if not c.is_joker})
    for i, meld in enumerate(table):
        for k, tc in enumerate(meld):
            if tc.declared is None or tc.declared not in plain:
                continue
            swapped = (*meld[:k], TableCard(tc.declared), *meld[k + 1 :])
            rest = (*table[:i], swapped, *table[i + 1 :])
            left = list(hand)
            left.remove(tc.declared)
            yield from _seat_freed(rest, left)


def _seat_freed(table: Table, hand: Sequence[Card]) -> Iterator[Table]:
    """A freed joker placed again: onto any meld, or with two hand cards."""
    for i, meld in enumerate(table):
        for declared in _fitting(meld):
            grown = (*meld, TableCard(JOKER, declared))
            if meld_kind(grown) is not None:
                yield (*table[:i], grown, *table[i + 1 :])
    for meld in hand_melds([*hand, JOKER]):
        if sum(tc.card.is_joker for tc in meld) == 1 and len(meld) == 3:
            yield (*table, meld)


def hand_melds(hand: Sequence[Card]) -> Iterator[Meld]:
    """New melds from the hand alone: groups of 3 and 4, sequences of 3 or more, and the
    same completed by one joker from the hand (declared as the missing card)."""
    plain = sorted({c for c in hand if not c.is_joker})
    has_joker = any(c.is_joker for c in hand)
    by_rank: dict[int, list[Card]] = {}
    by_suit: dict[int, list[Card]] = {}
    for card in plain:
        by_rank.setdefault(card.rank, []).append(card)
        by_suit.setdefault(card.suit, []).append(card)
    for cards in by_rank.values():
        for size in (3, 4):
            for combo in combinations(cards, size):
                yield tuple(TableCard(c) for c in combo)
        if has_joker and len(cards) in (2, 3):
            for combo in combinations(cards, 2):
                yield _with_joker(combo, _missing_suit(combo))
    for cards in by_suit.values():
        for run in _runs(cards):
            yield tuple(TableCard(c) for c in run)
        if has_joker:
            for a, b in combinations(cards, 2):
                yield from (_with_joker((a, b), d) for d in _run_fillers(a, b))


def _with_joker(cards: Sequence[Card], declared: Card | None) -> Meld:
    if declared is None:
        return tuple(TableCard(c) for c in cards)
    return (*(TableCard(c) for c in cards), TableCard(JOKER, declared))


def _missing_suit(cards: Sequence[Card]) -> Card | None:
    suits = {c.suit for c in cards}
    for suit in range(4):
        if suit not in suits:
            return Card.of(cards[0].rank, suit)
    return None


def _run_fillers(a: Card, b: Card) -> list[Card]:
    """The cards a joker may stand for to make a 3-card sequence with a and b."""
    low, high = sorted((a.rank, b.rank))
    if high - low == 2:
        return [Card.of(low + 1, a.suit)]
    if high - low == 1:
        out = [Card.of(r, a.suit) for r in (low - 1, high + 1) if 1 <= r <= 13]
        if high == 13:
            out.append(Card.of(1, a.suit))
        return out
    if (low, high) == (1, 12):
        return [Card.of(13, a.suit)]
    return []


def _runs(cards: Sequence[Card]) -> Iterator[tuple[Card, ...]]:
    """Every sequence of 3+ consecutive cards of one suit (ace low, or high after a king)."""
    ranks = {c.rank: c for c in cards}
    if 1 in ranks:
        ranks[14] = ranks[1]
    for start in range(1, 13):
        run: list[Card] = []
        for rank in range(start, 15):
            if rank not in ranks:
                break
            run.append(ranks[rank])
            if len(run) >= 3:
                yield tuple(run)


def extensions(meld: Meld, hand: Sequence[Card]) -> Iterator[Meld]:
    """The meld with one more card from the hand (a plain card, or a joker declared as a
    card that fits), whenever the result is still a valid meld."""
    plain = sorted({c for c in hand if not c.is_joker})
    acting = [tc.acts_as for tc in meld]
    ranks, suits = {c.rank for c in acting}, {c.suit for c in acting}
    for card in plain:
        if card.rank not in ranks and card.suit not in suits:
            continue  # fits neither a group of this rank nor a sequence of this suit
        grown = (*meld, TableCard(card))
        if meld_kind(grown) is not None:
            yield grown
    if any(c.is_joker for c in hand):
        for declared in _fitting(meld):
            grown = (*meld, TableCard(JOKER, declared))
            if meld_kind(grown) is not None:
                yield grown


def _fitting(meld: Meld) -> list[Card]:
    acting = [tc.acts_as for tc in meld]
    kind = meld_kind(meld)
    if kind == "group":
        suits = {c.suit for c in acting}
        return [Card.of(acting[0].rank, s) for s in range(4) if s not in suits][:1]
    if kind == "sequence":
        suit = acting[0].suit
        return [Card.of(r, suit) for r in range(1, 14)]
    return []
