"""Seeks over HTTP (issue 32): create, see, cancel, expire; one open seek per account; the
Idempotency-Key; the open seeks listed in GET /v1/seeks and GET /v1/lobby; keys and scopes.
Real Redis; the service's clock is a fake one the test moves."""

from __future__ import annotations

from typing import Any

import pytest
import redis
from flask.testing import FlaskClient

from store.seeks import SeekSettings, pairing_job_id, seek_service
from tests.support.api_helpers import problem
from tests.support.lobby_helpers import FakeClock

GIN = "three-hand-gin"
CLOCK = {"mode": "per_move", "move_s": 60}
SEEK = {"variant": GIN, "clock": CLOCK}


@pytest.fixture
def clock(service: Any) -> FakeClock:
    fake = FakeClock()
    service.clock = fake
    seek_service(service).settings = SeekSettings(ttl_s=60, bot_delay_s=30)
    return fake


def _key(client: FlaskClient, handle: str, kind: str = "bot") -> dict[str, str]:
    response = client.post("/v1/accounts", json={"handle": handle, "kind": kind})
    assert response.status_code == 201, response.get_data(as_text=True)
    return {"Deadwood-Key": response.get_json()["key"]["key"]}


def _narrow(client: FlaskClient, key: dict[str, str], handle: str, scopes: list[str]) -> Any:
    made = client.post(f"/v1/accounts/{handle}/keys", json={"scopes": scopes}, headers=key)
    assert made.status_code == 201
    return {"Deadwood-Key": made.get_json()["key"]}


def test_a_seek_is_made_seen_listed_and_cancelled(
    client: FlaskClient, clock: FakeClock, redis_client: redis.Redis
) -> None:
    key = _key(client, "robo")
    made = client.post("/v1/seeks", json=SEEK, headers=key)
    assert made.status_code == 201, made.get_data(as_text=True)
    seek = made.get_json()
    assert made.headers["Location"] == f"/v1/seeks/{seek['id']}"
    assert (seek["account"], seek["bot"], seek["status"], seek["match"]) == (
        "robo",
        True,
        "open",
        None,
    )
    assert (seek["rated"], seek["seats"], seek["clock"]["move_s"]) == (True, 3, 60)
    assert client.get(f"/v1/seeks/{seek['id']}", headers=key).get_json() == seek
    public = {k: v for k, v in seek.items() if k != "match"}
    assert client.get("/v1/seeks").get_json() == {"seeks": [public]}
    assert client.get(f"/v1/seeks?variant={GIN}").get_json() == {"seeks": [public]}
    assert client.get("/v1/seeks?variant=manipulation-rummy").get_json() == {"seeks": []}
    assert client.get("/v1/lobby").get_json()["seeks"] == [public]
    queued = redis_client.lrange("rq:queue:scoring", 0, -1)
    assert queued.count(pairing_job_id(GIN).encode()) == 1  # the pairing job, once
    cancelled = client.delete(f"/v1/seeks/{seek['id']}", headers=key)
    assert cancelled.status_code == 200 and cancelled.get_json()["status"] == "cancelled"
    again = client.delete(f"/v1/seeks/{seek['id']}", headers=key)
    assert again.status_code == 200 and again.get_json()["status"] == "cancelled"
    assert client.get("/v1/seeks").get_json() == {"seeks": []}
    assert client.post("/v1/seeks", json=SEEK, headers=key).status_code == 201  # a new one


def test_one_open_seek_per_account_and_the_idempotency_key(
    client: FlaskClient, clock: FakeClock
) -> None:
    key = _key(client, "robo")
    keyed = {**key, "Idempotency-Key": "seek-once-7f3a9c"}
    first = client.post("/v1/seeks", json=SEEK, headers=keyed)
    repeat = client.post("/v1/seeks", json=SEEK, headers=keyed)
    assert first.status_code == repeat.status_code == 201
    assert repeat.headers["Idempotent-Replayed"] == "true"
    assert repeat.get_json() == first.get_json()
    other = problem(client.post("/v1/seeks", json=SEEK, headers=key), 409, "seek_open")
    assert first.get_json()["id"] in other["detail"]
    changed = {**SEEK, "seats": 3, "clock": {"mode": "per_move", "move_s": 30}}
    problem(client.post("/v1/seeks", json=changed, headers=keyed), 422, "idempotency_key_reused")
    several = [client.post("/v1/seeks", json=SEEK, headers=key).status_code for _ in range(3)]
    assert several == [409, 409, 409]


