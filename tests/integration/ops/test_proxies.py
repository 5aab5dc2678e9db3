"""Behind a proxy (issue 34): DEADWOOD_TRUSTED_PROXIES=N makes the rate limits and the logs
see the client the proxy names in X-Forwarded-For; without it the header changes nothing."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask

from api import create_app
from store import logs
from tests.support.api_helpers import players

PROXY = "10.0.0.1"
BODY = {"variant": "three-hand-gin", "players": players(3)}


def _app(service: Any, **config: Any) -> Flask:
    return create_app(
        {"TESTING": True, "SERVICE": service, "RATELIMIT_CREATE": "2 per minute", **config}
    )


def _create(app: Flask, forwarded_for: str | None) -> int:
    headers = {"X-Forwarded-For": forwarded_for} if forwarded_for else {}
    client = app.test_client()
    response = client.post(
        "/v1/matches", json=BODY, headers=headers, environ_base={"REMOTE_ADDR": PROXY}
    )
    return response.status_code


def test_two_clients_behind_a_trusted_proxy_get_separate_buckets(service: Any) -> None:
    app = _app(service, TRUSTED_PROXIES=1)
    assert [_create(app, "203.0.113.5") for _ in range(3)] == [201, 201, 429]
    assert [_create(app, "198.51.100.7") for _ in range(2)] == [201, 201]
    # a client that prepends a forged hop is still counted by the hop the proxy added
    assert _create(app, "198.51.100.99, 203.0.113.5") == 429


def test_without_the_setting_a_forged_forwarded_for_changes_nothing(service: Any) -> None:
    app = _app(service)
    assert [_create(app, f"192.0.2.{n}") for n in range(3)] == [201, 201, 429]
    assert _create(app, None) == 429


def test_the_access_line_names_the_forwarded_client(
    service: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    app = _app(service, TRUSTED_PROXIES=1, RATELIMIT_CREATE="off")

    @app.get("/v1/whoami")
    def whoami() -> Any:
        from flask import request

        return {"addr": request.remote_addr}

    client = app.test_client()
    logs.flush_access()
    capsys.readouterr()
    response = client.get(
        "/v1/whoami",
        headers={"X-Forwarded-For": "203.0.113.5"},
        environ_base={"REMOTE_ADDR": PROXY},
    )
    assert response.get_json() == {"addr": "203.0.113.5"}
    logs.flush_access()
    (line,) = [x for x in capsys.readouterr().err.splitlines() if "deadwood.access" in x]
    assert "client=203.0.113.5" in line and PROXY not in line
