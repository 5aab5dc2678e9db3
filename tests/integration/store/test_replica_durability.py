"""DEADWOOD_DURABILITY=replica on a Redis with no replica (issue 14): a move is written but
not acknowledged (NotReplicated, 503), and a retry with the same Idempotency-Key does not turn
it into an acknowledgement either: the replayed answer waits for a replica too. (With a
replica, both are acknowledged: tests/integration/cluster/test_cluster.py.)"""

from __future__ import annotations

from typing import Any

import pytest
import redis

from store.durability import Durability
from store.errors import NotReplicated
from store.event_store import events_key
from store.service import MatchService

ADD = {"type": "add", "n": 2}
PLAYERS = [{"name": "a"}, {"name": "b"}]


@pytest.fixture
def lonely(counter: MatchService, redis_client: redis.Redis) -> MatchService:
    """The counter variant under `replica` durability, on the test Redis (which has no
    replica: the test asserts that, since its outcome depends on it)."""
    assert redis_client.info("replication")["connected_slaves"] == 0, "the test Redis has a replica"
    return MatchService(redis_client, pepper=b"p", durability=Durability("replica", 20))


def test_a_move_no_replica_confirmed_stays_unacknowledged_on_retry(
    lonely: MatchService, redis_client: redis.Redis
) -> None:
    plain = MatchService(redis_client, pepper=b"p")  # `counter` taught the module the game
    match_id = plain.create_match("counter", PLAYERS, {"target": 100}, 1).match_id
    submit: dict[str, Any] = {"expected_version": None, "idempotency_key": "k", "fingerprint": "f"}
    with pytest.raises(NotReplicated, match="no replica confirmed"):
        lonely.submit(match_id, 0, ADD, **submit)
    written = redis_client.xlen(events_key(match_id))
    with pytest.raises(NotReplicated, match="Idempotency-Key"):
        lonely.submit(match_id, 0, ADD, **submit)
    assert redis_client.xlen(events_key(match_id)) == written, "the retry appended nothing"
    assert plain.submit(match_id, 0, ADD, **submit).replayed, "the outcome is the first write"


def test_a_create_no_replica_confirmed_stays_unacknowledged_on_retry(
    lonely: MatchService,
) -> None:
    for _ in range(2):
        with pytest.raises(NotReplicated):
            lonely.create_match("counter", PLAYERS, {"target": 100}, 1, "create-1", "f")
