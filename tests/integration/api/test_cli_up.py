"""`deadwood up` (issue 4, "One command to run it"): embedded Redis with its AOF under the data
directory, the API under gunicorn (gevent) and an RQ worker, in the foreground; SIGINT stops
every child and loses nothing (a second start on the same directory still has the match)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from cli.procs import free_port


def _get(url: str, timeout: float = 2.0) -> Any:
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return response.status, json.loads(response.read())


def _post(url: str, body: dict[str, Any]) -> Any:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=5) as response:
        return response.status, json.loads(response.read())


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
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "QUEUE_URL")}
    script = Path(sys.executable).with_name("deadwood")
    launcher = [str(script)] if script.exists() else [sys.executable, "-m", "cli.up"]
    command = [*launcher, "up", "--host", "127.0.0.1"]
    command += ["--port", str(port), "--data-dir", str(data), "--redis-port", str(redis_port)]
    command += ["--workers", "1"]
    return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def _wait_healthy(base: str, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.stdout.read().decode() if proc.stdout else ""
        try:
            if _get(f"{base}/v1/health")[0] == 200:
                return
        except OSError:
            time.sleep(0.2)
    raise AssertionError("deadwood up did not become healthy")


def _stop(proc: subprocess.Popen[bytes]) -> tuple[int, str]:
    children = _descendants(proc.pid)
    assert len(children) >= 3, "redis-server, gunicorn and the worker run under the launcher"
    proc.send_signal(signal.SIGINT)
    output, _ = proc.communicate(timeout=60)
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in children) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in children if _alive(pid)], "every child exited"
    return proc.returncode, output.decode()


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

    again = _start(data, port, redis_port)
    try:
        _wait_healthy(base, again)
        status, view = _get(f"{base}/v1/matches/{created['id']}")
        assert status == 200 and view["version"] == created["version"]
        code, output = _stop(again)
        assert code == 0, output
    finally:
        if again.poll() is None:
            again.kill()
