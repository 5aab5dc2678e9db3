"""Seat tokens (issue 4): 256-bit random, shown once, stored only as a hash, compared in
constant time, bound to one match and one seat."""

from __future__ import annotations

import base64
from typing import Any

import pytest
import redis

from store import tokens
from store.errors import Unauthorized
from store.service import MatchService

GIN_PLAYERS = [{"name": "ana"}, {"name": "ben"}, {"name": "cy", "bot": "random"}]


def _create(service: MatchService) -> tuple[str, list[str | None]]:
    created = service.create_match("three-hand-gin", GIN_PLAYERS, {}, 5)
    return created.match_id, created.tokens


def test_tokens_are_256_bit_random_and_none_for_bot_seats(service: MatchService) -> None:
    _match_id, seat_tokens = _create(service)
    assert seat_tokens[2] is None
    for seat, token in enumerate(seat_tokens[:2]):
        assert token is not None
        prefix, secret = token.split(".", 1)
        assert prefix == str(seat)
        assert len(base64.urlsafe_b64decode(secret + "=")) == 32
    assert seat_tokens[0] != seat_tokens[1]


def test_tokens_are_stored_only_as_keyed_hashes(
    service: MatchService, redis_client: redis.Redis
) -> None:
    """Nothing in Redis holds a token or its secret part; the meta holds HMAC-SHA256 hashes."""
    match_id, seat_tokens = _create(service)
    everything = b""
    reply: Any  # raw replies (bytes)
    for key in redis_client.scan_iter():
        kind = redis_client.type(key)
        if kind == b"hash":
            reply = redis_client.hgetall(key)
            everything += b"".join(k + v for k, v in reply.items())
        elif kind == b"stream":
            reply = redis_client.xrange(key)
            everything += b"".join(b"".join(k + v for k, v in f.items()) for _, f in reply)
        elif kind == b"string":
            reply = redis_client.get(key)
            everything += reply or b""
        elif kind == b"list":
            reply = redis_client.lrange(key, 0, -1)
            everything += b"".join(reply)
    for token in seat_tokens[:2]:
        assert token is not None
        assert token.split(".", 1)[1].encode() not in everything
    meta: Any = redis_client.hgetall(f"match:{{{match_id}}}:meta")  # raw reply (bytes)
    assert meta[b"token:0"].decode() == tokens.token_hash(
        b"test-pepper", match_id, 0, seat_tokens[0] or ""
    )
    assert b"token:2" not in meta


def test_authenticate_names_the_seat_of_a_valid_token(service: MatchService) -> None:
    match_id, seat_tokens = _create(service)
    assert service.authenticate(match_id, seat_tokens[0] or "") == 0
    assert service.authenticate(match_id, seat_tokens[1] or "") == 1


def test_a_token_is_bound_to_its_match(service: MatchService) -> None:
    _match_a, tokens_a = _create(service)
    match_b, _ = _create(service)
    with pytest.raises(Unauthorized):
        service.authenticate(match_b, tokens_a[0] or "")


def test_a_token_is_bound_to_its_seat_the_prefix_is_not_trusted(service: MatchService) -> None:
    """Changing the seat prefix of a valid token gives an invalid token (the hash covers it)."""
    match_id, seat_tokens = _create(service)
    secret = (seat_tokens[0] or "").split(".", 1)[1]
    for forged in (f"1.{secret}", f"2.{secret}"):
        with pytest.raises(Unauthorized):
            service.authenticate(match_id, forged)


@pytest.mark.parametrize(
    "token", ["", "garbage", "0.", ".abc", "99.abc", "x.abc", "0." + "a" * 200, "-1.abc"]
)
def test_malformed_tokens_are_unauthorized(service: MatchService, token: str) -> None:
    match_id, _ = _create(service)
    with pytest.raises(Unauthorized):
        service.authenticate(match_id, token)


def test_token_hashes_keep_their_stored_form() -> None:
    """Hashes stored by earlier code (HMAC-SHA256 of match, seat and token, hex) still
    verify: the one-shot `hmac.digest` gives the same text as `hmac.new(...).hexdigest()`."""
    import hashlib
    import hmac

    pepper, token = b"pepper", tokens.new_token(1)
    old = hmac.new(pepper, f"m_1\x001\x00{token}".encode(), hashlib.sha256).hexdigest()
    assert tokens.token_hash(pepper, "m_1", 1, token) == old
    assert tokens.verify(pepper, "m_1", token, {1: old}) == 1
