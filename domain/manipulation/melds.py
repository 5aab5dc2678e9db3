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
from functools import lru_cache
from itertools import chain, combinations, compress, repeat
from operator import and_
from typing import cast

from domain.cards import FULL_DECK, JOKER, JOKER_INDEX, Card, TableCard
from domain.errors import IllegalMove
from domain.manipulation.options import ManipOptions
from domain.manipulation.table import solver
from domain.manipulation.table.local_melds import (
    RANK_PART,
    growth,
    hand_mask,
    hand_melds,
    mask_melds,
    part,
    part_keys,
    plain_meld,
    run_fillers,
    with_joker,
)
from domain.manipulation.table.meld import meld_kind, normalise_meld
from domain.manipulation.table.rules import TableRules, validate_meld_move
from domain.manipulation.table.solver import BUDGET, BestMove
from domain.memo import by_identity

Meld = tuple[TableCard, ...]
Table = tuple[Meld, ...]


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
_LISTED: dict[int, _Listed] = {}
"""The last listings by the identity of the hand (each listing keeps its hand alive)."""


def meld_candidates(
    table: Table, hand: tuple[Card, ...], options: ManipOptions, opened: bool, decks: int
) -> tuple[Table, ...]:
    """`_meld_candidates`, remembered for the last hands by identity, with the very same
    table and options objects (a state's table and hands are the same objects from view to
    view; hashing a table would hash every card on it)."""
    hit = _LISTED.get(id(hand))
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
    if len(_LISTED) >= 512:
        _LISTED.clear()
    _LISTED[id(hand)] = (table, hand, options, opened, decks, listed)
    return listed


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
    seen: set[_Change] = set()
    out: list[Table] = []
    mask = hand_mask(hand)
    index = _table_index(table) if table else None
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
            _swap_listing(table, index[0], hand, mask, seen, out)
    else:
        for candidate in joker_swaps(table, hand):
            _validated(table, hand, candidate, (options, opened, decks), seen, out)
    return tuple(out)


def _local_listing(
    table: Table,
    index: _Index | None,
    mask: int,
    least: int,
    seen: set[_Change],
    out: list[Table],
) -> None:
    """The new melds from the hand (`mask`, as `hand_melds`) playing at least `least` points,
    then the one-card extensions of the table's melds (meld by meld, plain cards by index,
    then a joker's declarations), each kept when its change to the table is new. Valid by
    construction (see `_meld_candidates`): only the new or grown meld is checked, and its
    normal form and change are remembered per hand meld and per table meld."""
    for grown, change, points in _hand_listing(mask):
        if points >= least and change not in seen:
            seen.add(change)
            out.append((*table, grown))
    if index is None:  # no table
        return
    _, entries, reach, joker_reach, plains = index
    joker = mask >> JOKER_INDEX & 1
    if joker and joker_reach:
        growing: Iterable[_Entry] = entries
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
                found_ext = made[j] = _extension(meld, TableCard(FULL_DECK[j]))
            if found_ext is not None and found_ext[1] not in seen:
                seen.add(found_ext[1])
                out.append((*table[:i], found_ext[0], *table[i + 1 :]))
        if joker and declared:
            for j, card in enumerate(declared, 64):
                if j in made:
                    found_ext = made[j]
                else:
                    found_ext = made[j] = _extension(meld, TableCard(JOKER, card))
                if found_ext is not None and found_ext[1] not in seen:
                    seen.add(found_ext[1])
                    out.append((*table[:i], found_ext[0], *table[i + 1 :]))


def _extension(meld: Meld, card: TableCard) -> tuple[Meld, _Change] | None:
    """`meld` with `card` added: its normal form and its change to the table, or None. A
    card of `growth` on a meld in normal form (as the table's are) goes in its place: a
    group's by suit, a sequence's at the low end when it acts one rank below the first
    card, else at the high end. Any other meld, and a sequence growing to 13 cards (whose
    ace may turn from high to low, M2.4), is normalised whole."""
    if len(meld) >= 12 or _normal(meld) != meld or card.acts_as not in _fits(meld):
        grown = _normal((*meld, card))
        return None if grown is None else (grown, _change((meld,), (grown,)))
    acts = card.acts_as
    if meld[0].acts_as.rank == meld[1].acts_as.rank:  # a group
        place = sum(tc.acts_as.suit < acts.suit for tc in meld)
    else:
        place = 0 if acts.rank == meld[0].acts_as.rank - 1 else len(meld)
    key = _meld_key(meld)
    grown = (*meld[:place], card, *meld[place:])
    return grown, ((key,), ((*key[:place], str(card), *key[place:]),))


