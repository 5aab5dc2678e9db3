"""Follow-up jobs: which job a state needs, and how it is written (RQ, JSON serializer).

After every append the store asks the variant what comes next:
- `pending(state)` is a `score_round` -> job `score-<match>-<round>` on queue `scoring`,
  calling `workers.scoring.score_round(match_id, version)`;
- `pending(state)` is another SYSTEM move (three-hand gin deals the next round or finishes the
  match as a SYSTEM move of its own after scoring) -> job `system-<match>-<version>` on queue
  `scoring`, calling `workers.scoring.apply_system(match_id, version)`;
- `to_act(state)` is a bot seat -> job `bot-<match>-<version>` on queue `bots`, calling
  `workers.bot_turn.play_bot_turn(match_id, version)`.
When every seat of the match is a bot, each of these jobs goes to queue `bots-low` instead.
- a clocked turn is running -> job `deadline-<match>-<version>` on queue `deadlines`,
  scheduled on rq's scheduler for the turn's deadline, calling
  `workers.deadline.apply_deadline(match_id, version)`; an append writes one only when the
  newest one written does not fire by the new deadline (store/clock.py `with_deadline_job`:
  a pending job that fires first carries the turn, scheduling the next when it is early);
- the state is finished -> job `analysis-<match>` on queue `analysis`, calling
  `workers.analysis.analyse_match(match_id, version)` (store/analysis.py: stored once);
  and when the match is rated (issue 32), job `rating-<match>` on queue `scoring`, calling
  `workers.rating.rate_match(match_id, version)` (store/ledger.py: rated once). A match
  finishes by MatchFinished or by a conduct event with `ends: true` (a resignation, a claim,
  a timeout forfeit, an abort: domain/conduct.py), appended through the same request, so
  either way the job is enqueued; the job skips an aborted match (domain/rated.py).
The worker takes its queues in order (`scoring`, `bots`, `bots-low`), so bot-only matches (an
arena on the server, any target score) play only when no match with a person waits for a job:
a person waits at most for the one job running.
(RQ allows only letters, digits, `_` and `-` in job ids, so the `score:{m}:{r}` of
architecture.md is spelled with dashes.) A job's arguments are the match id and a version and
nothing else: never cards, seeds or views (the no-leak rule). Functions are named by dotted
path, so the store never imports the workers. The request id of the request (or job) that
made a job rides in the job's `meta` (`request_id`), not its arguments, so the worker's log
lines of that job carry it (store/logs.py).
"""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

import redis
from redis.client import Pipeline
from rq import Queue, Retry, Worker
from rq.job import Job, JobStatus
from rq.serializers import JSONSerializer
from rq.worker.base import BaseWorker

from domain.rated import is_rated_state
from domain.variants import Game
from store.logs import request_id_var

# Typed by the game handed in (`gin.VARIANT` or a `Variant` found by name); a move is a
# JSON-shaped mapping in either game, so `pending(state)["type"]` can be read.
S = TypeVar("S")
M = TypeVar("M")
V = TypeVar("V")
MoveT = TypeVar("MoveT", bound=Mapping[str, object])

DEADLINES = "deadlines"
SCORING = "scoring"
BOTS = "bots"
BOTS_LOW = "bots-low"
ANALYSIS = "analysis"
QUEUES = (DEADLINES, SCORING, BOTS, BOTS_LOW, ANALYSIS)
"""Every queue, highest priority first (the order a worker listens in)."""
SCORE_FUNC = "workers.scoring.score_round"
SYSTEM_FUNC = "workers.scoring.apply_system"
BOT_FUNC = "workers.bot_turn.play_bot_turn"
ANALYSIS_FUNC = "workers.analysis.analyse_match"
RATING_FUNC = "workers.rating.rate_match"
DEADLINE_FUNC = "workers.deadline.apply_deadline"
DEADLINE_AGAIN_FUNC = "workers.deadline.apply_deadline_again"
TIMEOUTS = {DEADLINES: 60, SCORING: 60, BOTS: 120, BOTS_LOW: 120, ANALYSIS: 300}
RESULT_TTL = 3600


