"""The worker process outlives Redis outages (issue 6, architecture.md Processes).

`deadwood up` stops the whole service when its worker process exits, so a worker that quits
when the queue's Redis goes away takes the service down with a Redis restart. Here Redis is
killed and restarted a few times, first while the worker is idle and then while it works (a
match of bots it is known to be playing, issue 10); the worker process must still be running
afterwards, it must still play (a match of bots created after the last restart moves on), and
SIGTERM still stops it cleanly.
"""

from __future__ import annotations

import functools
import signal
import subprocess
import time
from typing import Any

from rq import Worker
from rq.serializers import JSONSerializer

from store.service import MatchService
from tests.support.reliability_procs import soak
from tests.support.waiting import wait_until

BOTS = [{"name": n, "bot": "random"} for n in ("ana", "ben")]
OUTAGE_SECONDS = 2.0
"""How long Redis stays down each time."""
STOP_SECONDS = 60.0
"""How long a SIGTERM may take to stop the worker (it finishes its job in hand first)."""


def _registered(client: Any, pid: int) -> bool:
    """The rq worker of process `pid` has registered with Redis (it waits for jobs)."""
    return any(w.pid == pid for w in Worker.all(connection=client, serializer=JSONSerializer))


def _advanced(service: MatchService, match_id: str, beyond: int) -> bool:
    return service.is_finished(match_id) or service.load(match_id).version > beyond


def _outage(private_redis: Any, worker: Any, number: int) -> None:
    private_redis.kill9()
    time.sleep(OUTAGE_SECONDS)  # the outage itself, not a wait for an outcome
    private_redis.start()
    assert worker.proc.poll() is None, f"the worker exited after outage {number}"


def test_the_worker_process_survives_redis_restarts(stack: Any, private_redis: Any) -> None:
    worker = stack.start_worker()
    client = private_redis.client()
    service = MatchService(client, pepper=b"outage")
    wait_until(lambda: _registered(client, worker.proc.pid), 30, "the worker to register")
    _outage(private_redis, worker, 1)  # idle: no match yet
    for i in range(1, soak(3, 12)):
        created = service.create_match(
            "manipulation-rummy", BOTS, {"target_score": 10}, i, f"o-{i}", "f"
        )
        start = service.load(created.match_id).version
        wait_until(
            functools.partial(_advanced, service, created.match_id, start),
            60,
            f"the worker to play match {i} (it works when Redis goes)",
        )
        _outage(private_redis, worker, i + 1)
    created = service.create_match("manipulation-rummy", BOTS, {"target_score": 10}, 99, "o-x", "f")
    start = service.load(created.match_id).version
    wait_until(
        lambda: _advanced(service, created.match_id, start + 9),
        60,
        "the worker to play 10 moves of a match created after the last restart",
        every=0.1,
    )
    assert worker.proc.poll() is None
    worker.proc.send_signal(signal.SIGTERM)
    assert _exit_code(worker, STOP_SECONDS) == 0, "a SIGTERM still stops the worker cleanly"
    client.close()


def _exit_code(worker: Any, seconds: float) -> int:
    """The worker's exit status; if it is still running after `seconds`, the test fails with
    its last log lines (a warm shutdown first finishes the bot turn in hand, which on a loaded
    machine may take seconds, but not this long)."""
    try:
        return int(worker.proc.wait(timeout=seconds))
    except subprocess.TimeoutExpired:
        tail = "\n".join(worker.log.read_text(errors="replace").splitlines()[-40:])
        raise AssertionError(
            f"the worker did not exit {seconds:.0f} s after SIGTERM; children {worker.children()};"
            f" its log ends:\n{tail}"
        ) from None
