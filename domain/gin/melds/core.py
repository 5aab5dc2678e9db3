"""The gin meld arithmetic on 52-bit card masks (G3): precomputed tables, no card objects.

A hand is an int whose bit `suit * 13 + rank - 1` is set for each card it holds (see
domain/cards.py), so the 13 bits of one suit are a contiguous field and a run is a range of
consecutive bits inside one field.

Why it is exact and fast: a set (G3.1) takes cards of one rank from different suits, a run
(G3.2) takes cards of one suit. A hand of at most 11 cards has at most three ranks with three
or more cards, so there are few ways to choose its sets (none, one of the 3-subsets, or all
four, per such rank). Once the sets are chosen, the remaining cards of each suit can only form
runs within that suit, independently of the other suits. So the least deadwood of the
remaining cards is a sum of four lookups in an 8192-entry table indexed by a suit's 13 bits,
computed once at import. For 11 cards (G6.2: one card is set aside before the 10 are counted)
a second table gives each suit's least deadwood when one of its cards is discarded for free;
the discard goes to whichever suit gains most. The 11-card hand is thus searched once.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from itertools import product

SUIT_WIDTH = 13
SUIT_FIELD = (1 << SUIT_WIDTH) - 1
DECK_MASK = (1 << 52) - 1
RANK_VALUES = tuple(min(rank, 10) for rank in range(1, 14))
"""G2.3: the value of the card at bit position `rank - 1` within its suit."""
CARD_VALUES = tuple(RANK_VALUES[i % SUIT_WIDTH] for i in range(52))
INFEASIBLE = 1000
"""Stands for "no way": larger than any deadwood count of a 0..11-card hand."""


def _runs_ending_at(field: int, top: int) -> tuple[int, ...]:
    """The runs of a field whose highest card is `top`, longest first."""
    runs = []
    run = 1 << top
    low = top
    while low > 0 and field >> (low - 1) & 1:
        low -= 1
        run |= 1 << low
        if top - low >= 2:
            runs.append(run)
    return tuple(reversed(runs))


def _build_suit_tables() -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Least deadwood of every suit field using runs only: without and with one free discard.

    The highest card of a field is either deadwood, the top of a run, or (second table) the
    discarded card, so each entry follows from entries of smaller fields.
    """
    keep = [0] * (SUIT_FIELD + 1)
    drop = [INFEASIBLE] * (SUIT_FIELD + 1)
    for field in range(1, SUIT_FIELD + 1):
        keep[field], drop[field] = _suit_entry(field, keep, drop)
    return tuple(keep), tuple(drop)


def _suit_entry(field: int, keep: list[int], drop: list[int]) -> tuple[int, int]:
    """Both tables' entries of `field` from those of smaller fields: its top card is
    deadwood, the discard (second table), or the top of a run of 3 or more below it."""
    top = field.bit_length() - 1
    rest = field ^ (1 << top)
    best_keep = keep[rest] + RANK_VALUES[top]
    best_drop = min(keep[rest], drop[rest] + RANK_VALUES[top])
    for run in _runs_ending_at(field, top):
        best_keep = min(best_keep, keep[field ^ run])
        best_drop = min(best_drop, drop[field ^ run])
    return best_keep, best_drop


SUIT_KEEP, SUIT_DROP = _build_suit_tables()
SUIT_GAIN = tuple(INFEASIBLE if f == 0 else SUIT_DROP[f] - SUIT_KEEP[f] for f in range(8192))
"""What a free discard changes in a suit field (<= 0); INFEASIBLE for an empty field."""

RANK_MASKS = tuple(sum(1 << (s * SUIT_WIDTH + r) for s in range(4)) for r in range(SUIT_WIDTH))


def _set_melds() -> tuple[int, ...]:
    """G3.1: every set of 3 or 4 cards of one rank, as masks."""
    out = []
    for full in RANK_MASKS:
        out.append(full)
        out.extend(full ^ (1 << b) for b in range(52) if full >> b & 1)
    return tuple(out)


def _run_melds() -> tuple[int, ...]:
    """G3.2 / G2.2: every run of 3+ consecutive ranks in one suit, ace low only."""
    out = []
    for suit in range(4):
        for low in range(SUIT_WIDTH):
            for high in range(low + 2, SUIT_WIDTH):
                out.append(((1 << (high - low + 1)) - 1) << (suit * SUIT_WIDTH + low))
    return tuple(out)


