"""The worker process of `deadwood up`: queues `scoring`, `bots`, `bots-low`, and the reconciler.

`main()` reconciles once, starts the reconciler timer in its own process (spawned, not
forked, so it shares no locks with the worker, and it dies with the worker), then runs an RQ
worker on the queues in priority order (store.jobs.QUEUES: a bot-only match's bot turns wait
for every match with a person) with the JSON serializer and the scheduler (which re-queues
retried jobs after their interval). The worker is rq's SimpleWorker by default (jobs run in
this process; SIGALRM enforces the job timeouts); `--fork` uses rq's forking Worker instead.

    deadwood worker [--burst] [--reconcile-every SECONDS] [--fork] [--metrics-port PORT]
    python -m workers.run ...   (the same)

Logs are configured by store/logs.py (DEADWOOD_LOG_LEVEL, DEADWOOD_LOG_FORMAT); each line a
job logs carries the job's match id and the request id of the request that made it (the
job's `meta`). Job outcomes, durations and reconciler passes are counted
(store/metrics.py): with PROMETHEUS_MULTIPROC_DIR shared with the API (as `deadwood up`
does) the API's `/metrics` shows them; `--metrics-port` (or DEADWOOD_WORKER_METRICS_PORT)
serves this worker's own `/metrics` too.
"""

from __future__ import annotations

import argparse
import logging
import multiprocessing
import os
import signal
import time
from collections.abc import Sequence
from typing import Any

import redis
from rq import Queue, SimpleWorker, Worker
from rq.exceptions import StopRequested
from rq.registry import ScheduledJobRegistry
from rq.scheduler import RQScheduler
from rq.serializers import JSONSerializer
from rq.worker import base as rq_worker_base
from rq.worker.base import BaseWorker

from store import logs, metrics
from store.config import ServiceConfig, build_service
from store.connection import InsecurePepper, pepper_from_env, queue_from_env
from store.jobs import QUEUES
from store.service import MatchService
from workers.lifeline import die_with_parent
from workers.reconcile import reconcile

log = logging.getLogger("workers.run")

SCHEDULER_INTERVAL = float(os.environ.get("DEADWOOD_SCHEDULER_INTERVAL", "0.2"))
"""How often rq's scheduler moves due jobs (deadlines, retries) to their queues, in seconds.
rq's worker makes its scheduler with a 1 s poll; a deadline's timeout should land well within
1 s of it (issue 31, bench/clock.py), so the worker's scheduler polls every 0.2 s."""


class _MillisecondRegistry(ScheduledJobRegistry):
    """rq's registry of scheduled jobs, read to the millisecond (rq reads it to the second,
    so a deadline scheduled at 12.4 s would wait for 13 s)."""

    def get_jobs_to_schedule(self, timestamp: int | None = None, chunk_size: int = 1000) -> Any:
        return super().get_jobs_to_schedule(time.time(), chunk_size)  # type: ignore[arg-type]


class _QuickScheduler(RQScheduler):
    """rq's scheduler, polling every SCHEDULER_INTERVAL s (its `interval` stays a whole
    number of seconds: rq adds it to the TTLs of its locks) and reading its registries to
    the millisecond. The loop is rq's `work`, the registries rq's `prepare_registries`."""

    def prepare_registries(self, queue_names: Any = None) -> None:
        names = queue_names or self._acquired_locks
        make: Any = _MillisecondRegistry  # rq's registries are untyped
        self._scheduled_job_registries = [
            make(name, connection=self.connection, serializer=self.serializer) for name in names
        ]

    def work(self) -> None:
        rq: Any = self  # rq's scheduler is untyped
        rq._install_signal_handlers()
        rq.register_birth()
        while True:
            if self._stop_requested:
                rq.stop()
                break
            if self.should_reacquire_locks:
                rq.acquire_locks()
            rq.heartbeat()
            rq.enqueue_scheduled_jobs()
            time.sleep(SCHEDULER_INTERVAL)


setattr(rq_worker_base, "RQScheduler", _QuickScheduler)  # noqa: B010 - the worker makes its own


def _service() -> MatchService:
    return build_service(ServiceConfig.from_env())


FULL_EVERY = 120
"""Every 120th timed pass (an hour at the default 30 s) is a full one (a SCAN of every
stream): it indexes a match the index missed (one created by an API older than the index,
during an upgrade), at a cost that grows with every match kept in Redis."""


def reconcile_once(*, full: bool = False) -> list[str]:
    """One reconciler pass; Redis errors are logged, not raised (the timer goes on)."""
    try:
        return reconcile(_service(), full=full)
    except redis.RedisError as error:
        log.warning("reconciler pass failed: %s", error)
        return []


def reconcile_forever(interval: float) -> None:
    """The timer: a reconciler pass every `interval` seconds (until the worker exits)."""
    die_with_parent(signal.SIGKILL)
    logs.configure("reconciler")
    passes = 0
    while True:
        time.sleep(interval)
        passes += 1
        reconcile_once(full=passes % FULL_EVERY == 0)
        retire_once()


def retire_once() -> int:
    """Archive and remove the matches finished more than DEADWOOD_RETAIN_DAYS ago (none when
    it is unset); errors are logged, not raised."""
    from store.archive import Archive, archive_dir_from_env, retain_days_from_env, retire

    days = retain_days_from_env()
    if days <= 0:
        return 0
    try:
        done = retire(_service(), Archive(archive_dir_from_env()), days)
    except redis.RedisError as error:
        log.warning("retention pass failed: %s", error)
        return 0
    if done:
        log.info("retention: %d finished match(es) archived and removed from Redis", done)
    return done


