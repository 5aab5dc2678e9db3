"""The value-by-value dynamic program that arranges cards into melds (M2), after van Rijn,
Takes and Vis, "The Complexity of Rummikub Problems" (2015).

The cards to place are counted per *identity* i = suit * 13 + rank - 1 (the card a slot
counts as). At each identity some cards are mandatory (table cards and table jokers that
keep their declared card, I3), some optional (hand cards, worth their points M1.4), and free
jokers (freed table jokers, mandatory; hand jokers, optional at 25 points) may fill any slot.

Ranks are processed 1 (ace low) .. 13 and then the ace-high position 14, suit by suit. The
state holds, for each suit, how many open sequences end at the previous rank with length 1,
2 and 3-or-more; how many free jokers are used; and, from rank 1, how many aces of each suit
are promised to the ace-high position (the ace cards are filled at rank 1, their slots are
used at 14). Per rank and suit the choice is how many length-3+ sequences continue, how many
new sequences start (only when every open sequence continues: closing one and starting
another is the same as continuing it) and how many slots go into groups; the group slots of
a rank form groups of 3-4 distinct suits exactly when 3 * max(slots per suit) <= total.
Each slot is filled by mandatory cards first, then hand cards or free jokers. The program
maximises the points of hand cards placed with every mandatory card placed; a sequence of
14 (ace to ace) can always be split into 11 + 3, so it is allowed here and split on output.
"""

from __future__ import annotations

from dataclasses import dataclass

from domain.cards import JOKER, Card, TableCard

JOKER_POINTS = 25
_NO_CAP = 99

# A suit's open sequences (n1, n2, n3) are packed as n1 + 8 * n2 + 64 * n3.
_B = 8


@dataclass(frozen=True, slots=True)
class Supply:
    """What there is to place, per identity 0..51 (see the module docstring)."""

    table_real: tuple[int, ...]  # real table cards of this identity (mandatory)
    fixed_jokers: tuple[int, ...]  # table jokers that keep this declared card (mandatory)
    hand_real: tuple[int, ...]  # real hand cards of this identity (optional, scored)
    hand_min: tuple[int, ...]  # at least this many hand cards here (to free a joker, I3)
    cap: tuple[int, ...] | None  # at most this many slots here (copy count, M5.7)
    jokers_hand: int  # optional free jokers, 25 points each
    jokers_freed: int  # mandatory free jokers (freed table jokers)


@dataclass(frozen=True, slots=True)
class Arrangement:
    """The melds found, the hand cards they use (jokers as JOKER) and the points shed."""

    melds: tuple[tuple[TableCard, ...], ...]
    played: tuple[Card, ...]
    points: int


def _value(rank: int) -> int:
    return min(rank, 10)


def _slot_limits(supply: Supply) -> list[list[int]]:
    """The most slots each (rank 1..14, suit) could hold, for pruning."""
    jokers = supply.jokers_hand + supply.jokers_freed
    limits = [[0] * 4 for _ in range(16)]
    for suit in range(4):
        for rank in range(1, 14):
            i = suit * 13 + rank - 1
            most = supply.table_real[i] + supply.fixed_jokers[i] + supply.hand_real[i] + jokers
            if supply.cap is not None:
                most = min(most, supply.cap[i])
            limits[rank][suit] = min(most, _B - 1)
        limits[14][suit] = limits[1][suit]
    return limits


Option = tuple[int, int, int, int, int, int, int]  # new code, g, j, gain, k3, new, h


def _options(
    rank: int,
    code: int,
    budget: int,
    mand: int,
    opt: int,
    hmin: int,
    cap: int,
    nxt1: int,
    nxt2: int,
    promise_max: int,
) -> list[Option]:
    """Every choice for one suit at one rank, from open sequences `code`."""
    n1, n2, n3 = code % _B, code // _B % _B, code // (_B * _B)
    value = _value(rank)
    most = min(cap, mand + opt + budget, _B - 1)
    out: list[Option] = []
    for k3 in range(n3 + 1):
        base = n1 + n2 + k3
        if base > most:
            break
        new_max = 0
        if k3 == n3 and rank <= 12:
            new_max = max(0, min(nxt2, nxt1 - n1, most - base))
        for new in range(new_max + 1):
            new_code = new + _B * n1 + _B * _B * (n2 + k3)
            for extra in range(most - base - new + 1):
                n = base + new + extra
                if n < mand:
                    continue
                free = n - mand
                for h in range(max(hmin, free - budget), min(opt, free) + 1):
                    gain = h * value
                    if rank == 1:
                        # extra slots split between groups and aces promised high
                        for a in range(min(extra, promise_max) + 1):
                            out.append((new_code, extra - a, free - h, gain, a, new, h))
                    else:
                        out.append((new_code, extra, free - h, gain, k3, new, h))
    return out


