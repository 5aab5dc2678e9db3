"""The meld moves `legal_moves` lists (domain/manipulation/melds.py, with its caches, masks and
meld-by-meld checks) are exactly those of a straightforward re-computation: every raw
candidate of the documented rules (new melds from the hand, one-card extensions, joker swaps),
in the documented order, put through `validate_meld_move` (what `decide` does, M6) and kept
unless an earlier one made the same change to the table. Same tables, same order, same
normal form, over random matches and many random positions, with each option that bears on
a meld move."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import combinations
from typing import Any

import pytest

from domain import manipulation as m
from domain.cards import FULL_DECK, JOKER, Card, TableCard
from domain.errors import IllegalMove
from domain.manipulation.melds import meld_candidates
from domain.manipulation.moves import decks, may_knock
from domain.manipulation.options import DEFAULTS, options_of
from domain.manipulation.state import State, table_codes
from domain.manipulation.table.meld import meld_kind, normalise_meld
from domain.manipulation.table.rules import validate_meld_move
from tests.support.manipulation_helpers import random_match
from tests.support.views import you_of

Meld = tuple[TableCard, ...]
Table = tuple[Meld, ...]
Codes = list[list[str]]

OPTIONS: list[dict[str, Any]] = [
    {},
    {"initial_meld_per_player": True, "initial_meld_min_points": 30},
    {"initial_meld_min_points": 25, "initial_meld_from_hand_only": True},
    {"joker_identity_respects_copy_count": True},
    {"freed_joker_placement": "new_meld_from_hand", "joker_replacement_source": "hand_only"},
]


# --- the straightforward listing ----------------------------------------------------------


def _runs(cards: Sequence[Card]) -> Iterator[tuple[Card, ...]]:
    """Every sequence of 3+ consecutive cards of one suit, by start then length (ace low, or
    high after a king)."""
    by_rank = {c.rank: c for c in cards}
    if 1 in by_rank:
        by_rank[14] = by_rank[1]
    for start in range(1, 13):
        run: list[Card] = []
        for rank in range(start, 15):
            if rank not in by_rank:
                break
            run.append(by_rank[rank])
            if len(run) >= 3:
                yield tuple(run)


def _joker_pair_melds(a: Card, b: Card) -> Iterator[Meld]:
    """a and b of one suit (a first) at most two ranks apart, or an ace and a queen, with a
    joker declared as a card that makes a 3-card sequence, lowest first (a high ace last).
    An ace and a king make none (as listed: the queen between them is not tried)."""
    low, high = a.rank, b.rank
    if not (0 < high - low <= 2 or (low, high) == (1, 12)):
        return
    fits = [
        Card.of(rank, a.suit)
        for rank in range(1, 14)
        if rank not in (low, high)
        and meld_kind((TableCard(a), TableCard(b), TableCard(JOKER, Card.of(rank, a.suit))))
    ]
    if high == 13:  # the ace goes above the king
        fits.sort(key=lambda c: 14 if c.rank == 1 else c.rank)
    for declared in fits:
        yield (TableCard(a), TableCard(b), TableCard(JOKER, declared))


def _hand_melds(hand: Sequence[Card]) -> list[Meld]:
    """New melds from the hand's distinct cards: rank by rank (in order of each rank's first
    card), groups of 3 then 4, then pairs with the joker as the first missing suit; then suit
    by suit, sequences then pairs with the joker."""
    distinct = sorted(set(hand))
    has_joker = JOKER in distinct
    plain = [c for c in distinct if not c.is_joker]
    out: list[Meld] = []
    ranks = list(dict.fromkeys(c.rank for c in plain))
    for rank in ranks:
        cards = [c for c in plain if c.rank == rank]
        for size in (3, 4):
            out += [tuple(map(TableCard, combo)) for combo in combinations(cards, size)]
        if has_joker and len(cards) in (2, 3):
            for a, b in combinations(cards, 2):
                suit = min({0, 1, 2, 3} - {a.suit, b.suit})
                out.append((TableCard(a), TableCard(b), TableCard(JOKER, Card.of(rank, suit))))
    for suit in range(4):
        cards = [c for c in plain if c.suit == suit]
        out += [tuple(map(TableCard, run)) for run in _runs(cards)]
        if has_joker:
            for a, b in combinations(cards, 2):
                out += list(_joker_pair_melds(a, b))
    return out


def _joker_fits(meld: Meld) -> list[Card]:
    """What a joker added to a table meld may be declared as: the first missing suit of a
    group, every card that extends a sequence (by rank)."""
    fits = [c for c in FULL_DECK if meld_kind((*meld, TableCard(JOKER, c))) is not None]
    return fits[:1] if meld_kind(meld) == "group" else sorted(fits, key=lambda c: c.rank)


def _extensions(meld: Meld, hand: Sequence[Card]) -> list[Meld]:
    """The meld with one hand card added: plain cards by code index, then the joker."""
    out = [
        (*meld, TableCard(c))
        for c in sorted(set(hand) - {JOKER})
        if meld_kind((*meld, TableCard(c))) is not None
    ]
    if JOKER in hand:
        out += [(*meld, TableCard(JOKER, d)) for d in _joker_fits(meld)]
    return out


def _swaps(table: Table, hand: Sequence[Card]) -> list[Table]:
    """Each table joker whose declared card the hand holds (melds in order, cards in order),
    replaced by that card; the freed joker then extends a meld or makes a 3-card meld with
    two of the other hand cards."""
    out: list[Table] = []
    for i, meld in enumerate(table):
        for k, tc in enumerate(meld):
            if tc.declared is None or tc.declared not in hand:
                continue
            swapped = (*meld[:k], TableCard(tc.declared), *meld[k + 1 :])
            rest = (*table[:i], swapped, *table[i + 1 :])
            left = list(hand)
            left.remove(tc.declared)
            for j, other in enumerate(rest):
                for declared in _joker_fits(other):
                    out.append((*rest[:j], (*other, TableCard(JOKER, declared)), *rest[j + 1 :]))
            for new in _hand_melds([*left, JOKER]):
                if len(new) == 3 and sum(t.card.is_joker for t in new) == 1:
                    out.append((*rest, new))
    return out


def _key(meld: Sequence[TableCard]) -> tuple[str, ...]:
    return tuple(str(tc) for tc in meld)


def reference(
    table: Table, hand: Sequence[Card], options: Any, opened: bool, packs: int
) -> list[Codes]:
    """Every raw candidate validated whole; a table is dropped when an earlier listed one
    took away and put back the same melds (normal forms, as multisets)."""
    raw = [(*table, meld) for meld in _hand_melds(hand)]
    for i, meld in enumerate(table):
        raw += [(*table[:i], grown, *table[i + 1 :]) for grown in _extensions(meld, hand)]
    raw += _swaps(table, hand)
    seen: set[tuple[tuple[tuple[str, ...], ...], tuple[tuple[str, ...], ...]]] = set()
    out: list[Codes] = []
    for candidate in raw:
        try:
            outcome = validate_meld_move(
                table, hand, candidate, options, has_opened=opened, decks=packs
            )
        except IllegalMove:
            continue
        normal = outcome.table
        before = [_key(normalise_meld(meld)) for meld in table]
        after = [_key(meld) for meld in normal]
        gone = Counter(before) - Counter(after)
        new = Counter(after) - Counter(before)
        change = (tuple(sorted(gone.elements())), tuple(sorted(new.elements())))
        if change not in seen:
            seen.add(change)
            out.append(table_codes(normal))
    return out


def _listed(table: Table, hand: tuple[Card, ...], options: Any, opened: bool, packs: int) -> Any:
    return [table_codes(t) for t in meld_candidates(table, hand, options, opened, packs)]


# --- positions ----------------------------------------------------------------------------


@pytest.mark.parametrize("options", OPTIONS)
def test_listing_equals_the_plain_recomputation_in_random_matches_m6(
    options: dict[str, Any],
) -> None:
    """At every meld decision of random 2- and 3-player matches."""
    checked = 0

    def check(state: State, seat: int, move: Any, events: Any, after: State) -> None:
        nonlocal checked
        if seat < 0 or state.phase not in (m.Phase.MELD_OR_DRAW, m.Phase.FINAL_TURNS):
            return
        args = (state.table, state.hands[seat], state.options, state.opened[seat], decks(state))
        assert _listed(*args) == reference(*args)
        checked += 1

    for seed in (11, 12):
        random_match(seed, 2 + seed % 2, options, check=check)
    assert checked > 20


def plain_legal_moves(state: State, seat: int) -> list[dict[str, Any]]:
    """`legal_moves` written out plainly: draw, pass, knock, end_turn by the phase (M4, M8,
    M9), then the meld moves of `reference`."""
    if m.to_act(state) != seat:
        return []
    phase = state.phase
    moves: list[dict[str, Any]] = []
    if phase in (m.Phase.DRAW, m.Phase.MELD_OR_DRAW) and state.stock:
        moves.append({"type": "draw"})
    if phase is m.Phase.FINAL_TURNS or (phase is m.Phase.MELD_OR_DRAW and not state.stock):
        moves.append({"type": "pass"})
    if may_knock(state, seat):
        moves.append({"type": "knock"})
    if phase is m.Phase.KNOCK_OR_END:
        moves.append({"type": "end_turn"})
    if phase in (m.Phase.MELD_OR_DRAW, m.Phase.FINAL_TURNS):
        args = (state.table, state.hands[seat], state.options, state.opened[seat], decks(state))
        moves += [{"type": "meld", "table": table} for table in reference(*args)]
    return moves


@pytest.mark.parametrize(
    "options",
    [{}, {"knock_timing": "after_any_draw", "knock_limit": 30}, {"initial_meld_per_player": True}],
)
def test_legal_moves_and_views_list_the_plain_moves_m4_m8_m9(options: dict[str, Any]) -> None:
    """For every seat at every step of random 2- and 3-player matches, `legal_moves` and the
    seat's view list exactly the plain moves, in order."""
    checked = 0

    def check(state: State, seat: int, move: Any, events: Any, after: State) -> None:
        nonlocal checked
        for who in range(state.n):
            expected = plain_legal_moves(state, who)
            assert m.legal_moves(state, who) == expected
            if state.hands:
                assert you_of(m.view(state, who))["legal_moves"] == expected
            checked += bool(expected)

    for seed in (21, 22):
        random_match(seed, 2 + seed % 2, options, check=check)
    assert checked > 50


