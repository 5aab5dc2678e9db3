"""`deadwood up` supervises its children (issue 11, item 6), through the real launcher.

Under the load of reliability_load.py (every seat of 4 matches playing over HTTP), each child
is killed with SIGKILL in turn: the embedded redis-server, the gunicorn master (its workers go
with its process group), the rq worker. The launcher restarts each with a log line while the
others keep going; while Redis is down the API answers 503 `store_unavailable` (never a 500,
never a hang); every match moves again after each kill; afterwards the audit finds no
acknowledged event lost or doubled and every log replays. A launcher killed with SIGKILL
leaves no process behind (PR_SET_PDEATHSIG, workers/lifeline.py).
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from cli.procs import free_port
from tests.support.reliability_audit import audit_all, table, wait_settled
from tests.support.reliability_load import Stats, create_matches, run_load
from tests.support.reliability_procs import soak

# the worker child is `deadwood worker` (cli/serve.py); the API child execs gunicorn
CHILDREN = {
    "redis": "redis-server",
    "api": "gunicorn",
    "worker": "-m cli worker --queues deadlines",
}


@dataclass
class Up:
    """A `deadwood up` of one test: its process, output file, ports."""

    proc: subprocess.Popen[bytes]
    log: Path
    port: int
    redis_port: int

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def redis_url(self) -> str:
        return f"redis://127.0.0.1:{self.redis_port}/0"

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def child(self, name: str) -> int:
        """The pid of the launcher's child `name` (redis, api, worker)."""
        for pid in _children(self.proc.pid):
            if CHILDREN[name] in _cmdline(pid):
                return pid
        raise AssertionError(f"no {name} child under the launcher:\n{self.output()[-2000:]}")

    def wait_for(self, text: str, seconds: float = 30.0) -> None:
        deadline = time.monotonic() + seconds
        while text not in self.output():
            assert time.monotonic() < deadline, f"no {text!r} in:\n{self.output()[-3000:]}"
            time.sleep(0.05)