class _Observed:
    """An rq worker whose jobs log with their match id and request id, and are counted."""

    def perform_job(self, job: Any, queue: Any, *args: Any, **kwargs: Any) -> bool:
        match_id = str(job.args[0]) if job.args else None
        request_id = (job.meta or {}).get("request_id")
        started = time.monotonic()
        with logs.bound(request_id=request_id, match_id=match_id):
            ok: bool = super().perform_job(job, queue, *args, **kwargs)  # type: ignore[misc]
        if metrics.ENABLED:
            metrics.JOBS.labels(queue.name, "finished" if ok else "failed").inc()
            metrics.JOB_DURATION.labels(queue.name).observe(time.monotonic() - started)
            metrics.flush()  # a forked work horse ends with os._exit: no flusher, no atexit
        return ok

    def handle_job_retry(self, job: Any, queue: Any, *args: Any, **kwargs: Any) -> None:
        if metrics.ENABLED:
            metrics.JOBS.labels(queue.name, "retried").inc()
        super().handle_job_retry(job, queue, *args, **kwargs)  # type: ignore[misc]


class ObservedSimpleWorker(_Observed, SimpleWorker):
    """rq's SimpleWorker, observed."""


class ObservedWorker(_Observed, Worker):
    """rq's forking Worker, observed."""


def run_workers(
    worker_class: type[BaseWorker], queues: list[Queue], connection: redis.Redis, *, burst: bool
) -> None:
    """Run an rq worker until it is asked to stop (a signal) or, with `burst`, runs dry.

    rq's worker quits, or raises from its teardown, when the queue's Redis goes away at some
    moments (a job failing while Redis is down, a state update between jobs); then a new
    worker starts as soon as Redis answers again, so a Redis restart does not stop the
    process (and with it `deadwood up`)."""
    while True:
        worker = worker_class(queues, connection=connection, serializer=JSONSerializer)
        try:
            worker.work(
                burst=burst, with_scheduler=True, logging_level=logging.getLevelName(logs.level())
            )
        except redis.RedisError as error:
            log.warning("rq worker stopped: %s", error)
        except StopRequested:
            return
        if burst or getattr(worker, "_shutdown_requested_date", None) is not None:
            return
        log.warning("rq worker quit without being asked to; a new one starts when Redis answers")
        signal.signal(signal.SIGTERM, _stop)  # rq's handlers need Redis; ours do not
        signal.signal(signal.SIGINT, _stop)
        try:
            _wait_for_redis(connection)
        except StopRequested:
            return
        restarted(worker)


def restarted(worker: BaseWorker) -> list[str]:
    """Once Redis is back after `worker` quit: mark it dead (its own teardown could not), so
    the job it was running counts as lost, not live (store/jobs.py), and reconcile at once, as
    at any worker start. Without this, a job in flight when Redis went away waits for the
    timer, or, while the dead worker's record outlives it, for its heartbeat TTL."""
    try:
        worker.register_death()  # type: ignore[no-untyped-call]
    except redis.RedisError as error:
        log.warning("could not mark the stopped rq worker dead: %s", error)
    enqueued = reconcile_once()
    log.info("reconciler at restart: %d job(s) enqueued", len(enqueued))
    return enqueued


def _stop(signum: int, frame: object) -> None:
    raise StopRequested()


def _wait_for_redis(connection: redis.Redis) -> None:
    while True:
        try:
            if connection.ping():
                return
        except redis.RedisError:
            pass
        time.sleep(1.0)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="deadwood-worker", description=__doc__.splitlines()[0])
    parser.add_argument("--burst", action="store_true", help="stop when the queues are empty")
    parser.add_argument("--reconcile-every", type=float, default=30.0, metavar="SECONDS")
    parser.add_argument("--fork", action="store_true", help="run each job in a forked process")
    parser.add_argument(
        "--queues",
        type=_queues,
        default=list(QUEUES),
        metavar="A,B",
        help=f"the queues to take jobs from, in priority order (default: {','.join(QUEUES)})",
    )
    parser.add_argument(
        "--metrics-port",
        type=int,
        default=int(os.environ.get("DEADWOOD_WORKER_METRICS_PORT") or 0),
        help="serve this worker's /metrics on this port (0: none)",
    )
    return parser.parse_args(argv)


def _queues(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in QUEUES]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"queues are some of {','.join(QUEUES)}: not {text!r}")
    return names


def serve_metrics(port: int) -> None:
    """This worker's own /metrics (every process's, in multiprocess mode)."""
    from prometheus_client import start_http_server

    start_http_server(port, registry=metrics.registry_for_scrape())
    log.info("worker metrics on http://0.0.0.0:%d/metrics", port)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    logs.configure("worker")
    try:
        pepper_from_env()
    except InsecurePepper as error:
        raise SystemExit(f"deadwood-worker: {error}") from None
    connection = queue_from_env()
    queues = [Queue(name, connection=connection, serializer=JSONSerializer) for name in args.queues]
    enqueued = reconcile_once()
    log.info("reconciler at start: %d job(s) enqueued", len(enqueued))
    timer = None
    if not args.burst and args.reconcile_every > 0:
        timer = multiprocessing.get_context("spawn").Process(
            target=reconcile_forever, args=(args.reconcile_every,), name="reconciler", daemon=True
        )
        timer.start()
    if args.metrics_port and metrics.ENABLED:
        serve_metrics(args.metrics_port)
    worker_class: type[BaseWorker] = ObservedWorker if args.fork else ObservedSimpleWorker
    try:
        run_workers(worker_class, queues, connection, burst=args.burst)
    finally:
        if timer is not None:
            timer.terminate()
            timer.join(timeout=5)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
