"""The active index (issue 34): a create indexes its match before its append, the append that
finishes a match moves it to the finished index, and the reconciler reads only the index
(its cost follows the matches in play) and repairs it."""

from __future__ import annotations

import time

import redis

from store.event_store import ACTIVE_KEY, FINISHED_KEY, INDEX_BUILT_KEY
from store.jobs import QUEUES
from store.service import MatchService
from tests.support.workers_play import GIN, burst
from workers.reconcile import GRACE_SECONDS, reconcile

BOTS = [{"name": n, "bot": "hasty"} for n in "abc"]
PEOPLE = [{"name": n} for n in "abc"]


def _ids(client: redis.Redis, key: str) -> set[str]:
    # redis-py types a reply for both decode_responses settings; this client gets bytes
    members: list[bytes] = client.zrange(key, 0, -1)  # type: ignore[assignment]
    return {raw.decode() for raw in members}


def _drop_jobs(client: redis.Redis) -> None:
    for name in QUEUES:
        client.delete(f"rq:queue:{name}")


def test_a_match_is_indexed_at_create_and_moves_to_finished_at_its_end(
    service: MatchService, redis_client: redis.Redis
) -> None:
    match_id = service.create_match(GIN, BOTS, {"target_score": 25}, 1).match_id
    assert _ids(redis_client, ACTIVE_KEY) == {match_id}
    burst(redis_client)
    assert service.is_finished(match_id)
    assert _ids(redis_client, ACTIVE_KEY) == set()
    assert _ids(redis_client, FINISHED_KEY) == {match_id}


def test_a_first_pass_scans_and_builds_the_index_then_passes_read_only_the_index(
    service: MatchService, redis_client: redis.Redis
) -> None:
    match_id = service.create_match(GIN, BOTS, {"target_score": 25}, 2).match_id
    redis_client.delete(ACTIVE_KEY)  # as if written before the index existed
    _drop_jobs(redis_client)
    assert not redis_client.exists(INDEX_BUILT_KEY)
    assert len(reconcile(service)) == 1  # full: finds it by SCAN, indexes it
    assert redis_client.exists(INDEX_BUILT_KEY)
    assert _ids(redis_client, ACTIVE_KEY) == {match_id}
    redis_client.delete(ACTIVE_KEY)
    _drop_jobs(redis_client)
    assert reconcile(service) == []  # the index pass does not see an unindexed match
    assert len(reconcile(service, full=True)) == 1  # a full pass heals and re-indexes it
    assert _ids(redis_client, ACTIVE_KEY) == {match_id}


def test_the_index_pass_heals_an_indexed_match(
    service: MatchService, redis_client: redis.Redis
) -> None:
    service.store.mark_index_built()
    match_id = service.create_match(GIN, BOTS, {"target_score": 25}, 3).match_id
    _drop_jobs(redis_client)
    enqueued = reconcile(service)
    assert len(enqueued) == 1 and match_id in enqueued[0]
    burst(redis_client)
    assert service.is_finished(match_id)


def test_the_pass_repairs_the_index(service: MatchService, redis_client: redis.Redis) -> None:
    """A finished match still listed moves to the finished index; an id with no match is
    dropped once older than the grace period (its create may still be running before)."""
    service.store.mark_index_built()
    playing = service.create_match(GIN, PEOPLE, {}, 4).match_id
    finished = service.create_match(GIN, BOTS, {"target_score": 25}, 5).match_id
    burst(redis_client)
    redis_client.zadd(ACTIVE_KEY, {finished: time.time()})
    redis_client.zadd(
        ACTIVE_KEY, {"m_fresh": time.time(), "m_stale": time.time() - 2 * GRACE_SECONDS}
    )
    assert reconcile(service) == []
    assert _ids(redis_client, ACTIVE_KEY) == {playing, "m_fresh"}
    assert finished in _ids(redis_client, FINISHED_KEY)
