"""When an append writes a deadline job, and which job carries a turn (store/clock.py,
issue 31: the cost of a clocked move): exact in milliseconds."""

from __future__ import annotations

from dataclasses import replace

from domain.clock import ClockOptions
from store.clock import (
    SKIP_MARGIN_MS,
    Turn,
    advance,
    carrier_job,
    deadline_job_id,
    is_stale,
    opening,
    with_deadline_job,
)

PER_MOVE = ClockOptions(mode="per_move", move_s=30)
FISCHER = ClockOptions(mode="fischer", initial_s=60, increment_s=5)


def _first(clock: ClockOptions) -> Turn:
    """The first turn (seat 0, from 0 ms) of a match at version 3, its job recorded."""
    turn, jobs = with_deadline_job("m_x", 3, advance(clock, opening(clock, 2), None, 0, 0), 0)
    assert turn is not None and [j.job_id for j in jobs] == [deadline_job_id("m_x", 3)]
    assert [j.at_ms for j in jobs] == [turn.deadline_ms] and jobs[0].args == ("m_x", 3)
    assert (turn.job_v, turn.job_at_ms) == (3, turn.deadline_ms)
    return turn


def test_the_first_turn_writes_its_job_and_records_it() -> None:
    assert _first(PER_MOVE).job_at_ms == 30_000
    assert _first(FISCHER).job_at_ms == 60_000


def test_moves_within_the_pending_jobs_time_write_none() -> None:
    turn: Turn | None = _first(PER_MOVE)
    for version, now in ((4, 1_000), (5, 2_000), (6, 28_999 - SKIP_MARGIN_MS)):
        assert turn is not None and turn.seat is not None
        after = advance(PER_MOVE, turn, turn.seat, 1 - turn.seat, now)
        turn, jobs = with_deadline_job("m_x", version, after, now)
        assert jobs == [] and turn is not None
        assert (turn.job_v, turn.job_at_ms, turn.deadline_ms) == (3, 30_000, now + 30_000)


def test_a_move_near_the_pending_jobs_time_writes_its_own() -> None:
    turn = _first(PER_MOVE)
    now = 30_000 - SKIP_MARGIN_MS
    after = advance(PER_MOVE, turn, 0, 1, now)
    recorded, jobs = with_deadline_job("m_x", 4, after, now)
    assert [(j.job_id, j.at_ms) for j in jobs] == [(deadline_job_id("m_x", 4), now + 30_000)]
    assert recorded is not None and (recorded.job_v, recorded.job_at_ms) == (4, now + 30_000)


def test_a_deadline_earlier_than_the_pending_job_writes_its_own() -> None:
    turn = _first(FISCHER)  # seat 0's 60 s
    spent = replace(turn, banks=(60_000, 8_000))  # seat 1 has 8 s left
    after = advance(FISCHER, spent, 0, 1, 1_000)
    assert after.deadline_ms == 9_000 < 60_000
    recorded, jobs = with_deadline_job("m_x", 4, after, 1_000)
    assert [j.at_ms for j in jobs] == [9_000]
    assert recorded is not None and recorded.job_v == 4


def test_no_running_turn_writes_no_job_and_keeps_the_record() -> None:
    turn = _first(PER_MOVE)
    stopped = advance(PER_MOVE, turn, 0, None, 1_000)
    kept, jobs = with_deadline_job("m_x", 4, stopped, 1_000)
    assert jobs == [] and kept is not None and (kept.job_v, kept.job_at_ms) == (3, 30_000)


def test_a_job_is_stale_once_a_later_append_wrote_its_own() -> None:
    turn = replace(_first(PER_MOVE), job_v=7)
    assert is_stale(turn, 9, 6)
    assert not is_stale(turn, 9, 7) and not is_stale(turn, 9, 9)  # a carrier, a chase
    legacy = replace(turn, job_v=None, job_at_ms=None)  # a clk from before the record
    assert is_stale(legacy, 9, 7) and not is_stale(legacy, 9, 9)


def test_a_clock_written_before_the_record_decodes() -> None:
    old = '{"b":[30000,30000],"t":[0,0],"m":[0,0],"s":0,"st":0,"d":30000}'
    turn = Turn.decode(old)
    assert turn is not None and (turn.job_v, turn.job_at_ms) == (None, None)
    assert turn.deadline_ms == 30_000
    _, jobs = with_deadline_job("m_x", 5, turn, 1_000)  # the next append writes one
    assert [j.job_id for j in jobs] == [deadline_job_id("m_x", 5)]


def test_the_reconcilers_job_names_its_carriers() -> None:
    turn = _first(PER_MOVE)
    (spec,) = carrier_job("m_x", 8, turn)
    assert spec.job_id == deadline_job_id("m_x", 8) and spec.at_ms == 30_000
    assert set(spec.alternates) == {
        deadline_job_id("m_x", 3),
        deadline_job_id("m_x", 3) + "-again",
        deadline_job_id("m_x", 8) + "-again",
    }
    (same,) = carrier_job("m_x", 3, turn)
    assert same.alternates == (deadline_job_id("m_x", 3) + "-again",)
    assert carrier_job("m_x", 8, replace(turn, deadline_ms=None, seat=None)) == []
