"""Strangers at one table (issue 30): open seats, joins, leaves, the lobby list, rematch.

Real Redis, the real app (every documented response checked against openapi.yaml by the
`client` fixture), threads racing where the issue names a race.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

from flask import Flask

from cli.client import main as cli_main
from deadwood_client.logfile import check, verify
from tests.support.api_helpers import auth, create, play, problem
from tests.support.lobby_helpers import FakeClock, create_open, event_types, open_body, race

THREADS = 8


def _join(client: Any, match_id: str, name: str, seat: int | None = None, **kw: Any) -> Any:
    body: dict[str, Any] = {"name": name}
    if seat is not None:
        body["seat"] = seat
    return client.post(f"/v1/matches/{match_id}/join", json=body, **kw)


def test_concurrent_joins_of_one_seat_give_one_201_and_409s(app: Flask, client: Any) -> None:
    match_id, _, _ = create_open(client, named=1, open_seats=2)

    def send(i: int) -> Any:
        return _join(app.test_client(), match_id, f"p{i}", seat=1)

    results = race(THREADS, send)
    statuses = Counter(r.status_code for r in results)
    assert statuses == {201: 1, 409: THREADS - 1}, statuses
    for response in results:
        if response.status_code == 409:
            problem(response, 409, "seat_taken")
    assert event_types(client, match_id).count("SeatJoined") == 1


def test_concurrent_joins_without_a_seat_fill_each_seat_once(app: Flask, client: Any) -> None:
    match_id, _, _ = create_open(client, variant="manipulation-rummy", named=1, open_seats=4)

    results = race(THREADS, lambda i: _join(app.test_client(), match_id, f"p{i}"))
    won = sorted(r.get_json()["seat"] for r in results if r.status_code == 201)
    assert won == [1, 2, 3, 4]
    for response in results:
        if response.status_code != 201:
            assert response.get_json()["code"] in ("match_full", "match_started")
    types = event_types(client, match_id)
    assert types.count("SeatJoined") == 4 and types.count("MatchStarted") == 1


def test_a_token_that_left_gets_401_on_every_endpoint(client: Any) -> None:
    match_id, _, _ = create_open(client, named=1, open_seats=2)
    first = _join(client, match_id, "ana2", seat=1).get_json()["token"]
    assert client.post(f"/v1/matches/{match_id}/leave", headers=auth(first)).status_code == 200
    second = _join(client, match_id, "bo", seat=1)
    assert second.status_code == 201 and second.get_json()["token"] != first
    base = f"/v1/matches/{match_id}"
    calls = [
        ("get", base),
        ("get", f"{base}/legal-moves"),
        ("get", f"{base}/events"),
        ("get", f"{base}/hint"),
        ("post", f"{base}/moves"),
        ("post", f"{base}/leave"),
        ("post", f"{base}/cancel"),
        ("post", f"{base}/rematch"),
    ]
    for method, path in calls:
        kw: dict[str, Any] = {"headers": auth(first)}
        if path.endswith("/moves"):
            kw["json"] = {"type": "draw", "from": "stock"}
        problem(getattr(client, method)(path, **kw), 401, "unauthorized")
    stream = client.get(f"{base}/events/stream", headers=auth(first), buffered=True)
    assert stream.status_code == 401


def test_nothing_is_dealt_before_the_last_seat_and_the_log_verifies(
    client: Any, service: Any, tmp_path: Path
) -> None:
    body = open_body(named=1, open_seats=2, options={"target_score": 10})
    created = client.post("/v1/matches", json=body).get_json()
    match_id, tokens = created["id"], [s["token"] for s in created["seats"]]
    assert [s["open"] for s in created["seats"]] == [False, True, True]
    assert tokens[1] is None and tokens[2] is None and created["lobby"]["status"] == "waiting"
    tokens[1] = _join(client, match_id, "bo").get_json()["token"]
    assert event_types(client, match_id) == ["MatchCreated", "SeatJoined"]
    waiting = client.get(f"/v1/matches/{match_id}", headers=auth(tokens[1])).get_json()
    assert waiting["you"]["hand"] == [] and waiting["stock_size"] == 0
    assert waiting["deal_commitment"] is None and waiting["lobby"]["open_seats"] == [2]
    draw = {"type": "draw", "from": "stock"}
    moved = client.post(f"/v1/matches/{match_id}/moves", json=draw, headers=auth(tokens[0]))
    problem(moved, 409, "match_not_started")
    last = _join(client, match_id, "cyd")
    tokens[2] = last.get_json()["token"]
    assert last.get_json()["match"]["lobby"]["status"] == "started"
    assert event_types(client, match_id)[2:] == [
        "SeatJoined",
        "MatchStarted",
        "RolesDrawn",
        "RoundDealt",
    ]
    play(client, service, match_id, tokens, random.Random(3))
    log = client.get(f"/v1/matches/{match_id}/log")
    assert log.status_code == 200
    events = [json.loads(line) for line in log.get_data(as_text=True).splitlines()]
    assert check(events).view["status"] == "finished"
    assert verify(events) and all(deal.ok for deal in verify(events))
    path = tmp_path / "lobby.ndjson"
    path.write_text(log.get_data(as_text=True))
    assert cli_main(["verify", str(path)]) == 0
    assert cli_main(["replay", str(path)]) == 0


def test_the_lobby_lists_only_listed_matches_waiting_for_players(client: Any) -> None:
    waiting, _, _ = create_open(client, named=1, open_seats=2, listed=True)
    create_open(client, named=1, open_seats=2)  # unlisted
    full, _, _ = create_open(client, named=2, open_seats=1, listed=True)
    _join(client, full, "late")  # started
    cancelled, tokens, _ = create_open(client, named=1, open_seats=2, listed=True)
    assert (
        client.post(f"/v1/matches/{cancelled}/cancel", headers=auth(tokens[0])).status_code == 200
    )
    create(client)  # an ordinary match
    page = client.get("/v1/lobby").get_json()
    assert [m["id"] for m in page["matches"]] == [waiting] and page["next"] is None
    entry = page["matches"][0]
    assert [s["open"] for s in entry["seats"]] == [False, True, True]
    assert entry["variant"] == "three-hand-gin" and entry["options"]["target_score"] == 100
    assert client.get("/v1/lobby?variant=manipulation-rummy").get_json()["matches"] == []


def test_the_lobby_pages_with_a_cursor_and_hides_expired_matches(client: Any, service: Any) -> None:
    clock = service.clock = FakeClock()
    made = [create_open(client, named=1, open_seats=2, listed=True)[0] for _ in range(5)]
    clock.advance(1)
    late = create_open(client, named=1, open_seats=2, listed=True, lobby_ttl_s=3600)[0]
    seen: list[str] = []
    cursor = None
    while True:
        query = "/v1/lobby?limit=2" + (f"&cursor={cursor}" if cursor else "")
        page = client.get(query).get_json()
        seen += [m["id"] for m in page["matches"]]
        cursor = page["next"]
        if cursor is None:
            break
    assert sorted(seen) == sorted([*made, late]) and len(seen) == 6
    clock.advance(601)
    assert [m["id"] for m in client.get("/v1/lobby").get_json()["matches"]] == [late]


def test_join_refusals_name_the_reason(client: Any, service: Any) -> None:
    body = open_body(named=1, open_seats=1, seed=5)
    problem(client.post("/v1/matches", json=body), 422, "seeded_open_seat")
    match_id, tokens, _ = create_open(client, named=2, open_seats=1)
    problem(_join(client, match_id, "x", seat=0), 409, "seat_taken")
    _join(client, match_id, "y")
    problem(_join(client, match_id, "z"), 409, "match_started")
    problem(
        client.post(f"/v1/matches/{match_id}/leave", headers=auth(tokens[0])), 409, "match_started"
    )
    ordinary, _ = create(client)
    problem(_join(client, ordinary, "z"), 409, "match_started")
    other, other_tokens, _ = create_open(client, named=2, open_seats=1)
    problem(client.post(f"/v1/matches/{other}/cancel"), 403, "forbidden")
    client.post(f"/v1/matches/{other}/cancel", headers=auth(other_tokens[1]))
    problem(_join(client, other, "late"), 410, "lobby_closed")


def test_a_join_with_an_idempotency_key_gives_the_same_seat_and_token(client: Any) -> None:
    match_id, _, _ = create_open(client, named=1, open_seats=2)
    headers = {"Idempotency-Key": "join-key-0001"}
    first = _join(client, match_id, "bo", headers=headers)
    again = _join(client, match_id, "bo", headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.headers["Idempotent-Replayed"] == "true"
    assert first.get_json()["token"] == again.get_json()["token"]
    assert event_types(client, match_id).count("SeatJoined") == 1
    problem(_join(client, match_id, "other", headers=headers), 422, "idempotency_key_reused")


def test_no_response_or_stream_shows_another_seats_token(client: Any) -> None:
    match_id, tokens, _ = create_open(client, named=1, open_seats=2)
    joined = [_join(client, match_id, n).get_json()["token"] for n in ("bo", "cy")]
    everyone = [tokens[0], *joined]
    for seat, token in enumerate(everyone):
        others = [t for t in everyone if t != token]
        for path in ("", "/events", "/legal-moves"):
            text = client.get(f"/v1/matches/{match_id}{path}", headers=auth(token)).get_data(
                as_text=True
            )
            assert not any(t in text for t in others), (seat, path)
        stream = client.get(
            f"/v1/matches/{match_id}/events/stream?after=0", headers=auth(token), buffered=True
        ).get_data(as_text=True)
        assert "SeatJoined" in stream and not any(t in stream for t in everyone)
    assert not any(t in json.dumps(client.get("/v1/lobby").get_json()) for t in everyone)


def test_five_concurrent_rematch_calls_give_one_match(
    app: Flask, client: Any, service: Any
) -> None:
    match_id, tokens = create(
        client, "manipulation-rummy", n=5, seed=None, options={"target_score": 10}
    )
    play(client, service, match_id, tokens, random.Random(1))

    def send(i: int) -> Any:
        return app.test_client().post(f"/v1/matches/{match_id}/rematch", headers=auth(tokens[i]))

    results = race(5, send)
    assert all(r.status_code == 201 for r in results), [r.get_data() for r in results]
    ids = {r.get_json()["id"] for r in results}
    assert len(ids) == 1
    (next_id,) = ids
    assert sorted(r.get_json()["seat"] for r in results) == [0, 1, 2, 3, 4]
    types = event_types(client, next_id)
    assert types.count("MatchCreated") == 1 and types.count("SeatJoined") == 5
    assert types.count("MatchStarted") == 1 and "RoundDealt" in types
    view = client.get(f"/v1/matches/{next_id}").get_json()
    assert view["lobby"]["rematch_of"] == match_id
    assert [s["name"] for s in view["seats"]] == ["ana", "ben", "cy", "dee", "eve"]
    again = client.post(f"/v1/matches/{match_id}/rematch", headers=auth(tokens[0]))
    assert again.status_code == 200 and again.get_json()["token"] is None
    new_tokens = {r.get_json()["seat"]: r.get_json()["token"] for r in results}
    seen = client.get(f"/v1/matches/{next_id}", headers=auth(new_tokens[2])).get_json()
    assert seen["you"]["seat"] == 2
    problem(client.get(f"/v1/matches/{next_id}", headers=auth(tokens[2])), 401, "unauthorized")


def test_a_rematch_carries_bot_seats_and_waits_for_every_person(client: Any, service: Any) -> None:
    match_id, tokens = create(
        client, n=3, seed=None, bots={2: "basic"}, options={"target_score": 10}
    )
    play(client, service, match_id, tokens, random.Random(2))
    problem(_join(client, match_id, "x"), 409, "match_started")
    first = client.post(f"/v1/matches/{match_id}/rematch", headers=auth(tokens[0])).get_json()
    next_id = first["id"]
    view = first["match"]
    assert view["lobby"]["status"] == "waiting" and view["lobby"]["open_seats"] == [1]
    assert view["seats"][2]["bot"] == "basic" and not view["seats"][2]["open"]
    problem(_join(client, next_id, "stranger", seat=1), 403, "seat_reserved")
    second = client.post(f"/v1/matches/{match_id}/rematch", headers=auth(tokens[1])).get_json()
    assert second["match"]["lobby"]["status"] == "started"


def test_a_rematch_keeps_the_clock_of_the_match_it_follows(client: Any, service: Any) -> None:
    clock = {"mode": "fischer", "initial_s": 300, "increment_s": 5, "claim_after_s": 120}
    body = {"variant": "manipulation-rummy", "players": [{"name": "ana"}, {"name": "ben"}]}
    made = client.post(
        "/v1/matches", json={**body, "options": {"target_score": 10}, "clock": clock}
    )
    assert made.status_code == 201, made.get_data(as_text=True)
    match_id, tokens = made.get_json()["id"], [s["token"] for s in made.get_json()["seats"]]
    play(client, service, match_id, tokens, random.Random(3))
    before = client.get(f"/v1/matches/{match_id}").get_json()["clock"]["options"]
    first = client.post(f"/v1/matches/{match_id}/rematch", headers=auth(tokens[0])).get_json()
    client.post(f"/v1/matches/{match_id}/rematch", headers=auth(tokens[1]))
    view = client.get(f"/v1/matches/{first['id']}", headers=auth(first["token"])).get_json()
    assert view["lobby"]["status"] == "started"
    assert view["clock"]["options"] == before and before["mode"] == "fischer"
    assert view["clock"]["turn_seat"] is not None and view["clock"]["deadline_ms"] is not None


def test_a_rematch_before_the_end_is_refused(client: Any) -> None:
    match_id, tokens = create(client)
    response = client.post(f"/v1/matches/{match_id}/rematch", headers=auth(tokens[0]))
    problem(response, 409, "rematch_not_ready")


def test_no_job_runs_for_a_bot_seat_before_the_match_starts(client: Any, service: Any) -> None:
    from store.jobs import QUEUES

    def queued() -> int:
        return sum(service.queues.queue(name).count for name in QUEUES)

    match_id, _, _ = create_open(client, named=1, open_seats=1, bots=("basic",))
    view = client.get(f"/v1/matches/{match_id}").get_json()
    assert view["seats"][2]["bot"] == "basic" and view["turn"] is None
    assert queued() == 0
    _join(client, match_id, "bo")
    started = client.get(f"/v1/matches/{match_id}").get_json()
    assert started["lobby"]["status"] == "started" and started["phase"] == "upcard_offer"
    bot_to_act = started["seats"][started["turn"]]["bot"] is not None
    assert queued() == (1 if bot_to_act else 0)


def test_a_keyed_rematch_repeated_gives_the_first_answer_again(client: Any, service: Any) -> None:
    match_id, tokens = create(
        client, "manipulation-rummy", n=2, seed=None, options={"target_score": 10}
    )
    play(client, service, match_id, tokens, random.Random(4))
    headers = {**auth(tokens[1]), "Idempotency-Key": "rematch-key-01"}
    first = client.post(f"/v1/matches/{match_id}/rematch", headers=headers)
    again = client.post(f"/v1/matches/{match_id}/rematch", headers=headers)
    assert first.status_code == again.status_code == 201
    assert first.get_json()["token"] == again.get_json()["token"]
    assert again.headers["Idempotent-Replayed"] == "true"
