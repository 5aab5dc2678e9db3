"""Small helpers of the lobby's tests (issue 30): a clock to move by hand, an open match."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any


class FakeClock:
    """A clock the test moves (`service.clock = FakeClock()`); starts at the real time."""

    def __init__(self, start: float | None = None) -> None:
        self.now = time.time() if start is None else start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def open_body(
    variant: str = "three-hand-gin",
    named: int = 1,
    open_seats: int = 2,
    bots: tuple[str, ...] = (),
    **extra: Any,
) -> dict[str, Any]:
    """A create body: `named` seats of the creator, then open seats, then bot seats."""
    names = ["ana", "ben", "cy", "dee", "eve"]
    players: list[dict[str, Any]] = [{"name": names[i]} for i in range(named)]
    players += [{"open": True} for _ in range(open_seats)]
    players += [{"name": f"bot{i}", "bot": bot} for i, bot in enumerate(bots)]
    return {"variant": variant, "players": players, **extra}


def create_open(client: Any, **kw: Any) -> tuple[str, list[str | None], dict[str, Any]]:
    response = client.post("/v1/matches", json=open_body(**kw))
    assert response.status_code == 201, response.get_data(as_text=True)
    body = response.get_json()
    return body["id"], [s["token"] for s in body["seats"]], body


def race(count: int, send: Callable[[int], Any]) -> list[Any]:
    """`send(i)` in `count` threads released at once; their results in order."""
    barrier = threading.Barrier(count)
    results: list[Any] = [None] * count

    def run(i: int) -> None:
        barrier.wait()
        results[i] = send(i)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


def event_types(client: Any, match_id: str, headers: dict[str, str] | None = None) -> list[str]:
    page = client.get(f"/v1/matches/{match_id}/events?limit=1000", headers=headers or {})
    return [e["type"] for e in page.get_json()["events"]]
