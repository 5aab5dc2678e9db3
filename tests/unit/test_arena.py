"""The arena (issue 5): interval maths, seat rotation, and tiny deterministic runs."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from arena import harness as arena

ROOT = Path(__file__).resolve().parents[2]


def test_wilson_interval_of_a_known_case() -> None:
    """8 successes in 10: p = 0.8, Wilson 95% interval [0.490, 0.943]."""
    got = arena.wilson(8, 10)
    assert got.value == pytest.approx(0.8)
    assert got.low == pytest.approx(0.4902, abs=5e-4)
    assert got.high == pytest.approx(0.9433, abs=5e-4)


def test_wilson_interval_at_the_edges() -> None:
    """0 of 10 keeps a low of 0 and a high of 0.278; no trials says nothing: [0, 1]."""
    none = arena.wilson(0, 10)
    assert (none.value, none.low) == (0.0, 0.0)
    assert none.high == pytest.approx(0.2775, abs=5e-4)
    assert (arena.wilson(0, 0).low, arena.wilson(0, 0).high) == (0.0, 1.0)
    full = arena.wilson(10, 10)
    assert full.high == pytest.approx(1.0) and full.low == pytest.approx(0.7225, abs=5e-4)


def test_mean_interval_uses_student_t_for_few_values() -> None:
    """1..5: mean 3, s = 1.581, t(4) = 2.776, so 3 +- 1.963."""
    got = arena.mean_interval([1, 2, 3, 4, 5])
    assert got.value == 3
    assert got.low == pytest.approx(1.037, abs=1e-3)
    assert got.high == pytest.approx(4.963, abs=1e-3)
    many = arena.mean_interval([0, 1] * 50)
    assert many.high - many.value == pytest.approx(1.96 * 0.50252 / 10, abs=1e-3)


def test_seatings_are_the_distinct_permutations() -> None:
    assert len(arena.seatings(["expert", "basic", "random"])) == 6
    assert arena.seatings(["expert", "basic", "basic"]) == (
        ("expert", "basic", "basic"),
        ("basic", "expert", "basic"),
        ("basic", "basic", "expert"),
    )


def test_plan_rotates_every_bot_through_every_seat_of_each_deal() -> None:
    """G1.2: the role draw depends on the deal, so rotating seats over one deal rotates roles."""
    specs = arena.plan(["expert", "basic", "random"], 12, seed=5)
    assert [s.index for s in specs] == list(range(12))
    for block in (specs[:6], specs[6:]):
        assert len({s.seed for s in block}) == 1
        for seat in range(3):
            assert Counter(s.lineup[seat] for s in block) == {"expert": 2, "basic": 2, "random": 2}
    assert specs[0].seed != specs[6].seed
    assert arena.plan(["expert", "basic", "random"], 12, seed=5) == specs
    assert arena.plan(["expert", "basic", "random"], 12, seed=6)[0].seed != specs[0].seed


def test_check_lineup_refuses_wrong_counts_and_names() -> None:
    with pytest.raises(arena.ArenaError, match="exactly 3"):
        arena.check_lineup("three-hand-gin", ["expert", "basic"])
    with pytest.raises(arena.ArenaError, match="2 to 5"):
        arena.check_lineup("manipulation-rummy", ["basic"] * 6)
    with pytest.raises(arena.ArenaError, match="unknown"):
        arena.check_lineup("manipulation-rummy", ["basic", "grandmaster"])
    arena.check_lineup("manipulation-rummy", ["expert", "basic", "basic", "basic"])


@pytest.mark.parametrize(
    ("variant", "lineup"),
    [
        ("three-hand-gin", ("expert", "basic", "random")),
        ("manipulation-rummy", ("expert", "basic")),
    ],
)
def test_a_tiny_run_is_deterministic_and_adds_up(variant: str, lineup: tuple[str, ...]) -> None:
    """Every match ends with a winner; the table counts every seat; a rerun is identical."""
    options = {"target_score": 20}
    records = arena.run(variant, lineup, 2, seed=3, options=options)
    assert records == arena.run(variant, lineup, 2, seed=3, options=options)
    for record in records:
        assert record.winners and record.moves > 0
        assert len(record.scores) == len(lineup)
        assert max(record.scores) >= 20
        totals = [sum(points[s] for points in record.round_points) for s in range(len(lineup))]
        assert all(t <= s for t, s in zip(totals, record.scores, strict=True))
    rows = arena.summarise(records)
    assert [r.bot for r in rows] == list(dict.fromkeys(n for r in records for n in r.lineup))
    assert sum(r.seat_matches for r in rows) == 2 * len(lineup)
    assert sum(r.matches_won for r in rows) >= 2
    table = arena.format_table(rows)
    assert all(name in table for name in lineup)


def test_the_cli_prints_a_table_and_the_rate() -> None:
    """`python -m cli.arena`: the results table and matches per second."""
    done = subprocess.run(
        [sys.executable, "-m", "cli.arena", "--variant", "manipulation-rummy",
         "--bots", "basic,random", "--matches", "2", "--seed", "1", "--target-score", "20"],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "matches/s" in done.stdout and "basic" in done.stdout and "random" in done.stdout
    assert "2/2 matches" in done.stderr
    bad = subprocess.run(
        [sys.executable, "-m", "cli.arena", "--variant", "three-hand-gin",
         "--bots", "basic,basic", "--matches", "1"],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert bad.returncode == 2 and "exactly 3" in bad.stderr


def test_team_margins_split_rounds_by_the_advisor_bot() -> None:
    """G1.3, G7.4: CAPTAIN's points minus BOX's per round, keyed by the ADVISOR's bot name;
    rounds of a game without teams count nowhere; the gap has a Welch interval."""
    record = arena.MatchRecord(
        index=0,
        seed=1,
        lineup=("coach", "basic", "basic"),
        scores=(0, 0, 0),
        winners=(),
        round_points=((10, 0, 0), (0, 7, 0), (0, 0, 12), (4, 0, 0)),
        round_winners=((0,), (1,), (2,), (0,)),
        moves=1,
        round_roles=((1, 0, 2), (0, 1, 2), (1, 2, 0), None),
    )
    margins = arena.team_margins([record])
    assert margins == {"coach": [12.0], "basic": [10.0, 7.0]}
    gap = arena.difference_interval([1.0, 3.0], [0.0, 0.0])
    assert gap.value == 2.0 and gap.low < 2.0 < gap.high
    assert "coach" in arena.format_teams([record])


def test_an_advised_run_is_deterministic_and_records_roles() -> None:
    """G1.4: with advice on, ADVISOR's bot advises before CAPTAIN's moves; the run repeats."""
    one = arena.run("three-hand-gin", ("coach", "basic", "basic"), 1, 9, {"target_score": 20})
    specs = arena.plan(("coach", "basic", "basic"), 1, 9)
    advised = [
        arena.play_match("three-hand-gin", s, {"target_score": 20}, advice=True) for s in specs
    ]
    again = [
        arena.play_match("three-hand-gin", s, {"target_score": 20}, advice=True) for s in specs
    ]
    assert advised == again
    assert all(len(r.round_roles) == len(r.round_points) for r in (*one, *advised))
    assert all(roles is not None for r in advised for roles in r.round_roles)


def test_advice_reaches_the_captains_bot_in_a_copy_of_the_view() -> None:
    """G1.4: CAPTAIN's bot reads the advice as `you.advice`; the game's view is left as it is
    declared (GinYou has no `advice`: no API view shows it)."""
    seen: list[Mapping[str, Any]] = []
    spec = arena.plan(("coach", "basic", "basic"), 1, 9)[0]
    arena.play_match("three-hand-gin", spec, {"target_score": 20}, advice=True, observe=seen.append)
    advised = [view for view in seen if view["you"] and "advice" in view["you"]]
    assert advised, "the coach advised at least once"
    view = {"version": 3, "you": {"seat": 1, "legal_moves": []}}
    copied = arena.with_advice(view, {"text": "draw", "move": None})
    assert copied["you"]["advice"] == {"text": "draw", "move": None}
    assert view == {"version": 3, "you": {"seat": 1, "legal_moves": []}}