SET_MELDS = _set_melds()
RUN_MELDS = _run_melds()
ALL_MELDS = SET_MELDS + RUN_MELDS
MELD_MASKS = frozenset(ALL_MELDS)
MELDS_BY_LOWEST = tuple(tuple(m for m in ALL_MELDS if m & -m == 1 << i) for i in range(52))
"""The deck's melds grouped by their lowest card index."""


def _set_options() -> dict[int, tuple[int, ...]]:
    """For the 3 or 4 cards of one rank in a hand: the sets one may take, then "no set" (0)."""
    options: dict[int, tuple[int, ...]] = {}
    for full in RANK_MASKS:
        threes = tuple(full ^ (1 << b) for b in range(52) if full >> b & 1)
        options[full] = (full, *threes, 0)
        for three in threes:
            options[three] = (three, 0)
    return options


SET_OPTIONS = _set_options()


def fields(mask: int) -> tuple[int, int, int, int]:
    """The four 13-bit suit fields (clubs, diamonds, hearts, spades) of a mask."""
    return (
        mask & SUIT_FIELD,
        mask >> 13 & SUIT_FIELD,
        mask >> 26 & SUIT_FIELD,
        mask >> 39 & SUIT_FIELD,
    )


def triple_ranks(mask: int) -> int:
    """Bits (by rank - 1) of the ranks held three or four times: where a set is possible."""
    c, d, h, s = fields(mask)
    return (c & d & (h | s)) | (h & s & (c | d))


RANK_SPREAD = 1 | 1 << 13 | 1 << 26 | 1 << 39
"""Times a 13-bit rank field, the mask of those ranks in all four suits."""


def set_choices(mask: int) -> Iterator[int]:
    """Every way to take sets out of a hand, as the mask of the cards they use.

    In preference order: sets taken (the four before a three) before sets left out.
    """
    yield from set_uses(mask & triple_ranks(mask) * RANK_SPREAD)


@lru_cache(maxsize=4096)
def set_uses(cards: int) -> tuple[int, ...]:
    """`set_choices` of the cards of a hand's set ranks (ranks held 3 or 4 times), remembered:
    few such card groups exist, and every hand sharing one has the same choices."""
    per_rank = []
    for rank in RANK_MASKS:
        if cards & rank:
            per_rank.append(SET_OPTIONS[cards & rank])
    if not per_rank:
        return (0,)
    return tuple(sum(combo) for combo in product(*per_rank))


def least_deadwood(mask: int, discard: bool) -> int:
    """G3.4 / G6.2: the least deadwood of a hand mask; with `discard`, one card is set aside."""
    c = mask & 8191
    d = mask >> 13 & 8191
    h = mask >> 26 & 8191
    s = mask >> 39
    triples = (c & d & (h | s)) | (h & s & (c | d))
    keep = SUIT_KEEP
    if not triples:
        base = keep[c] + keep[d] + keep[h] + keep[s]
        if discard:
            gain = SUIT_GAIN
            return base + min(gain[c], gain[d], gain[h], gain[s])
        return base
    best = INFEASIBLE
    gain = SUIT_GAIN
    for used in set_uses(mask & triples * RANK_SPREAD):
        rest = mask ^ used
        c = rest & 8191
        d = rest >> 13 & 8191
        h = rest >> 26 & 8191
        s = rest >> 39
        total = keep[c] + keep[d] + keep[h] + keep[s]
        if discard:
            total += min(gain[c], gain[d], gain[h], gain[s])
        if total < best:
            best = total
    return best


def least_deadwoods_plus(hand: int, cards: int) -> dict[int, int]:
    """`least_deadwood(hand | card, True)` for each card index of `cards` (not in `hand`).

    Incremental (G6.2, the 11-card count of a draw): a card of a rank the hand holds at most
    once leaves the hand's set choices as they are, so per choice it only changes its own
    suit field: one table lookup each. Cards of a rank held twice or more take the search.
    """
    c, d, h, s = fields(hand)
    pairs = (c & (d | h | s)) | (d & (h | s)) | (h & s)
    out = {}
    if pairs:
        searched = cards & pairs * RANK_SPREAD
        cards ^= searched
        for index in _indices(searched):
            out[index] = least_deadwood(hand | 1 << index, True)
    keep, gain = SUIT_KEEP, SUIT_GAIN
    uses = _uses_by_suit(hand)
    for index in _indices(cards):
        suit, bit = CARD_SUITS[index], CARD_FIELD_BITS[index]
        best = INFEASIBLE
        for base, parts, others in uses:
            old = parts[suit]
            new = old | bit
            total = base - keep[old] + keep[new] + min(gain[new], others[suit])
            if total < best:
                best = total
        out[index] = best
    return out


