"""No orphans: a child process that dies with its parent (Linux `PR_SET_PDEATHSIG`).

`die_with_parent(sig)` asks the kernel to send `sig` to this process when the thread that
forked it exits, so a launcher killed with SIGKILL leaves no process behind. It is called in
the child between fork and exec (`subprocess.Popen(preexec_fn=...)`, see `preexec`) or at the
start of a spawned helper process (the reconciler timer of workers/run.py). On systems without
prctl it does nothing; there the process groups that the launcher kills on its way out are the
only guard.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
from collections.abc import Callable

PR_SET_PDEATHSIG = 1


def die_with_parent(sig: int = signal.SIGKILL, parent: int | None = None) -> None:
    """Get `sig` when the parent exits; exit at once if `parent` is given and already gone."""
    if not sys.platform.startswith("linux"):
        return
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0) != 0:
        return
    if parent is not None and os.getppid() != parent:
        os._exit(1)  # the parent died before prctl took effect


def preexec(sig: int) -> Callable[[], None]:
    """A `preexec_fn` that makes the child die with this process (signal `sig`)."""
    parent = os.getpid()

    def setup() -> None:
        die_with_parent(sig, parent)

    return setup
