"""Each speed trick of the domain against the plain code it stands for (bench/README.md):
microseconds per call of both, on states of one seeded random match of each game.

    python bench/tricks.py [--number N]

A row is `trick, plain us, fast us, gain` (plain / fast). Both sides are timed in this
process, best of 5 repeats of N calls, so a machine shared with other work slows both alike.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import timeit
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from domain import gin, manipulation
from domain.events import Event
from domain.gin import views as gin_views
from domain.gin.fast_play import accepted_play
from domain.gin.moves import decide_in_full
from domain.gin.state import GinState, evolve, evolve_plainly
from domain.manipulation import state as manip_state
from domain.manipulation import views as manip_views
from domain.shapes import JSON
from tests.support.manipulation_helpers import random_match as manip_match
from tests.unit.test_gin_support import random_match as gin_match


@dataclasses.dataclass(frozen=True, slots=True)
class PlainEvent:
    """`Event` with the `__init__` a frozen dataclass generates."""

    type: str
    data: dict[str, JSON] = dataclasses.field(default_factory=dict)
    v: int = 1


def _us(call: Callable[[], object], number: int) -> float:
    return min(timeit.repeat(call, number=number, repeat=5)) / number * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--number", type=int, default=2000)
    n = parser.parse_args().number
    events, states = gin_match(3, {"target_score": 100})
    played = [k for k, s in enumerate(states) if gin.to_act(s) is not None]
    at = played[len(played) // 2]
    state, event = states[at], events[at + 1]
    seat = gin.to_act(state)
    assert seat is not None
    move = gin.legal_moves(state, seat)[0]
    _, log = manip_match(3, 3, {"target_score": 100})
    m_state = manipulation.initial_state()
    for e in log[: len(log) // 2]:
        m_state = manipulation.evolve(m_state, e)
    m_seat = manipulation.to_act(m_state) or 0
    data: dict[str, JSON] = {"seat": 1, "card": "AS"}
    rows = [
        ("Event.__init__ (events.py)", lambda: PlainEvent("X", data), lambda: Event("X", data)),
        (
            "_Draft fold step (gin/state.py)",
            lambda: evolve_plainly(state, event),
            lambda: evolve(state, event),
        ),
        (
            "accepted_play (gin/fast_play.py)",
            lambda: decide_in_full(state, seat, move),
            lambda: gin.decide(state, seat, move),
        ),
        (
            "gin ViewCache (gin/views.py)",
            lambda: gin_views.view(state, seat),
            lambda: gin.view(state, seat),
        ),
        (
            "manipulation ViewCache + Listings",
            lambda: manip_views.view(m_state, m_seat),
            lambda: manipulation.view(m_state, m_seat),
        ),
        (
            "State._with (manipulation/state.py)",
            lambda: dataclasses.replace(m_state, draws=1),
            lambda: manip_state._with(m_state, draws=1),
        ),
    ]
    assert accepted_play(state, seat, move) is not None
    print(f"{'trick':40} {'plain us':>9} {'fast us':>9} {'gain':>6}")
    for name, plain, fast in rows:
        slow_us, fast_us = _us(plain, n), _us(fast, n)
        print(f"{name:40} {slow_us:9.2f} {fast_us:9.2f} {slow_us / fast_us:5.1f}x")
    assert isinstance(state, GinState)


if __name__ == "__main__":
    main()
