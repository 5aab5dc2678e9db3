"""The worker process outlives Redis outages (issue 6, architecture.md Processes).

`deadwood up` stops the whole service when its worker process exits, so a worker that quits
when the queue's Redis goes away takes the service down with a Redis restart. Here Redis is
killed and restarted a few times while the worker is idle and while it works; the worker
process must still be running afterwards, it must still play (a match of bots created after
the last restart moves on), and SIGTERM still stops it cleanly.
"""

from __future__ import annotations

import signal
import time
from typing import Any

from store.service import MatchService
from tests.support.reliability_procs import soak

BOTS = [{"name": n, "bot": "random"} for n in ("ana", "ben")]


def _advances(service: MatchService, match_id: str, by: int, seconds: float) -> bool:
    start = service.load(match_id)[1]
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if service.is_finished(match_id) or service.load(match_id)[1] >= start + by:
            return True
        time.sleep(0.1)
    return False


def test_the_worker_process_survives_redis_restarts(stack: Any, private_redis: Any) -> None:
    worker = stack.start_worker()
    client = private_redis.client()
    service = MatchService(client, pepper=b"outage")
    time.sleep(1.0)
    outages = soak(3, 12)
    for i in range(outages):
        service.create_match("manipulation-rummy", BOTS, {"target_score": 10}, i, f"o-{i}", "f")
        time.sleep(0.3 + 0.4 * (i % 3))
        private_redis.kill9()
        time.sleep(2.0)
        private_redis.start()
        assert worker.proc.poll() is None, f"the worker exited after outage {i + 1}"
    created = service.create_match("manipulation-rummy", BOTS, {"target_score": 10}, 99, "o-x", "f")
    assert _advances(service, created.match_id, 10, 60.0), "the worker no longer plays"
    assert worker.proc.poll() is None
    worker.proc.send_signal(signal.SIGTERM)
    assert worker.proc.wait(timeout=20) == 0, "a SIGTERM still stops the worker cleanly"
    client.close()
