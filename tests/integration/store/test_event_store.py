"""The event stream and the atomic append (architecture.md "Events", issue 4 "Event store").

Real Redis; the `counter` game (store_counter_game.py) gives moves any seat may make at any time.
"""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
import redis
from redis.exceptions import ResponseError

from domain.events import Event
from store.errors import VersionConflict
from store.event_store import AppendRequest, Conflict, IdemTaken, events_key
from store.service import MatchService, StoredEvent
from tests.support.store_counter_game import counter_state

ADD = {"type": "add", "n": 1}


def _new(counter: MatchService, target: int = 1000) -> str:
    return counter.create_match(
        "counter", [{"name": "a"}, {"name": "b"}], {"target": target}, 1
    ).match_id


def _add(counter: MatchService, match_id: str, seat: int = 0, **kw: Any) -> Any:
    kw.setdefault("expected_version", None)
    kw.setdefault("idempotency_key", None)
    kw.setdefault("fingerprint", "f")
    return counter.submit(match_id, seat, ADD, **kw)


def test_stream_entries_have_explicit_ids_and_the_four_fields(
    counter: MatchService, redis_client: redis.Redis
) -> None:
    """Entry ids are 0-<seq>; each entry carries type, v, data (JSON), at (RFC 3339 UTC)."""
    match_id = _new(counter)
    _add(counter, match_id)
    _add(counter, match_id, seat=1)
    rows: Any = redis_client.xrange(events_key(match_id))  # raw replies: bytes here
    assert [r[0] for r in rows] == [b"0-1", b"0-2", b"0-3"]
    fields = rows[1][1]
    assert fields[b"type"] == b"Added" and fields[b"v"] == b"1"
    assert json.loads(fields[b"data"]) == {"seat": 0, "n": 1}
    assert fields[b"at"].endswith(b"Z") and b"T" in fields[b"at"]
    assert [e.seq for e in counter.events(match_id)] == [1, 2, 3]


def test_stale_expected_version_is_a_conflict_and_writes_nothing(
    counter: MatchService, redis_client: redis.Redis
) -> None:
    """If-Match on an old version: VersionConflict (412), the stream is unchanged."""
    match_id = _new(counter)
    _add(counter, match_id, expected_version=1)
    with pytest.raises(VersionConflict) as info:
        _add(counter, match_id, expected_version=1)
    assert (info.value.expected, info.value.actual) == (1, 2)
    assert redis_client.xlen(events_key(match_id)) == 2


def test_low_level_append_twice_at_one_version_never_duplicates(
    counter: MatchService, redis_client: redis.Redis
) -> None:
    """A retried append (same expected version) is a conflict, or with an idempotency key a
    replay of the stored record: never a second copy of the events."""
    match_id = _new(counter)
    store = counter.store
    request = AppendRequest(match_id, 1, [Event("Added", {"seat": 0, "n": 2})])
    store.append(request)
    with pytest.raises(Conflict):
        store.append(request)
    idem = AppendRequest(
        match_id, 2, [Event("Added", {"seat": 0, "n": 3})], idem_key="k", idem_record="{}"
    )
    store.append(idem)
    with pytest.raises((Conflict, IdemTaken)):
        store.append(idem)
    assert redis_client.xlen(events_key(match_id)) == 3
    _loaded = counter.load(match_id)
    state, version = counter_state(_loaded.state), _loaded.version
    assert (state.total, version) == (5, 3)


def test_a_resent_append_script_cannot_append_twice(
    counter: MatchService, redis_client: redis.Redis
) -> None:
    """The append script sent a second time with the same arguments (a client re-sending a
    command whose reply was lost) meets its own version check and writes nothing; a raw XADD
    of an explicit id at or below the top fails too: 0-<seq> can be written once only."""
    match_id = _new(counter)
    request = AppendRequest(match_id, 1, [Event("Added", {"seat": 0, "n": 2})] * 2)
    store = counter.store
    stored = [StoredEvent(2 + i, e, request.at) for i, e in enumerate(request.events)]
    keys, args = store.keys(request), store.args(request, stored, "nonce-1")
    first, _ = store._eval(keys, args)
    again, _ = store._eval(keys, args)
    assert (first[0], again[0]) == (b"ok", b"conflict")
    assert (int(again[1]), again[2]) == (3, b"nonce-1")
    with pytest.raises(ResponseError):
        redis_client.xadd(events_key(match_id), {"type": "Added"}, id="0-3")
    assert redis_client.xlen(events_key(match_id)) == 3


