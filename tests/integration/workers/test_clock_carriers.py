"""One deadline job carries a turn that moves continue (store/clock.py `with_deadline_job`,
issue 31: the cost of a clocked move). A move that the pending job covers writes none; the
job chases a deadline that moves pushed on, a superseded one does nothing, and a move and
the carrying job racing at one version still land once. A fake clock is injected into the
service and into rq's scheduler (`run_due`), so jobs run when they are due, and nothing
sleeps."""

from __future__ import annotations

import pytest
import redis
from rq.job import Job

from store.clock import deadline_job_id
from store.service import MatchService
from tests.support.clock_play import (
    MANIP,
    FakeClock,
    clocked_service,
    first_legal,
    humans,
    race,
    run_due,
    scheduled_ids,
    types,
)
from workers.reconcile import reconcile

MOVE_S = 10
CLOCK = {"mode": "per_move", "move_s": MOVE_S}


def _jobs_of(client: redis.Redis, match_id: str) -> list[str]:
    return [j for j in scheduled_ids(client) if j.startswith(f"deadline-{match_id}-")]


def _move(svc: MatchService, match_id: str) -> int:
    """The seat to act plays its first legal move; the version after it."""
    seat, move = first_legal(svc, match_id)
    return svc.submit(
        match_id, seat, move, expected_version=None, idempotency_key=None, fingerprint=""
    ).version


def _moves_within_the_first_job(
    svc: MatchService, clock: FakeClock, client: redis.Redis
) -> tuple[str, int, int]:
    """A match whose first job (at +10 s) carries three moves at +1, +2, +3 s: (match, the
    first job's version, the version after the moves). The clock stands at +3 s."""
    match_id = svc.create_match(MANIP, humans(2), {}, seed=7, clock_options=CLOCK).match_id
    first = svc.load(match_id).version
    assert _jobs_of(client, match_id) == [deadline_job_id(match_id, first)]
    version = first
    for _ in range(3):
        clock.advance(1)
        version = _move(svc, match_id)
        assert _jobs_of(client, match_id) == [deadline_job_id(match_id, first)]  # none new
        turn = svc.load(match_id).turn
        assert turn is not None and turn.job_v == first
    return match_id, first, version


def test_moves_within_a_running_turn_write_no_job_and_the_timeout_lands_on_time(
    svc: MatchService, clock: FakeClock, redis_client: redis.Redis
) -> None:
    match_id, first, version = _moves_within_the_first_job(svc, clock, redis_client)
    turn = svc.load(match_id).turn
    assert turn is not None and turn.deadline_ms is not None
    deadline = turn.deadline_ms  # +13 s
    clock.advance(MOVE_S - 3 - 0.001)  # the first job is not due yet
    run_due(redis_client, clock)
    assert _jobs_of(redis_client, match_id) == [deadline_job_id(match_id, first)]
    clock.advance(0.001)  # +10 s: it runs, and chases the deadline the moves pushed on
    run_due(redis_client, clock)
    assert _jobs_of(redis_client, match_id) == [deadline_job_id(match_id, version)]
    assert "TurnTimedOut" not in types(svc, match_id)
    clock.advance(2.999)  # +12.999 s
    run_due(redis_client, clock)
    assert "TurnTimedOut" not in types(svc, match_id)
    clock.advance(0.001)  # +13 s: the deadline
    run_due(redis_client, clock)
    assert types(svc, match_id)[version] == "TurnTimedOut"
    assert types(svc, match_id).count("TurnTimedOut") == 1
    after = svc.load(match_id)
    assert after.turn is not None and after.turn.started_ms == deadline  # timed out on time
    assert _jobs_of(redis_client, match_id) == [deadline_job_id(match_id, after.version)]


def test_a_chased_deadline_is_superseded_by_the_next_move(
    svc: MatchService, clock: FakeClock, redis_client: redis.Redis
) -> None:
    match_id, _, version = _moves_within_the_first_job(svc, clock, redis_client)
    clock.advance(MOVE_S - 3)  # +10 s: the first job chases to the moves' deadline (+13 s)
    run_due(redis_client, clock)
    assert _jobs_of(redis_client, match_id) == [deadline_job_id(match_id, version)]
    clock.advance(1)  # +11 s: a move after the first job ran writes a job of its own
    moved = _move(svc, match_id)
    assert set(_jobs_of(redis_client, match_id)) == {
        deadline_job_id(match_id, version),
        deadline_job_id(match_id, moved),
    }
    clock.advance(2)  # +13 s: the chased job is due, and stale
    assert svc.apply_deadline(match_id, version).startswith("stale")
    run_due(redis_client, clock)
    assert "TurnTimedOut" not in types(svc, match_id)
    assert _jobs_of(redis_client, match_id) == [deadline_job_id(match_id, moved)]
    clock.advance(MOVE_S - 2 - 0.001)  # just before +21 s
    run_due(redis_client, clock)
    assert "TurnTimedOut" not in types(svc, match_id)
    clock.advance(0.001)
    run_due(redis_client, clock)
    assert types(svc, match_id).count("TurnTimedOut") == 1
    assert types(svc, match_id)[moved] == "TurnTimedOut"


