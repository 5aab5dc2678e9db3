"""Processes for the reliability tests: a private redis-server, gunicorn, an rq worker.

Every process is started by a test on a free loopback port in a temporary directory, in its
own session (so its children - gunicorn's workers, rq's work horses - share its process group),
and stopped by the fixture that started it: SIGTERM to its group, then SIGKILL after a bound.
Output goes to a file in the temporary directory, which the leak scan reads.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import redis

from api.serving import WORKER_CLASS
from cli.procs import free_port, redis_server_binary, wait_port
from tests.support.waiting import wait_until

ROOT = Path(__file__).resolve().parents[2]
SOAK = os.environ.get("DEADWOOD_SOAK") == "1"
PEPPER = "reliability-pepper"


def soak(short: Any, long: Any) -> Any:
    """`long` under `make soak` (DEADWOOD_SOAK=1), else `short`."""
    return long if SOAK else short


def stop(proc: subprocess.Popen[bytes] | None, seconds: float = 10.0) -> None:
    """SIGTERM to the process group of `proc` (started with start_new_session), then SIGKILL."""
    if proc is None or proc.poll() is not None:
        if proc is not None:
            _kill_group(proc, signal.SIGKILL)  # children left behind by a killed leader
        return
    _kill_group(proc, signal.SIGCONT)
    _kill_group(proc, signal.SIGTERM)
    try:
        proc.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        _kill_group(proc, signal.SIGKILL)
        proc.wait(timeout=seconds)
    _kill_group(proc, signal.SIGKILL)


def _kill_group(proc: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, sig)


def spawn(
    command: list[str], log: Path, env: Mapping[str, str] | None = None
) -> subprocess.Popen[bytes]:
    handle = log.open("ab")
    try:
        return subprocess.Popen(
            command,
            cwd=ROOT,
            env={**os.environ, **(env or {})},
            stdout=handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    finally:
        handle.close()


class PrivateRedis:
    """A redis-server of one test: append-only file with fsync always, killable, restartable
    on the same port and directory."""

    def __init__(self, directory: Path, *, appendonly: bool = True) -> None:
        self.dir = directory
        self.dir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.appendonly = appendonly
        self.proc: subprocess.Popen[bytes] | None = None
        self.kills = 0
        self.pauses = 0

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        args = [redis_server_binary(), "--port", str(self.port), "--bind", "127.0.0.1"]
        args += ["--dir", str(self.dir), "--save", ""]
        if self.appendonly:
            args += ["--appendonly", "yes", "--appendfsync", "always"]
        else:
            args += ["--appendonly", "no"]
        self.proc = spawn(args, self.dir / "redis.log")
        proc = self.proc
        client = redis.Redis(port=self.port, socket_timeout=1)

        def answers() -> bool:
            with contextlib.suppress(redis.exceptions.BusyLoadingError, redis.ConnectionError):
                return bool(client.ping())
            if proc.poll() is not None:
                raise RuntimeError(f"redis-server exited: see {self.dir / 'redis.log'}")
            return False

        try:
            wait_until(answers, 30.0, f"redis-server to answer on port {self.port}", every=0.025)
        finally:
            client.close()

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)
        self.kills += 1

    def pause(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGSTOP)
        self.pauses += 1

    def resume(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGCONT)

    def client(self) -> redis.Redis:
        return redis.Redis(port=self.port)

    def stop(self) -> None:
        stop(self.proc)
        self.proc = None


class Gunicorn:
    """`gunicorn -k api.serving.ProblemGeventWorker -w N 'api:create_app()'` (gevent, as
    `deadwood up` runs it) on a free port against `env`'s Redis."""

    def __init__(self, directory: Path, env: Mapping[str, str], workers: int = 2) -> None:
        self.port = free_port()
        self.log = directory / "gunicorn.log"
        command = [sys.executable, "-m", "gunicorn", "-k", WORKER_CLASS, "-w", str(workers)]
        command += [
            "-b",
            f"127.0.0.1:{self.port}",
            "--graceful-timeout",
            "3",
            "--no-control-socket",
        ]
        command += ["--access-logfile", "-", "--error-logfile", "-", "--log-level", "info"]
        command += ["api:create_app()"]
        self.proc = spawn(command, self.log, env)
        wait_port(self.port, self.proc)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        stop(self.proc)


