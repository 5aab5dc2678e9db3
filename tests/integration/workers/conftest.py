"""Worker-test fixtures: the hasty test bot registered for the duration of a test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support import workers_play


@pytest.fixture(autouse=True)
def hasty_bot() -> Iterator[None]:
    workers_play.install_hasty()
    yield
    workers_play.uninstall_hasty()
