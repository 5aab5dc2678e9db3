"""Deadlines on rq's scheduler, and correctness without it (issue 31).

A fake clock is injected into the service and rq's scheduler is driven from the test
(`enqueue_scheduled_jobs` and a burst worker), so nothing sleeps."""

from __future__ import annotations

import pytest
import redis

from domain.replay import fold
from store.clock import deadline_job_id
from store.errors import TurnTimedOut
from store.service import MatchService
from tests.support.clock_play import (
    MANIP,
    FakeClock,
    clocked_service,
    first_legal,
    humans,
    race,
    run_scheduler,
    scheduled_ids,
    types,
)

PER_MOVE = {"mode": "per_move", "move_s": 2}


def _create(svc: MatchService, clock_options: dict[str, object] | None = None) -> str:
    created = svc.create_match(
        MANIP, humans(2), {}, seed=7, clock_options=clock_options or PER_MOVE
    )
    return created.match_id


def test_no_move_before_the_deadline_gives_one_timeout_and_one_legal_auto_move(
    svc: MatchService, clock: FakeClock, redis_client: redis.Redis
) -> None:
    match_id = _create(svc)
    before = svc.load(match_id)
    seat = before.variant.to_act(before.state)
    assert seat is not None
    assert deadline_job_id(match_id, before.version) in scheduled_ids(redis_client)
    clock.advance(2.5)
    run_scheduler(redis_client)
    log = svc.events(match_id, limit=1000)[before.version :]
    assert [e.event.type for e in log].count("TurnTimedOut") == 1
    assert log[0].event.type == "TurnTimedOut" and log[0].event.data["seat"] == seat
    assert len(log) >= 2  # the auto move's events follow, decided by the rules
    after = svc.load(match_id)
    assert after.variant.to_act(after.state) is not None
    assert after.turn is not None and after.turn.timeouts[seat] == 1
    assert deadline_job_id(match_id, after.version) in scheduled_ids(redis_client)


def test_a_move_before_the_deadline_makes_the_job_a_no_op(
    svc: MatchService, clock: FakeClock, redis_client: redis.Redis
) -> None:
    match_id = _create(svc)
    seat, move = first_legal(svc, match_id)
    version = svc.load(match_id).version
    clock.advance(1.0)
    svc.submit(match_id, seat, move, expected_version=None, idempotency_key=None, fingerprint="")
    assert svc.apply_deadline(match_id, version).startswith("stale")
    clock.advance(0.5)  # the new turn is not due either
    run_scheduler(redis_client)
    assert "TurnTimedOut" not in types(svc, match_id)


def test_running_the_deadline_job_twice_gives_one_timeout(
    svc: MatchService, clock: FakeClock
) -> None:
    match_id = _create(svc)
    version = svc.load(match_id).version
    clock.advance(3)
    assert svc.apply_deadline(match_id, version).startswith("timed out")
    assert not svc.apply_deadline(match_id, version).startswith("timed out")
    assert types(svc, match_id).count("TurnTimedOut") == 1


@pytest.mark.parametrize("late", [True, False])
def test_a_move_and_a_deadline_racing_at_one_version_land_once(
    redis_client: redis.Redis, clock: FakeClock, late: bool
) -> None:
    """20 races each: at the deadline only the timeout lands; just before, only the move."""
    for round_no in range(20):
        mover = clocked_service(redis_client, clock)
        match_id = _create(mover)
        seat, move = first_legal(mover, match_id)
        version = mover.load(match_id).version
        timer = clocked_service(redis_client, clock)
        step = 2.0 if late else 1.999
        clock.advance(step)
        outcomes = race(mover, timer, match_id, seat, move, version)
        timeouts = types(mover, match_id).count("TurnTimedOut")
        landed = outcomes.count("move") + timeouts
        assert landed == 1, (round_no, outcomes)
        assert (timeouts == 1) is late, (round_no, outcomes)
        clock.advance(-step)


def test_with_no_scheduler_a_late_move_gets_409_and_the_log_shows_the_timeout(
    svc: MatchService, clock: FakeClock
) -> None:
    match_id = _create(svc)
    seat, move = first_legal(svc, match_id)
    clock.advance(5)
    with pytest.raises(TurnTimedOut) as refused:
        svc.submit(
            match_id, seat, move, expected_version=None, idempotency_key=None, fingerprint=""
        )
    assert refused.value.code == "turn_timed_out"
    log = types(svc, match_id)
    assert log.count("TurnTimedOut") == 1
    # the state folds from the log alone (no clock): the auto move is ordinary events
    loaded = svc.load(match_id)
    replayed = fold(loaded.variant, [e.event for e in svc.events(match_id, limit=1000)])
    assert replayed == loaded.state


def test_a_load_applies_an_overdue_timeout_first(svc: MatchService, clock: FakeClock) -> None:
    match_id = _create(svc)
    clock.advance(2.001)
    svc.load(match_id)
    assert types(svc, match_id).count("TurnTimedOut") == 1


def test_max_timeouts_puts_the_bot_in_the_seat(
    svc: MatchService, clock: FakeClock, redis_client: redis.Redis
) -> None:
    match_id = _create(svc, {**PER_MOVE, "max_timeouts": 1, "autoplay_bot": "random"})
    seat = svc.load(match_id).variant.to_act(svc.load(match_id).state)
    assert seat is not None
    clock.advance(2)
    svc.load(match_id)
    log = svc.events(match_id, limit=1000)
    replaced = [e.event for e in log if e.event.type == "SeatReplacedByBot"]
    assert replaced and replaced[0].data == {"seat": seat, "bot": "random", "reason": "timeouts"}
    loaded = svc.load(match_id)
    assert loaded.variant.bot_seats(loaded.state)[seat] == "random"