def result_ttl(queue: str) -> int:
    """How long a job's result is kept: a deadline's not at all (its outcome is in the log,
    and there is one per clocked move), any other job's an hour."""
    return 0 if queue == DEADLINES else RESULT_TTL


RETRY_INTERVALS = (1, 2, 5)
"""A failed job runs again after each of these (seconds, rq `Retry`); after the last, the job
falls back instead of failing (workers/retries.py)."""
ACTIVE = {JobStatus.QUEUED, JobStatus.STARTED, JobStatus.SCHEDULED, JobStatus.DEFERRED}


@dataclass(frozen=True)
class JobSpec:
    """One follow-up job: queue, deterministic id, function path and (match_id, version)."""

    queue: str
    job_id: str
    func: str
    match_id: str
    version: int
    at_ms: int | None = None  # scheduled for this Unix time (ms) on rq's scheduler
    alternates: tuple[str, ...] = ()  # other jobs that do this one's work (`is_live`)

    @property
    def args(self) -> tuple[str, int]:
        return (self.match_id, self.version)


def score_job_id(match_id: str, round_no: int) -> str:
    return f"score-{match_id}-{round_no}"


def system_job_id(match_id: str, version: int) -> str:
    return f"system-{match_id}-{version}"


def bot_job_id(match_id: str, version: int) -> str:
    return f"bot-{match_id}-{version}"


def analysis_job_id(match_id: str) -> str:
    return f"analysis-{match_id}"


def analysis_job(match_id: str, version: int) -> JobSpec:
    """The job that analyses a finished match (one id per match: written once)."""
    return JobSpec(ANALYSIS, analysis_job_id(match_id), ANALYSIS_FUNC, match_id, version)


def rating_job_id(match_id: str) -> str:
    return f"rating-{match_id}"


def rating_job(match_id: str, version: int) -> JobSpec:
    """The job that rates a finished rated match (one id per match; the ledger rates once)."""
    return JobSpec(SCORING, rating_job_id(match_id), RATING_FUNC, match_id, version)


def followups(
    variant: Game[S, MoveT, V],
    state: S,
    match_id: str,
    version: int,
) -> list[JobSpec]:
    """The jobs that `state` (after `version` events) needs; a state where nobody is due
    needs none. The variant says which round it is and which seats are bots."""
    if variant.is_finished(state):
        rated = [rating_job(match_id, version)] if is_rated_state(state) else []
        return [*rated, analysis_job(match_id, version)]
    pending = variant.pending(state)
    seat = variant.to_act(state) if pending is None else None
    if pending is None and seat is None:
        return []
    bots = variant.bot_seats(state)
    low = bool(bots) and all(bots)
    if pending is not None and pending.get("type") == "score_round":
        job_id = score_job_id(match_id, variant.round_number(state))
        return [JobSpec(BOTS_LOW if low else SCORING, job_id, SCORE_FUNC, match_id, version)]
    if pending is not None:
        job_id = system_job_id(match_id, version)
        return [JobSpec(BOTS_LOW if low else SCORING, job_id, SYSTEM_FUNC, match_id, version)]
    if seat is not None and _bot_of(bots, seat):
        job_id = bot_job_id(match_id, version)
        return [JobSpec(BOTS_LOW if low else BOTS, job_id, BOT_FUNC, match_id, version)]
    return []


def all_bots(variant: Game[S, M, V], state: S) -> bool:
    """True when no seat of the match is a person's."""
    bots = variant.bot_seats(state)
    return bool(bots) and all(bots)


def bot_seat(variant: Game[S, M, V], state: S, seat: int) -> str | None:
    """The bot name playing `seat`, or None for a human seat."""
    return _bot_of(variant.bot_seats(state), seat)


def _bot_of(bots: Sequence[str | None], seat: int) -> str | None:
    return bots[seat] if 0 <= seat < len(bots) else None


