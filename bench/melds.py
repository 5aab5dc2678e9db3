"""Gin meld speed (issue 2): hands per second for deadwood, uniform and meld-heavy, 10 and 11.

Run from the project root: `.venv/bin/python bench/melds.py` (add `--quick` for a short run).
Each row times `--runs` passes over the same `--hands` pre-built hands on one core and prints
the min / median / max hands per second of those passes.

- `deadwood_of_mask`: the search itself, on a card mask (what a bot's inner loop calls).
- `deadwood(cards)`: the public call on a tuple of Card objects (mask conversion included).
- `best_melds(cards)`: the public call that also builds the Arrangement.
- `layoffs` / `choose_knock_arr.` (deals per second): the defender's lay-offs against the
  knocker's best melds, and the knock-without-melds choice among minimal arrangements.

Meld-heavy hands are built from 2-3 melds of the deck, each after the first overlapping the
cards so far (70% of the time), trimmed or filled up with random cards to the hand size.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from domain.cards import from_mask
from domain.gin.melds import (
    best_melds,
    choose_knock_arrangement,
    deadwood,
    deadwood_of_mask,
    layoffs,
)
from domain.gin.melds.core import ALL_MELDS


def uniform_hand(rng: random.Random, size: int) -> int:
    return sum(1 << i for i in rng.sample(range(52), size))


def meld_heavy_hand(rng: random.Random, size: int) -> int:
    cards = rng.choice(ALL_MELDS)
    for _ in range(rng.choice((1, 2))):
        touching = [m for m in ALL_MELDS if m & cards and m & ~cards]
        cards |= rng.choice(touching if rng.random() < 0.7 else ALL_MELDS)
    bits = [i for i in range(52) if cards >> i & 1]
    chosen = rng.sample(bits, min(size, len(bits)))
    rest = [i for i in range(52) if i not in chosen]
    return sum(1 << i for i in chosen + rng.sample(rest, size - len(chosen)))


T = TypeVar("T")


def time_pass(function: Callable[[T], object], hands: Sequence[T]) -> float:
    start = time.perf_counter()
    for hand in hands:
        function(hand)
    return len(hands) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 runs of 2,000 hands")
    parser.add_argument("--hands", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()
    hands, runs = (2_000, 3) if args.quick else (args.hands, args.runs)
    rng = random.Random(args.seed)
    functions: list[tuple[str, Callable[[Any], object], bool]] = [
        ("deadwood_of_mask", deadwood_of_mask, True),
        ("deadwood(cards)", deadwood, False),
        ("best_melds(cards)", best_melds, False),
    ]
    print(f"{runs} runs of {hands:,} hands each; hands per second (one core)")
    header = f"{'hands':<11} {'cards':>5}  {'function':<18} {'min':>10} {'median':>10} {'max':>10}"
    print(header)
    print("-" * len(header))
    shapes: list[str] = []
    for kind, build in (("uniform", uniform_hand), ("meld-heavy", meld_heavy_hand)):
        for size in (10, 11):
            masks = [build(rng, size) for _ in range(hands)]
            as_cards = [from_mask(m) for m in masks]
            shapes.append(describe(kind, size, masks))
            for name, function, on_masks in functions:
                data: list[object] = list(masks) if on_masks else list(as_cards)
                rates = [time_pass(function, data) for _ in range(runs)]
                print(
                    f"{kind:<11} {size:>5}  {name:<18} {min(rates):>10,.0f} "
                    f"{statistics.median(rates):>10,.0f} {max(rates):>10,.0f}"
                )
    for name, rates in knock_rows(rng, max(hands // 10, 200), runs):
        print(
            f"{'deals':<11} {10:>5}  {name:<18} {min(rates):>10,.0f} "
            f"{statistics.median(rates):>10,.0f} {max(rates):>10,.0f}"
        )
    print()
    print("\n".join(shapes))


def knock_rows(rng: random.Random, deals: int, runs: int) -> list[tuple[str, list[float]]]:
    """Deals per second for the knock-time calls: lay-offs, and the knocker's arrangement.

    A deal is a meld-heavy knocker hand and a defender hand drawn from the 20 cards of a
    meld-heavy pool; the knocker shows the melds of `best_melds`.
    """
    built = []
    for _ in range(deals):
        pool = meld_heavy_hand(rng, 20)
        bits = [i for i in range(52) if pool >> i & 1]
        knocker = sum(1 << i for i in rng.sample(bits, 10))
        built.append((from_mask(knocker), from_mask(pool & ~knocker)))
    shown = [(d, best_melds(k).melds) for k, d in built]
    return [
        ("layoffs", [time_pass(lambda x: layoffs(*x), shown) for _ in range(runs)]),
        (
            "choose_knock_arr.",
            [time_pass(lambda x: choose_knock_arrangement(*x), built) for _ in range(runs)],
        ),
    ]


def describe(kind: str, size: int, masks: list[int]) -> str:
    """What the hands look like: how many hold a meld, and could knock (G6.2, limit 10)."""
    with_meld = sum(any(m & meld == meld for meld in ALL_MELDS) for m in masks)
    knockable = sum(deadwood_of_mask(m) <= 10 for m in masks)
    return (
        f"{kind} {size}-card hands: {100 * with_meld / len(masks):.1f}% hold a meld, "
        f"{100 * knockable / len(masks):.1f}% have deadwood <= 10"
    )


if __name__ == "__main__":
    main()
