"""Idempotency (api.md "Idempotency", issue 4): a retry returns the first response and appends
nothing; the same key with another body (or from another seat) is refused."""

from __future__ import annotations

from typing import Any

import pytest
import redis

from store import idempotency
from store.errors import IdempotencyKeyReused
from store.event_store import events_key
from store.service import Appended, MatchService

ADD = {"type": "add", "n": 2}


def _render(appended: Appended) -> dict[str, Any]:
    """What a response is rendered from: the events and the state after them (a replay
    carries the same ones, read back from the record's range)."""
    state, events = appended.state, appended.events
    return {"version": state.version, "total": state.total, "events": [e.seq for e in events]}


def _new(counter: MatchService) -> str:
    players = [{"name": "a"}, {"name": "b"}]
    return counter.create_match("counter", players, {"target": 100}, 1).match_id


def _submit(counter: MatchService, match_id: str, **kw: Any) -> Any:
    args: dict[str, Any] = {
        "seat": 0,
        "move": ADD,
        "expected_version": None,
        "idempotency_key": "key-1",
        "fingerprint": "body-1",
    }
    args.update(kw)
    return counter.submit(match_id, **args)


def test_a_repeat_returns_the_first_response_and_appends_nothing(
    counter: MatchService, redis_client: redis.Redis
) -> None:
    match_id = _new(counter)
    first = _submit(counter, match_id)
    again = _submit(counter, match_id)
    assert not first.replayed and again.replayed
    assert _render(again) == {"version": 2, "total": 2, "events": [2]}
    assert (again.version, [e.seq for e in again.events]) == (2, [2])
    assert again.state == first.state
    assert redis_client.xlen(events_key(match_id)) == 2


def test_a_repeat_after_the_match_moved_on_is_still_a_replay(counter: MatchService) -> None:
    """The record wins over If-Match: the retry of a write that succeeded is not a 412."""
    match_id = _new(counter)
    _submit(counter, match_id, expected_version=1)
    _submit(counter, match_id, idempotency_key="key-2", fingerprint="other")
    again = _submit(counter, match_id, expected_version=1)
    assert again.replayed and _render(again) == {"version": 2, "total": 2, "events": [2]}


def test_the_same_key_with_another_body_is_refused(counter: MatchService) -> None:
    match_id = _new(counter)
    _submit(counter, match_id)
    with pytest.raises(IdempotencyKeyReused):
        _submit(counter, match_id, move={"type": "add", "n": 1}, fingerprint="body-2")


def test_the_same_key_from_another_seat_is_refused(counter: MatchService) -> None:
    """A key never returns another seat's response (that body holds the other seat's view)."""
    match_id = _new(counter)
    _submit(counter, match_id, seat=0)
    with pytest.raises(IdempotencyKeyReused):
        _submit(counter, match_id, seat=1)


def test_the_record_expires_after_24_hours(
    counter: MatchService, redis_client: redis.Redis
) -> None:
    match_id = _new(counter)
    _submit(counter, match_id)
    key = idempotency.record_key(match_id, "key-1")
    assert 24 * 3600 - 60 < redis_client.ttl(key) <= 24 * 3600


def test_a_repeated_create_returns_the_same_match_and_working_tokens(
    service: MatchService, redis_client: redis.Redis
) -> None:
    """Create with an Idempotency-Key: the retry gets the same match id and the same tokens
    (kept sealed under the key, never in the clear), and no second match exists."""
    players = [{"name": "a"}, {"name": "b"}, {"name": "c", "bot": "random"}]
    first = service.create_match("three-hand-gin", players, {}, 9, "create-1", "fp")
    again = service.create_match("three-hand-gin", players, {}, 9, "create-1", "fp")
    assert again.replayed and not first.replayed
    assert (again.match_id, again.version, again.tokens) == (
        first.match_id,
        first.version,
        first.tokens,
    )
    assert service.authenticate(again.match_id, again.tokens[1] or "") == 1
    assert len(list(redis_client.scan_iter(match="match:*:events"))) == 1
    raw = redis_client.get(idempotency.record_key(first.match_id, "create-1")) or b""
    assert (first.tokens[0] or "").encode() not in raw
    with pytest.raises(IdempotencyKeyReused):
        service.create_match("three-hand-gin", players, {"target_score": 50}, 9, "create-1", "fp2")


def test_a_twin_that_committed_after_the_key_check_is_replayed_not_doubled(
    counter: MatchService, redis_client: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The append script itself checks the key (there is no lookup before it): the second
    request, whose move the cached state accepts again, replays the first."""
    match_id = _new(counter)
    first = _submit(counter, match_id)
    again = _submit(counter, match_id)
    assert again.replayed and _render(again) == first_response(first)
    assert redis_client.xlen(events_key(match_id)) == 2


@pytest.mark.parametrize("if_match", [False, True])
def test_a_twin_whose_move_is_now_refused_is_replayed(
    service: MatchService,
    redis_client: redis.Redis,
    monkeypatch: pytest.MonkeyPatch,
    if_match: bool,
) -> None:
    """Gin: after the first request's move the twin's is refused (a rule error such as
    NotYourTurn, G5.1, or with If-Match a version conflict); the record answers instead."""
    created = service.create_match("three-hand-gin", [{"name": "a"}] * 3, {}, 3)
    _loaded = service.load(created.match_id)
    state, version = _loaded.state, _loaded.version
    game = service.variant(state)
    seat = game.to_act(state)
    assert seat is not None
    move = game.legal_moves(state, seat)[0]
    kw: dict[str, Any] = {"idempotency_key": "twin", "fingerprint": "fp"}
    first = service.submit(created.match_id, seat, move, expected_version=None, **kw)
    expected = version if if_match else None
    from domain.errors import RulesError

    with pytest.raises(RulesError):  # what the twin's move alone gets now
        game.decide(service.load(created.match_id).state, seat, move)
    again = service.submit(created.match_id, seat, move, expected_version=expected, **kw)
    assert again.replayed and (again.version, again.events) == (first.version, first.events)
    assert again.before == first.before and again.state == first.state
    assert redis_client.xlen(events_key(created.match_id)) == first.version


def first_response(appended: Any) -> dict[str, Any]:
    return {"version": appended.version, "total": appended.state.total, "events": [2]}
