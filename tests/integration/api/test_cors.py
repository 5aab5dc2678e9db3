"""CORS for third-party web clients (issue 15): DEADWOOD_CORS_ORIGINS, default none.

The app runs on the test Redis; the headers are checked on views, problem responses, the live
stream and the preflight of a move with Authorization, If-Match and Idempotency-Key. The
clients here are Flask's plain test clients: a preflight (OPTIONS) is no operation of
openapi.yaml, so the checked client of tests/integration/api/conftest.py cannot validate it.
"""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask

from api import create_app
from api.cors import origins
from tests.support.api_helpers import create

ORIGIN = "https://table.example"
ACAO = "Access-Control-Allow-Origin"


@pytest.fixture
def cors_client(service: Any) -> Any:
    app: Flask = create_app(
        {
            "TESTING": True,
            "SERVICE": service,
            "CORS_ORIGINS": f"{ORIGIN}, https://other.example",
            "SSE_HEARTBEAT_SECONDS": 0.2,
            "SSE_MAX_SECONDS": 1,
        }
    )
    return app.test_client()


def test_origins_are_read_from_a_comma_list_or_a_json_list() -> None:
    assert origins(None) == [] and origins("") == [] and origins(" , ") == []
    assert origins("https://a.example/, https://b.example") == [
        "https://a.example",
        "https://b.example",
    ]
    assert origins(["https://a.example"]) == ["https://a.example"]


def test_by_default_no_response_carries_cors_headers(app: Flask) -> None:
    client = app.test_client()  # a plain client: preflights are not in openapi.yaml
    match_id, _ = create(client, seed=1)
    for path in (f"/v1/matches/{match_id}", "/v1/matches/m_nope", "/v1/bots"):
        response = client.get(path, headers={"Origin": ORIGIN})
        assert ACAO not in response.headers, path
    preflight = client.options(
        f"/v1/matches/{match_id}/moves",
        headers={"Origin": ORIGIN, "Access-Control-Request-Method": "POST"},
    )
    assert ACAO not in preflight.headers


def test_an_allowed_origin_gets_the_headers_on_views_and_may_read_the_etag(
    cors_client: Any,
) -> None:
    match_id, _ = create(cors_client, seed=1)
    response = cors_client.get(f"/v1/matches/{match_id}", headers={"Origin": ORIGIN})
    assert response.status_code == 200
    assert response.headers[ACAO] == ORIGIN
    exposed = {h.strip() for h in response.headers["Access-Control-Expose-Headers"].split(",")}
    assert {"ETag", "Location", "Retry-After"} <= exposed
    assert "Origin" in response.headers.get("Vary", "")


def test_problem_responses_carry_the_headers_too(cors_client: Any) -> None:
    """A script must be able to read the problem's `code`: 404, 401 and 403 included."""
    match_id, _ = create(cors_client, seed=1)
    cases = [
        ("get", "/v1/matches/m_unknown", {}, 404),
        ("get", f"/v1/matches/{match_id}", {"Authorization": "Bearer nope"}, 401),
        ("post", f"/v1/matches/{match_id}/moves", {}, 403),
    ]
    for method, path, headers, status in cases:
        response = getattr(cors_client, method)(
            path, headers={"Origin": ORIGIN, **headers}, json={"type": "pass_upcard"}
        )
        assert response.status_code == status, (path, response.get_json())
        assert response.mimetype == "application/problem+json"
        assert response.headers[ACAO] == ORIGIN, path


def test_the_live_stream_carries_the_headers(cors_client: Any) -> None:
    match_id, _ = create(cors_client, seed=1)
    response = cors_client.get(
        f"/v1/matches/{match_id}/events/stream",
        headers={"Origin": ORIGIN, "Last-Event-ID": "1"},
    )
    assert response.status_code == 200
    assert response.mimetype == "text/event-stream"
    assert response.headers[ACAO] == ORIGIN
    assert "id: 2" in response.get_data(as_text=True)


def test_a_preflight_for_a_move_allows_authorization_if_match_and_idempotency_key(
    cors_client: Any,
) -> None:
    match_id, _ = create(cors_client, seed=1)
    asked = "authorization, content-type, if-match, idempotency-key"
    response = cors_client.options(
        f"/v1/matches/{match_id}/moves",
        headers={
            "Origin": ORIGIN,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": asked,
        },
    )
    assert response.status_code == 200
    assert response.headers[ACAO] == ORIGIN
    assert "POST" in response.headers["Access-Control-Allow-Methods"]
    allowed = {
        h.strip().lower() for h in response.headers["Access-Control-Allow-Headers"].split(",")
    }
    assert {"authorization", "content-type", "if-match", "idempotency-key"} <= allowed
    assert int(response.headers["Access-Control-Max-Age"]) > 0


def test_an_origin_not_listed_gets_no_cors_headers(cors_client: Any) -> None:
    match_id, _ = create(cors_client, seed=1)
    response = cors_client.get(
        f"/v1/matches/{match_id}", headers={"Origin": "https://evil.example"}
    )
    assert response.status_code == 200
    assert ACAO not in response.headers
    preflight = cors_client.options(
        f"/v1/matches/{match_id}/moves",
        headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"},
    )
    assert ACAO not in preflight.headers
