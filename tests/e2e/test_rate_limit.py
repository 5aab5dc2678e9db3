"""Rate limits (issue 6; api.md Conventions `rate_limited`): match creation per address, moves
per seat token and per address, counted in the event store's Redis; 429 problem+json with
`Retry-After`; a refused request appends nothing; off unless configured."""

from __future__ import annotations

from typing import Any

import pytest

from api import create_app

GIN = {"variant": "three-hand-gin", "players": [{"name": "a"}, {"name": "b"}, {"name": "c"}]}


def _client(service: Any, **limits: str) -> Any:
    return create_app({"TESTING": True, "SERVICE": service, **limits}).test_client()


def _rate_limited(response: Any) -> None:
    assert response.status_code == 429, response.get_data(as_text=True)
    assert response.mimetype == "application/problem+json"
    body = response.get_json()
    assert body["code"] == "rate_limited" and body["status"] == 429
    assert int(response.headers["Retry-After"]) >= 1


def _addr(ip: str) -> dict[str, Any]:
    return {"environ_base": {"REMOTE_ADDR": ip}}


def test_match_creation_is_limited_per_address(service: Any, redis_client: Any) -> None:
    client = _client(service, RATELIMIT_CREATE="3 per minute")
    for _ in range(3):
        assert client.post("/v1/matches", json=GIN, **_addr("10.0.0.1")).status_code == 201
    before = len(redis_client.keys("match:*:events"))
    _rate_limited(client.post("/v1/matches", json=GIN, **_addr("10.0.0.1")))
    assert len(redis_client.keys("match:*:events")) == before, "a refused create made nothing"
    assert client.post("/v1/matches", json=GIN, **_addr("10.0.0.2")).status_code == 201


def _match(client: Any) -> tuple[str, list[str]]:
    created = client.post("/v1/matches", json=GIN, **_addr("10.9.9.9")).get_json()
    return created["id"], [s["token"] for s in created["seats"]]


def _move(client: Any, match_id: str, token: str, ip: str) -> Any:
    return client.post(
        f"/v1/matches/{match_id}/moves",
        json={"type": "pass_upcard"},
        headers={"Authorization": f"Bearer {token}"},
        **_addr(ip),
    )


def test_moves_are_limited_per_token_whatever_the_address(service: Any, redis_client: Any) -> None:
    client = _client(service, RATELIMIT_MOVES="2 per minute")
    match_id, tokens = _match(client)
    seat = client.get(f"/v1/matches/{match_id}").get_json()["turn"]
    assert _move(client, match_id, tokens[seat], "10.1.0.1").status_code == 200
    assert _move(client, match_id, tokens[seat], "10.1.0.2").status_code != 429
    length = redis_client.xlen(f"match:{{{match_id}}}:events")
    _rate_limited(_move(client, match_id, tokens[seat], "10.1.0.3"))
    assert redis_client.xlen(f"match:{{{match_id}}}:events") == length
    other = (seat + 1) % 3
    assert _move(client, match_id, tokens[other], "10.1.0.4").status_code != 429


def test_moves_are_limited_per_address_whatever_the_token(service: Any) -> None:
    client = _client(service, RATELIMIT_MOVES="2 per minute")
    match_id, tokens = _match(client)
    assert _move(client, match_id, tokens[0], "10.2.0.1").status_code != 429
    assert _move(client, match_id, tokens[1], "10.2.0.1").status_code != 429
    _rate_limited(_move(client, match_id, tokens[2], "10.2.0.1"))


def test_counts_live_in_the_event_store_redis_under_token_hashes(
    service: Any, redis_client: Any
) -> None:
    """Two app instances (two gunicorn workers, two hosts) share the counts; no key or value
    holds a token."""
    first = _client(service, RATELIMIT_MOVES="2 per minute")
    second = _client(service, RATELIMIT_MOVES="2 per minute")
    match_id, tokens = _match(first)
    assert _move(first, match_id, tokens[0], "10.3.0.1").status_code != 429
    assert _move(second, match_id, tokens[0], "10.3.0.2").status_code != 429
    _rate_limited(_move(first, match_id, tokens[0], "10.3.0.3"))
    keys = [k.decode() for k in redis_client.keys("*ratelimit*")]
    assert keys
    assert not [k for k in keys if any(t in k for t in tokens)]


def test_limits_come_from_the_environment(service: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEADWOOD_RATELIMIT_CREATE", "1 per minute")
    client = _client(service)
    assert client.post("/v1/matches", json=GIN, **_addr("10.4.0.1")).status_code == 201
    _rate_limited(client.post("/v1/matches", json=GIN, **_addr("10.4.0.1")))


def test_nothing_is_limited_unless_configured(service: Any) -> None:
    client = _client(service)
    for _ in range(12):
        assert client.post("/v1/matches", json=GIN, **_addr("10.5.0.1")).status_code == 201
    match_id, tokens = _match(client)
    for _ in range(12):
        assert _move(client, match_id, tokens[0], "10.5.0.1").status_code != 429


def test_a_separate_address_limit_and_off(service: Any) -> None:
    """Issue 11: RATELIMIT_MOVES_ADDRESS counts per address on its own (RATELIMIT_MOVES then
    counts per token only), and `off` turns a limit off."""
    client = _client(
        service,
        RATELIMIT_MOVES="2 per minute",
        RATELIMIT_MOVES_ADDRESS="3 per minute",
        RATELIMIT_CREATE="off",
    )
    for _ in range(4):
        assert client.post("/v1/matches", json=GIN, **_addr("10.6.0.1")).status_code == 201
    match_id, tokens = _match(client)
    assert _move(client, match_id, tokens[0], "10.6.0.2").status_code != 429
    assert _move(client, match_id, tokens[0], "10.6.0.3").status_code != 429
    _rate_limited(_move(client, match_id, tokens[0], "10.6.0.4"))  # the token's 3rd
    for seat in (1, 2, 1):  # 3 from one address, none over its token's 2
        assert _move(client, match_id, tokens[seat], "10.6.0.5").status_code != 429
    _rate_limited(_move(client, match_id, tokens[2], "10.6.0.5"))  # the address's 4th
