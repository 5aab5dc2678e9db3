"""`deadwood api` and `deadwood worker`: one process kind each, for a deployment of your own
(compose.yaml, deploy/deadwood-*.service); `deadwood up` starts its children with them too.

    deadwood api [--host H] [--port P] [--workers N] [--rate-create ...] [--rate-moves ...]
    deadwood worker [--burst] [--reconcile-every S] [--fork] [--metrics-port P] [--queues A,B]

`api` becomes (exec) gunicorn with the gevent worker that answers 414 and 431 as
problem+json (api/serving.py), the log format of store/logs.py for gunicorn's own lines and
no gunicorn access log (the app writes one line per request, with its duration and request
id). It needs a directory for the metrics of its worker processes: PROMETHEUS_MULTIPROC_DIR
(made if missing, never emptied: the files of processes gone keep counting, so counters
only grow), else a fresh temporary one.
The rate limits default as under `deadwood up` (cli/limits.py).
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from cli import limits as cli_limits

Sub = Any  # argparse's _SubParsersAction
log = logging.getLogger("deadwood.api")


def register(sub: Sub) -> None:
    api = sub.add_parser("api", help="run the HTTP API under gunicorn (no Redis, no worker)")
    api.add_argument("--host", default=os.environ.get("DEADWOOD_HOST", "127.0.0.1"))
    api.add_argument("--port", type=int, default=int(os.environ.get("DEADWOOD_PORT", "8000")))
    api.add_argument(
        "--workers",
        type=int,
        default=int(os.environ.get("DEADWOOD_API_WORKERS", "2")),
        help="gunicorn worker processes",
    )
    cli_limits.add_arguments(api)
    api.set_defaults(handler=run_api)
    worker = sub.add_parser("worker", help="run an rq worker and the reconciler")
    worker.add_argument("--burst", action="store_true", help="stop when the queues are empty")
    worker.add_argument("--reconcile-every", type=float, default=30.0, metavar="SECONDS")
    worker.add_argument("--fork", action="store_true", help="run each job in a forked process")
    worker.add_argument("--metrics-port", type=int, default=None, help="serve /metrics here")
    worker.add_argument(
        "--queues", default=None, metavar="A,B", help="the queues to take jobs from (default: all)"
    )
    worker.set_defaults(handler=run_worker)


def gunicorn_argv(host: str, port: int, workers: int) -> list[str]:
    """The gunicorn command line of the API."""
    return [
        sys.executable,
        "-m",
        "gunicorn",
        "--worker-class",
        "api.serving.ProblemGeventWorker",  # gevent, with problem+json 414/431
        "--logger-class",
        "api.serving.Logger",  # store/logs.py's format for gunicorn's own lines
        "--log-level",
        os.environ.get("DEADWOOD_LOG_LEVEL", "info").lower(),
        "--workers",
        str(workers),
        "--bind",
        f"{host}:{port}",
        "--graceful-timeout",
        "5",
        "api:create_app()",
    ]


def metrics_dir(env: dict[str, str], *, empty: bool = False) -> Path:
    """PROMETHEUS_MULTIPROC_DIR (made if missing; emptied first with `empty`: the launcher
    does so once at its start, never a child, whose restart must keep the others' files),
    else a fresh temporary directory."""
    given = env.get("PROMETHEUS_MULTIPROC_DIR")
    if not given:
        return Path(tempfile.mkdtemp(prefix="deadwood-metrics-"))
    path = Path(given)
    if empty and path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True, exist_ok=True)
    return path


def run_api(args: argparse.Namespace) -> int:
    from store import logs

    logs.configure("api")
    env = dict(os.environ)
    env.update(cli_limits.limits_env(args, lambda text: log.info("%s", text)))
    env["PROMETHEUS_MULTIPROC_DIR"] = str(metrics_dir(env))
    argv = gunicorn_argv(args.host, args.port, args.workers)
    sys.stdout.flush()
    os.execve(argv[0], argv, env)  # no return: this process becomes gunicorn's master
    return 0  # pragma: no cover


def run_worker(args: argparse.Namespace) -> int:
    from workers import run

    argv = ["--reconcile-every", str(args.reconcile_every)]
    argv += ["--burst"] if args.burst else []
    argv += ["--fork"] if args.fork else []
    if args.metrics_port is not None:
        argv += ["--metrics-port", str(args.metrics_port)]
    if args.queues is not None:
        argv += ["--queues", args.queues]
    return run.main(argv)
