"""Speed of the Manipulation table maths: validating a submitted table, can_arrange, best_move.

Positions: a valid table built from random melds of a two-deck pack (106 cards, two jokers;
each joker lies on the table as often as any card would, i.e. with probability table/106,
declared in one of its melds), and a hand dealt from the remaining cards. For each table
size the script times, over several positions: `validate_meld_move` on a submitted table
(the best move found, or the table with one card laid off), `can_arrange` on the table cards
plus the hand (jokers free), and `best_move`. Prints min / median / max in milliseconds.

    .venv/bin/python bench/table.py            # 20 positions per row
    .venv/bin/python bench/table.py --quick    # 5 positions per row
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from itertools import pairwise

from domain.cards import JOKER, Card, TableCard
from domain.manipulation.table.rules import validate_meld_move
from domain.manipulation.table.solver import best_move, can_arrange

Meld = tuple[TableCard, ...]

ROWS = [(20, 10), (40, 15), (60, 15), (60, 20), (80, 15), (106 - 16, 16), (106, 0)]


def _random_meld(rng: random.Random, pool: Counter[Card], joker_rate: float) -> Meld | None:
    for _ in range(60):
        if rng.random() < 0.45:
            rank = rng.randint(1, 13)
            shape = [Card.of(rank, s) for s in rng.sample(range(4), rng.choice((3, 3, 4)))]
        else:
            suit = rng.randrange(4)
            size = rng.choice((3, 3, 4, 4, 5, 6, 7))
            start = rng.randint(1, 15 - size)
            shape = [Card.of((r - 1) % 13 + 1, suit) for r in range(start, start + size)]
        need: Counter[Card] = Counter()
        meld: list[TableCard] = []
        for card in shape:
            if pool[JOKER] > need[JOKER] and rng.random() < joker_rate:
                meld.append(TableCard(JOKER, card))
                need[JOKER] += 1
            else:
                meld.append(TableCard(card))
                need[card] += 1
        if all(pool[c] >= n for c, n in need.items()):
            pool.subtract(need)
            return tuple(meld)
    return None


def _fill_exactly(
    rng: random.Random, size: int, jokers: int
) -> tuple[tuple[Meld, ...], Counter[Card]]:
    """Random melds totalling exactly `size` cards holding exactly `jokers` jokers
    (retrying), and the cards left (with the other jokers)."""
    while True:
        pool = Counter([Card(i) for i in range(52)] * 2 + [JOKER] * jokers)
        melds: list[Meld] = []
        total = 0
        for _ in range(400):
            if total == size:
                if pool[JOKER]:
                    break
                pool[JOKER] = 2 - jokers
                return tuple(melds), pool
            meld = _random_meld(rng, pool, 0.15)
            if meld is None:
                break
            if total + len(meld) > size:
                pool.update(tc.card for tc in meld)
                continue
            melds.append(meld)
            total += len(meld)


def _whole_pack(rng: random.Random) -> tuple[Meld, ...]:
    """All 106 cards as a table: each suit of each pack cut into random sequences of 3+
    (the ace low or, with a shift, high), and the two jokers laid on sequence ends."""
    melds: list[list[TableCard]] = []
    for suit in range(4):
        for _ in range(2):
            start = rng.choice((1, 2))  # 2..A-high when 2
            ranks = [(r - 1) % 13 + 1 for r in range(start, start + 13)]
            cuts = [0]
            while cuts[-1] + 3 <= 13:
                step = rng.randint(3, 7)
                if 13 - (cuts[-1] + step) < 3:
                    break
                cuts.append(cuts[-1] + step)
            cuts.append(13)
            for a, b in pairwise(cuts):
                melds.append([TableCard(Card.of(r, suit)) for r in ranks[a:b]])
    for _ in range(2):
        short = [m for m in melds if len(m) < 13]
        meld = rng.choice(short)
        top = meld[-1].acts_as
        if top.rank == 1 or (top.rank == 13 and meld[0].acts_as.rank == 1):
            first = meld[0].acts_as  # extend below instead
            meld.insert(0, TableCard(JOKER, Card.of(first.rank - 1, first.suit)))
        else:
            meld.append(TableCard(JOKER, Card.of(top.rank % 13 + 1, top.suit)))
    return tuple(tuple(m) for m in melds)


def position(
    rng: random.Random, table_cards: int, hand_cards: int
) -> tuple[tuple[Meld, ...], tuple[Card, ...]]:
    if table_cards >= 106:
        return _whole_pack(rng), ()
    # each of the two jokers is on the table as often as a random card would be
    jokers = sum(rng.random() < table_cards / 106 for _ in range(2))
    melds, pool = _fill_exactly(rng, table_cards, jokers)
    rest = list(pool.elements())
    rng.shuffle(rest)
    return melds, tuple(sorted(rest[:hand_cards]))


def _timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


def _stats(samples: list[float]) -> str:
    return f"{min(samples):7.2f} {statistics.median(samples):7.2f} {max(samples):7.2f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5 positions per row")
    parser.add_argument("--positions", type=int, default=None)
    parser.add_argument("--seed", type=int, default=20150)
    args = parser.parse_args(argv)
    count = args.positions or (5 if args.quick else 20)
    rng = random.Random(args.seed)
    print(f"{count} positions per row; times in ms (min / median / max)")
    columns = ("validate T1", "can_arrange T0", "can_arrange T0+H", "best_move")
    header = f"{'table':>5} {'hand':>4} | " + " | ".join(f"{c:^23}" for c in columns)
    print(header)
    print("-" * len(header))
    for table_cards, hand_cards in ROWS:
        validate: list[float] = []
        arrange_table: list[float] = []
        arrange_all: list[float] = []
        solve: list[float] = []
        for _ in range(count):
            melds, hand = position(rng, table_cards, hand_cards)
            found = None
            if hand:
                solve.append(_timed(lambda m=melds, h=hand: best_move(m, h)))
                found = best_move(melds, hand)
            if found is not None:
                before, held, after = melds, hand, found.table
            else:  # no legal move (or no hand): validate laying the last meld from a hand
                before, after = melds[:-1], melds
                held = tuple(tc.card for tc in melds[-1])
            validate.append(
                statistics.median(
                    _timed(lambda b=before, h=held, a=after: validate_meld_move(b, h, a))
                    for _ in range(5)
                )
            )
            table_only = [tc.card for meld in melds for tc in meld]
            arrange_table.append(_timed(lambda c=table_only: can_arrange(c)))
            arrange_all.append(_timed(lambda c=table_only + list(hand): can_arrange(c)))
        dash = f"{'-':>7} {'-':>7} {'-':>7}"
        print(
            f"{table_cards:>5} {hand_cards:>4} | {_stats(validate)} | {_stats(arrange_table)} | "
            f"{_stats(arrange_all)} | {_stats(solve) if solve else dash}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
