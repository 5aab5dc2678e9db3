"""The worker process of `deadwood up`: queues `scoring` and `bots`, plus the reconciler.

`main()` reconciles once, starts the reconciler timer in its own process (spawned, not
forked, so it shares no locks with the worker), then runs an RQ worker on both queues with
the JSON serializer and the scheduler (which re-queues retried jobs after their interval).
The worker is rq's SimpleWorker by default (jobs run in this process; SIGALRM enforces the
job timeouts); `--fork` uses rq's forking Worker instead.

    python -m workers.run [--burst] [--reconcile-every SECONDS] [--fork]
"""

from __future__ import annotations

import argparse
import logging
import multiprocessing
import time
from collections.abc import Sequence

import redis
from rq import Queue, SimpleWorker, Worker
from rq.serializers import JSONSerializer

from store.connection import pepper_from_env, queue_from_env, redis_from_env
from store.jobs import BOTS, SCORING
from store.service import MatchService
from workers.reconcile import reconcile

log = logging.getLogger("workers.run")


def _service() -> MatchService:
    return MatchService(redis_from_env(), queue_redis=queue_from_env(), pepper=pepper_from_env())


def reconcile_once() -> list[str]:
    """One reconciler pass; Redis errors are logged, not raised (the timer goes on)."""
    try:
        return reconcile(_service())
    except redis.RedisError as error:
        log.warning("reconciler pass failed: %s", error)
        return []


def reconcile_forever(interval: float) -> None:
    """The timer: a reconciler pass every `interval` seconds."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s reconciler %(message)s")
    while True:
        time.sleep(interval)
        reconcile_once()


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="deadwood-worker", description=__doc__.splitlines()[0])
    parser.add_argument("--burst", action="store_true", help="stop when the queues are empty")
    parser.add_argument("--reconcile-every", type=float, default=30.0, metavar="SECONDS")
    parser.add_argument("--fork", action="store_true", help="run each job in a forked process")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    connection = queue_from_env()
    queues = [
        Queue(name, connection=connection, serializer=JSONSerializer) for name in (SCORING, BOTS)
    ]
    enqueued = reconcile_once()
    log.info("reconciler at start: %d job(s) enqueued", len(enqueued))
    timer = None
    if not args.burst and args.reconcile_every > 0:
        timer = multiprocessing.get_context("spawn").Process(
            target=reconcile_forever, args=(args.reconcile_every,), name="reconciler", daemon=True
        )
        timer.start()
    worker_class = Worker if args.fork else SimpleWorker
    worker = worker_class(queues, connection=connection, serializer=JSONSerializer)
    try:
        worker.work(burst=args.burst, with_scheduler=True, logging_level="INFO")
    finally:
        if timer is not None:
            timer.terminate()
            timer.join(timeout=5)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
