"""Operations tests (issue 34): the API fixtures, on the session's real Redis."""

from __future__ import annotations

from tests.integration.api.conftest import app, client

__all__ = ["app", "client"]
