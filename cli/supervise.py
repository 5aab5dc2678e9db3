"""The children of `deadwood up` and their supervision (issue 11).

Each child (the embedded redis-server, the gunicorn API, the rq worker) runs in a session of
its own (so Ctrl-C reaches only the launcher) and dies with the launcher: the kernel sends it
its `death_signal` when the launcher exits, even by SIGKILL (workers/lifeline.py). A child
that dies is started again after a backoff (0.5 s, doubling to 30 s; back to 0.5 s once it
has run for a minute), with a log line, while the others keep going. Whatever a dead child
left in its process group (gunicorn's workers, a work horse) is killed first, so a restarted
API finds its port free. Only `stop_all` (the launcher's SIGINT or SIGTERM) stops them all.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from workers.lifeline import preexec

FIRST_BACKOFF = 0.5
MAX_BACKOFF = 30.0
STABLE_SECONDS = 60.0
STOP_TIMEOUT = 15.0

Say = Callable[[str], None]


@dataclass
class Child:
    """One supervised process: how to start it, and its restart bookkeeping."""

    name: str
    command: list[str]
    env: dict[str, str] | None = None
    log: Path | None = None
    death_signal: int = signal.SIGTERM
    proc: subprocess.Popen[bytes] | None = None
    started: float = 0.0
    failures: int = 0
    restart_at: float | None = None
    restarts: int = field(default=0)

    def start(self) -> None:
        output: IO[bytes] | None = self.log.open("ab") if self.log is not None else None
        try:
            self.proc = subprocess.Popen(
                self.command,
                env=self.env,
                stdout=output,
                stderr=subprocess.STDOUT if output is not None else None,
                start_new_session=True,
                preexec_fn=preexec(self.death_signal),
            )
        finally:
            if output is not None:
                output.close()
        self.started = time.monotonic()
        self.restart_at = None

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None


def backoff(failures: int) -> float:
    """Seconds before restart number `failures` (1, 2, ...) of a child that keeps dying."""
    return float(min(MAX_BACKOFF, FIRST_BACKOFF * 2 ** max(0, failures - 1)))


class Supervisor:
    """Starts, watches, restarts and stops a list of children."""

    def __init__(self, say: Say) -> None:
        self.say = say
        self.children: list[Child] = []

    def add(self, child: Child) -> Child:
        self.children.append(child)
        child.start()
        return child

    def check(self, now: float | None = None) -> None:
        """One pass: note children that died, restart those whose backoff is over."""
        now = time.monotonic() if now is None else now
        for child in self.children:
            if child.restart_at is None and not child.running():
                self._died(child, now)
            elif child.restart_at is not None and now >= child.restart_at:
                child.restarts += 1
                child.start()
                self.say(f"{child.name} restarted (restart {child.restarts})")

    def _died(self, child: Child, now: float) -> None:
        assert child.proc is not None
        status = child.proc.returncode
        kill_group(child.proc, signal.SIGKILL)
        if now - child.started >= STABLE_SECONDS:
            child.failures = 0
        child.failures += 1
        delay = backoff(child.failures)
        child.restart_at = now + delay
        self.say(f"{child.name} exited with status {status}; restarting in {delay:g} s")

    def stop(self, child: Child, gently: Callable[[subprocess.Popen[bytes]], Any] | None) -> None:
        """Stop one child: `gently(proc)` or SIGTERM, then SIGKILL after STOP_TIMEOUT."""
        proc = child.proc
        child.restart_at = None
        if proc is None:
            return
        if proc.poll() is None:
            if gently is not None:
                gently(proc)
            else:
                proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        kill_group(proc, signal.SIGKILL)
        self.say(f"{child.name} stopped")


def kill_group(proc: subprocess.Popen[Any], sig: int) -> None:
    """`sig` to what is left of the process group `proc` led (it ran in its own session)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, sig)