def deadwood_saved(hand: int, cards: int) -> int:
    """The sum over `cards` (none in `hand`) of what each saves the hand's deadwood:
    max(0, least_deadwood(hand) - least_deadwood(hand | card, True)) (G3.4, G6.2).

    For a hand without sets, a card of a rank held at most once changes only its own suit
    field, and what the cards of one suit save depends only on that field, those cards and
    the best free discard of the other suits: remembered per suit (`_suit_saved`).
    """
    c, d, h, s = parts = fields(hand)
    if (c & d & (h | s)) | (h & s & (c | d)):
        base = least_deadwood(hand, False)
        return sum(max(0, base - n) for n in least_deadwoods_plus(hand, cards).values())
    base = SUIT_KEEP[c] + SUIT_KEEP[d] + SUIT_KEEP[h] + SUIT_KEEP[s]
    total = 0
    pairs = (c & (d | h | s)) | (d & (h | s)) | (h & s)
    if pairs:
        searched = cards & pairs * RANK_SPREAD
        cards ^= searched
        for index in _indices(searched):
            saved = base - least_deadwood(hand | 1 << index, True)
            if saved > 0:
                total += saved
    gains = [SUIT_GAIN[p] for p in parts]
    for suit, field in enumerate(fields(cards)):
        if field:
            others = min(gains[:suit] + gains[suit + 1 :])
            total += _suit_saved(parts[suit], field, others)
    return total


@lru_cache(maxsize=1 << 16)
def _suit_saved(field: int, drawn: int, others: int) -> int:
    """What each card of `drawn` saves added alone to a suit `field`, summed, when the other
    suits' best free discard gains `others` (see `deadwood_saved`)."""
    keep, gain = SUIT_KEEP, SUIT_GAIN
    total = 0
    for bit in _indices(drawn):
        new = field | 1 << bit
        saved = keep[field] - keep[new] - min(gain[new], others)
        if saved > 0:
            total += saved
    return total


def clear_caches() -> None:
    """Forget the memoised set choices, suit discards and suit savings (a cold start)."""
    set_uses.cache_clear()
    suit_discard_bit.cache_clear()
    _suit_saved.cache_clear()