def solve(supply: Supply) -> Arrangement | None:
    """The arrangement placing every mandatory card that sheds the most hand points, or None."""
    jokers = supply.jokers_hand + supply.jokers_freed
    limits = _slot_limits(supply)
    cap = supply.cap
    # state: (codes per suit..., jokers used, promises packed) -> best points
    start: tuple[int, ...] = (0, 0, 0, 0, 0, 0)
    layer: dict[tuple[int, ...], int] = {start: 0}
    history: list[dict[tuple[int, ...], tuple[tuple[int, ...], Option | None]]] = []
    for rank in range(1, 14):
        # inside a rank the key grows (max group slots, total group slots)
        inner: dict[tuple[int, ...], int] = {(*key, 0, 0): pts for key, pts in layer.items()}
        for suit in range(4):
            i = suit * 13 + rank - 1
            mand = supply.table_real[i] + supply.fixed_jokers[i]
            opt = supply.hand_real[i]
            hmin = supply.hand_min[i]
            slot_cap = _NO_CAP if cap is None else cap[i]
            nxt1 = limits[rank + 1][suit]
            nxt2 = limits[rank + 2][suit] if rank + 2 <= 14 else 0
            promise_max = min(limits[13][suit], limits[12][suit], 7) if rank == 1 else 0
            cache: dict[tuple[int, int], list[Option]] = {}
            nxt: dict[tuple[int, ...], int] = {}
            back: dict[tuple[int, ...], tuple[tuple[int, ...], Option | None]] = {}
            for key, pts in inner.items():
                used = key[4]
                ck = (key[suit], jokers - used)
                options = cache.get(ck)
                if options is None:
                    options = _options(
                        rank, ck[0], ck[1], mand, opt, hmin, slot_cap, nxt1, nxt2, promise_max
                    )
                    cache[ck] = options
                for option in options:
                    new_code, g, j, gain, k3, _, _ = option
                    promises = key[5]
                    if rank == 1:
                        promises += k3 << (3 * suit)
                    state = list(key)
                    state[suit] = new_code
                    state[4] = used + j
                    state[5] = promises
                    if g > state[6]:
                        state[6] = g
                    state[7] += g
                    new_key = tuple(state)
                    total = pts + gain
                    if nxt.get(new_key, -1) < total:
                        nxt[new_key] = total
                        back[new_key] = (key, option)
            history.append(back)
            inner = nxt
        layer = {}
        back = {}
        for key, pts in inner.items():
            if 3 * key[6] <= key[7]:
                short = key[:6]
                if layer.get(short, -1) < pts:
                    layer[short] = pts
                    back[short] = (key, None)
        history.append(back)
    best_key: tuple[int, ...] | None = None
    best = -1
    for key, pts in layer.items():
        used = key[4]
        if used < supply.jokers_freed or not _closes(key):
            continue
        total = pts + JOKER_POINTS * (used - supply.jokers_freed)
        if total > best:
            best, best_key = total, key
    if best_key is None:
        return None
    return _build(supply, _trace(history, best_key), best)


def _closes(key: tuple[int, ...]) -> bool:
    """After rank 13 every open sequence ends, or takes a promised high ace (M2.4)."""
    for suit in range(4):
        code = key[suit]
        n1, n2, n3 = code % _B, code // _B % _B, code // (_B * _B)
        aces = key[5] >> (3 * suit) & 7
        if n1 or not n2 <= aces <= n2 + n3:
            return False
    return True


