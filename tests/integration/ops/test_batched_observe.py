"""What keeps issue 34's observation cheap (store/flushing.py) loses nothing: buffered access
lines are all written, in order, at a flush, when the buffer fills, within a bounded delay and
at the process's exit; batched metrics add up to what direct updates give; a client's own
method cannot make a label value."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient
from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest

from store import flushing, logs, metrics
from tests.support.log_setup import unconfigure_logs

ROOT = Path(__file__).resolve().parents[3]


def _access(n: int, path: str = "/v1/health/live") -> None:
    for i in range(n):
        with logs.bound(request_id=f"req-{i}"):
            logs.access("GET", path, 200, 0.001, "/v1/health/live", None, "127.0.0.1")


def test_every_buffered_line_is_written_in_order_at_a_flush(
    capsys: pytest.CaptureFixture[str],
) -> None:
    logs.flush_access()
    capsys.readouterr()
    _access(5)
    logs.flush_access()
    lines = [x for x in capsys.readouterr().err.splitlines() if "deadwood.access" in x]
    assert [line.split("req=")[1].split(" ")[0] for line in lines] == [f"req-{i}" for i in range(5)]


def test_a_full_buffer_is_written_at_once(capsys: pytest.CaptureFixture[str]) -> None:
    logs.flush_access()
    capsys.readouterr()
    _access(logs.FLUSH_LINES)
    assert capsys.readouterr().err.count("deadwood.access") == logs.FLUSH_LINES


def test_the_flusher_writes_a_line_within_a_bounded_delay(
    capsys: pytest.CaptureFixture[str],
) -> None:
    logs.flush_access()
    capsys.readouterr()
    _access(1)
    assert flushing.running
    deadline = time.monotonic() + flushing.FLUSH_SECONDS * 10
    seen = ""
    while "req-0" not in seen and time.monotonic() < deadline:
        time.sleep(flushing.FLUSH_SECONDS / 5)
        seen += capsys.readouterr().err
    assert "req-0" in seen


def test_a_log_record_writes_the_access_lines_before_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import logging

    monkeypatch.setenv("DEADWOOD_LOG_FORMAT", "text")
    logs.configure("test", force=True)
    try:
        capsys.readouterr()
        _access(2)
        logging.getLogger("deadwood.test").warning("after the requests")
        err = capsys.readouterr().err.splitlines()
    finally:
        unconfigure_logs()
    assert "req-0" in err[0] and "req-1" in err[1] and "after the requests" in err[2]


def test_lines_buffered_at_exit_are_written() -> None:
    script = (
        "from store import logs\n"
        "logs.configure('exiting')\n"
        "for i in range(3):\n"
        "    logs.access('POST', f'/v1/matches/m_{i}/moves', 200, 0.002, 'r', i, '::1')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={"DEADWOOD_LOG_FORMAT": "json", "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr
    lines = [json.loads(x) for x in done.stderr.splitlines()]
    assert [line["seat"] for line in lines] == [0, 1, 2]
    assert all(line["process"] == "exiting" and line["client"] == "::1" for line in lines)


@pytest.mark.parametrize("fmt", ["json", "text"])
def test_a_hostile_path_or_client_is_escaped(
    fmt: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEADWOOD_LOG_FORMAT", fmt)
    logs.configure("test", force=True)
    try:
        capsys.readouterr()
        logs.access("GET", '/v1/x"y\\z\n\u00e9', 404, 0.001, "unmatched", None, 'a"b\nc')
        logs.flush_access()
        err = capsys.readouterr().err
    finally:
        unconfigure_logs()
    (line,) = err.splitlines()
    if fmt == "json":
        parsed = json.loads(line)
        assert parsed["message"] == '/v1/x"y\\z?\u00e9'.join(["GET ", " 404 1.0ms"])
        assert parsed["client"] == 'a"b?c'
    else:
        assert 'GET /v1/x"y\\z?\u00e9 404 1.0ms' in line and 'client=a"b?c' in line


def _exposition(metric: Any) -> str:
    registry = CollectorRegistry()
    registry.register(metric)
    text = generate_latest(registry).decode()
    return "\n".join(line for line in text.splitlines() if "_created" not in line)


def test_batched_figures_equal_direct_ones() -> None:
    buckets = metrics.LATENCY_BUCKETS
    direct_h = Histogram("t_direct_seconds", "x", ["r"], buckets=buckets, registry=None)
    batched_h = Histogram("t_direct_seconds", "x", ["r"], buckets=buckets, registry=None)
    direct_c = Counter("t_count", "x", ["r"], registry=None)
    batched_c = Counter("t_count", "x", ["r"], registry=None)
    values = [0.0001, 0.002, 0.0021, 0.05, 0.3, 7.0, 11.0, 0.002, 0.01]
    hist, count = metrics.Batched(batched_h.labels("a")), metrics.Batched(batched_c.labels("a"))
    for value in values:
        direct_h.labels("a").observe(value)
        direct_c.labels("a").inc()
        hist.observe(value)
        count.inc()
    assert _exposition(batched_h) != _exposition(direct_h)  # nothing written before a flush
    hist.flush()
    count.flush()
    assert _exposition(batched_h) == _exposition(direct_h)
    assert _exposition(batched_c) == _exposition(direct_c)


def test_an_unknown_method_is_counted_as_other(client: FlaskClient) -> None:
    client.open("/v1/health/live", method="BREW")
    text = client.get("/metrics").get_data(as_text=True)
    assert 'method="BREW"' not in text and 'method="other"' in text