def _children(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _descendants(pid: int) -> set[int]:
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in _children(todo.pop()):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _healthy(up: Up, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert up.proc.poll() is None, up.output()
        try:
            if httpx.get(f"{up.base_url}/v1/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise AssertionError(f"deadwood up did not become healthy:\n{up.output()[-3000:]}")


@pytest.fixture
def up(tmp_path: Path) -> Iterator[Up]:
    port, redis_port = free_port(), free_port()
    dropped = ("REDIS_URL", "QUEUE_URL", "DEADWOOD_TOKEN_PEPPER", "DEADWOOD_DEV")
    env = {k: v for k, v in os.environ.items() if k not in dropped}  # as a user runs it
    env["PYTHONUNBUFFERED"] = "1"
    command = [sys.executable, "-m", "cli", "up", "--port", str(port)]
    command += ["--redis-port", str(redis_port), "--data-dir", str(tmp_path / "var")]
    command += ["--workers", "1", "--rate-create", "off", "--rate-moves", "off"]
    command += ["--rate-moves-address", "off"]
    log = tmp_path / "up.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            command, env=env, stdout=out, stderr=subprocess.STDOUT, cwd=Path(__file__).parents[2]
        )
    made = Up(proc, log, port, redis_port)
    try:
        _healthy(made)
        yield made
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=40)
            except subprocess.TimeoutExpired:
                proc.kill()  # its children die with it (PR_SET_PDEATHSIG)
                proc.wait()


def _probe_outage(up: Up, match_id: str, answers: list[tuple[int, str]]) -> None:
    """While Redis is down: every answer is 200 or 503 store_unavailable (recorded)."""
    with httpx.Client(base_url=up.base_url, timeout=10) as client:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            for path in ("/v1/health", f"/v1/matches/{match_id}"):
                response = client.get(path)
                code = response.json().get("code", "") if response.status_code != 200 else ""
                answers.append((response.status_code, code))
            if answers[-1][0] == 200 and answers[-2][0] == 200 and len(answers) > 4:
                return
            time.sleep(0.02)


def _moved_again(stats: Stats, mark: int, matches: list[str], up: Up, seconds: float) -> float:
    """Seconds until every match that is not over has an acknowledged move after `mark`."""
    started = time.monotonic()
    while True:
        with stats.lock:
            moved = {ack.match_id for ack in stats.acks[mark:]}
        waiting = [m for m in matches if m not in moved and not _finished(up, m)]
        if not waiting:
            return time.monotonic() - started
        assert time.monotonic() - started < seconds, f"no move in {waiting} after a kill"
        time.sleep(0.1)


def _finished(up: Up, match_id: str) -> bool:
    try:
        view = httpx.get(f"{up.base_url}/v1/matches/{match_id}", timeout=5)
    except httpx.HTTPError:
        return False
    return view.status_code == 200 and view.json()["status"] == "finished"


def test_each_child_killed_under_load_is_restarted_and_nothing_is_lost(up: Up) -> None:
    rng = random.Random(41)
    made = create_matches(up.base_url, 4, rng)
    ids = [m for m, _, _ in made]
    recovery: dict[str, float] = {}
    outage: list[tuple[int, str]] = []
    errors: list[str] = []

    def faults(stats: Stats) -> None:
        try:
            for name in ("redis", "api", "worker") * soak(1, 3):
                time.sleep(1.5)
                restarts = up.output().count(f"deadwood: {name} restarted")
                mark = len(stats.acks)
                os.kill(up.child(name), signal.SIGKILL)
                if name == "redis":
                    _probe_outage(up, ids[0], outage)
                deadline = time.monotonic() + 30
                while up.output().count(f"deadwood: {name} restarted") <= restarts:
                    assert time.monotonic() < deadline, f"{name} was not restarted"
                    time.sleep(0.05)
                recovery[name] = round(_moved_again(stats, mark, ids, up, 30.0), 2)
        except AssertionError as error:
            errors.append(str(error))

    # The seats play for 12 s, and on until the faults are done however long the restarts
    # take (a slow machine): `during` returns only then, and `until` holds at once after it.
    # With a fixed 12 s, the seats could stop before the last kill and no match move again.
    stats = run_load(
        up.base_url,
        made,
        soak(12.0, 40.0),
        seed=41,
        timeout=10.0,
        during=faults,
        until=lambda _: True,
        max_seconds=soak(300.0, 600.0),
    )
    assert not errors, errors
    assert not stats.problems, stats.problems[:10]
    assert not stats.unresolved, stats.unresolved[:10]
    assert 500 not in stats.statuses, stats.statuses
    assert not stats.counts.get("transport_error_ReadTimeout"), "a request hung"
    assert outage and {a for a in outage if a[0] != 200} <= {(503, "store_unavailable")}, outage
    assert (503, "store_unavailable") in outage, "the probe never saw Redis down"
    settle = wait_settled(up.redis_url, ids, 30.0)
    audited = audit_all(up.redis_url, stats.acks, ids)
    summary = {"recovery_seconds": recovery, "settle_seconds": round(settle, 1)}
    summary |= {"events": sum(a.events for a in audited), **stats.summary()}
    print(f"\nsupervised kills: {table(summary)}")
    assert up.proc.poll() is None, "the launcher kept running"
    for name in CHILDREN:
        assert f"deadwood: {name} exited with status -9; restarting in" in up.output()


def test_a_launcher_killed_with_sigkill_leaves_no_process(up: Up) -> None:
    family = _descendants(up.proc.pid)
    names = " ".join(_cmdline(pid) for pid in family)
    assert all(marker in names for marker in CHILDREN.values()), names
    up.proc.send_signal(signal.SIGKILL)
    up.proc.wait(timeout=10)
    deadline = time.monotonic() + 30
    while any(_alive(pid) for pid in family) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = {pid: _cmdline(pid) for pid in family if _alive(pid)}
    assert not left, f"processes outlived the launcher: {left}"


def test_backoff_doubles_and_a_child_that_ran_a_while_starts_again_at_the_first_step() -> None:
    """cli/supervise.py: 0.5 s, 1 s, 2 s ... at most 30 s."""
    from cli.supervise import MAX_BACKOFF, backoff

    assert [backoff(n) for n in (1, 2, 3, 4)] == [0.5, 1.0, 2.0, 4.0]
    assert backoff(50) == MAX_BACKOFF


def test_a_dead_child_is_restarted_after_its_backoff_and_the_others_keep_going() -> None:
    """A real short-lived child (`true`) and a long one (`sleep`): the supervisor notes the
    death, waits the backoff, restarts it; the long one is untouched."""
    from cli.supervise import Child, Supervisor

    said: list[str] = []
    supervisor = Supervisor(said.append)
    short = supervisor.add(Child("short", ["true"]))
    long = supervisor.add(Child("long", ["sleep", "60"]))
    assert short.proc is not None and long.proc is not None
    short.proc.wait(timeout=10)
    first_long = long.proc.pid
    now = time.monotonic()
    supervisor.check(now)
    assert said == ["short exited with status 0; restarting in 0.5 s"]
    supervisor.check(now + 0.4)
    assert short.restarts == 0
    supervisor.check(now + 0.5)
    assert short.restarts == 1 and said[-1] == "short restarted (restart 1)"
    assert long.running() and long.proc.pid == first_long
    for child in (short, long):
        supervisor.stop(child, None)
    assert not long.running()
