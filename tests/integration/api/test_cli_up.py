"""`deadwood up` (issue 4, "One command to run it"): embedded Redis with its AOF under the data
directory, the API under gunicorn (gevent) and an RQ worker, in the foreground; SIGINT stops
every child and loses nothing (a second start on the same directory still has the match).

Issue 11: with no DEADWOOD_TOKEN_PEPPER it generates a pepper once, keeps it in the data
directory (mode 0600) and says so, so seat tokens survive a restart; the API alone refuses to
start with the public development pepper; rate limits are on by default."""

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

import pytest

from cli.procs import free_port
from tests.support.waiting import wait_until


def _get(url: str, timeout: float = 2.0) -> Any:
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return response.status, json.loads(response.read())


def _post(url: str, body: dict[str, Any], headers: dict[str, str] | None = None) -> Any:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", **(headers or {})},
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, {**json.loads(error.read()), "retry_after": error.headers["Retry-After"]}


def _get_as(url: str, token: str) -> Any:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=5) as response:
        return json.loads(response.read())


def _descendants(pid: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _start(data: Path, port: int, redis_port: int) -> subprocess.Popen[bytes]:
    dropped = ("REDIS_URL", "QUEUE_URL", "DEADWOOD_TOKEN_PEPPER", "DEADWOOD_DEV")
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    script = Path(sys.executable).with_name("deadwood")
    launcher = [str(script)] if script.exists() else [sys.executable, "-m", "cli.up"]
    command = [*launcher, "up", "--host", "127.0.0.1"]
    command += ["--port", str(port), "--data-dir", str(data), "--redis-port", str(redis_port)]
    command += ["--workers", "1"]
    # The output goes to a file, not a pipe nobody drains: past a pipe's 64 KiB the launcher's
    # log writes would block (as they would for any process whose output is not read).
    path = _output_of(data)
    with path.open("wb") as output:
        proc = subprocess.Popen(command, env=env, stdout=output, stderr=subprocess.STDOUT)
    _OUTPUTS[proc.pid] = path
    return proc


def _output_of(data: Path) -> Path:
    """Where the launcher serving `data` writes its output."""
    return data.parent / f"{data.name}-up.log"


_OUTPUTS: dict[int, Path] = {}


def _read_output(proc: subprocess.Popen[bytes]) -> str:
    return _OUTPUTS[proc.pid].read_text(errors="replace") if proc.pid in _OUTPUTS else ""


def _wait_healthy(base: str, proc: subprocess.Popen[bytes]) -> None:
    def healthy() -> bool:
        assert proc.poll() is None, _read_output(proc)
        try:
            return bool(_get(f"{base}/v1/health")[0] == 200)
        except OSError:
            return False

    wait_until(healthy, 60, "deadwood up to answer /v1/health", every=0.2)


def _stop(proc: subprocess.Popen[bytes]) -> tuple[int, str]:
    children = _descendants(proc.pid)
    assert len(children) >= 3, "redis-server, gunicorn and the worker run under the launcher"
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=60)
    output = _read_output(proc)
    wait_until(
        lambda: not [pid for pid in children if _alive(pid)], 10, "every child to exit", every=0.1
    )
    return proc.returncode, output


def test_up_serves_stops_cleanly_and_keeps_the_data(tmp_path: Path) -> None:
    data = tmp_path / "var"
    port, redis_port = free_port(), free_port()
    base = f"http://127.0.0.1:{port}"
    proc = _start(data, port, redis_port)
    try:
        _wait_healthy(base, proc)
        status, created = _post(
            f"{base}/v1/matches",
            {"variant": "three-hand-gin", "players": [{"name": "a"}, {"name": "b"}, {"name": "c"}]},
        )
        assert status == 201
        code, output = _stop(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert code == 0, output
    assert "all stopped" in output
    assert list((data / "appendonlydir").glob("*.aof")), "the append-only file is under --data-dir"
    pepper = data / "token_pepper"
    assert f"generated a new token pepper in {pepper}" in output
    assert pepper.stat().st_mode & 0o777 == 0o600 and len(pepper.read_text().strip()) >= 32
    kept = pepper.read_text()

    again = _start(data, port, redis_port)
    try:
        _wait_healthy(base, again)
        status, view = _get(f"{base}/v1/matches/{created['id']}")
        assert status == 200 and view["version"] == created["version"]
        seat = created["seats"][0]
        assert _get_as(f"{base}/v1/matches/{created['id']}", seat["token"])["you"]["seat"] == 0
        code, output = _stop(again)
        assert code == 0, output
        assert f"token pepper from {pepper}" in output and pepper.read_text() == kept
    finally:
        if again.poll() is None:
            again.kill()


def test_up_limits_creates_and_moves_by_default(tmp_path: Path) -> None:
    """Issue 11 item 5: with no flags, creates per address (20 a minute) and moves per seat
    (120 a minute) are limited: 429 `rate_limited` with Retry-After, and the refused create
    made nothing."""
    port, redis_port = free_port(), free_port()
    base = f"http://127.0.0.1:{port}"
    proc = _start(tmp_path / "var", port, redis_port)
    try:
        _wait_healthy(base, proc)
        body = {"variant": "three-hand-gin", "players": [{"name": n} for n in "abc"]}
        answers = [_post(f"{base}/v1/matches", body) for _ in range(25)]
        created = [a for s, a in answers if s == 201]
        refused = [a for s, a in answers if s == 429]
        assert refused and refused[0]["code"] == "rate_limited", answers[-1]
        assert int(refused[0]["retry_after"]) >= 1 and len(created) + len(refused) == 25
        match, seat = created[0], created[0]["seats"][0]
        auth = {"Authorization": f"Bearer {seat['token']}"}
        url = f"{base}/v1/matches/{match['id']}/moves"
        statuses = [_post(url, {"type": "advise", "text": "x"}, auth)[0] for _ in range(130)]
        assert 429 in statuses, statuses
        _stop(proc)
    finally:
        if proc.poll() is None:
            proc.kill()


@pytest.mark.parametrize("pepper", [None, "dev-pepper"])
def test_the_api_and_the_worker_refuse_the_development_pepper(
    tmp_path: Path, pepper: str | None
) -> None:
    """Issue 11 item 3: without DEADWOOD_TOKEN_PEPPER (or with the public `dev-pepper`) and
    without DEADWOOD_DEV=1, gunicorn cannot load the app and the worker exits, each naming
    the variable."""
    env = {k: v for k, v in os.environ.items() if k not in ("DEADWOOD_DEV", "REDIS_URL")}
    env.pop("DEADWOOD_TOKEN_PEPPER", None)
    if pepper is not None:
        env["DEADWOOD_TOKEN_PEPPER"] = pepper
    env["REDIS_URL"] = f"redis://127.0.0.1:{free_port()}/0"  # never reached
    api = [sys.executable, "-m", "gunicorn", "-w", "1", "-b", f"127.0.0.1:{free_port()}"]
    worker = [sys.executable, "-m", "workers.run", "--burst"]
    for command in ([*api, "api:create_app()"], worker):
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
        assert done.returncode != 0, done.stdout + done.stderr
        assert "DEADWOOD_TOKEN_PEPPER" in done.stdout + done.stderr