def _fits(meld: Meld) -> frozenset[Card]:
    """The cards a plain card or a joker added to `meld` may act as (`growth`)."""
    plain, declared = growth(meld)
    return plain.union(declared)


@by_identity(8192)
def _new_meld(added: Meld) -> tuple[Meld, _Change, int] | None:
    """A new meld from the hand: its normal form, its change to the table and its points
    (None when it is no meld). Remembered by identity: the hand's melds are the same objects
    while the hand is (`mask_melds`)."""
    grown = _normal(added)
    if grown is None:
        return None
    return grown, _change((), (grown,)), sum(tc.card.value for tc in grown)


def _swap_listing(
    table: Table,
    jokers: tuple[tuple[int, int, Card], ...],
    hand: tuple[Card, ...],
    mask: int,
    seen: set[_Change],
    out: list[Table],
) -> None:
    """The joker swaps of `joker_swaps`, in its order, checked meld by meld: the hand card
    takes the joker's place (the meld acts the same), and the freed joker may go anywhere
    (A-M18 default), so I1-I6 hold once each changed meld is valid (I2); each is kept when
    its change to the table is new. The swapped meld, the extensions by the freed joker and
    the new 3-card melds with it are remembered per meld and per hand mask."""
    for i, k, declared in jokers:  # the table's (`_table_index`)
        if not mask >> declared.index & 1:
            continue
        meld = table[i]
        swapped, swapped_key = _swapped(meld, k)
        if swapped is None:
            continue
        removed = _meld_key(meld)
        for j, target in enumerate(table):
            if j == i:
                target = swapped
            _, fits, made, _ = _meld_growth(target)
            for key, card in enumerate(fits, 64):
                if key in made:
                    found = made[key]
                else:
                    found = made[key] = _extension(target, TableCard(JOKER, card))
                if found is None:
                    continue
                grown, grown_change = found
                if j == i:
                    change = _keys_change([removed], [grown_change[1][0]])
                    listed = (*table[:i], grown, *table[i + 1 :])
                else:
                    change = _keys_change(
                        [removed, grown_change[0][0]], [swapped_key, grown_change[1][0]]
                    )
                    replaced = list(table)
                    replaced[i] = swapped
                    replaced[j] = grown
                    listed = tuple(replaced)
                if change not in seen:
                    seen.add(change)
                    out.append(listed)
        left = mask if hand.count(declared) > 1 else mask & ~(1 << declared.index)
        for grown, grown_key in _joker_triples(left | 1 << JOKER_INDEX):
            change = _keys_change([removed], [swapped_key, grown_key])
            if change not in seen:
                seen.add(change)
                out.append((*table[:i], swapped, *table[i + 1 :], grown))


def _swapped(meld: Meld, k: int) -> tuple[Meld | None, tuple[str, ...]]:
    """Table meld `meld` with its joker at `k` replaced by the card it is declared as, in
    normal form (None if it is no meld), and its key; remembered with the meld."""
    swaps = _meld_growth(meld)[3]
    hit = swaps.get(k)
    if hit is None:
        declared = meld[k].declared
        assert declared is not None
        normal = _normal((*meld[:k], TableCard(declared), *meld[k + 1 :]))
        hit = swaps[k] = (normal, () if normal is None else _meld_key(normal))
    return hit


@lru_cache(maxsize=4096)
def _joker_triples(mask: int) -> tuple[tuple[Meld, tuple[str, ...]], ...]:
    """The hand's new 3-card melds holding one joker (`_hand_listing`, the hand as `mask`):
    where a freed joker may go with two hand cards (M5.4); each with its key."""
    return tuple(
        (grown, change[1][0])
        for grown, change, _ in _hand_listing(mask)
        if len(grown) == 3 and sum(tc.card.is_joker for tc in grown) == 1
    )


_Change = tuple[tuple[tuple[str, ...], ...], tuple[tuple[str, ...], ...]]