class RqWorker:
    """`python -m workers.run` (scoring and bots queues, the reconciler at start and on a
    timer); `fork=True` runs each job in a forked work horse."""

    def __init__(
        self,
        directory: Path,
        env: Mapping[str, str],
        *,
        fork: bool = False,
        reconcile_every: float = 1.0,
        name: str = "worker",
    ) -> None:
        self.log = directory / f"{name}.log"
        command = [sys.executable, "-m", "workers.run", "--reconcile-every", str(reconcile_every)]
        if fork:
            command.append("--fork")
        self.proc = spawn(command, self.log, env)

    def children(self) -> list[int]:
        """Pids of the worker's child processes (its work horse, its reconciler timer)."""
        path = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children")
        try:
            return [int(p) for p in path.read_text().split()]
        except OSError:
            return []

    def stop(self) -> None:
        stop(self.proc)


def app_env(redis_url: str, **extra: str) -> dict[str, str]:
    """The environment of the served app and the workers."""
    return {
        "REDIS_URL": redis_url,
        "QUEUE_URL": redis_url,
        "DEADWOOD_TOKEN_PEPPER": PEPPER,
        "DEADWOOD_SSE_MAX_SECONDS": "4",
        "DEADWOOD_SSE_HEARTBEAT_SECONDS": "1",
        "PYTHONUNBUFFERED": "1",
        **extra,
    }


class Stack:
    """gunicorn (2 gevent workers) and an rq worker on one Redis; stopped by the fixture."""

    def __init__(self, directory: Path, redis_url: str) -> None:
        self.dir = directory
        self.redis_url = redis_url
        self.env = app_env(redis_url)
        self.api: Gunicorn | None = None
        self.workers: list[RqWorker] = []
        self.started_workers = 0

    def start_api(self, workers: int = 2, **env: str) -> Gunicorn:
        self.api = Gunicorn(self.dir, {**self.env, **env}, workers=workers)
        return self.api

    def start_worker(self, *, fork: bool = False, reconcile_every: float = 1.0) -> RqWorker:
        worker = RqWorker(
            self.dir,
            self.env,
            fork=fork,
            reconcile_every=reconcile_every,
            name=f"worker{self.started_workers}",
        )
        self.started_workers += 1
        self.workers.append(worker)
        return worker

    @property
    def base_url(self) -> str:
        assert self.api is not None
        return self.api.base_url

    def logs(self) -> list[str]:
        """Every line the app, its gunicorn and the workers wrote."""
        lines: list[str] = []
        for path in sorted(self.dir.glob("*.log")):
            lines += path.read_text(errors="replace").splitlines()
        return lines

    def stop(self) -> None:
        for worker in self.workers:
            worker.stop()
        if self.api is not None:
            self.api.stop()


def descendants(pid: int) -> set[int]:
    """Every process below `pid` (children started in sessions of their own included)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        children.setdefault(int(stat.rsplit(")", 1)[1].split()[1]), []).append(int(entry.name))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


class DeadwoodUp:
    """`deadwood up` as a user runs it (embedded Redis, gunicorn with gevent, a worker) on
    free ports with its data directory and output in `directory`; the app's own defaults, with
    only the pepper set. Stopped with SIGINT, as Ctrl-C does; what is left is killed."""

    def __init__(self, directory: Path, **env: str) -> None:
        self.port = free_port()
        self.log = directory / "deadwood-up.log"
        script = Path(sys.executable).with_name("deadwood")
        launcher = [str(script)] if script.exists() else [sys.executable, "-m", "cli"]
        command = [*launcher, "up", "--port", str(self.port), "--workers", "1"]
        command += ["--data-dir", str(directory / "var"), "--redis-port", str(free_port())]
        clean = {k: v for k, v in os.environ.items() if not k.startswith(("REDIS_", "QUEUE_"))}
        full = {**clean, "DEADWOOD_TOKEN_PEPPER": PEPPER, "PYTHONUNBUFFERED": "1", **env}
        with self.log.open("ab") as handle:
            self.proc = subprocess.Popen(
                command, cwd=ROOT, env=full, stdout=handle, stderr=subprocess.STDOUT
            )
        self._wait_healthy()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _wait_healthy(self, seconds: float = 60.0) -> None:
        import httpx

        def healthy() -> bool:
            if self.proc.poll() is not None:
                raise RuntimeError(f"deadwood up exited: {self.log.read_text()[-2000:]}")
            with contextlib.suppress(httpx.HTTPError):
                return httpx.get(f"{self.base_url}/v1/health", timeout=2).status_code == 200
            return False

        wait_until(healthy, seconds, "deadwood up to answer /v1/health", every=0.2)

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self) -> None:
        children = descendants(self.proc.pid)
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=40)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for pid in children:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