def test_forfeit_ends_a_two_seat_match(svc: MatchService, clock: FakeClock) -> None:
    match_id = _create(svc, {**PER_MOVE, "on_timeout": "forfeit"})
    seat = svc.load(match_id).variant.to_act(svc.load(match_id).state)
    assert seat is not None
    clock.advance(2)
    loaded = svc.load(match_id)
    assert loaded.variant.is_finished(loaded.state)
    assert loaded.state.winners == (1 - seat,)


def test_fischer_charges_the_move_and_adds_the_increment_capped(
    svc: MatchService, clock: FakeClock
) -> None:
    match_id = _create(svc, {"mode": "fischer", "initial_s": 10, "increment_s": 3})
    seat, move = first_legal(svc, match_id)
    clock.advance(1.5)
    svc.submit(match_id, seat, move, expected_version=None, idempotency_key=None, fingerprint="")
    turn = svc.load(match_id).turn
    assert turn is not None and turn.banks[seat] == 10_000  # 10 - 1.5 + 3 capped at 10
    nxt, move = first_legal(svc, match_id)
    clock.advance(6)
    svc.submit(match_id, nxt, move, expected_version=None, idempotency_key=None, fingerprint="")
    turn = svc.load(match_id).turn
    assert turn is not None and turn.banks[nxt] == 7_000  # 10 - 6 + 3


def test_the_first_move_window_aborts_a_match_nobody_starts(
    svc: MatchService, clock: FakeClock, redis_client: redis.Redis
) -> None:
    match_id = _create(svc, {**PER_MOVE, "first_move_s": 5})
    clock.advance(2.5)  # inside the abort window: no timeout yet
    run_scheduler(redis_client)
    assert "MatchAborted" not in types(svc, match_id)
    clock.advance(3)
    run_scheduler(redis_client)
    assert types(svc, match_id)[-1] == "MatchAborted"
    loaded = svc.load(match_id)
    assert loaded.variant.is_finished(loaded.state) and loaded.state.winners == ()


def test_the_reconciler_recreates_a_missing_deadline_job(
    svc: MatchService, clock: FakeClock, redis_client: redis.Redis
) -> None:
    from rq.job import Job

    from workers.reconcile import reconcile

    match_id = _create(svc)
    version = svc.load(match_id).version
    job_id = deadline_job_id(match_id, version)
    redis_client.delete(Job.key_for(job_id))
    redis_client.zrem("rq:scheduled:deadlines", job_id)
    assert job_id not in scheduled_ids(redis_client)
    reconcile(svc)
    assert job_id in scheduled_ids(redis_client)


def test_a_deadline_job_sweeps_up_the_other_due_deadlines(
    svc: MatchService, clock: FakeClock, redis_client: redis.Redis
) -> None:
    from workers.deadline import apply_deadline

    matches = [_create(svc) for _ in range(5)]
    versions = {m: svc.load(m).version for m in matches}
    clock.advance(2.5)
    first = matches[0]
    redis_client.zrem("rq:scheduled:deadlines", deadline_job_id(first, versions[first]))
    note = apply_deadline(first, versions[first])  # as rq runs it, the scheduler took it
    assert note.startswith("timed out") and note.endswith("; 4 more swept")
    for match_id in matches:
        assert types(svc, match_id).count("TurnTimedOut") == 1
        old = deadline_job_id(match_id, versions[match_id])
        assert old not in scheduled_ids(redis_client)
        assert match_id == first or not redis_client.exists(f"rq:job:{old}")  # rq's own: rq's
        after = svc.load(match_id)
        assert deadline_job_id(match_id, after.version) in scheduled_ids(redis_client)
    run_scheduler(redis_client)  # the new turns are not due: nothing more
    assert all(types(svc, m).count("TurnTimedOut") == 1 for m in matches)


def test_a_swept_deadline_the_scheduler_queued_too_times_out_once(
    svc: MatchService, clock: FakeClock, redis_client: redis.Redis
) -> None:
    match_id = _create(svc)
    version = svc.load(match_id).version
    clock.advance(2.5)
    assert svc.sweep_deadlines() == [f"timed out: {match_id} at {svc.load(match_id).version}"]
    assert svc.apply_deadline(match_id, version).startswith("stale")  # its job, run late
    assert svc.sweep_deadlines() == []
    assert types(svc, match_id).count("TurnTimedOut") == 1


def test_a_sweep_takes_the_deadlines_the_scheduler_queued_first(
    svc: MatchService, clock: FakeClock, redis_client: redis.Redis
) -> None:
    from typing import Any

    from rq import Queue
    from rq.scheduler import RQScheduler
    from rq.serializers import JSONSerializer

    queued = _create(svc)
    clock.advance(2.5)
    queue = Queue("deadlines", connection=redis_client, serializer=JSONSerializer)
    scheduler: Any = RQScheduler([queue], connection=redis_client, serializer=JSONSerializer)
    scheduler.acquire_locks()
    try:
        scheduler.enqueue_scheduled_jobs()  # queued, no worker has popped it
    finally:
        scheduler.release_locks()
    due = _create(svc)  # created at the advanced time: due once the clock moves again
    clock.advance(2.5)
    notes = svc.sweep_deadlines()
    assert [n.split(":")[1].split()[0] for n in notes] == [queued, due]
    assert queue.count == 0
    assert all(types(svc, m).count("TurnTimedOut") == 1 for m in (queued, due))
