"""The live stream resumes after forced disconnects without losing or repeating an event
(issue 7). The disconnects are real: a TCP relay between client and server drops every
connection it carries, mid-response, while the match is being played."""

from __future__ import annotations

import threading
from typing import Any

from deadwood_client import play
from tests.support.client_support import greedy_gin

BOTS = [{"name": "ana"}, {"name": "ben", "bot": "basic"}, {"name": "cy", "bot": "basic"}]


def _cut_every(proxy: Any, seconds: float, stop: threading.Event) -> threading.Thread:
    def cutter() -> None:
        while not stop.wait(seconds):
            proxy.cut()

    thread = threading.Thread(target=cutter)
    thread.start()
    return thread


def test_the_stream_resumes_after_disconnects_with_every_event_once(live: Any, proxy: Any) -> None:
    """A spectator follows a match through the relay; it is cut after every 5th event it
    reads and every 0.15 s besides. The events it passes on are seq 1..end, each once, the
    same events the log holds; the client bot of seat 0 plays through the same relay."""
    created = live.client().create_match(
        "three-hand-gin", BOTS, seed=5, options={"target_score": 30}
    )
    match_id = created["id"]
    follower = live.client(base_url=proxy.base_url)
    player = live.client(created["seats"][0]["token"], base_url=proxy.base_url)
    final: dict[str, Any] = {}
    playing = threading.Thread(target=lambda: final.update(play(player, match_id, greedy_gin)))
    stop = threading.Event()
    cutter = _cut_every(proxy, 0.15, stop)
    playing.start()
    seen: list[dict[str, Any]] = []
    try:
        for event in follower.events(match_id):
            seen.append(event)
            if len(seen) % 5 == 0:
                proxy.cut()
    finally:
        stop.set()
        cutter.join()
        playing.join(timeout=60)
    assert final["status"] == "finished"
    assert [e["seq"] for e in seen] == list(range(1, final["version"] + 1)), "none lost, none twice"
    log = live.client().history(match_id)
    assert [(e["seq"], e["type"]) for e in seen] == [(e["seq"], e["type"]) for e in log]
    assert proxy.cuts > len(seen) // 5 and proxy.accepted > proxy.cuts // 2, "it did reconnect"


def test_following_from_a_seq_gives_the_rest_and_stops_at_the_end(live: Any) -> None:
    """`events(after=k)` of a finished match: seq k+1..end, then the iterator ends."""
    created = live.client().create_match(
        "three-hand-gin",
        [{"name": n, "bot": "basic"} for n in ("ana", "ben", "cy")],
        seed=3,
        options={"target_score": 5},
    )
    match_id = created["id"]
    spectator = live.client()
    live_view = list(spectator.events(match_id))
    version = spectator.match(match_id)["version"]
    assert spectator.match(match_id)["status"] == "finished"
    assert [e["seq"] for e in live_view] == list(range(1, version + 1))
    every = list(spectator.events(match_id))  # now unredacted: the match is finished
    assert every == spectator.history(match_id)
    rest = list(spectator.events(match_id, after=version - 3))
    assert rest == every[-3:]
    assert list(spectator.events(match_id, after=version)) == []
