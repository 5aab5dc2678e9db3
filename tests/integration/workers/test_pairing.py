"""The pairing (issue 32): many concurrent seeks and overlapping pairing runs put every
account in at most one match and every seek in at most one pairing; a cancel racing a
pairing has one winner; a lone seek is completed with bots after the delay; only compatible
seeks meet, near ratings together; a run that died between its claim and its match loses
nobody. Real Redis, real rq burst workers, the service's clock a fake one."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest
import redis
from rq import Queue
from rq.registry import ScheduledJobRegistry
from rq.serializers import JSONSerializer

from domain.accounts import bot_account
from store.ledger import LadderState, Ledger
from store.pairing import Pairing, paired_match_id
from store.ratings import Skill
from store.seeks import PAIRED, SeekPaired, SeekService, SeekSettings, seek_service
from store.service import MatchService
from tests.support.lobby_helpers import FakeClock, race
from tests.support.workers_play import GIN, MANIP, burst
from workers.connection import set_service

CLOCK = {"mode": "per_move", "move_s": 60}
DUO = {"variant": MANIP, "rated": False, "seats": 2}
RATED_GIN = {"variant": GIN, "clock": CLOCK}


@pytest.fixture
def seeks(service: MatchService) -> Any:
    service.clock = FakeClock()
    found = seek_service(service)
    found.settings = SeekSettings(ttl_s=600, bot_delay_s=30, every_s=2, join_s=120)
    set_service(service)
    yield found
    set_service(None)


def _accounts_of(service: MatchService, match_id: str) -> list[str | None]:
    """Each seat's account as the match's log records it (reserved seats and bots)."""
    state = service.load(match_id).state
    return [p.account or (bot_account(p.bot) if p.bot else None) for p in state.players]


def _matches(seeks: SeekService, ids: list[str], handles: list[str]) -> dict[str, str]:
    """seek id -> its match, for the paired ones (each checked against its owner's seat)."""
    out: dict[str, str] = {}
    for seek_id, handle in zip(ids, handles, strict=True):
        seek = seeks.get(seek_id, handle)
        assert seek.status in ("open", PAIRED), seek.status
        if seek.status == PAIRED:
            assert seek.match is not None
            players = _accounts_of(seeks.service, seek.match["id"])
            assert players[seek.match["seat"]] == handle
            out[seek_id] = seek.match["id"]
    return out


def test_many_concurrent_seeks_put_every_account_in_at_most_one_match(
    seeks: SeekService, redis_client: redis.Redis
) -> None:
    handles = [f"acct{i:02d}" for i in range(30)]
    terms = [DUO if i % 3 else {**DUO, "seats": 3} for i in range(30)]
    ids: list[str] = [""] * 30
    pairing = Pairing(seeks)

    def send(i: int) -> Any:
        if i < 30:
            ids[i] = seeks.create(handles[i], False, terms[i]).id
            return None
        return [pairing.run(MANIP) for _ in range(3)]  # runs overlapping the seeks

    race(36, send)
    burst(redis_client)  # the queued pairing job (one, however many seeks) and anything after
    pairing.run(MANIP)
    paired = _matches(seeks, ids, handles)
    every: Counter[str] = Counter()
    for match_id in set(paired.values()):
        accounts = _accounts_of(seeks.service, match_id)
        assert None not in accounts
        every.update(a for a in accounts if a is not None)
    assert max(every.values()) == 1  # every account in at most one match
    assert Counter(paired.values()) == {
        m: len(_accounts_of(seeks.service, m)) for m in paired.values()
    }
    made = {match_id for match_id, _ in seeks.service.store.active_entries()}
    assert made == set(paired.values())  # no match but the pairings' (no lost claim's match)
    assert len(paired) >= 27  # all but the leftovers of each terms (no bots yet)
    open_left = {s.id for s in seeks.open_seeks(MANIP)}
    assert open_left == set(ids) - set(paired)
    assert seeks.pending() == {}


def test_a_cancel_racing_a_pairing_has_one_winner(seeks: SeekService) -> None:
    pairing = Pairing(seeks)
    for trial in range(12):
        first = seeks.create(f"ana{trial:02d}", False, DUO)
        second = seeks.create(f"ben{trial:02d}", False, DUO)

        def act(i: int, first: Any = first) -> Any:
            if i == 0:
                try:
                    return seeks.cancel(first.id, first.record["account"]).status
                except SeekPaired:
                    return "lost"
            return pairing.run(MANIP).made

        cancel, made = race(2, act)
        status = seeks.get(first.id, first.record["account"]).status
        if cancel == "cancelled":
            assert made == () and status == "cancelled"
            assert seeks.get(second.id, second.record["account"]).status == "open"
            seeks.cancel(second.id, second.record["account"])
        else:
            assert cancel == "lost" and status == PAIRED and len(made) == 1
            assert seeks.get(second.id, second.record["account"]).status == PAIRED


def test_a_lone_seek_is_completed_with_bots_after_the_delay(
    seeks: SeekService, service: MatchService, redis_client: redis.Redis
) -> None:
    clock: FakeClock = service.clock  # type: ignore[assignment]
    lone = seeks.create("robo", True, RATED_GIN)
    burst(redis_client)  # the seek's pairing job: too early for bots, so a tick is scheduled
    assert seeks.get(lone.id, "robo").status == "open"
    registry: Any = ScheduledJobRegistry  # rq's registry is untyped
    queue = Queue("scoring", connection=redis_client, serializer=JSONSerializer)
    scheduled = registry(queue=queue).get_job_ids()
    assert any(job.startswith(f"pairing-{GIN}-tick-") for job in scheduled)
    clock.advance(29)
    assert Pairing(seeks).run(GIN).made == ()
    clock.advance(1)
    assert len(Pairing(seeks).run(GIN).made) == 1
    seek = seeks.get(lone.id, "robo")
    assert seek.status == PAIRED and seek.match is not None
    state = service.load(seek.match["id"]).state
    seat = state.players[seek.match["seat"]]
    assert (seat.open, seat.account, seat.account_bot) == (True, "robo", True)
    assert sum(1 for p in state.players if p.bot) == 2
    assert state.options.rated is True and state.lobby is not None and not state.lobby.listed


def test_only_compatible_seeks_meet(seeks: SeekService) -> None:
    a = seeks.create("ana", False, DUO)
    b = seeks.create("ben", False, {**DUO, "options": {"target_score": 60}})
    c = seeks.create("cyd", False, {**DUO, "clock": CLOCK})
    d = seeks.create("dee", False, {**DUO, "options": {"target_score": 60}})
    made = Pairing(seeks).run(MANIP).made
    assert len(made) == 1
    assert {seeks.get(b.id, "ben").status, seeks.get(d.id, "dee").status} == {PAIRED}
    assert {seeks.get(a.id, "ana").status, seeks.get(c.id, "cyd").status} == {"open"}


def test_near_ratings_are_paired_together(seeks: SeekService, redis_client: redis.Redis) -> None:
    ratings = {"ana": 40.0, "ben": 10.0, "cyd": 38.0, "dee": 12.0}
    skills = {h: Skill(mu + 3, 1.0, 20) for h, mu in ratings.items()}
    Ledger(redis_client).replace(MANIP, LadderState(skills, [], {}))
    made = {h: seeks.create(h, False, DUO) for h in ratings}
    Pairing(seeks).run(MANIP)
    match_of = {h: seeks.get(s.id, h).match for h, s in made.items()}
    assert all(m is not None for m in match_of.values())
    ids = {h: m["id"] for h, m in match_of.items() if m is not None}
    assert ids["ana"] == ids["cyd"] and ids["ben"] == ids["dee"] and ids["ana"] != ids["ben"]


def test_a_run_that_died_after_its_claim_loses_nobody(
    seeks: SeekService, service: MatchService, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = seeks.create("ana", False, DUO), seeks.create("ben", False, DUO)
    pairing = Pairing(seeks)
    real_open = Pairing.open

    def crash(self: Pairing, pairing_id: str, pending: Any) -> None:
        raise RuntimeError("the worker died here")

    monkeypatch.setattr(Pairing, "open", crash)
    with pytest.raises(RuntimeError):
        pairing.run(MANIP)
    monkeypatch.setattr(Pairing, "open", real_open)
    ((pairing_id, saved),) = seeks.pending().items()
    match_id = seeks.get(a.id, "ana").match["id"]  # type: ignore[index]
    assert match_id == paired_match_id(service.pepper, pairing_id)
    report = pairing.run(MANIP)  # the retry path: the pending pairing's match is opened
    assert report.retried == 1 and seeks.pending() == {}
    assert sorted(map(str, _accounts_of(service, match_id))) == ["ana", "ben"]
    service.redis.hset("seeks:{seeks}:pending", pairing_id, json.dumps(saved))
    assert pairing.run(MANIP).retried == 1  # opened twice: still one match
    assert service.load(match_id).version == 1
    assert seeks.get(b.id, "ben").status == PAIRED


def test_threads_of_pairing_jobs_on_real_workers(
    seeks: SeekService, redis_client: redis.Redis
) -> None:
    """A burst of seeks gives one queued pairing job; rq's worker runs it and pairs them."""
    made = [seeks.create(f"acct{i}", False, DUO) for i in range(4)]
    queued = redis_client.lrange("rq:queue:scoring", 0, -1)
    assert queued.count(f"pairing-{MANIP}".encode()) == 1
    burst(redis_client)
    statuses = {seeks.get(s.id, f"acct{i}").status for i, s in enumerate(made)}
    assert statuses == {PAIRED}


def test_a_seek_made_while_the_pairing_runs_gets_a_follow_up_run(
    seeks: SeekService, redis_client: redis.Redis
) -> None:
    from rq.job import Job, JobStatus

    seeks.create("ana", False, DUO)
    job = Job.fetch(f"pairing-{MANIP}", connection=redis_client, serializer=JSONSerializer)
    job.set_status(JobStatus.STARTED)  # as a worker running it would
    assert seeks.enqueue_pairing(MANIP) is True
    assert seeks.enqueue_pairing(MANIP) is False  # one queued follow-up is enough
    queued = redis_client.lrange("rq:queue:scoring", 0, -1)
    assert f"pairing-{MANIP}-again".encode() in queued
