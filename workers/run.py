"""The worker process of `deadwood up`: queues `scoring`, `bots`, `bots-low`, and the reconciler.

`main()` reconciles once, starts the reconciler timer in its own process (spawned, not
forked, so it shares no locks with the worker, and it dies with the worker), then runs an RQ
worker on the queues in priority order (store.jobs.QUEUES: a bot-only match's bot turns wait
for every match with a person) with the JSON serializer and the scheduler (which re-queues
retried jobs after their interval). The worker is rq's SimpleWorker by default (jobs run in
this process; SIGALRM enforces the job timeouts); `--fork` uses rq's forking Worker instead.

    python -m workers.run [--burst] [--reconcile-every SECONDS] [--fork]
"""

from __future__ import annotations

import argparse
import logging
import multiprocessing
import signal
import time
from collections.abc import Sequence

import redis
from rq import Queue, SimpleWorker, Worker
from rq.exceptions import StopRequested
from rq.serializers import JSONSerializer
from rq.worker.base import BaseWorker

from store.connection import InsecurePepper, pepper_from_env, queue_from_env
from store.jobs import QUEUES
from store.service import MatchService, service_from_env
from workers.lifeline import die_with_parent
from workers.reconcile import reconcile

log = logging.getLogger("workers.run")


def _service() -> MatchService:
    return service_from_env()


def reconcile_once() -> list[str]:
    """One reconciler pass; Redis errors are logged, not raised (the timer goes on)."""
    try:
        return reconcile(_service())
    except redis.RedisError as error:
        log.warning("reconciler pass failed: %s", error)
        return []


def reconcile_forever(interval: float) -> None:
    """The timer: a reconciler pass every `interval` seconds (until the worker exits)."""
    die_with_parent(signal.SIGKILL)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s reconciler %(message)s")
    while True:
        time.sleep(interval)
        reconcile_once()


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
            worker.work(burst=burst, with_scheduler=True, logging_level="INFO")
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
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    try:
        pepper_from_env()
    except InsecurePepper as error:
        raise SystemExit(f"deadwood-worker: {error}") from None
    connection = queue_from_env()
    queues = [Queue(name, connection=connection, serializer=JSONSerializer) for name in QUEUES]
    enqueued = reconcile_once()
    log.info("reconciler at start: %d job(s) enqueued", len(enqueued))
    timer = None
    if not args.burst and args.reconcile_every > 0:
        timer = multiprocessing.get_context("spawn").Process(
            target=reconcile_forever, args=(args.reconcile_every,), name="reconciler", daemon=True
        )
        timer.start()
    worker_class: type[BaseWorker] = Worker if args.fork else SimpleWorker
    try:
        run_workers(worker_class, queues, connection, burst=args.burst)
    finally:
        if timer is not None:
            timer.terminate()
            timer.join(timeout=5)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
