"""Seat tokens: 256-bit random, shown once, stored only as a keyed hash, bound to match and seat.

A token reads `<seat>.<43 url-safe characters>` (`secrets.token_urlsafe(32)`, 256 bits). The
seat prefix only says which stored hash to compare with; it is not trusted on its own, because
the hash covers the match id, the seat and the whole token:
`HMAC-SHA256(pepper, "<match_id>\\0<seat>\\0<token>")`. So a token works for exactly one seat
of one match, a changed prefix fails, and a dump of Redis reveals no usable token. Comparison
uses `hmac.compare_digest`.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Mapping

from store.errors import Unauthorized

MAX_TOKEN_LENGTH = 64
MAX_SEATS = 16


def new_token(seat: int) -> str:
    """A fresh token for `seat`."""
    return f"{seat}.{secrets.token_urlsafe(32)}"


def token_hash(pepper: bytes, match_id: str, seat: int, token: str) -> str:
    """The stored form of a token (hex)."""
    message = f"{match_id}\0{seat}\0{token}".encode()
    return hmac.digest(pepper, message, "sha256").hex()  # the one-shot C path of hmac.new


def claimed_seat(token: object) -> int:
    """The seat a token's prefix names; Unauthorized when the token is malformed."""
    if not isinstance(token, str) or not 0 < len(token) <= MAX_TOKEN_LENGTH:
        raise Unauthorized("the seat token is missing or malformed")
    prefix, dot, rest = token.partition(".")
    if not dot or not rest or not prefix.isdigit() or len(prefix) > 2 or int(prefix) >= MAX_SEATS:
        raise Unauthorized("the seat token is malformed: expected '<seat>.<secret>'")
    return int(prefix)


def verify(pepper: bytes, match_id: str, token: object, hashes: Mapping[int, str]) -> int:
    """The seat `token` belongs to in this match; Unauthorized otherwise."""
    seat = claimed_seat(token)
    assert isinstance(token, str)
    expected = hashes.get(seat)
    actual = token_hash(pepper, match_id, seat, token)
    if expected is None or not hmac.compare_digest(expected.encode(), actual.encode()):
        raise Unauthorized("the seat token is not valid for this match")
    return seat
