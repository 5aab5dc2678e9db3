"""Worker-test fixtures: the hasty test bot registered for the duration of a test; for the
clock tests, a fake clock (`clock`) and a service reading it that the burst workers use
(`svc`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis

from store.service import MatchService
from tests.support import workers_play
from tests.support.clock_play import FakeClock, clocked_service
from workers.connection import set_service


@pytest.fixture(autouse=True)
def hasty_bot() -> Iterator[None]:
    workers_play.install_hasty()
    yield
    workers_play.uninstall_hasty()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def svc(redis_client: redis.Redis, clock: FakeClock) -> Iterator[MatchService]:
    service = clocked_service(redis_client, clock)
    set_service(service)
    yield service
    set_service(None)