_RQ_JSON: Any = JSONSerializer  # rq's serializer is untyped
_RETRY_FIELDS = [
    b"retries_left",
    str(len(RETRY_INTERVALS)).encode(),
    b"retry_intervals",
    json.dumps(list(RETRY_INTERVALS)).encode(),
]
_JOB_PREFIX = Job.redis_job_namespace_prefix.encode()
_second: list[Any] = [-1, ""]  # the second _utc_now last formatted, and its text


def _utc_now() -> str:
    """rq's `utcformat(now())`: 2026-12-06T03:40:02.440119Z (the second formatted once)."""
    now = datetime.now(UTC)
    second = int(now.timestamp())
    if second != _second[0]:
        _second[:] = [second, now.strftime("%Y-%m-%dT%H:%M:%S.")]
    return f"{_second[1]}{now.microsecond:06d}Z"


class Queues:
    """The RQ queues on one connection, with the JSON serializer."""

    def __init__(self, connection: redis.Redis) -> None:
        self.connection = connection
        self._queues = {
            name: Queue(name, connection=connection, serializer=JSONSerializer) for name in QUEUES
        }
        self._constants: dict[str, tuple[list[bytes], list[bytes]]] = {}

    def queue(self, name: str) -> Queue:
        return self._queues[name]

    def make_job(self, spec: JobSpec) -> Job:
        request_id = request_id_var.get()
        return self.queue(spec.queue).create_job(
            spec.func,
            args=spec.args,
            job_id=spec.job_id,
            timeout=TIMEOUTS[spec.queue],
            result_ttl=result_ttl(spec.queue),
            retry=Retry(max=len(RETRY_INTERVALS), interval=list(RETRY_INTERVALS)),
            description=f"{spec.func}({spec.match_id!r}, {spec.version})",
            meta={"request_id": request_id} if request_id else None,
        )

    def scheduled_commands(self, spec: JobSpec) -> list[list[bytes]]:
        """The commands that schedule `spec` (it has `at_ms`), written directly as bytes: the
        job hash and the registry's ZADD, in a fraction of `enqueue`'s time, since a clocked
        move schedules one per move (issue 31, bench/clock.py): the SADD of the queue to
        `rq:queues`, the job hash and the registry's ZADD. The hash is minimal: only the
        fields whose absence rq's `Job.restore` would read differently (no empty ones, the
        payload uncompressed: restore falls back to it), so rq loads the same job; rq's
        scheduler writes the whole hash when it queues the job.
        The ZADD score keeps the milliseconds (rq's own would cut them to the second; the
        workers' scheduler reads the time to the millisecond, workers/run.py).
        Equivalence: tests/integration/workers/test_clock_jobs.py."""
        assert spec.at_ms is not None
        sadd, tail = self._scheduled_constants(spec.queue)
        func, match = spec.func, json.dumps(spec.match_id)
        payload = f'["{func}", null, [{match}, {int(spec.version)}], {{}}]'.encode()
        description = f"{func}({spec.match_id!r}, {spec.version})".encode()
        fields = [b"created_at", _utc_now().encode(), b"data", payload, b"description", description]
        request_id = request_id_var.get()
        if request_id:
            fields += [b"meta", _RQ_JSON.dumps({"request_id": request_id})]
        job_id = spec.job_id.encode()
        score = b"%.3f" % (spec.at_ms / 1000)
        return [
            [*sadd],
            [b"HSET", _JOB_PREFIX + job_id, *fields, *tail],
            [b"ZADD", b"rq:scheduled:" + spec.queue.encode(), score, job_id],
        ]

    def _scheduled_constants(self, name: str) -> tuple[list[bytes], list[bytes]]:
        """A queue's SADD and the job hash fields every scheduled job of it has."""
        if name not in self._constants:
            queue = self.queue(name)
            tail = [*_RETRY_FIELDS, b"origin", name.encode()]
            tail += [b"timeout", str(TIMEOUTS[name]).encode()]
            tail += [b"result_ttl", str(result_ttl(name)).encode(), b"status", b"scheduled"]
            sadd = [b"SADD", queue.redis_queues_keys.encode(), queue.key.encode()]
            self._constants[name] = (sadd, tail)
        return self._constants[name]

    def enqueue(self, specs: Sequence[JobSpec], pipeline: Pipeline | None = None) -> None:
        """Write the jobs, inside `pipeline`'s MULTI when given (it must be in MULTI mode)."""
        for spec in specs:
            queue, job = self.queue(spec.queue), self.make_job(spec)
            if spec.at_ms is None:
                queue.enqueue_job(job, pipeline=pipeline)
            else:
                when = datetime.fromtimestamp(spec.at_ms / 1000, UTC)
                queue.schedule_job(job, when, pipeline=pipeline)
                score = {spec.job_id: spec.at_ms / 1000}  # to the millisecond, not the second
                (pipeline or self.connection).zadd(f"rq:scheduled:{spec.queue}", score)

    def is_live(self, spec: JobSpec) -> bool:
        """True when the job, or one of its `alternates`, exists and will still run (queued
        and in its queue, scheduled, or running)."""
        return any(self._live(spec.queue, job_id) for job_id in (spec.job_id, *spec.alternates))

    def _live(self, queue: str, job_id: str) -> bool:
        try:
            job = Job.fetch(job_id, connection=self.connection, serializer=JSONSerializer)
        except Exception:  # rq raises NoSuchJobError, or a decode error for a damaged hash
            return False
        status = job.get_status(refresh=False)
        if status not in ACTIVE:
            return False
        if status == JobStatus.QUEUED:
            return self.connection.lpos(self.queue(queue).key, job_id) is not None
        if status == JobStatus.STARTED:
            return self._worker_alive(job)
        return True

    def spent(self, spec: JobSpec) -> str | None:
        """The error of a job that failed after using all its retries (None otherwise): the
        reconciler never runs such a job again (issue 31); the match is marked stalled."""
        try:
            job = Job.fetch(spec.job_id, connection=self.connection, serializer=JSONSerializer)
        except Exception:  # no such job, or a damaged hash: nothing spent
            return None
        if job.get_status(refresh=False) != JobStatus.FAILED or job.retries_left:
            return None
        result = job.latest_result()
        last = (result.exc_string if result is not None else None) or ""
        return last.strip().splitlines()[-1][:200] if last.strip() else "failed"

    def live_workers(self) -> list[BaseWorker]:
        """The rq workers whose record exists (its TTL is kept by heartbeats) and that are
        not marked dead."""
        found = Worker.all(connection=self.connection, serializer=JSONSerializer)
        return [worker for worker in found if worker.death_date is None]

    def _worker_alive(self, job: Job) -> bool:
        """A started job is live while the worker running it is: its rq worker record exists
        and, when that worker is on this host, its process does. (A worker killed with -9
        leaves the job STARTED and its record in place until the heartbeat TTL runs out,
        and rq notices the abandoned job only then, at a maintenance pass.) A record marked
        dead is not live either: an rq worker that quit when Redis went away is marked so
        once Redis is back, while the process that ran it, alive, starts a new one."""
        if not job.worker_name:
            return True
        key = Worker.redis_worker_namespace_prefix + job.worker_name
        worker = Worker.find_by_key(key, connection=self.connection, serializer=JSONSerializer)
        if worker is None or worker.death_date is not None:  # gone, or buried (workers/run.py)
            return False
        if worker.hostname == socket.gethostname() and worker.pid:
            try:
                os.kill(worker.pid, 0)
            except ProcessLookupError:
                return False
            except PermissionError:
                return True
        return True

    def replace(self, spec: JobSpec) -> None:
        """Enqueue `spec` afresh, dropping a finished or broken job of the same id first."""
        self.connection.delete(Job.key_for(spec.job_id))
        self.enqueue([spec])
