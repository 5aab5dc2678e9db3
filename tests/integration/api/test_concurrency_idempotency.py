"""Concurrent moves and idempotent retries (api.md Versions and Idempotency, issue 4).

Many threads send a move to one match at the same version: exactly one wins, the rest get 412
and the log holds that move once. A retried POST with the same Idempotency-Key returns the first
response and appends nothing; the same key with another body is 422 idempotency_key_reused.
"""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

from flask import Flask

from tests.support.api_helpers import auth, create, log_length, problem

THREADS = 16


def _race(app: Flask, send: Any) -> list[Any]:
    barrier = threading.Barrier(THREADS)
    results: list[Any] = [None] * THREADS

    def run(i: int) -> None:
        client = app.test_client()
        barrier.wait()
        results[i] = send(client, i)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


def _log_types(client: Any, match_id: str, after: int) -> Counter[str]:
    events = client.get(f"/v1/matches/{match_id}/events?after={after}").get_json()["events"]
    return Counter(e["type"] for e in events)


def test_same_version_race_has_one_winner_and_412s(app: Flask, client: Any, service: Any) -> None:
    match_id, tokens = create(client, seed=31)
    view = client.get(f"/v1/matches/{match_id}").get_json()
    version, captain = view["version"], view["turn"]
    headers = {**auth(tokens[captain]), "If-Match": f'"{version}"'}

    def send(c: Any, i: int) -> Any:
        return c.post(
            f"/v1/matches/{match_id}/moves", json={"type": "pass_upcard"}, headers=headers
        )

    results = _race(app, send)
    statuses = Counter(r.status_code for r in results)
    assert statuses == {200: 1, 412: THREADS - 1}, statuses
    for r in results:
        if r.status_code == 412:
            problem(r, 412, "version_conflict")
    assert log_length(service, match_id) == version + 1
    assert _log_types(client, match_id, version) == {"UpcardPassed": 1}


def test_race_without_if_match_applies_the_move_once(app: Flask, client: Any, service: Any) -> None:
    """Without If-Match each request is decided on the state it loads: one draw wins, the
    others find the turn already in its discard step (G5.2) and are refused."""
    match_id, tokens = create(client, seed=32)
    view = client.get(f"/v1/matches/{match_id}").get_json()
    captain, box = view["roles"]["captain"], view["roles"]["box"]
    for seat in (captain, box):
        answer = client.post(
            f"/v1/matches/{match_id}/moves",
            json={"type": "pass_upcard"},
            headers=auth(tokens[seat]),
        )
        assert answer.status_code == 200
    version = log_length(service, match_id)

    def send(c: Any, i: int) -> Any:
        return c.post(
            f"/v1/matches/{match_id}/moves",
            json={"type": "draw", "from": "stock"},
            headers=auth(tokens[captain]),
        )

    results = _race(app, send)
    statuses = Counter(r.status_code for r in results)
    assert statuses[200] == 1 and statuses[422] == THREADS - 1, statuses
    assert log_length(service, match_id) == version + 1
    assert _log_types(client, match_id, version) == {"CardDrawn": 1}


def test_concurrent_retries_with_one_key_append_once(app: Flask, client: Any, service: Any) -> None:
    match_id, tokens = create(client, seed=33)
    view = client.get(f"/v1/matches/{match_id}").get_json()
    version, captain = view["version"], view["turn"]
    headers = {**auth(tokens[captain]), "Idempotency-Key": "race-key-1"}

    def send(c: Any, i: int) -> Any:
        return c.post(
            f"/v1/matches/{match_id}/moves", json={"type": "pass_upcard"}, headers=headers
        )

    results = _race(app, send)
    assert {r.status_code for r in results} == {200}
    bodies = {r.get_data() for r in results}
    assert len(bodies) == 1, "every retry returns the first response"
    assert log_length(service, match_id) == version + 1