def _random_meld(rng: random.Random, pool: Counter[Card]) -> Meld | None:
    """A random valid meld from the pool's cards (some jokers declared), normalised, or None."""
    if rng.random() < 0.4:
        rank = rng.randint(1, 13)
        shape = [Card.of(rank, s) for s in rng.sample(range(4), rng.choice((3, 3, 4)))]
    else:
        suit = rng.randrange(4)
        size = rng.choice((3, 3, 4, 5, 6, 8, 12, 13))
        start = rng.randint(1, 15 - size)
        shape = [Card.of((r - 1) % 13 + 1, suit) for r in range(start, start + size)]
    need: Counter[Card] = Counter()
    meld: list[TableCard] = []
    for card in shape:
        if pool[JOKER] > need[JOKER] and rng.random() < 0.3:
            meld.append(TableCard(JOKER, card))
            need[JOKER] += 1
        else:
            meld.append(TableCard(card))
            need[card] += 1
    if any(pool[c] < n for c, n in need.items()):
        return None
    pool.subtract(need)
    return normalise_meld(meld)  # as every table of a match is


def _position(rng: random.Random, packs: int) -> tuple[Table, tuple[Card, ...]]:
    """Random melds of the pack (jokers on them half the time), and a hand from the rest,
    with likely extensions and swaps: some cards the table jokers stand for, some jokers."""
    pool = Counter(([*FULL_DECK, JOKER]) * packs)
    table: list[Meld] = []
    for _ in range(rng.choice((0, 1, 2, 4, 8, 14))):
        meld = _random_meld(rng, pool)
        if meld is not None:
            table.append(meld)
    rest = list(pool.elements())
    rng.shuffle(rest)
    hand = rest[: rng.randint(1, 20)]
    declared = [tc.declared for meld in table for tc in meld if tc.declared is not None]
    for card in declared:
        if pool[card] > hand.count(card) and rng.random() < 0.6:
            hand.append(card)
    return tuple(table), tuple(sorted(hand))


@pytest.mark.parametrize("options", OPTIONS)
def test_listing_equals_the_plain_recomputation_on_random_positions_m6(
    options: dict[str, Any],
) -> None:
    """On 400 random positions per option set: one and two packs, opened or not, tables of
    0-14 melds with jokers, hands of 1-20 cards that often hold a joker's declared card."""
    rng = random.Random(1313)
    opts = options_of({**DEFAULTS, **options})
    listed = 0
    for _ in range(400):
        packs = rng.choice((1, 2))
        table, hand = _position(rng, packs)
        for opened in (True, False):
            expected = reference(table, hand, opts, opened, packs)
            assert _listed(table, hand, opts, opened, packs) == expected, (table, hand, opened)
            listed += len(expected)
    assert listed > 1000