CARD_SUITS = tuple(i // SUIT_WIDTH for i in range(52))
CARD_FIELD_BITS = tuple(1 << i % SUIT_WIDTH for i in range(52))


def _indices(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _uses_by_suit(hand: int) -> list[tuple[int, tuple[int, ...], tuple[int, ...]]]:
    """Per set choice of `hand`: its runs-only count, suit fields, and for each suit the
    least free-discard gain of the other three suits."""
    uses: list[tuple[int, tuple[int, ...], tuple[int, ...]]] = []
    for used in set_uses(hand & triple_ranks(hand) * RANK_SPREAD):
        parts = fields(hand ^ used)
        gains = [SUIT_GAIN[p] for p in parts]
        others = tuple(min(gains[:s] + gains[s + 1 :]) for s in range(4))
        uses.append((sum(SUIT_KEEP[p] for p in parts), parts, others))
    return uses


def best_discard(mask: int) -> int:
    """The bit of the card `best_arrangement(mask, True)` sets aside, without the melds."""
    parts = fields(mask)
    c, d, h, s = parts
    if not (c & d & (h | s)) | (h & s & (c | d)):
        gains = [SUIT_GAIN[p] for p in parts]
        suit = gains.index(min(gains))
        return suit_discard_bit(parts[suit]) << (SUIT_WIDTH * suit)
    best = INFEASIBLE
    chosen = (0, 0)
    for used in set_uses(mask & triple_ranks(mask) * RANK_SPREAD):
        parts = fields(mask ^ used)
        gains = [SUIT_GAIN[p] for p in parts]
        low = min(gains)
        total = sum(SUIT_KEEP[p] for p in parts) + low
        if total < best:
            best = total
            suit = gains.index(low)
            chosen = (suit, parts[suit])
    suit, field = chosen
    return suit_discard_bit(field) << (SUIT_WIDTH * suit)


@lru_cache(maxsize=8192)
def suit_discard_bit(field: int) -> int:
    """The discard bit `suit_partition_with_discard` chooses in a non-empty suit field."""
    return suit_partition_with_discard(field)[1]


def mask_value(mask: int) -> int:
    """G2.3: the summed value of the cards of a mask."""
    total = 0
    while mask:
        low = mask & -mask
        total += CARD_VALUES[low.bit_length() - 1]
        mask ^= low
    return total


@lru_cache(maxsize=8192)
def suit_partitions(field: int) -> tuple[tuple[int, ...], ...]:
    """Every way to split a suit field into runs reaching SUIT_KEEP[field], runs as fields.

    Order: at the highest card, runs ending there (longest first), then leaving it deadwood.
    """
    if field == 0:
        return ((),)
    target = SUIT_KEEP[field]
    top = field.bit_length() - 1
    out: list[tuple[int, ...]] = []
    for run in _runs_ending_at(field, top):
        if SUIT_KEEP[field ^ run] == target:
            out.extend((*runs, run) for runs in suit_partitions(field ^ run))
    rest = field ^ (1 << top)
    if SUIT_KEEP[rest] + RANK_VALUES[top] == target:
        out.extend(suit_partitions(rest))
    return tuple(out)


def suit_partition_with_discard(field: int) -> tuple[tuple[int, ...], int]:
    """One split of a non-empty field into runs and one discard reaching SUIT_DROP[field].

    Returns (runs, discard bit). Preference at the highest card: discard it, then runs
    (longest first), then leave it deadwood.
    """
    target = SUIT_DROP[field]
    top = field.bit_length() - 1
    rest = field ^ (1 << top)
    if SUIT_KEEP[rest] == target:
        return suit_partitions(rest)[0], 1 << top
    for run in _runs_ending_at(field, top):
        if SUIT_DROP[field ^ run] == target:
            runs, dropped = suit_partition_with_discard(field ^ run)
            return (*runs, run), dropped
    return suit_partition_with_discard(rest)


def arrangements_of(mask: int) -> Iterator[tuple[int, ...]]:
    """Every meld choice (as meld masks) reaching the least deadwood of a hand, no discard."""
    target = least_deadwood(mask, False)
    for used in set_choices(mask):
        rest = mask ^ used
        parts = fields(rest)
        if sum(SUIT_KEEP[p] for p in parts) != target:
            continue
        sets = _split_sets(used)
        per_suit = [
            tuple(tuple(run << (13 * suit) for run in runs) for runs in suit_partitions(p))
            for suit, p in enumerate(parts)
        ]
        for combo in product(*per_suit):
            yield sets + tuple(run for runs in combo for run in runs)


def best_arrangement(mask: int, discard: bool) -> tuple[tuple[int, ...], int]:
    """One meld choice reaching the least deadwood, and the discard bit (0 if not `discard`).

    Sets are chosen in `set_choices` order, the discard in the first suit (C, D, H, S) that
    reaches the least count. Without a discard it is the first of `arrangements_of`.
    """
    target = least_deadwood(mask, discard)
    for used in set_choices(mask):
        parts = fields(mask ^ used)
        base = sum(SUIT_KEEP[p] for p in parts)
        for suit in range(4) if discard else (-1,):
            if base + (SUIT_GAIN[parts[suit]] if discard else 0) == target:
                runs, dropped = _runs_of_fields(parts, suit)
                return _split_sets(used) + runs, dropped
    raise AssertionError("unreachable: the no-set choice always reaches a finite count")


def _runs_of_fields(parts: tuple[int, ...], dropping: int) -> tuple[tuple[int, ...], int]:
    """The preferred runs of each suit field, and the discard taken in suit `dropping` (or -1)."""
    runs: list[int] = []
    dropped = 0
    for suit, field in enumerate(parts):
        if suit == dropping:
            suit_runs, bit = suit_partition_with_discard(field)
            dropped = bit << (13 * suit)
        else:
            suit_runs = suit_partitions(field)[0]
        runs.extend(run << (13 * suit) for run in suit_runs)
    return tuple(runs), dropped


def _split_sets(used: int) -> tuple[int, ...]:
    """The individual sets inside `used` (the union of sets, one per rank)."""
    return tuple(used & rank for rank in RANK_MASKS if used & rank)