def _trace(
    history: list[dict[tuple[int, ...], tuple[tuple[int, ...], Option | None]]],
    key: tuple[int, ...],
) -> list[tuple[int, int, tuple[int, ...], Option]]:
    """The choices (rank, suit, state before, option) from rank 1 to 13."""
    steps: list[tuple[int, int, tuple[int, ...], Option]] = []
    position = len(history)
    for rank in range(13, 0, -1):
        position -= 1
        key = history[position][key][0]
        for suit in range(3, -1, -1):
            position -= 1
            before, option = history[position][key]
            assert option is not None
            steps.append((rank, suit, before, option))
            key = before
        key = key[:6]
    steps.reverse()
    return steps


def _card(rank: int, suit: int) -> Card:
    return Card.of(1 if rank == 14 else rank, suit)


def _fill(supply: Supply, rank: int, suit: int, h: int, j: int) -> list[TableCard]:
    """The cards filling the slots of one (rank, suit): mandatory, hand cards, free jokers."""
    i = suit * 13 + rank - 1
    card = Card(i)
    items = [TableCard(JOKER, card)] * supply.fixed_jokers[i]
    items += [TableCard(card)] * (supply.table_real[i] + h)
    items += [TableCard(JOKER, card)] * j
    return items


def _build(
    supply: Supply, steps: list[tuple[int, int, tuple[int, ...], Option]], points: int
) -> Arrangement:
    runs: list[list[list[TableCard]]] = [[] for _ in range(4)]
    melds: list[tuple[TableCard, ...]] = []
    high_aces: list[list[TableCard]] = [[] for _ in range(4)]
    played: list[Card] = []
    jokers_used = 0
    groups: list[list[TableCard]] = [[] for _ in range(4)]
    for rank, suit, _, option in steps:
        _, g, j, _, k3, new, h = option
        items = _fill(supply, rank, suit, h, j)
        played += [Card(suit * 13 + rank - 1)] * h
        jokers_used += j
        if rank == 1:
            aces = k3
            high_aces[suit] = items[len(items) - aces :] if aces else []
            items = items[: len(items) - aces]
            k3 = 0
        open_runs = runs[suit]
        short = [run for run in open_runs if len(run) < 3]
        long = [run for run in open_runs if len(run) >= 3]
        melds += [tuple(run) for run in long[k3:]]
        keep = short + long[:k3]
        for run, item in zip(keep, items, strict=False):
            run.append(item)
        rest = items[len(keep) :]
        fresh = [[item] for item in rest[:new]]
        groups[suit] = rest[new:]
        assert len(groups[suit]) == g
        runs[suit] = keep + fresh
        if suit == 3:
            melds += _groups(groups)
    for suit in range(4):
        high = high_aces[suit]
        short = [run for run in runs[suit] if len(run) < 3]
        long = [run for run in runs[suit] if len(run) >= 3]
        takers = short + long[: len(high) - len(short)]
        for run, ace in zip(takers, high, strict=True):
            run.append(ace)
        melds += [tuple(run) for run in runs[suit]]
    melds = [part for meld in melds for part in _split_long(meld)]
    played += [JOKER] * (jokers_used - supply.jokers_freed)
    return Arrangement(tuple(melds), tuple(sorted(played)), points)


def _groups(slots: list[list[TableCard]]) -> list[tuple[TableCard, ...]]:
    """Group slots of one rank into 3-4 card groups of distinct suits (3 * max <= total)."""
    count = max(len(s) for s in slots)
    if count == 0:
        return []
    built: list[list[TableCard]] = [[] for _ in range(count)]
    omit = 0  # each group misses at most one suit; hand the misses out one group each
    for suit_slots in slots:
        skipped = count - len(suit_slots)
        targets = [k for k in range(count) if not omit <= k < omit + skipped]
        omit += skipped
        for k, item in zip(targets, suit_slots, strict=True):
            built[k].append(item)
    return [tuple(group) for group in built]


def _split_long(meld: tuple[TableCard, ...]) -> list[tuple[TableCard, ...]]:
    """A 14-card ace-to-ace sequence becomes A..J and Q-K-A (M2.4)."""
    if len(meld) > 13:
        return [meld[:11], meld[11:]]
    return [meld]
