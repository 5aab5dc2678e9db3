"""The one step loop (`table.step.successors`, M2) against its plain form: each option of
`choices.options` kept when it passes the floor and `entered` finds its groups can still
form, in the options' order."""

from __future__ import annotations

import random

from domain.manipulation.table.choices import Option, options
from domain.manipulation.table.state import SUIT, USED, WIDTH, Supply, cells
from domain.manipulation.table.step import (
    Limits,
    Successor,
    advance,
    close_rank,
    entered,
    group_room,
    needs,
    successors,
)


def _plain(key: int, pts: int, found: tuple[Option, ...], limits: Limits) -> list[Successor]:
    out: list[Successor] = []
    for delta, group, gain, choice in found:
        if pts + gain <= limits.below:
            continue
        new_key = entered(key, delta, group, limits)
        if new_key >= 0:
            out.append((new_key, pts + gain, choice))
    return out


def _supply(rng: random.Random) -> Supply:
    table = [rng.choice((0, 0, 0, 1, 1, 2)) for _ in range(52)]
    hand = [rng.choice((0, 0, 0, 0, 1)) for _ in range(52)]
    jokers = rng.randint(0, 2)
    zero = (0,) * 52
    return Supply(tuple(table), zero, tuple(hand), zero, None, jokers, 0)


def test_successors_is_the_plain_step_loop_m2() -> None:
    rng = random.Random(29)
    compared = 0
    for _ in range(40):
        supply = _supply(rng)
        for normal in (False, True):
            steps = cells(supply, normal)
            need = needs(normal)
            layer = {0: 0}
            for rank in range(1, 5):
                row = steps[4 * (rank - 1) : 4 * rank]
                room = group_room(row, supply.jokers)
                for cell in row:
                    last = cell.suit == 3
                    below = rng.choice((-1, -1, 5, 20))
                    limits = Limits(below, room[cell.suit], last, supply.jokers, need)
                    for key, pts in layer.items():
                        code = key >> WIDTH * cell.suit & SUIT
                        found = options(cell, code, supply.jokers - (key >> USED & 7))
                        assert successors(key, pts, found, limits) == _plain(
                            key, pts, found, limits
                        )
                        compared += 1
                    every = Limits(-1, room[cell.suit], last, supply.jokers, need)
                    layer, _ = advance(cell, layer, supply.jokers, every)
                layer, _ = close_rank(layer, need)
    assert compared > 500
