"""API test fixtures: the app on the session's real Redis, a client, and small helpers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.exceptions import HTTPException

from api import create_app


@pytest.fixture
def app(service: Any) -> Flask:
    """The app on the test Redis (flushed before each test)."""
    return create_app(
        {"TESTING": True, "SERVICE": service, "SSE_HEARTBEAT_SECONDS": 0.2, "SSE_MAX_SECONDS": 3}
    )


OPENAPI = Path(__file__).resolve().parents[3] / "openapi.yaml"
_SCHEMA: list[Any] = []


def openapi_schema() -> Any:
    """openapi.yaml loaded by schemathesis (once per session)."""
    if not _SCHEMA:
        import schemathesis

        _SCHEMA.append(schemathesis.openapi.from_path(str(OPENAPI)))
    return _SCHEMA[0]


class CheckedClient(FlaskClient):
    """A test client that validates every documented response against openapi.yaml
    (status, content type, headers and body schema), so no test can pass on a response the
    document does not describe."""

    def open(self, *args: Any, **kwargs: Any) -> Any:
        response = super().open(*args, **kwargs)
        if kwargs.get("buffered") is False:
            return response
        request = response.request
        adapter = self.application.url_map.bind("localhost")
        try:
            rule, _ = adapter.match(request.path, request.method, return_rule=True)
        except HTTPException:
            return response  # 404/405 from routing: no operation to check against
        template = rule.rule.replace("<", "{").replace(">", "}")
        schema = openapi_schema()
        if template in schema.raw_schema["paths"]:
            operation = schema[template][request.method]
            operation.validate_response(response)
        return response


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    app.test_client_class = CheckedClient
    return app.test_client()