def _change(removed: Sequence[Meld], added: Sequence[Meld]) -> _Change:
    """What a move does to T0, melds as normalised codes: the melds it takes away and the
    melds it puts in their place, the ones in both cancelled. Two moves from one T0 give the
    same table exactly when their changes are equal."""
    return _keys_change(list(map(_meld_key, removed)), list(map(_meld_key, added)))


def _keys_change(gone: list[tuple[str, ...]], new: list[tuple[str, ...]]) -> _Change:
    """`_change` of melds given by their keys (`_meld_key`)."""
    gone.sort()
    new.sort()
    for key in list(gone):
        if key in new:
            gone.remove(key)
            new.remove(key)
    return tuple(gone), tuple(new)


def _fresh(change: _Change, seen: set[_Change]) -> bool:
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
    seen: set[_Change],
    out: list[Table],
) -> None:
    """Append `candidate` (normalised) to `out` when `validate_meld_move` accepts it and no
    table with the same melds is there yet."""
    options, opened, decks = rules
    try:
        _, normal = check_meld(table, hand, candidate, options, opened, decks)
    except IllegalMove:
        return
    changed = [k for k, meld in enumerate(table) if _meld_key(meld) != _meld_key(normal[k])]
    removed = [table[k] for k in changed]
    added = [normal[k] for k in changed] + list(normal[len(table) :])
    if _fresh(_change(removed, added), seen):
        out.append(normal)


@by_identity(8192)
@lru_cache(maxsize=8192)
def _meld_key(meld: Meld) -> tuple[str, ...]:
    """The meld's codes in display order (a table meld may come in any order)."""
    normal = _normal(meld)
    return tuple(str(tc) for tc in (meld if normal is None else normal))


@by_identity(8192)
@lru_cache(maxsize=8192)
def _normal(meld: Meld) -> Meld | None:
    """The meld in display order, or None when it is not a valid meld (I2)."""
    if meld_kind(meld) is None:
        return None
    return normalise_meld(meld)


def _local_candidates(table: Table, hand: tuple[Card, ...]) -> Iterator[tuple[int | None, Meld]]:
    """(None, a new meld from the hand) and (i, table meld i with one more hand card), in the
    order of `_local_listing`."""
    mask = hand_mask(hand)
    for meld in mask_melds(mask):
        yield None, meld
    joker = mask >> JOKER_INDEX & 1
    for i, meld, plain, declared, _ in _table_index(table)[1]:
        hits = plain & mask
        while hits:
            low = hits & -hits
            hits ^= low
            yield i, (*meld, TableCard(FULL_DECK[low.bit_length() - 1]))
        if joker:
            for card in declared:
                yield i, (*meld, TableCard(JOKER, card))


_Made = dict[int, "tuple[Meld, _Change] | None"]
_Entry = tuple[int, Meld, int, tuple[Card, ...], _Made]
_Index = tuple[tuple[tuple[int, int, Card], ...], tuple[_Entry, ...], int, bool, tuple[int, ...]]


@by_identity(256)
def _table_index(table: Table) -> _Index:
    """For a table (remembered by identity: draws leave it as it is): where its jokers lie
    with their declared cards; each meld that can grow, with the plain cards that extend it
    (a mask by index), what a joker added to it may be declared as, and its extensions made
    so far; and all the plain cards that extend some meld (a mask), and whether a joker
    extends one; and each growing meld's plain cards again (to filter the melds with
    `compress`). A meld's part is remembered with the meld (`_meld_growth`): a move leaves
    most melds as the very same objects."""
    jokers: list[tuple[int, int, Card]] = []
    entries: list[_Entry] = []
    reach = 0
    joker_reach = False
    for i, meld in enumerate(table):
        plain, declared, made, _ = _meld_growth(meld)
        if plain or declared:
            entries.append((i, meld, plain, declared, made))
            reach |= plain
            joker_reach = joker_reach or bool(declared)
        for k, tc in enumerate(meld):
            if tc.declared is not None:
                jokers.append((i, k, tc.declared))
    return tuple(jokers), tuple(entries), reach, joker_reach, tuple(e[2] for e in entries)


_Swaps = dict[int, "tuple[Meld | None, tuple[str, ...]]"]


