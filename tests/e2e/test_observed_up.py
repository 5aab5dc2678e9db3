"""`deadwood up` as an operator sees it (issue 34): with DEADWOOD_LOG_FORMAT=json every
process (launcher, API, worker) writes JSON lines; a create's request id reaches the worker's
lines of the bot turns it caused; /metrics (behind its token) shows the worker's jobs through
the shared multiprocess directory; /v1/health/ready is 200 once a worker lives; no line holds
a seat token."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from cli.procs import free_port
from tests.support.waiting import wait_until

METRICS_TOKEN = "e2e-scrape-token"


def _call(url: str, body: Any = None, headers: dict[str, str] | None = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    sent = {"Content-Type": "application/json", **(headers or {})}
    request = urllib.request.Request(url, data=data, headers=sent)
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, response.read().decode(), dict(response.headers)
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(), dict(error.headers)


def _jobs_done(base: str) -> float:
    status, text, _ = _call(f"{base}/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"})
    assert status == 200
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith("deadwood_jobs_total{") and 'outcome="finished"' in line
    )


def test_json_logs_request_ids_into_jobs_metrics_and_readiness(tmp_path: Path) -> None:
    port, redis_port = free_port(), free_port()
    base = f"http://127.0.0.1:{port}"
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "QUEUE_URL")}
    env.update(DEADWOOD_LOG_FORMAT="json", DEADWOOD_METRICS_TOKEN=METRICS_TOKEN)
    command = [sys.executable, "-m", "cli", "up", "--port", str(port)]
    command += ["--redis-port", str(redis_port), "--data-dir", str(tmp_path / "var")]
    command += ["--workers", "1"]
    out = tmp_path / "up.log"
    with out.open("wb") as sink:
        proc = subprocess.Popen(command, env=env, stdout=sink, stderr=subprocess.STDOUT)
    try:
        wait_until(
            lambda: (
                _call(f"{base}/v1/health/ready")[0] == 200
                if _port_open(port)
                else proc.poll() is not None
            ),
            60,
            "deadwood up to be ready",
            every=0.2,
        )
        assert proc.poll() is None, out.read_text()[-3000:]
        bots = [{"name": n, "bot": "random"} for n in "abc"]
        created = _call(
            f"{base}/v1/matches",
            {"variant": "three-hand-gin", "players": bots},
            {"X-Request-ID": "e2e-bots-1"},
        )
        assert created[0] == 201 and created[2]["X-Request-ID"] == "e2e-bots-1"
        people = [{"name": n} for n in "abc"]
        status, body, _ = _call(
            f"{base}/v1/matches", {"variant": "three-hand-gin", "players": people}
        )
        assert status == 201
        made = json.loads(body)
        tokens = [seat["token"] for seat in made["seats"]]
        for token in tokens:
            _call(f"{base}/v1/matches/{made['id']}", headers={"Authorization": f"Bearer {token}"})
        wait_until(lambda: _jobs_done(base) >= 3, 60, "the worker to run bot turns", every=0.5)
        assert _call(f"{base}/metrics")[0] == 401
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
    text = out.read_text()
    lines = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
    assert {"launcher", "api", "worker"} <= {line.get("process") for line in lines}
    keys = {"time", "level", "logger", "message", "request_id", "match_id", "seat"}
    assert all(keys <= set(line) for line in lines)
    bot_match = json.loads(created[1])["id"]
    from_worker = [
        line
        for line in lines
        if line.get("process") == "worker" and line["request_id"] == "e2e-bots-1"
    ]
    assert from_worker and all(line["match_id"] == bot_match for line in from_worker)
    access = [line for line in lines if line["logger"] == "deadwood.access"]
    assert any(line.get("duration_ms") is not None for line in access)
    assert not any(token in text for token in tokens)


def _port_open(port: int) -> bool:
    import socket

    with socket.socket() as sock:
        sock.settimeout(0.2)
        return sock.connect_ex(("127.0.0.1", port)) == 0
