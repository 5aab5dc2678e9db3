"""Work kept off the request path and done in batches (issue 34's 5% budget): the access lines
a process has buffered (store/logs.py) and the metric increments it has pending
(store/metrics.py) are written

- by a background flusher every FLUSH_SECONDS (a greenlet under gunicorn's gevent worker,
  which patches `threading` and `time.sleep` before the app is loaded; a daemon thread
  elsewhere), started by the first buffered item of the process;
- when a buffer fills (its owner flushes it then and there);
- before the process forks (the child must not write its parent's lines again), and at its
  exit (`atexit`; a gunicorn worker and an rq job flush on their way out too);
- when asked: `flush()` (a scrape of /metrics, the end of a job, a test).

So a line or an increment waits at most FLUSH_SECONDS (plus the time the process takes to
yield to the flusher), and only a process killed outright (SIGKILL) loses what it held.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import threading
import time
from collections.abc import Callable

FLUSH_SECONDS = 0.5

_flushers: list[Callable[[], None]] = []
running = False
"""True once this process has its flusher (checked by the buffers on each item: a global
read, not a call)."""


def register(flush_one: Callable[[], None]) -> None:
    """`flush_one` runs at every flush (a buffer's owner registers once, at import)."""
    _flushers.append(flush_one)


def flush() -> None:
    """Write everything pending now."""
    for flush_one in _flushers:
        with contextlib.suppress(Exception):  # a closed stream must not stop the others' flush
            flush_one()


def start() -> None:
    """This process's flusher (idempotent)."""
    global running
    if running:
        return
    running = True
    threading.Thread(target=_loop, name="deadwood-flusher", daemon=True).start()


def _loop() -> None:
    while True:
        time.sleep(FLUSH_SECONDS)
        flush()


def _forked() -> None:
    global running
    running = False  # the parent's flusher thread does not exist in the child


os.register_at_fork(before=flush, after_in_child=_forked)
atexit.register(flush)