class LosingExecReply(redis.Connection):
    """A connection that, once armed, loses the reply of the next append script (EVALSHA)
    after the server ran it."""

    armed = False
    sent_exec = 0

    def send_packed_command(self, command: Any, check_health: bool = True) -> None:
        chunks = [command] if isinstance(command, bytes | str) else command
        if any(b"EVALSHA" in (c if isinstance(c, bytes) else c.encode()) for c in chunks):
            type(self).sent_exec += 1
        super().send_packed_command(command, check_health)  # type: ignore[no-untyped-call]

    def read_response(self, *args: Any, **kwargs: Any) -> Any:
        response = super().read_response(*args, **kwargs)
        if type(self).armed and isinstance(response, list) and type(self).sent_exec:
            type(self).armed = False
            self.disconnect()  # type: ignore[no-untyped-call]
            raise redis.ConnectionError("injected: the EXEC reply was lost")
        return response


def test_lost_exec_reply_is_settled_by_the_append_nonce(
    counter: MatchService, redis_url: str, redis_client: redis.Redis
) -> None:
    """The server commits, the reply is lost: whether redis-py re-sends the script (its retry
    meets the version check) or gives up (the store reads entry 0-2 back), the append finds its
    own nonce and reports success, and the move is in the stream once."""
    match_id = _new(counter)
    host, port = (
        redis_client.connection_pool.connection_kwargs["host"],
        redis_client.connection_pool.connection_kwargs["port"],
    )
    pool = redis.ConnectionPool(connection_class=LosingExecReply, host=host, port=port)
    lossy = redis.Redis(connection_pool=pool)
    service = MatchService(lossy, pepper=b"test-pepper")
    LosingExecReply.sent_exec = 0
    LosingExecReply.armed = True
    appended = service.submit(
        match_id, 0, ADD, expected_version=1, idempotency_key=None, fingerprint="f"
    )
    assert not LosingExecReply.armed, "the fault was not injected"
    assert LosingExecReply.sent_exec >= 1
    assert appended.version == 2
    assert redis_client.xlen(events_key(match_id)) == 2
    pool.disconnect()


def test_many_threads_at_one_version_exactly_one_wins(
    counter: MatchService, redis_client: redis.Redis
) -> None:
    """Concurrency: 16 threads submit at the same expected version; one append, 15 conflicts."""
    match_id = _new(counter)
    outcomes: list[str] = []
    barrier = threading.Barrier(16)

    def play(seat: int) -> None:
        barrier.wait()
        try:
            _add(counter, match_id, seat=seat % 2, expected_version=1)
            outcomes.append("won")
        except VersionConflict:
            outcomes.append("conflict")

    threads = [threading.Thread(target=play, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["conflict"] * 15 + ["won"]
    assert redis_client.xlen(events_key(match_id)) == 2


def test_many_threads_without_if_match_lose_nothing_and_double_nothing(
    counter: MatchService, redis_client: redis.Redis
) -> None:
    """Without If-Match the load/decide/append loop retries: 12 threads x 3 moves -> 36 events,
    a total of 36, each seat's moves all present once."""
    match_id = _new(counter)

    def play(seat: int) -> None:
        for _ in range(3):
            _add(counter, match_id, seat=seat)

    threads = [threading.Thread(target=play, args=(i,)) for i in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    counter.forget_cache()
    _loaded = counter.load(match_id)
    state, version = counter_state(_loaded.state), _loaded.version
    assert version == 37 and state.total == 36
    assert sorted(seat for seat, _ in state.moves) == sorted(list(range(12)) * 3)
    assert redis_client.xlen(events_key(match_id)) == 37


def test_wait_events_returns_new_events_and_times_out_empty(counter: MatchService) -> None:
    """XREAD BLOCK for SSE: an event appended meanwhile comes back; none -> empty list."""
    match_id = _new(counter)
    assert counter.wait_events(match_id, after=1, block_ms=50) == []
    timer = threading.Timer(0.05, lambda: _add(counter, match_id))
    timer.start()
    got = counter.wait_events(match_id, after=1, block_ms=5000)
    timer.join()
    assert [e.seq for e in got] == [2] and got[0].event.type == "Added"


def test_a_wait_longer_than_the_socket_timeout_ends_empty_not_in_a_timeout(
    counter: MatchService, redis_client: redis.Redis
) -> None:
    """Issue 11 item 1: XREAD BLOCK is cut to half the client's socket timeout, so a long
    wait on an idle match returns [] (the caller asks again) instead of TimeoutError."""
    match_id = _new(counter)
    port = redis_client.connection_pool.connection_kwargs["port"]
    short = redis.Redis(port=port, socket_timeout=0.4)
    store = MatchService(short, pepper=b"test-pepper").store
    assert store.max_block_ms() == 200
    assert store.wait(match_id, after=1, block_ms=2000, variant="counter") == []
    short.close()


def test_unknown_match_raises_unknown_match(counter: MatchService) -> None:
    from store.errors import UnknownMatch

    with pytest.raises(UnknownMatch):
        counter.load("m_nope")
    with pytest.raises(UnknownMatch):
        counter.events("m_nope")
