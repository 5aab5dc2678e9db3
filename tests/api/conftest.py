"""API test fixtures: the app on the session's real Redis, a client, and small helpers."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

# pytest puts tests/ on sys.path (tests/conftest.py has no package), where tests/api would
# shadow the real `api` package as an empty namespace; with the project root on sys.path the
# regular package wins.
ROOT = str(Path(__file__).resolve().parents[2])
if ROOT not in sys.path:
    sys.path.append(ROOT)
if getattr(sys.modules.get("api"), "__file__", "") is None:
    del sys.modules["api"]

import pytest  # noqa: E402
from flask import Flask  # noqa: E402
from flask.testing import FlaskClient  # noqa: E402

from api import create_app  # noqa: E402


@pytest.fixture
def app(service: Any) -> Flask:
    """The app on the test Redis (flushed before each test)."""
    return create_app(
        {"TESTING": True, "SERVICE": service, "SSE_HEARTBEAT_SECONDS": 0.2, "SSE_MAX_SECONDS": 3}
    )


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()