def test_a_seek_expires_after_its_ttl(client: FlaskClient, clock: FakeClock) -> None:
    key = _key(client, "robo")
    seek = client.post("/v1/seeks", json=SEEK, headers=key).get_json()
    clock.advance(59)
    assert client.get(f"/v1/seeks/{seek['id']}", headers=key).get_json()["status"] == "open"
    clock.advance(1)
    shown = client.get(f"/v1/seeks/{seek['id']}", headers=key).get_json()
    assert shown["status"] == "expired" and shown["expires"] == seek["expires"]
    assert client.get("/v1/seeks").get_json() == {"seeks": []}
    gone = client.delete(f"/v1/seeks/{seek['id']}", headers=key)
    assert gone.status_code == 200 and gone.get_json()["status"] == "expired"
    assert client.post("/v1/seeks", json=SEEK, headers=key).status_code == 201


def test_a_seek_needs_its_key_scopes_and_terms(client: FlaskClient, clock: FakeClock) -> None:
    key = _key(client, "robo")
    problem(client.post("/v1/seeks", json=SEEK), 401, "key_required")
    join_only = _narrow(client, key, "robo", ["join_seats"])
    problem(client.post("/v1/seeks", json=SEEK, headers=join_only), 403, "missing_scope")
    rated_only = _narrow(client, key, "robo", ["play_rated"])
    problem(client.post("/v1/seeks", json=SEEK, headers=rated_only), 403, "missing_scope")
    no_clock = {"variant": GIN}
    problem(client.post("/v1/seeks", json=no_clock, headers=key), 422, "rated_match_needs_clock")
    bad_seats = {**SEEK, "seats": 2}
    problem(client.post("/v1/seeks", json=bad_seats, headers=key), 422, "validation_error")
    bad_option = {**SEEK, "options": {"rated": False}}
    problem(client.post("/v1/seeks", json=bad_option, headers=key), 422, "validation_error")
    unrated = client.post("/v1/seeks", json={"variant": GIN, "rated": False}, headers=join_only)
    assert unrated.status_code == 201 and unrated.get_json()["clock"] is None


def test_only_the_owner_sees_or_cancels_a_seek(client: FlaskClient, clock: FakeClock) -> None:
    key, other = _key(client, "robo"), _key(client, "ana", "human")
    seek = client.post("/v1/seeks", json=SEEK, headers=key).get_json()
    problem(client.get(f"/v1/seeks/{seek['id']}", headers=other), 404, "unknown_seek")
    problem(client.delete(f"/v1/seeks/{seek['id']}", headers=other), 404, "unknown_seek")
    problem(client.get(f"/v1/seeks/{seek['id']}"), 401, "key_required")
    problem(client.get("/v1/seeks/s_nothing", headers=key), 404, "unknown_seek")
    assert client.get(f"/v1/seeks/{seek['id']}", headers=key).get_json()["status"] == "open"


def test_two_bots_that_only_call_the_api_end_up_playing_each_other(
    client: FlaskClient, clock: FakeClock, service: Any, redis_client: redis.Redis
) -> None:
    from tests.support.workers_play import burst
    from workers.connection import set_service

    set_service(service)
    try:
        keys = {h: _key(client, h) for h in ("robo", "droid")}
        body = {"variant": "manipulation-rummy", "seats": 2, "clock": CLOCK}
        ids = {
            h: client.post("/v1/seeks", json=body, headers=k).get_json()["id"]
            for h, k in keys.items()
        }
        burst(redis_client)  # the pairing job, as a worker runs it
        seen = {h: client.get(f"/v1/seeks/{ids[h]}", headers=keys[h]).get_json() for h in keys}
        assert {s["status"] for s in seen.values()} == {"paired"}
        (match_id,) = {s["match"]["id"] for s in seen.values()}
        assert sorted(s["match"]["seat"] for s in seen.values()) == [0, 1]
        problem(client.delete(f"/v1/seeks/{ids['robo']}", headers=keys["robo"]), 409, "seek_paired")
        tokens = {}
        for handle, seek in seen.items():
            joined = client.post(seek["match"]["join"], json={}, headers=keys[handle])
            assert joined.status_code == 201, joined.get_data(as_text=True)
            assert joined.get_json()["seat"] == seek["match"]["seat"]
            tokens[handle] = joined.get_json()["token"]
        view = client.get(f"/v1/matches/{match_id}").get_json()
        assert view["lobby"]["status"] == "started" and view["options"]["rated"] is True
        assert sorted((s["account"], s["account_bot"]) for s in view["seats"]) == [
            ("droid", True),
            ("robo", True),
        ]
        assert client.get("/v1/lobby").get_json()["seeks"] == []
    finally:
        set_service(None)