@by_identity(8192)
def _meld_growth(meld: Meld) -> tuple[int, tuple[Card, ...], _Made, _Swaps]:
    """`growth` of a table meld with the plain cards as a mask (bit `index`), a dict for
    its extensions (by card index, or 64 + the joker declaration's position) and one for
    its joker swaps (`_swapped`, by the joker's position)."""
    plain, declared = growth(meld)
    return sum(card.bit for card in plain), declared, {}, {}


def joker_swaps(table: Table, hand: Sequence[Card]) -> Iterator[Table]:
    """M5.2, M5.4: a hand card equal to a table joker's declared card takes its place, and
    the freed joker goes on as a one-card extension of a meld, or into a new meld with two
    hand cards (declared as the card they miss)."""
    jokers = _table_index(table)[0]
    if not jokers:
        return
    held = frozenset(hand)  # a declared card is never a joker
    for i, k, declared in jokers:
        if declared not in held:
            continue
        meld = table[i]
        swapped = (*meld[:k], TableCard(declared), *meld[k + 1 :])
        rest = (*table[:i], swapped, *table[i + 1 :])
        left = list(hand)
        left.remove(declared)
        yield from _seat_freed(rest, left)


def _seat_freed(table: Table, hand: Sequence[Card]) -> Iterator[Table]:
    """A freed joker placed again: onto any meld, or with two hand cards."""
    for i, meld in enumerate(table):
        for declared in growth(meld)[1]:
            yield (*table[:i], (*meld, TableCard(JOKER, declared)), *table[i + 1 :])
    for meld in hand_melds([*hand, JOKER]):
        if sum(tc.card.is_joker for tc in meld) == 1 and len(meld) == 3:
            yield (*table, meld)


def _hand_listing(mask: int) -> tuple[_NewMeld, ...]:
    """`_new_meld` of each of `mask_melds(mask)` that is a meld, in the same order: what
    `legal_moves` lists of the hand's own melds, from parts remembered per rank and suit
    (a whole hand rarely comes back: each view is of a new hand, and a repeated view finds
    its listing in `_LISTED`)."""
    return tuple(chain.from_iterable(map(_listing_part, part_keys(mask))))


_NewMeld = tuple[Meld, _Change, int]


@lru_cache(maxsize=8192)
def _listing_part(key: int) -> tuple[_NewMeld, ...]:
    """`_new_meld` of the melds of `part(key)` that are melds. A suit's are made from
    entries remembered per sequence and per pair with the joker (`_suit_entry`), so a suit
    part not seen before costs a walk of its ranks, not a normalisation per meld."""
    if key & RANK_PART:
        return tuple(found for found in map(_new_meld, part(key)) if found is not None)
    suit, joker = key >> 13 & 3, key >> 15 & 1
    ranks = [r + 1 for r in range(13) if key >> r & 1]
    out: list[_NewMeld | None] = []
    if len(ranks) >= 3:  # as `runs`: by start, then length
        held = set(ranks)
        if 1 in held:
            held.add(14)
        for start in range(1, 13):
            if start in held and start + 1 in held and start + 2 in held:
                end = start + 2
                while end in held:
                    out.append(_suit_entry(suit, start, end, 0))
                    end += 1
    if joker:  # as `suit_melds`: each pair, with each card the joker may stand for
        for a, b in combinations(ranks, 2):
            for card in run_fillers(FULL_DECK[13 * suit + a - 1], FULL_DECK[13 * suit + b - 1]):
                out.append(_suit_entry(suit, a, b, card.rank))
    return tuple(found for found in out if found is not None)


@lru_cache(maxsize=4096)
def _suit_entry(suit: int, low: int, high: int, declared: int) -> _NewMeld | None:
    """`_new_meld` of the suit's sequence of ranks low..high (14 for a high ace), or with
    `declared`, of the cards of ranks low and high with the joker declared as that rank."""
    if not declared:
        cards = tuple(FULL_DECK[13 * suit + (r - 1) % 13] for r in range(low, high + 1))
        return _new_meld(plain_meld(cards))
    pair = (FULL_DECK[13 * suit + low - 1], FULL_DECK[13 * suit + high - 1])
    return _new_meld(with_joker(pair, FULL_DECK[13 * suit + declared - 1]))


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
