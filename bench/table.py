"""Speed of Manipulation (issue 13): views, the table maths and random play, with gin's
view as the reference measured in the same run.

Rows (min / median / p99 / max in ms, and the issue's target):
- a view at every decision of random 3-player matches, three-hand-gin and Manipulation
  (each state is new, so each Manipulation view is a first view), and their ratio;
- `validate_meld_move` on a whole-pack (106-card) table;
- `can_arrange` on valid tables of 3-30 random cards (jokers taken off) plus 0, 1 or 2 free
  jokers;
- `best_move` at 60, 80 and 91 table cards with 15 hand cards (a table built from random
  melds of the two-deck pack, each joker on the table as often as a card would be);
- random play through the domain surface (arena.harness.play_match), hands per second with
  2 and 4 players.

    .venv/bin/python bench/table.py            # 40 positions per row, 6 matches
    .venv/bin/python bench/table.py --quick    # 8 positions per row, 2 matches
    .venv/bin/python bench/table.py --solver --positions 150 --cpu   # the tail, CPU time

`--positions N` sets the positions of each solver row (a larger sample for the p99 and the
budget count), `--solver` runs only the solver rows, `--cpu` times them in process CPU
time (steadier than wall-clock time on a busy machine), and `--slowest N` lists each
solver row's N slowest positions (index in the row, ms).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from functools import partial
from itertools import pairwise
from pathlib import Path
from typing import TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena import harness as arena
from domain import bots
from domain.cards import JOKER, Card, TableCard
from domain.events import SYSTEM
from domain.manipulation.melds import best_move
from domain.manipulation.table.arrange import can_arrange
from domain.manipulation.table.rules import validate_meld_move
from domain.manipulation.table.solver import BUDGET
from domain.variants import Game, get_variant, move_from_json

Meld = tuple[TableCard, ...]
T = TypeVar("T")
S = TypeVar("S")
M = TypeVar("M")
V = TypeVar("V")


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


CLOCK: list[Callable[[], float]] = [time.perf_counter]  # the solver rows' clock (--cpu)
SLOWEST = [0]  # how many of each solver row's slowest positions to list (--slowest)


def _timed(fn: Callable[[], object]) -> float:
    return _run(fn)[0]


def _run(fn: Callable[[], T]) -> tuple[float, T]:
    """(ms on the solver rows' clock, what `fn` returned)."""
    clock = CLOCK[0]
    start = clock()
    found = fn()
    return (clock() - start) * 1000, found


def _stats(samples: list[float]) -> tuple[float, float, float, float]:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return ordered[0], statistics.median(ordered), p99, ordered[-1]


def _row(name: str, samples: list[float], target: str = "", met: bool | None = None) -> str:
    low, mid, p99, high = _stats(samples)
    verdict = "" if met is None else ("  met" if met else "  NOT MET")
    return (
        f"{name:<44} {len(samples):>5} {low:>9.3f} {mid:>9.3f} {p99:>9.3f} {high:>9.3f}  "
        f"{target}{verdict}"
    )


def _median(samples: list[float]) -> float:
    return _stats(samples)[1]


def _p99(samples: list[float]) -> float:
    return _stats(samples)[2]


# --- views: a first view of a position, both games in one run ----------------------------


def _views(variant: str, players: int, matches: int, seed: int) -> list[float]:
    """Time `view(state, seat)` at every decision of random play (each state is new, so
    every view is a first view: nothing cached for it)."""
    game = get_variant(variant)
    lineup = ["random"] * players
    samples: list[float] = []
    for spec in arena.plan(lineup, matches, seed):
        state = game.initial_state()
        names = [{"name": f"p{k}", "bot": "random"} for k in range(players)]
        for event in game.create(names, {}, spec.seed, ""):
            state = game.evolve(state, event)
        bot = bots.get_bot(variant, "random")
        for _ in range(4000):
            if game.is_finished(state):
                break
            due = game.pending(state)
            if due is not None:
                state = _apply(game, state, -1, due)
                continue
            seat = game.to_act(state)
            assert seat is not None  # not finished, nothing pending: a seat is to act
            start = time.perf_counter()
            view = game.view(state, seat)
            samples.append((time.perf_counter() - start) * 1000)
            you = view["you"]
            assert you is not None  # a seat's view has its `you`
            rng = arena.bot_rng(spec.seed, view["version"], seat)
            move = bot.choose(view, you["legal_moves"], rng)
            state = _apply(game, state, seat, move_from_json(move))
    return samples


def _apply(game: Game[S, M, V], state: S, seat: int, move: M) -> S:
    who = SYSTEM if seat < 0 else seat
    for event in game.decide(state, who, move):
        state = game.evolve(state, event)
    return state


def _hands_per_second(players: int, matches: int, seed: int) -> tuple[float, int]:
    """Random play through the domain surface (arena.harness.play_match): rounds per second."""
    specs = arena.plan(["random"] * players, matches, seed)
    start = time.perf_counter()
    rounds = sum(
        len(arena.play_match("manipulation-rummy", spec, {"target_score": 150}).round_points)
        for spec in specs
    )
    return rounds / (time.perf_counter() - start), rounds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer positions and matches")
    parser.add_argument("--seed", type=int, default=20150)
    parser.add_argument("--positions", type=int, help="positions per solver row (40; 8 quick)")
    parser.add_argument("--solver", action="store_true", help="only the solver rows")
    parser.add_argument("--cpu", action="store_true", help="solver rows in process CPU time")
    parser.add_argument(
        "--slowest", type=int, default=0, help="print the N slowest positions of each row"
    )
    args = parser.parse_args(argv)
    count = args.positions or (8 if args.quick else 40)
    matches = 2 if args.quick else 6
    rng = random.Random(args.seed)
    if args.cpu:
        CLOCK[0] = time.process_time
    clock = "process CPU time" if args.cpu else "wall-clock time"
    print(f"times in ms ({clock} for the solver rows), one process; seed {args.seed}")
    print(f"{'measure':<44} {'n':>5} {'min':>9} {'median':>9} {'p99':>9} {'max':>9}  target")
    SLOWEST[0] = args.slowest
    if args.solver:
        _solver_rows(rng, count)
        return 0
    gin = _views("three-hand-gin", 3, matches, args.seed)
    manip = _views("manipulation-rummy", 3, matches, args.seed)
    ratio = [m / g for m, g in zip(_stats(manip), _stats(gin), strict=True)]
    print(_row("view, three-hand-gin (reference)", gin))
    met = ratio[1] <= 5 and ratio[2] <= 50
    print(_row("view, manipulation (first view)", manip, "<= 5x median, 50x p99", met))
    print(f"{'  ratio manipulation / gin':<44} {'':>5} " + " ".join(f"{r:>9.1f}" for r in ratio))
    _solver_rows(rng, count)
    for players, target in ((2, 100), (4, 40)):
        rate, rounds = _hands_per_second(players, matches, args.seed)
        verdict = "met" if rate >= target else "NOT MET"
        print(
            f"{f'random play, {players} players: hands/s':<44} {rounds:>5} {rate:>9.1f}"
            f"{'':>30}  >= {target}  {verdict}"
        )
    return 0


def _solver_rows(rng: random.Random, count: int) -> None:
    validate: list[float] = []
    for _ in range(count):
        melds = _whole_pack(rng)
        before, after = melds[:-1], melds
        held = tuple(tc.card for tc in melds[-1])
        validate.append(_timed(partial(validate_meld_move, before, held, after)))
    print(_row("validate_meld_move, 106-card table", validate, "<= 1 ms", _median(validate) <= 1))
    for jokers in (0, 1, 2):
        arrange: list[float] = []
        for _ in range(count):
            melds, _ = position(rng, rng.randint(3, 30), 0)
            cards = [tc.card for meld in melds for tc in meld if not tc.card.is_joker]
            cards += [JOKER] * jokers
            arrange.append(_timed(partial(can_arrange, cards)))
        name = f"can_arrange, 3-30 cards, {jokers} free jokers"
        print(_row(name, arrange, "<= 1 ms median", _median(arrange) <= 1))
        _print_slowest(arrange)
    for table_cards in (60, 80, 91):
        solve: list[float] = []
        unproven = 0
        for _ in range(count):
            melds, hand = position(rng, table_cards, 15)
            took, found = _run(partial(best_move, melds, hand))
            solve.append(took)
            unproven += found is not None and not found.proven
        met = _median(solve) <= 20 and _p99(solve) <= 200 and not unproven
        name = f"best_move, {table_cards} table cards, 15 in hand"
        print(_row(name, solve, "<= 20 ms median, 200 p99, exact", met))
        print(f"  budget of {BUDGET:,} states spent (not proven best): {unproven} of {count}")
        _print_slowest(solve)


def _print_slowest(samples: list[float]) -> None:
    """The row's slowest positions (index in the row, ms), when `--slowest` asks."""
    if SLOWEST[0]:
        worst = sorted(enumerate(samples), key=lambda item: -item[1])[: SLOWEST[0]]
        print("  slowest: " + ", ".join(f"#{k} {ms:.1f}" for k, ms in worst))


if __name__ == "__main__":
    sys.exit(main())
