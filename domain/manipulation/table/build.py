"""Melds from a traced run of the table program (`table.dp`), and extension jokers.

The program only counts sequences per suit and group slots per rank; this module replays its
choices rank by rank with real cards: which sequence continues, which closes, which slot a
free joker takes (the soft roles first, as the program counted them), how the group slots of
a rank split into groups of distinct suits, and where the free jokers not needed go (onto a
meld with room). A 14-card ace-to-ace sequence is split 11 + 3.
"""

from __future__ import annotations

from domain.cards import JOKER, Card, TableCard
from domain.manipulation.table.dp import Option, Supply, _decode
from domain.manipulation.table.rules import is_group, is_sequence


class _Run:
    """A sequence being built: its cards, and whether it ends in a free joker."""

    __slots__ = ("cards", "joker_end")

    def __init__(self, card: TableCard, joker: bool) -> None:
        self.cards = [card]
        self.joker_end = joker

    def add(self, card: TableCard, joker: bool) -> None:
        self.cards.append(card)
        self.joker_end = joker

    def joker_tail(self, normal: bool) -> bool:
        """A 4+ sequence ending in a free joker: in the normal form it must go on."""
        return normal and len(self.cards) >= 4 and self.joker_end


def build(
    supply: Supply,
    steps: list[tuple[int, int, Option]],
    key: int,
    high_jokers: tuple[int, ...],
    normal: bool,
) -> tuple[tuple[tuple[TableCard, ...], ...], tuple[Card, ...]] | None:
    """The melds of a traced solution, with the extension jokers added (None: no room)."""
    runs: list[list[_Run]] = [[] for _ in range(4)]
    melds: list[list[TableCard]] = []
    high_aces: list[list[TableCard]] = [[] for _ in range(4)]
    played: list[Card] = []
    jokers_used = 0
    groups: list[list[TableCard]] = [[] for _ in range(4)]
    for rank, suit, option in steps:
        code2, g, j, _, k3, new, h, _ = option
        i = suit * 13 + rank - 1
        card = Card(i)
        real = [TableCard(JOKER, card)] * supply.fixed_jokers[i]
        real += [TableCard(card)] * (supply.table_real[i] + h)
        free = [TableCard(JOKER, card)] * j
        played += [card] * h
        jokers_used += j
        if rank == 1:  # aces promised high: real cards first (the normal form needs them)
            take = min(k3, len(real))
            high_aces[suit] = real[:take] + free[: k3 - take]
            real, free = real[take:], free[k3 - take :]
            k3 = 0
        groups[suit] = _advance(runs[suit], melds, real, free, (k3, new, g), rank, normal)
        _close_extra(runs[suit], melds, code2, normal)
        if suit == 3:
            melds += _groups(groups)
    for suit in range(4):
        jokers_high = [TableCard(JOKER, Card.of(1, suit))] * high_jokers[suit]
        _high_end(runs[suit], melds, high_aces[suit], jokers_high, normal)
        jokers_used += high_jokers[suit]
    out = [part for meld in melds for part in _split_long(tuple(meld))]
    jokers = supply.jokers_hand + supply.jokers_freed
    if normal and jokers > jokers_used:
        extended = _extend(out, jokers - jokers_used)
        if extended is None:
            return None
        out, jokers_used = extended, jokers
    played += [JOKER] * (jokers_used - supply.jokers_freed)
    return tuple(out), tuple(sorted(played))


def _advance(
    open_runs: list[_Run],
    melds: list[list[TableCard]],
    real: list[TableCard],
    free: list[TableCard],
    counts: tuple[int, int, int],
    rank: int,
    normal: bool,
) -> list[TableCard]:
    """Apply one step to a suit's open sequences; returns the suit's group slots.

    Free jokers go to the soft roles first (short sequences, groups, new sequences where a
    joker may start one), the rest to long sequences; real cards fill every other slot."""
    k3, new, g = counts
    short = [run for run in open_runs if len(run.cards) < 3]
    tails = [run for run in open_runs if len(run.cards) >= 3 and run.joker_tail(normal)]
    closable = [run for run in open_runs if len(run.cards) >= 3 and not run.joker_tail(normal)]
    melds += [run.cards for run in closable[k3:]]
    long_slots = tails + closable[:k3]
    start_ok = not normal or rank >= 10
    soft: list[_Run | str] = [*short, *(["group"] * g), *(["new"] * (new if start_ok else 0))]
    hard_new = 0 if start_ok else new
    jokers = list(free)
    reals = list(real)
    group_slots: list[TableCard] = []
    fresh: list[_Run] = []
    for role in soft:
        is_joker = bool(jokers)
        item = jokers.pop() if is_joker else reals.pop()
        if role == "group":
            group_slots.append(item)
        elif role == "new":
            fresh.append(_Run(item, is_joker))
        else:
            assert isinstance(role, _Run)
            role.add(item, is_joker)
    for run in long_slots:
        is_joker = bool(jokers)
        run.add(jokers.pop() if is_joker else reals.pop(), is_joker)
    fresh += [_Run(reals.pop(), False) for _ in range(hard_new)]
    assert not jokers and not reals
    open_runs[:] = short + long_slots + fresh
    return group_slots


