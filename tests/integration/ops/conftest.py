"""Operations tests (issue 34): the API fixtures, on the session's real Redis, and the hasty
test bot (tests/support/workers_play.py) so bot matches end quickly."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.integration.api.conftest import app, client
from tests.support import workers_play

__all__ = ["app", "client"]


@pytest.fixture(autouse=True)
def hasty_bot() -> Iterator[None]:
    workers_play.install_hasty()
    yield
    workers_play.uninstall_hasty()