def test_a_stale_job_does_nothing(
    svc: MatchService, clock: FakeClock, redis_client: redis.Redis
) -> None:
    match_id = svc.create_match(MANIP, humans(2), {}, seed=7, clock_options=CLOCK).match_id
    first = svc.load(match_id).version
    clock.advance(MOVE_S - 0.5)  # too near the first job's time to rely on it
    moved = _move(svc, match_id)
    turn = svc.load(match_id).turn
    assert turn is not None and turn.job_v == moved
    before = sorted(_jobs_of(redis_client, match_id))
    clock.advance(1)  # the first job's time has passed
    assert svc.apply_deadline(match_id, first).startswith("stale")
    assert svc.apply_deadline(match_id, first, again=True).startswith("stale")
    assert sorted(_jobs_of(redis_client, match_id)) == before
    assert svc.load(match_id).version == moved and "TurnTimedOut" not in types(svc, match_id)


@pytest.mark.parametrize("late", [True, False])
def test_a_move_and_the_carrying_job_racing_at_one_version_land_once(
    redis_client: redis.Redis, clock: FakeClock, late: bool
) -> None:
    """20 races each: the first job carries the moves' turn; at its deadline only the
    timeout lands, just before it only the move."""
    for round_no in range(20):
        mover = clocked_service(redis_client, clock)
        match_id, first, version = _moves_within_the_first_job(mover, clock, redis_client)
        seat, move = first_legal(mover, match_id)
        timer = clocked_service(redis_client, clock)
        step = MOVE_S if late else MOVE_S - 0.001
        clock.advance(step)
        outcomes = race(mover, timer, match_id, seat, move, version, job_version=first)
        timeouts = types(mover, match_id).count("TurnTimedOut")
        landed = outcomes.count("move") + timeouts
        assert landed == 1, (round_no, outcomes)
        assert (timeouts == 1) is late, (round_no, outcomes)
        clock.advance(-step - 3)


def test_the_reconciler_accepts_either_carrier_and_recreates_a_missing_one(
    svc: MatchService, clock: FakeClock, redis_client: redis.Redis
) -> None:
    match_id, first, version = _moves_within_the_first_job(svc, clock, redis_client)
    assert not [j for j in reconcile(svc) if match_id in j]  # (match, job_v) is live
    carrier = deadline_job_id(match_id, first)
    redis_client.delete(Job.key_for(carrier))
    redis_client.zrem("rq:scheduled:deadlines", carrier)
    assert reconcile(svc) == [deadline_job_id(match_id, version)]
    assert _jobs_of(redis_client, match_id) == [deadline_job_id(match_id, version)]
    assert reconcile(svc) == []  # (match, current version) is live
    turn = svc.load(match_id).turn
    assert turn is not None and turn.deadline_ms is not None
    score = redis_client.zscore("rq:scheduled:deadlines", deadline_job_id(match_id, version))
    assert score == turn.deadline_ms / 1000
    clock.advance(MOVE_S)  # +13 s: the recreated job times the turn out
    run_due(redis_client, clock)
    assert types(svc, match_id).count("TurnTimedOut") == 1


def test_an_early_job_asks_again_once_and_its_twin_chases_like_it(
    svc: MatchService, clock: FakeClock, redis_client: redis.Redis
) -> None:
    match_id = svc.create_match(MANIP, humans(2), {}, seed=7, clock_options=CLOCK).match_id
    first = svc.load(match_id).version
    job = deadline_job_id(match_id, first)
    clock.advance(1)  # early, with no move since (another host's clock): the twin, once
    assert svc.apply_deadline(match_id, first).startswith("not due")
    assert set(_jobs_of(redis_client, match_id)) == {job, f"{job}-again"}
    redis_client.zrem("rq:scheduled:deadlines", job)  # as if rq ran it
    assert svc.apply_deadline(match_id, first, again=True).startswith("not due")
    assert _jobs_of(redis_client, match_id) == [f"{job}-again"]
    moved = _move(svc, match_id)  # +1 s: the pending job carries this move
    assert _jobs_of(redis_client, match_id) == [f"{job}-again"]
    clock.advance(MOVE_S - 1)  # the twin at the first deadline chases the move's
    assert svc.apply_deadline(match_id, first, again=True).startswith("chased")
    assert deadline_job_id(match_id, moved) in _jobs_of(redis_client, match_id)
    assert "TurnTimedOut" not in types(svc, match_id)
