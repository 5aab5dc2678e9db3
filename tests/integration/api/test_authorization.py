"""The authorization matrix of api.md Auth: every match endpoint with no token, a malformed
header, a bad token, another match's token, a spectator and the wrong seat."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask

from api import create_app
from tests.support.api_helpers import auth, create, log_length, problem

ENDPOINTS = ["view", "legal-moves", "moves", "events", "stream", "log", "hint"]


@pytest.fixture
def app(service: Any) -> Flask:
    return create_app({"SERVICE": service, "SSE_HEARTBEAT_SECONDS": 0.05, "SSE_MAX_SECONDS": 0.2})


@pytest.fixture
def two(client: Any) -> dict[str, Any]:
    """A gin match in its upcard offer (the captain to act) and a second match."""
    match_id, tokens = create(client, seed=21)
    _other_id, other_tokens = create(client, seed=22)
    view = client.get(f"/v1/matches/{match_id}").get_json()
    return {"id": match_id, "tokens": tokens, "roles": view["roles"], "other": other_tokens}


def call(client: Any, endpoint: str, match_id: str, headers: dict[str, str]) -> Any:
    base = f"/v1/matches/{match_id}"
    if endpoint == "moves":
        return client.post(f"{base}/moves", json={"type": "pass_upcard"}, headers=headers)
    path = {"view": base, "stream": f"{base}/events/stream"}.get(endpoint, f"{base}/{endpoint}")
    response = client.get(path, headers=headers)
    if endpoint == "stream" and response.status_code == 200:
        response.get_data()  # the stream ends after SSE_MAX_SECONDS
    return response


def _forged(token: str) -> str:
    seat, _, secret = token.partition(".")
    return f"{seat}.{secret[:-2]}{'AA' if not secret.endswith('AA') else 'BB'}"


MALFORMED = ["Basic YWxhZGRpbjpvcGVuc2VzYW1l", "Bearer", "Bearer  ", "bearer a b", "Token x"]


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_malformed_bad_and_foreign_tokens_are_401(
    client: Any, service: Any, two: dict[str, Any], endpoint: str
) -> None:
    """api.md: a token of another match, or a malformed one, gets 401 unauthorized."""
    match_id = two["id"]
    version = log_length(service, match_id)
    captain_token = two["tokens"][two["roles"]["captain"]]
    headers = [{"Authorization": h} for h in MALFORMED]
    headers += [
        auth("0.notatoken"),
        auth("x" * 43),
        auth(_forged(captain_token)),
        auth(two["other"][two["roles"]["captain"]]),  # the same seat of another match
        auth(two["other"][0]),
    ]
    swapped_seat = str((int(captain_token[0]) + 1) % 3) + captain_token[1:]
    headers.append(auth(swapped_seat))
    for header in headers:
        response = call(client, endpoint, match_id, header)
        problem(response, 401, "unauthorized")
    assert log_length(service, match_id) == version


def test_spectator_reads_but_cannot_act(client: Any, service: Any, two: dict[str, Any]) -> None:
    """No token: a spectator sees views and events (you is null), but moves and hints are
    403 forbidden and the log of a match in progress is 403 match_in_progress."""
    match_id = two["id"]
    version = log_length(service, match_id)
    view = call(client, "view", match_id, {})
    assert view.status_code == 200 and view.get_json()["you"] is None
    moves = call(client, "legal-moves", match_id, {}).get_json()
    assert moves["seat"] is None and moves["moves"] == []
    assert call(client, "events", match_id, {}).status_code == 200
    stream = call(client, "stream", match_id, {})
    assert stream.status_code == 200 and stream.mimetype == "text/event-stream"
    problem(call(client, "moves", match_id, {}), 403, "forbidden")
    problem(call(client, "hint", match_id, {}), 403, "forbidden")
    problem(call(client, "log", match_id, {}), 403, "match_in_progress")
    assert log_length(service, match_id) == version


def test_wrong_seat(client: Any, service: Any, two: dict[str, Any]) -> None:
    """G1.3/G5.1: BOX may not move during the captain's offer (409 not_your_turn); the ADVISOR
    may never take the upcard (403 forbidden); both still read their own views."""
    match_id, tokens, roles = two["id"], two["tokens"], two["roles"]
    version = log_length(service, match_id)
    box, advisor = auth(tokens[roles["box"]]), auth(tokens[roles["advisor"]])
    problem(call(client, "moves", match_id, box), 409, "not_your_turn")
    problem(call(client, "moves", match_id, advisor), 403, "forbidden")
    problem(call(client, "hint", match_id, box), 409, "not_your_turn")
    for seat, header in ((roles["box"], box), (roles["advisor"], advisor)):
        view = call(client, "view", match_id, header).get_json()
        assert view["you"]["seat"] == seat
        assert call(client, "events", match_id, header).status_code == 200
    assert call(client, "legal-moves", match_id, box).get_json()["moves"] == []
    assert log_length(service, match_id) == version


def test_right_seat_acts(client: Any, service: Any, two: dict[str, Any]) -> None:
    match_id, tokens, roles = two["id"], two["tokens"], two["roles"]
    captain = auth(tokens[roles["captain"]])
    hint = call(client, "hint", match_id, captain)
    assert hint.status_code == 200
    assert (
        hint.get_json()["move"]
        in call(client, "legal-moves", match_id, captain).get_json()["moves"]
    )
    assert call(client, "moves", match_id, captain).status_code == 200


def test_endpoints_without_a_match_ignore_no_token(client: Any) -> None:
    assert client.get("/v1/bots").status_code == 200
    assert client.get("/v1/health").status_code == 200
