"""Deterministic, cryptographically strong shuffles, and the fair-deal commitment.

A match's deals are a pure function of its `deal_key` (32 bytes): for a seeded match the key is
derived from the seed, otherwise it comes from the caller's cryptographic source (the store
passes `secrets.token_hex(32)`). The commitment salts come from `salt_key(...)`: the deal key,
except in a seeded match, where a guessable seed must not let anyone check guesses against
the public commitments; there the store's secret keys the salts (recorded in MatchCreated as
`salt_key`, hidden until the match is over), so the deck order still depends only on the seed.
The stream of numbers is HMAC-SHA256 in counter mode with rejection sampling, so it is
unbiased, needs no global random and replays identically anywhere.

Commitment (documented in openapi.yaml): `sha256(f"{salt}:{' '.join(deck)}".encode())` in hex,
where `deck` is the round's full deck order as card codes and `salt` a 32-byte hex string.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, MutableSequence, Sequence
from typing import TypeVar

T = TypeVar("T")


def seed_key(seed: int | str) -> str:
    """The deal key of a seeded match (hex), or of a secret string passed by the store."""
    return hashlib.sha256(f"deadwood-seed:{seed}".encode()).hexdigest()


def salt_key(deal_key: str, secret: str | None) -> str:
    """The key of a match's commitment salts: `secret` when given (a seeded match's), else the
    deal key (an unseeded match, whose deal key is itself secret; or a log recorded before
    seeded matches had a secret salt key)."""
    return secret or deal_key


_SPAN = 1 << 256
_IPAD = bytes(x ^ 0x36 for x in range(256))
_OPAD = bytes(x ^ 0x5C for x in range(256))
_BLOCK_SIZE = 64  # SHA-256's block size, as RFC 2104 pads the HMAC key to
_LIMITS = tuple(_SPAN - _SPAN % n if n else 0 for n in range(64))
"""`randbelow`'s rejection limit for each n below 64 (a deck's shuffle asks for 2..52)."""


class DealRng:
    """An HMAC-SHA256 counter-mode generator keyed by a deal key and a purpose label.

    Block i is `HMAC-SHA256(key, purpose ":" i as 8 big-endian bytes)`. The HMAC is computed
    as RFC 2104 defines it, from the two SHA-256 states of the padded key made once per
    generator and copied per block: the same bytes as `hmac.new` (tests/unit/test_shuffle.py),
    at about half its cost (a deal is 52 blocks). The blocks come from one generator
    (`_blocks`), which keeps the states and the counter in its locals."""

    def __init__(self, key: str, purpose: str) -> None:
        raw = bytes.fromhex(key) if _is_hex(key) else key.encode()
        if len(raw) > _BLOCK_SIZE:
            raw = hashlib.sha256(raw).digest()
        raw = raw.ljust(_BLOCK_SIZE, b"\0")
        inner = hashlib.sha256(raw.translate(_IPAD))
        outer = hashlib.sha256(raw.translate(_OPAD))
        self._next = _blocks(inner, outer, purpose.encode() + b":").__next__

    def _block(self) -> int:
        return self._next()

    def randbelow(self, n: int) -> int:
        """A uniform integer in [0, n), by rejection sampling on 256-bit blocks."""
        if n <= 0:
            raise ValueError("randbelow needs n > 0")
        return _below(self._next, n)

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Fisher-Yates in place."""
        draw = self._next
        for i in range(len(items) - 1, 0, -1):
            j = _below(draw, i + 1)
            items[i], items[j] = items[j], items[i]

    def token(self) -> str:
        """32 bytes of hex, e.g. a round's commitment salt."""
        return f"{self._next():064x}"


def _blocks(inner: hashlib._Hash, outer: hashlib._Hash, prefix: bytes) -> Iterator[int]:
    """Blocks 1, 2, ... as integers: HMAC(prefix + counter) from the padded key's states."""
    counter = 0
    from_bytes = int.from_bytes
    inner_copy, outer_copy = inner.copy, outer.copy
    while True:
        counter += 1
        digest = inner_copy()
        digest.update(prefix + counter.to_bytes(8, "big"))
        mac = outer_copy()
        mac.update(digest.digest())
        yield from_bytes(mac.digest(), "big")


def _below(draw: Callable[[], int], n: int) -> int:
    """A uniform integer in [0, n) from 256-bit blocks, rejecting those at or over the
    largest multiple of n (so every residue is equally likely)."""
    limit = _LIMITS[n] if n < 64 else _SPAN - _SPAN % n
    while True:
        x = draw()
        if x < limit:
            return x % n


def commitment(deck: Sequence[str], salt: str) -> str:
    """SHA-256 (hex) of `salt:` followed by the deck's card codes joined by single spaces."""
    return hashlib.sha256(f"{salt}:{' '.join(deck)}".encode()).hexdigest()


def _is_hex(text: str) -> bool:
    try:
        bytes.fromhex(text)
    except ValueError:
        return False
    return len(text) % 2 == 0 and len(text) > 0