def _close_extra(
    open_runs: list[_Run], melds: list[list[TableCard]], code: int, normal: bool
) -> None:
    """Close the long sequences the state no longer keeps open (see `_options`)."""
    keep = _decode(code)[2]
    closable = [run for run in open_runs if len(run.cards) >= 3 and not run.joker_tail(normal)]
    for run in closable[keep:]:
        melds.append(run.cards)
        open_runs.remove(run)


def _high_end(
    open_runs: list[_Run],
    melds: list[list[TableCard]],
    aces: list[TableCard],
    jokers: list[TableCard],
    normal: bool,
) -> None:
    """Rank 14: real high aces go to joker-tailed sequences, then short ones, then long
    ones; high-ace jokers to the short ones left. Then every sequence closes."""
    tails = [run for run in open_runs if len(run.cards) >= 3 and run.joker_tail(normal)]
    short = [run for run in open_runs if len(run.cards) < 3]
    rest = [run for run in open_runs if len(run.cards) >= 3 and not run.joker_tail(normal)]
    order = tails + short + rest
    items = list(aces)
    for run in order:
        if not items:
            break
        run.add(items.pop(0), False)
    for run in short:
        if len(run.cards) < 3:
            run.add(jokers.pop(), True)
    assert not jokers and not items
    melds += [run.cards for run in open_runs]


def _groups(slots: list[list[TableCard]]) -> list[list[TableCard]]:
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
    return built


def _split_long(meld: tuple[TableCard, ...]) -> list[tuple[TableCard, ...]]:
    """A 14-card ace-to-ace sequence becomes A..J and Q-K-A (M2.4)."""
    if len(meld) > 13:
        return [meld[:11], meld[11:]]
    return [meld]


def _extend(melds: list[tuple[TableCard, ...]], jokers: int) -> list[tuple[TableCard, ...]] | None:
    """Add `jokers` free jokers onto melds with room (a sequence end, a group of three; a
    13-card sequence splits 11 + 2 and the two take the joker)."""
    out = list(melds)
    for _ in range(jokers):
        for k, meld in enumerate(out):
            grown = _grow(meld)
            if grown is not None:
                out[k] = grown
                break
        else:
            for k, meld in enumerate(out):
                if len(meld) == 13 and is_sequence(meld):
                    ordered = _in_order(meld)
                    head, tail = ordered[:11], ordered[11:]
                    out[k : k + 1] = [head, _grow(tail) or tail]
                    break
            else:
                return None
    return out


def _in_order(meld: tuple[TableCard, ...]) -> tuple[TableCard, ...]:
    """A sequence in rank order (a high ace last)."""
    ranks = {tc.acts_as.rank for tc in meld}
    high = 1 in ranks and 13 in ranks and 2 not in ranks
    return tuple(
        sorted(meld, key=lambda tc: 14 if high and tc.acts_as.rank == 1 else tc.acts_as.rank)
    )


def _grow(meld: tuple[TableCard, ...]) -> tuple[TableCard, ...] | None:
    acting = [tc.acts_as for tc in meld]
    if is_group(meld):
        if len(meld) == 4:
            return None
        suit = next(s for s in range(4) if all(c.suit != s for c in acting))
        return (*meld, TableCard(JOKER, Card.of(acting[0].rank, suit)))
    suit = acting[0].suit
    ranks = {c.rank for c in acting}
    for rank in range(1, 14):
        trial = (*meld, TableCard(JOKER, Card.of(rank, suit)))
        if rank not in ranks and is_sequence(trial):
            return trial
    return None
