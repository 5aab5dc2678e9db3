"""Store-test helpers: the counter game wired into a MatchService on the real test Redis."""

from __future__ import annotations

import pytest
import redis

import store.states as states_module
import store.submit as submit_module
from domain.variants import NAMES, Variant, get_variant
from store.service import MatchService
from tests.support import store_counter_game as counter_game


@pytest.fixture
def counter(redis_client: redis.Redis, monkeypatch: pytest.MonkeyPatch) -> MatchService:
    """A MatchService that also knows the `counter` test game."""

    def lookup(name: str) -> Variant:
        return counter_game.VARIANT if name == counter_game.NAME else get_variant(name)

    for module in (states_module, submit_module):  # where the store finds a game by name
        monkeypatch.setattr(module, "get_variant", lookup)
    monkeypatch.setattr(states_module, "NAMES", (*NAMES, counter_game.NAME))
    return MatchService(redis_client, pepper=b"test-pepper", snapshot_every=4)