def test_retry_returns_the_first_response_and_appends_nothing(client: Any, service: Any) -> None:
    match_id, tokens = create(client, seed=34)
    view = client.get(f"/v1/matches/{match_id}").get_json()
    captain, box = view["roles"]["captain"], view["roles"]["box"]
    url = f"/v1/matches/{match_id}/moves"
    headers = {**auth(tokens[captain]), "Idempotency-Key": "k-1"}
    first = client.post(url, json={"type": "pass_upcard"}, headers=headers)
    assert first.status_code == 200 and "Idempotent-Replayed" not in first.headers
    version = log_length(service, match_id)
    again = client.post(url, json={"type": "pass_upcard"}, headers=headers)
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json() == first.get_json()
    assert again.headers["ETag"] == first.headers["ETag"]
    assert log_length(service, match_id) == version
    # the match moves on; the retry still answers what it answered first
    assert (
        client.post(url, json={"type": "pass_upcard"}, headers=auth(tokens[box])).status_code == 200
    )
    late = client.post(url, json={"type": "pass_upcard"}, headers=headers)
    assert late.get_json() == first.get_json()
    assert log_length(service, match_id) == version + 1


def test_reused_key_with_another_body_or_seat_is_refused(client: Any, service: Any) -> None:
    match_id, tokens = create(client, seed=35)
    view = client.get(f"/v1/matches/{match_id}").get_json()
    captain, advisor = view["roles"]["captain"], view["roles"]["advisor"]
    url = f"/v1/matches/{match_id}/moves"
    key = {"Idempotency-Key": "k-2"}
    assert (
        client.post(
            url, json={"type": "take_upcard"}, headers={**auth(tokens[captain]), **key}
        ).status_code
        == 200
    )
    version = log_length(service, match_id)
    other_body = client.post(
        url, json={"type": "pass_upcard"}, headers={**auth(tokens[captain]), **key}
    )
    problem(other_body, 422, "idempotency_key_reused")
    other_seat = client.post(
        url, json={"type": "advise", "text": "hi"}, headers={**auth(tokens[advisor]), **key}
    )
    problem(other_seat, 422, "idempotency_key_reused")
    assert log_length(service, match_id) == version


def test_a_refused_move_does_not_use_up_its_key(client: Any, service: Any) -> None:
    match_id, tokens = create(client, seed=36)
    captain = client.get(f"/v1/matches/{match_id}").get_json()["turn"]
    url = f"/v1/matches/{match_id}/moves"
    headers = {**auth(tokens[captain]), "Idempotency-Key": "k-3"}
    problem(
        client.post(url, json={"type": "draw", "from": "stock"}, headers=headers),
        422,
        "illegal_move",
    )
    assert client.post(url, json={"type": "pass_upcard"}, headers=headers).status_code == 200


def test_create_with_a_key_returns_the_same_match_and_tokens(
    client: Any, redis_client: Any
) -> None:
    body = {"variant": "three-hand-gin", "players": [{"name": "a"}, {"name": "b"}, {"name": "c"}]}
    first = client.post(
        "/v1/matches", json=body, headers={"Idempotency-Key": "create-1-0123456789abcdef"}
    )
    again = client.post(
        "/v1/matches", json=body, headers={"Idempotency-Key": "create-1-0123456789abcdef"}
    )
    assert first.status_code == again.status_code == 201
    assert again.get_json() == first.get_json()
    assert again.headers["Location"] == first.headers["Location"]
    match_id = first.get_json()["id"]
    assert redis_client.keys("match:*:events") == [f"match:{{{match_id}}}:events".encode()]
    token = first.get_json()["seats"][0]["token"]
    assert client.get(f"/v1/matches/{match_id}", headers=auth(token)).status_code == 200
    other = {**body, "seed": 1}
    problem(
        client.post(
            "/v1/matches", json=other, headers={"Idempotency-Key": "create-1-0123456789abcdef"}
        ),
        422,
        "idempotency_key_reused",
    )
