"""Cheap certificates for `can_arrange` (M2): simple splits of the cards, tried before the
table program.

A split that puts every card into a meld is a certificate: the melds are checked one by one
(`meld_kind`), so when a split answers, the cards can be arranged, and the program (which
says only whether they can, and how) would have said so too. When no split answers, the
program runs as before; a split can miss an arrangement (an ace-high sequence, groups and
sequences interleaved) but never accept a wrong one. Three splits, each a few passes over
the 52 counts:

- every suit into sequences only;
- at each rank where three or more suits meet, one card of each into a group (twice, for
  the second copies), the rest into sequences;
- each suit's longest runs into sequences first, the rest into groups.

Sequences are split with the ace low only: each card extends a run that ends just below it
(the shortest first: a run under 3 cards must go on), else starts one; a run left under 3
cards fails the split (the greedy of "split a sorted multiset into runs of 3 or more").
Groups of one rank are dealt as `build._groups` deals them. Free jokers are then laid on
melds with room (`build.lay_jokers`), as `arrange._laid_on` and `best_above` do.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from domain.cards import Card, TableCard
from domain.manipulation.table.build import lay_jokers
from domain.manipulation.table.meld import Meld, meld_kind

Counts = list[int]  # 52 counts, identity suit * 13 + rank - 1
Runs = list[tuple[int, int, int]]  # sequences: (suit, first rank, last rank)
Split = tuple[Runs, Counts]  # the sequences, and the counts left for groups


def quick_arrangement(held: Sequence[int], jokers: int) -> tuple[Meld, ...] | None:
    """Every card of `held` (52 counts) in a valid meld by one of the splits, with `jokers`
    free jokers laid on; or None (then only the program can say)."""
    for split in _SPLITS:
        found = split(list(held))
        if found is None:
            continue
        runs, rest = found
        melds = _groups(rest)
        if melds is None:
            continue
        melds += [_sequence(suit, first, last) for suit, first, last in runs]
        if not all(meld_kind(meld) for meld in melds):
            continue  # never expected: the splits build valid melds; the check makes sure
        laid = lay_jokers(tuple(melds), jokers) if jokers else tuple(melds)
        if laid is not None:
            return laid
    return None


def _sequences_only(counts: Counts) -> Split | None:
    runs = _all_runs(counts)
    return None if runs is None else (runs, [0] * 52)


def _groups_first(counts: Counts) -> Split | None:
    grouped = [0] * 52
    for rank in range(13):
        for _ in range(2):
            present = [s * 13 + rank for s in range(4) if counts[s * 13 + rank]]
            if len(present) >= 3:
                for i in present:
                    counts[i] -= 1
                    grouped[i] += 1
    runs = _all_runs(counts)
    return None if runs is None else (runs, grouped)


def _runs_first(counts: Counts) -> Split | None:
    runs: Runs = []
    for suit in range(4):
        base = suit * 13
        rank = 0
        while rank < 13:
            end = rank
            while end < 13 and counts[base + end]:
                end += 1
            if end - rank >= 3:
                runs.append((suit, rank + 1, end))
                for r in range(rank, end):
                    counts[base + r] -= 1
                continue  # the same stretch again, for the second copies
            rank = end + 1
    return runs, counts


_SPLITS: tuple[Callable[[Counts], Split | None], ...] = (
    _sequences_only,
    _groups_first,
    _runs_first,
)


def _all_runs(counts: Counts) -> Runs | None:
    """Every card of `counts` into runs of 3 or more, suit by suit (see the module doc)."""
    runs: Runs = []
    for suit in range(4):
        found = _suit_runs(counts[suit * 13 : suit * 13 + 13])
        if found is None:
            return None
        runs += [(suit, first, last) for first, last in found]
    return runs


def _suit_runs(counts: Sequence[int]) -> list[tuple[int, int]] | None:
    """One suit's cards (13 counts, the ace low) into runs of 3 or more, or None."""
    done: list[tuple[int, int]] = []
    open_runs: list[tuple[int, int]] = []  # (first rank, length) of runs ending below
    for rank in range(1, 15):
        left = counts[rank - 1] if rank <= 13 else 0
        going: list[tuple[int, int]] = []
        for first, length in sorted(open_runs, key=lambda run: run[1]):
            if left:
                going.append((first, length + 1))
                left -= 1
            elif length < 3:
                return None
            else:
                done.append((first, first + length - 1))
        open_runs = going + [(rank, 1)] * left
    return done


def _groups(counts: Counts) -> list[Meld] | None:
    """Each rank's cards of `counts` into groups of 3-4 distinct suits, or None."""
    melds: list[Meld] = []
    for rank in range(13):
        cards = [s * 13 + rank for s in range(4) for _ in range(counts[s * 13 + rank])]
        if not cards:
            continue
        most = max(counts[s * 13 + rank] for s in range(4))
        total = len(cards)
        count = next((g for g in range(1, 5) if most <= g and 3 * g <= total <= 4 * g), 0)
        if not count:
            return None
        dealt: list[list[TableCard]] = [[] for _ in range(count)]
        for k, i in enumerate(cards):  # suit after suit: no group gets a suit twice
            dealt[k % count].append(TableCard(Card(i)))
        melds += [tuple(group) for group in dealt]
    return melds


def _sequence(suit: int, first: int, last: int) -> Meld:
    return tuple(TableCard(Card(suit * 13 + rank - 1)) for rank in range(first, last + 1))
