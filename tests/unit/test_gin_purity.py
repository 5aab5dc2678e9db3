"""The gin engine is pure (architecture.md): a whole match plays with the clock, the global
random generator, the OS entropy source and file opening all made to raise."""

from __future__ import annotations

import builtins
import os
import random
import time
from typing import Any, NoReturn

import pytest

from domain import gin
from tests.unit.test_gin_support import PLAYERS, random_match


def _refuse(*_args: Any, **_kwargs: Any) -> NoReturn:
    raise AssertionError("the gin engine reached an impure function")


def test_a_full_match_needs_no_clock_no_global_random_no_io(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """G9 / architecture.md: create, decide, evolve, views and scoring, all pure."""
    for name in ("time", "monotonic", "perf_counter", "time_ns"):
        monkeypatch.setattr(time, name, _refuse)
    for name in ("random", "randrange", "randint", "choice", "shuffle", "getrandbits"):
        monkeypatch.setattr(random, name, _refuse)
    monkeypatch.setattr(os, "urandom", _refuse)
    monkeypatch.setattr(builtins, "open", _refuse)
    events, states = random_match(21, {"target_score": 40}, rng_seed=4)
    final = states[-1]
    assert gin.is_finished(final) and max(final.scores) >= 40
    for seat in (0, 1, 2, None):
        assert gin.view(final, seat)["status"] == "finished"
    unseeded = gin.create(PLAYERS, {}, None, "cd" * 32)
    assert unseeded[2].type == "RoundDealt"
    assert events[-1].type == "MatchFinished"
