"""The engine's thin adapter to the table maths (table/rules.py, table/solver.py).

`check_meld` is `validate_meld_move` with the engine's knowledge passed in (has this player
opened this round, one pack or two); `best_move` is the solver's, falling back on this
listing when its work budget runs out before it finds a move (the solver imports nothing
from here: the new melds from the hand and the cards that extend a meld, which both use,
are `table/local_melds.py`). `meld_candidates` lists a representative set of legal
meld moves for `legal_moves`, from cheap rules only (no search, so a view costs little): every
new meld from the hand alone, every one-card extension of a table meld, and every joker swap
(a real card from the hand takes a table joker's place, M5.2, and the freed joker joins
another meld as a one-card extension or a new meld with two hand cards, M5.4). Each is
valid by construction with its changed melds checked, or (openings, the copy count, the
A-M18 placement option) checked by `validate_meld_move`: every listed table is accepted by
`decide` (tests/unit/test_manipulation_listing.py compares the two). The list is
not exhaustive: any table passing I1-I6 is, and the solver's best move
(`domain.manipulation.table.solver.best_move`) is what the hint and the bots use.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import compress, repeat
from operator import and_
from typing import cast

from domain.cards import FULL_DECK, JOKER, JOKER_INDEX, Card, TableCard
from domain.errors import IllegalMove
from domain.manipulation.meld_parts import (
    Change,
    Entry,
    Index,
    Meld,
    Table,
    change_of,
    extension_of,
    hand_listing,
    meld_key,
    table_index,
)
from domain.manipulation.options import ManipOptions
from domain.manipulation.swaps import joker_swaps, swap_listing
from domain.manipulation.table import solver
from domain.manipulation.table.local_melds import (
    growth,
    hand_mask,
    mask_melds,
)
from domain.manipulation.table.rules import TableRules, validate_meld_move
from domain.manipulation.table.solver import BUDGET, BestMove


def best_move(
    table: Table,
    hand: Sequence[Card],
    options: object = None,
    *,
    has_opened: bool = False,
    decks: int = 2,
    budget: int | None = BUDGET,
) -> BestMove | None:
    """M6: the meld move that sheds the most points (`table.solver.best_move`), with the
    meld moves this module lists (`meld_candidates`) to fall back on when the solver's work
    budget runs out before it finds any (not proven best)."""

    def listed(before: Table, cards: tuple[Card, ...]) -> tuple[Table, ...]:
        return meld_candidates(before, cards, cast(ManipOptions, options), has_opened, decks)

    return solver.best_move(
        table, hand, options, has_opened=has_opened, decks=decks, budget=budget, fallback=listed
    )


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


_Listed = tuple[Table, tuple[Card, ...], ManipOptions, bool, int, tuple[Table, ...]]


class Listings:
    """The last meld listings (`meld_candidates`), by the identity of the hand: each entry
    keeps its hand alive and is used only with the very same table and options objects (a
    state's table and hands are the same objects from view to view; hashing a table would
    hash every card on it). An explicit object, owned by the game
    (`domain.manipulation.VIEWS.listings`) or handed in, never a module global of this module."""

    __slots__ = ("_listed", "_size")

    def __init__(self, size: int = 512) -> None:
        self._listed: dict[int, _Listed] = {}
        self._size = size

    def get(
        self, table: Table, hand: tuple[Card, ...], options: ManipOptions, opened: bool, decks: int
    ) -> tuple[Table, ...]:
        """`_meld_candidates(...)`, remembered."""
        hit = self._listed.get(id(hand))
        if (
            hit is not None
            and hit[1] is hand
            and hit[0] is table
            and hit[2] is options
            and hit[3] is opened
            and hit[4] == decks
        ):
            return hit[5]
        listed = _meld_candidates(table, hand, options, opened, decks)
        if len(self._listed) >= self._size:
            self._listed.clear()
        self._listed[id(hand)] = (table, hand, options, opened, decks, listed)
        return listed


def meld_candidates(
    table: Table,
    hand: tuple[Card, ...],
    options: ManipOptions,
    opened: bool,
    decks: int,
    listings: Listings | None = None,
) -> tuple[Table, ...]:
    """`_meld_candidates`, remembered in `listings` when one is handed in (the equivalence:
    tests/unit/test_manipulation_fast_paths.py compares the views, legal moves included,
    with the game's listings and without)."""
    if listings is None:
        return _meld_candidates(table, hand, options, opened, decks)
    return listings.get(table, hand, options, opened, decks)


def _meld_candidates(
    table: Table, hand: tuple[Card, ...], options: ManipOptions, opened: bool, decks: int
) -> tuple[Table, ...]:
    """A representative, validated, duplicate-free set of meld moves (see the module doc).

    New melds from the hand and one-card extensions are valid by construction once the
    player has opened and jokers need not respect the copy count (I1: the cards come from
    the hand; I2: the new or grown meld is checked alone; I3: no table joker changes its
    card; I6 does not apply): only the touched melds are checked. So are joker swaps when,
    besides, a freed joker may go anywhere (A-M18 default): the real card that frees the
    joker comes from the hand (I3, M5.6 either way). Otherwise the whole table goes through
    `validate_meld_move`, as `decide` does.
    """
    rules = TableRules.of(options)
    copies = rules.joker_identity_respects_copy_count
    opening = rules.is_opening(table, opened)
    least = rules.initial_meld_min_points
    trusted = not opening and not copies
    # I6 on an empty table: the only candidates are new melds from the hand, no table meld
    # changes, so an opening holds once the meld is valid and plays the minimum points.
    first = opening and not table and not copies
    seen: set[Change] = set()
    out: list[Table] = []
    mask = hand_mask(hand)
    index = table_index(table) if table else None
    if trusted or first:
        _local_listing(table, index, mask, least if first else 0, seen, out)
    else:
        for at, added in _local_candidates(table, hand):
            candidate = (*table, added) if at is None else _replaced(table, at, added)
            _validated(table, hand, candidate, (options, opened, decks), seen, out)
    if index is None:
        return tuple(out)
    if trusted and not rules.freed_to_new_meld:
        if index[0]:
            swap_listing(table, index[0], hand, mask, seen, out)
    else:
        for candidate in joker_swaps(table, hand):
            _validated(table, hand, candidate, (options, opened, decks), seen, out)
    return tuple(out)


def _local_listing(
    table: Table,
    index: Index | None,
    mask: int,
    least: int,
    seen: set[Change],
    out: list[Table],
) -> None:
    """The new melds from the hand (`mask`, as `hand_melds`) playing at least `least` points,
    then the one-card extensions of the table's melds (meld by meld, plain cards by index,
    then a joker's declarations), each kept when its change to the table is new. Valid by
    construction (see `_meld_candidates`): only the new or grown meld is checked, and its
    normal form and change are remembered per hand meld and per table meld."""
    for grown, change, points in hand_listing(mask):
        if points >= least and change not in seen:
            seen.add(change)
            out.append((*table, grown))
    if index is None:  # no table
        return
    _, entries, reach, joker_reach, plains = index
    joker = mask >> JOKER_INDEX & 1
    if joker and joker_reach:
        growing: Iterable[Entry] = entries
    elif reach & mask:  # only the melds a hand card extends
        growing = compress(entries, map(and_, plains, repeat(mask)))
    else:
        return
    for i, meld, plain, declared, made in growing:
        hits = plain & mask
        while hits:
            low = hits & -hits
            hits ^= low
            j = low.bit_length() - 1
            if j in made:
                found_ext = made[j]
            else:
                found_ext = made[j] = extension_of(meld, TableCard(FULL_DECK[j]))
            if found_ext is not None and found_ext[1] not in seen:
                seen.add(found_ext[1])
                out.append((*table[:i], found_ext[0], *table[i + 1 :]))
        if joker and declared:
            for j, card in enumerate(declared, 64):
                if j in made:
                    found_ext = made[j]
                else:
                    found_ext = made[j] = extension_of(meld, TableCard(JOKER, card))
                if found_ext is not None and found_ext[1] not in seen:
                    seen.add(found_ext[1])
                    out.append((*table[:i], found_ext[0], *table[i + 1 :]))


def _fresh(change: Change, seen: set[Change]) -> bool:
    if change in seen:
        return False
    seen.add(change)
    return True


def _replaced(table: Table, index: int, meld: Meld) -> Table:
    return (*table[:index], meld, *table[index + 1 :])


def _validated(
    table: Table,
    hand: tuple[Card, ...],
    candidate: Table,
    rules: tuple[ManipOptions, bool, int],
    seen: set[Change],
    out: list[Table],
) -> None:
    """Append `candidate` (normalised) to `out` when `validate_meld_move` accepts it and no
    table with the same melds is there yet."""
    options, opened, decks = rules
    try:
        _, normal = check_meld(table, hand, candidate, options, opened, decks)
    except IllegalMove:
        return
    changed = [k for k, meld in enumerate(table) if meld_key(meld) != meld_key(normal[k])]
    removed = [table[k] for k in changed]
    added = [normal[k] for k in changed] + list(normal[len(table) :])
    if _fresh(change_of(removed, added), seen):
        out.append(normal)


def _local_candidates(table: Table, hand: tuple[Card, ...]) -> Iterator[tuple[int | None, Meld]]:
    """(None, a new meld from the hand) and (i, table meld i with one more hand card), in the
    order of `_local_listing`."""
    mask = hand_mask(hand)
    for meld in mask_melds(mask):
        yield None, meld
    joker = mask >> JOKER_INDEX & 1
    for i, meld, plain, declared, _ in table_index(table)[1]:
        hits = plain & mask
        while hits:
            low = hits & -hits
            hits ^= low
            yield i, (*meld, TableCard(FULL_DECK[low.bit_length() - 1]))
        if joker:
            for card in declared:
                yield i, (*meld, TableCard(JOKER, card))


def extensions(meld: Meld, hand: Sequence[Card]) -> Iterator[Meld]:
    """The meld with one more card from the hand (a plain card, or a joker declared as a
    card that fits), whenever the result is still a valid meld."""
    return _extensions(meld, frozenset(hand), JOKER in hand)


def _extensions(meld: Meld, hand: frozenset[Card], has_joker: bool) -> Iterator[Meld]:
    """`extensions` with the hand as a set (made once for all the table's melds)."""
    plain_fits, joker_fits = growth(meld)
    if plain_fits:
        for card in sorted(plain_fits & hand):
            yield (*meld, TableCard(card))
    if joker_fits and has_joker:
        for declared in joker_fits:
            yield (*meld, TableCard(JOKER, declared))
