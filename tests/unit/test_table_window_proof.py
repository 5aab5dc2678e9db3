"""The window proof that going out is impossible (`table.window_proof`, M2, M5, M8.3), and the
shortcut `table.arrange` takes with it: checked against the program on the cases they
decide."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from domain.manipulation.table import arrange, best_above, going_out, window_proof
from domain.manipulation.table.arrange import solve
from domain.manipulation.table.breadth import search
from domain.manipulation.table.state import ZERO, Budget, Supply
from tests.unit.test_table_depth import going_out_supply
from tests.unit.test_table_solver_tail import window_counts

EVERY_WINDOW = tuple((first, width) for width in (1, 2, 3, 4) for first in range(1, 14))


@pytest.mark.parametrize("batch", range(4))
def test_a_window_refutes_only_what_cannot_go_out_m2_m8_3(batch: int) -> None:
    """M2, M8.3: when the cards of a window of ranks (the ranks within two of it optional,
    the free jokers optional) make no arrangement, the whole supply makes none (the
    program's normal form has no end state); and some windows do refute."""
    rng = random.Random(6_007 * batch + 1)
    refuted = 0
    for _ in range(12):
        supply, _ = going_out_supply(rng)
        supply = replace(supply, jokers_freed=rng.choice((0, 1, 2)))
        goes = bool(search(supply, normal=True).final)
        for window in EVERY_WINDOW:
            if window_proof.refutes(supply, window):
                refuted += 1
                assert not goes, window
    assert refuted > 0


def _supply(rng: random.Random) -> Supply:
    """Table cards (mandatory) and hand cards (optional) of a few suits in a few ranks,
    with 1-2 free jokers, freed or in the hand."""
    table, held = window_counts(rng, least_suits=2, widths=(3, 7), table=(3, 12), hand=(2, 8))
    hand_jokers = rng.choice((0, 0, 1))
    freed = rng.choice((1, 2)) - hand_jokers
    return Supply(table, ZERO, held, ZERO, None, hand_jokers, max(freed, 0))


@pytest.mark.parametrize("batch", range(4))
def test_the_window_shortcut_keeps_the_best_points_m2_m6_m8_3(
    batch: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """M2, M6, M8.3 (`going_out.window_drops`): with the window proof asked at once (every
    window of 1-4 ranks), `solve` gives the same best points as without it, and the
    shortcut answers some of them itself."""
    rng = random.Random(3_301 * batch + 17)
    answered = 0
    drops = going_out.window_drops

    def spy(supply: Supply, window: window_proof.Window, floor: int) -> best_above.Shortcut:
        nonlocal answered
        found = drops(supply, window, floor)
        answered += found.known
        return found

    for _ in range(400):
        supply = _supply(rng)
        if supply.jokers < going_out.PROBE_FROM:
            continue
        with monkeypatch.context() as patch:
            patch.setattr(going_out, "PROBE_FROM", 99)
            before = solve(replace(supply, budget=Budget(10**9)))
        with monkeypatch.context() as patch:
            patch.setattr(going_out, "PROBE", 0)
            patch.setattr(window_proof, "WINDOWS", EVERY_WINDOW)
            patch.setattr(arrange, "window_drops", spy)
            window_proof.refuting_window.cache_clear()
            found = solve(replace(supply, budget=Budget(10**9)))
        assert (found is None) == (before is None)
        if found is not None and before is not None:
            assert found.points == before.points
    window_proof.refuting_window.cache_clear()
    assert answered > 0
