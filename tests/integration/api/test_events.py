"""The event log as the caller may see it: pages, `?at=` views, Server-Sent Events with
Last-Event-ID and heartbeats, and nothing hidden once the match is finished (api.md Events)."""

from __future__ import annotations

import json
import random
import time
from typing import Any

from tests.support.api_helpers import auth, create, play


def _page(client: Any, match_id: str, token: str | None = None, **query: Any) -> dict[str, Any]:
    args = "&".join(f"{k}={v}" for k, v in query.items())
    response = client.get(f"/v1/matches/{match_id}/events?{args}", headers=auth(token))
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.headers["ETag"] == f'"{response.get_json()["version"]}"'
    page: dict[str, Any] = response.get_json()
    return page


def _sse(text: str) -> list[dict[str, Any]]:
    """The frames of an event stream: {"id", "event", "data"} or {"comment"}."""
    frames = []
    for block in text.split("\n\n"):
        fields: dict[str, Any] = {}
        for line in block.splitlines():
            name, _, value = line.partition(":")
            if name == "":
                fields.setdefault("comment", value.strip())
            else:
                fields[name] = value.strip()
        if fields:
            frames.append(fields)
    return frames


def test_pages_follow_after_and_limit(client: Any, service: Any) -> None:
    match_id, tokens = create(client, "manipulation-rummy", 3, seed=41)
    play(client, service, match_id, tokens, random.Random(1), until=lambda v: v["version"] >= 30)
    everything = _page(client, match_id, limit=1000)["events"]
    assert [e["seq"] for e in everything] == list(range(1, len(everything) + 1))
    assert _page(client, match_id)["events"] == everything[:100]
    pages, after = [], 0
    while True:
        got = _page(client, match_id, after=after, limit=7)["events"]
        if not got:
            break
        assert len(got) <= 7
        pages += got
        after = got[-1]["seq"]
    assert pages == everything
    assert _page(client, match_id, after=10_000)["events"] == []
    for event in everything:
        assert set(event) == {"seq", "type", "v", "at", "data"}
        assert event["at"].endswith("Z")


def test_each_seat_sees_its_own_deal_only(client: Any) -> None:
    """M3 / G4 with G1.4: hands of other seats, the stock order, the salt and the deal key
    are null in the page; lists keep their length."""
    match_id, tokens = create(client, "manipulation-rummy", 3, seed=42)
    for seat in (None, 0, 1, 2):
        events = _page(client, match_id, None if seat is None else tokens[seat])["events"]
        created, dealt = events[0]["data"], events[-1]["data"]
        assert created["deal_key"] is None and created["seed"] is None
        assert dealt["salt"] is None and set(dealt["stock"]) == {None}
        for owner, hand in enumerate(dealt["hands"]):
            assert len(hand) == 10
            assert (None not in hand) is (owner == seat)


def test_everything_is_public_once_finished(client: Any, service: Any) -> None:
    match_id, tokens = create(
        client, "manipulation-rummy", 2, seed=43, options={"target_score": 30}
    )
    play(client, service, match_id, tokens, random.Random(2))
    log = [
        json.loads(line)
        for line in client.get(f"/v1/matches/{match_id}/log").get_data(as_text=True).splitlines()
    ]
    assert _page(client, match_id, limit=1000)["events"] == log
    assert _page(client, match_id, tokens[1], limit=1000)["events"] == log
    assert log[0]["data"]["deal_key"] and None not in log[2]["data"]["stock"]


def test_view_at_a_past_event(client: Any, service: Any) -> None:
    """`?at=<seq>` shows the match right after event seq, with its ETag."""
    match_id, tokens = create(client, seed=44)
    play(client, service, match_id, tokens, random.Random(3), until=lambda v: v["version"] >= 12)
    now = client.get(f"/v1/matches/{match_id}").get_json()
    opening = client.get(f"/v1/matches/{match_id}?at=3")
    assert opening.headers["ETag"] == '"3"'
    assert opening.get_json()["version"] == 3 and opening.get_json()["phase"] == "upcard_offer"
    assert client.get(f"/v1/matches/{match_id}?at={now['version']}").get_json() == now
    seat_then = client.get(f"/v1/matches/{match_id}?at=3", headers=auth(tokens[1])).get_json()
    assert seat_then["you"]["seat"] == 1


def test_stream_of_a_finished_match_sends_all_and_ends(client: Any, service: Any) -> None:
    match_id, tokens = create(
        client, "manipulation-rummy", 2, seed=45, options={"target_score": 30}
    )
    play(client, service, match_id, tokens, random.Random(4))
    page = _page(client, match_id, limit=1000)["events"]
    response = client.get(f"/v1/matches/{match_id}/events/stream")
    assert response.status_code == 200 and response.mimetype == "text/event-stream"
    assert response.headers["Cache-Control"] == "no-cache"
    frames = [f for f in _sse(response.get_data(as_text=True)) if "id" in f]
    assert [int(f["id"]) for f in frames] == [e["seq"] for e in page]
    assert [f["event"] for f in frames] == [e["type"] for e in page]
    assert [json.loads(f["data"]) for f in frames] == page
    resumed = client.get(
        f"/v1/matches/{match_id}/events/stream", headers={"Last-Event-ID": str(len(page) - 2)}
    )
    ids = [int(f["id"]) for f in _sse(resumed.get_data(as_text=True)) if "id" in f]
    assert ids == [len(page) - 1, len(page)]
    by_query = client.get(f"/v1/matches/{match_id}/events/stream?after={len(page) - 1}")
    assert [int(f["id"]) for f in _sse(by_query.get_data(as_text=True)) if "id" in f] == [len(page)]


def test_live_stream_delivers_a_move_and_heartbeats(app: Any, client: Any) -> None:
    """A stream open before a move receives it (redacted for the spectator), with heartbeat
    comments while idle, and ends after SSE_MAX_SECONDS.

    The move is made once the stream has sent its first heartbeat (so it is open and was idle),
    not after a fixed sleep (issue 10)."""
    match_id, tokens = create(client, seed=46)
    view = client.get(f"/v1/matches/{match_id}").get_json()
    stream = client.get(
        f"/v1/matches/{match_id}/events/stream",
        headers={"Last-Event-ID": str(view["version"])},
        buffered=False,
    )
    deadline = time.monotonic() + 30  # SSE_MAX_SECONDS is 3 in the fixture
    text, moved = "", False
    for chunk in stream.response:
        text += chunk.decode() if isinstance(chunk, bytes) else chunk
        if not moved and ": heartbeat" in text:
            moved = _take_upcard(app, match_id, tokens[view["turn"]])
        assert time.monotonic() < deadline, "the stream did not end after SSE_MAX_SECONDS"
    stream.close()
    assert moved, "the stream sent no heartbeat before it ended"
    frames = _sse(text)
    events = [f for f in frames if "id" in f]
    assert [f["event"] for f in events] == ["UpcardTaken"]
    assert int(events[0]["id"]) == view["version"] + 1
    assert frames.index(events[0]) > frames.index({"comment": "heartbeat"})
    assert frames[0].get("retry")


def _take_upcard(app: Any, match_id: str, token: str) -> bool:
    mover = app.test_client()
    answer = mover.post(
        f"/v1/matches/{match_id}/moves", json={"type": "take_upcard"}, headers=auth(token)
    )
    assert answer.status_code == 200, answer.get_data(as_text=True)
    return True
