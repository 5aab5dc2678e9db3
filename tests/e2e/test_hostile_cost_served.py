"""Issue 28 through `deadwood up` as a user runs it (embedded Redis, gunicorn with gevent, a
worker; one API process): what a hostile client costs the others.

- 500 idle live streams from one address: before, 200 took every pooled Redis connection and
  health, views and moves answered 503 `store_unavailable`. Now the streams over the
  process's cap are refused (503 `streams_full`, for the stream only) and every probe of
  health, a view and a move answers as if nobody streamed.
- A body sent a byte at a time is cut at its deadline (408 `request_timeout`).
- Hint loops from one seat are limited and leave health answering.
- gunicorn's own 400 and a doubled slash with a forged Host are problem+json, no redirect.

Timings are printed (p50, p99, worst), not asserted: bench/hostile.py measures them.
"""

from __future__ import annotations

import contextlib
import select
import socket
import statistics
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.e2e.test_hostile_served import problem, raw_request
from tests.support.reliability_procs import DeadwoodUp

STREAMS = 500
PER_PROCESS = 200


@pytest.fixture(scope="module")
def up(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DeadwoodUp]:
    served = DeadwoodUp(
        tmp_path_factory.mktemp("hostile-cost"),
        DEADWOOD_SSE_MAX_STREAMS=str(PER_PROCESS),
        DEADWOOD_SSE_MAX_STREAMS_PER_ADDRESS=str(STREAMS * 2),  # the process cap is tested
        DEADWOOD_BODY_TIMEOUT_SECONDS="2",
        DEADWOOD_RATELIMIT_CREATE="off",
        DEADWOOD_RATELIMIT_MOVES="off",
    )
    try:
        yield served
    finally:
        served.stop()


def _status_line(sock: socket.socket, seconds: float = 20.0, whole: bool = False) -> bytes:
    """The answer's head (and, with `whole`, its body as long as Content-Length says)."""
    data = b""
    ends = time.monotonic() + seconds
    while not _complete(data, whole) and time.monotonic() < ends:
        ready, _, _ = select.select([sock], [], [], max(0.0, ends - time.monotonic()))
        if not ready:
            break
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


def _complete(data: bytes, whole: bool) -> bool:
    head, found, body = data.partition(b"\r\n\r\n")
    if not found or not whole:
        return bool(found)
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return len(body) >= int(value)
    return False


def _open_streams(port: int, match_id: str, count: int) -> tuple[list[socket.socket], list[int]]:
    head = (
        f"GET /v1/matches/{match_id}/events/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        "Accept: text/event-stream\r\n\r\n"
    ).encode()
    socks: list[socket.socket] = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", port), timeout=20)
        sock.sendall(head)
        socks.append(sock)
    statuses = []
    for sock in socks:
        answer = _status_line(sock)
        statuses.append(int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/1.1") else 0)
    return socks, statuses


def _timed(call: Any) -> tuple[float, int]:
    started = time.perf_counter()
    status = call()
    return (time.perf_counter() - started) * 1000, status


def _spread(name: str, times: list[float]) -> str:
    ordered = sorted(times)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return f"{name}: n={len(times)} p50={statistics.median(times):.1f} ms p99={p99:.1f} ms"


def test_idle_streams_over_the_cap_are_refused_and_nothing_else_starves(up: DeadwoodUp) -> None:
    http = httpx.Client(base_url=up.base_url, timeout=20)
    players = [{"name": "ana"}, {"name": "ben"}, {"name": "cy"}]
    made = http.post("/v1/matches", json={"variant": "three-hand-gin", "players": players})
    match_id = made.json()["id"]
    tokens = [seat["token"] for seat in made.json()["seats"]]
    socks, statuses = _open_streams(up.port, match_id, STREAMS)
    try:
        held = statuses.count(200)
        print(f"\n{STREAMS} streams: {held} held, {statuses.count(503)} refused 503")
        assert held == PER_PROCESS
        assert statuses.count(503) == STREAMS - PER_PROCESS
        times: dict[str, list[float]] = {"health": [], "view": [], "legal": []}
        for _ in range(40):
            for name, path in (
                ("health", "/v1/health"),
                ("view", f"/v1/matches/{match_id}"),
                ("legal", f"/v1/matches/{match_id}/legal-moves"),
            ):
                took, status = _timed(
                    lambda p=path: http.get(p, headers=_bearer(tokens[0])).status_code
                )
                assert status == 200, (name, status)
                times[name].append(took)
        moved = _play_moves(http, match_id, tokens, 12)
        for name, spread in times.items():
            print(_spread(name, spread))
        print(_spread("move", moved))
        refused = http.get(f"/v1/matches/{match_id}/events/stream")
        assert refused.status_code == 503
        assert refused.headers["content-type"].startswith("application/problem+json")
        assert refused.json()["code"] == "streams_full" and refused.headers["Retry-After"] == "5"
    finally:
        for sock in socks:
            with contextlib.suppress(OSError):
                sock.close()
        http.close()


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _play_moves(http: httpx.Client, match_id: str, tokens: list[str], count: int) -> list[float]:
    """`count` legal moves, each by the seat to act; the time of each POST."""
    times = []
    for _ in range(count):
        for token in tokens:
            legal = http.get(f"/v1/matches/{match_id}/legal-moves", headers=_bearer(token))
            moves = legal.json().get("moves") if legal.status_code == 200 else None
            if moves:
                url = f"/v1/matches/{match_id}/moves"
                took, status = _timed(
                    lambda t=token, m=moves[0], u=url: (
                        http.post(u, json=m, headers=_bearer(t)).status_code
                    )
                )
                assert status == 200, status
                times.append(took)
                break
    assert times, "no seat had a move"
    return times


def test_a_body_sent_a_byte_at_a_time_is_cut(up: DeadwoodUp) -> None:
    head = (
        b"POST /v1/matches/m_nothing/moves HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/json\r\nContent-Length: 64\r\n\r\n"
    )
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", up.port), timeout=30) as sock:
        sock.sendall(head)
        answer = b""
        for _ in range(60):  # a byte every 0.5 s: 30 s, if the server waited for all 64
            ready, _, _ = select.select([sock], [], [], 0.5)
            if ready:
                answer = _status_line(sock, 5, whole=True)
                break
            with contextlib.suppress(OSError):
                sock.sendall(b" ")
        took = time.monotonic() - started
    print(f"\nslow body answered after {took:.1f} s: {answer[:40]!r}")
    assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
    head_part, _, body = answer.partition(b"\r\n\r\n")
    assert b"application/problem+json" in head_part
    assert b'"code":"request_timeout"' in body


def test_hint_loops_are_limited_and_health_answers(up: DeadwoodUp) -> None:
    http = httpx.Client(base_url=up.base_url, timeout=30)
    players = [{"name": "ana"}, {"name": "ben"}, {"name": "cy"}, {"name": "di"}]
    made = http.post("/v1/matches", json={"variant": "manipulation-rummy", "players": players})
    match_id = made.json()["id"]
    tokens = [seat["token"] for seat in made.json()["seats"]]
    statuses: list[int] = []
    stop = threading.Event()

    def loop(token: str) -> None:
        with httpx.Client(base_url=up.base_url, timeout=30) as own:
            while not stop.is_set():
                answer = own.get(f"/v1/matches/{match_id}/hint", headers=_bearer(token))
                statuses.append(answer.status_code)

    threads = [threading.Thread(target=loop, args=(t,)) for t in tokens]
    for thread in threads:
        thread.start()
    try:
        health = []
        for _ in range(40):
            took, status = _timed(lambda: http.get("/v1/health").status_code)
            assert status == 200
            health.append(took)
            time.sleep(0.05)
    finally:
        stop.set()
        for thread in threads:
            thread.join(30)
        http.close()
    print("\n" + _spread("health under 4 hint loops", health))
    print(f"hint answers: { {s: statuses.count(s) for s in sorted(set(statuses))} }")
    assert set(statuses) <= {200, 409, 429, 503}
    assert 429 in statuses, "a loop of hints from one seat is limited"


def test_gunicorns_own_400_is_a_problem(up: DeadwoodUp) -> None:
    status, headers, body = raw_request(up.port, b"NOT HTTP AT ALL\r\n\r\n")
    found = problem(status, headers, body)
    assert (found["status"], found["code"]) == (400, "bad_request")
    assert b"NOT HTTP" not in body


def test_a_doubled_slash_is_not_redirected_to_the_host_header(up: DeadwoodUp) -> None:
    head = b"POST /v1//matches HTTP/1.1\r\nHost: evil.example\r\nContent-Length: 2\r\n"
    head += b"Content-Type: application/json\r\nConnection: close\r\n\r\n"
    status, headers, body = raw_request(up.port, head, b"{}")
    assert "location" not in {k.lower() for k in headers}
    found = problem(status, headers, body)
    assert found["code"] == "not_found"
