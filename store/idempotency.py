"""Idempotency records: a repeated POST returns the first response and appends nothing.

A record lives under `match:{<id>}:idem:<sha256(key)>` (the match's hash tag, so it is written
in the same transaction as the events) for 24 hours, and holds the request's fingerprint, the
seat that sent it, the response body, and the range of events the request appended. The key
itself is stored only as its SHA-256.

The same key with another fingerprint, or from another seat, is refused
(IdempotencyKeyReused): a key sent by one seat never returns another seat's view.

Creating a match has no match id yet, so the id of a match created with an idempotency key is
derived from the key (`HMAC(pepper, key)`), which puts its record under that match's tag too.
The seat tokens of a create must come back on a retry but are stored only as hashes, so the
create record keeps them sealed: XOR with `HMAC-SHA512(pepper, match id, seat, key)`. Only a
caller who presents the key again can open them.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from dataclasses import dataclass, field
from typing import Any

from store.errors import IdempotencyKeyReused

TTL_SECONDS = 24 * 3600


def record_key(match_id: str, key: str) -> str:
    digest = hashlib.sha256(key.encode()).hexdigest()
    return f"match:{{{match_id}}}:idem:{digest}"


def match_id_for_key(pepper: bytes, key: str) -> str:
    """The id of the match that a create with idempotency key `key` makes."""
    digest = hmac.new(pepper, b"create\0" + key.encode(), hashlib.sha256).digest()
    return "m_" + base64.urlsafe_b64encode(digest).decode()[:22]


@dataclass(frozen=True)
class Record:
    """What a request with an idempotency key left behind."""

    fingerprint: str
    seat: int | None
    version: int
    first: int
    body: Any = None
    sealed_tokens: list[str | None] = field(default_factory=list)

    def dumps(self) -> str:
        return json.dumps(
            {
                "fingerprint": self.fingerprint,
                "seat": self.seat,
                "version": self.version,
                "first": self.first,
                "body": self.body,
                "sealed_tokens": self.sealed_tokens,
            },
            separators=(",", ":"),
        )

    @classmethod
    def loads(cls, raw: bytes | str) -> Record:
        obj = json.loads(raw)
        return cls(
            fingerprint=str(obj["fingerprint"]),
            seat=obj.get("seat"),
            version=int(obj["version"]),
            first=int(obj["first"]),
            body=obj.get("body"),
            sealed_tokens=list(obj.get("sealed_tokens") or []),
        )

    def check(self, fingerprint: str, seat: int | None) -> None:
        """Refuse a repeat that is not the same request from the same seat (the seat first:
        a fingerprint names its seat, so another seat's request always differs)."""
        if self.seat != seat:
            raise IdempotencyKeyReused(
                "this Idempotency-Key was already used by another seat of this match: a key "
                "belongs to the seat that sent it first, so send a key of your own"
            )
        if not hmac.compare_digest(self.fingerprint.encode(), fingerprint.encode()):
            raise IdempotencyKeyReused(
                "this Idempotency-Key was already used with another request body"
            )


def _pad(pepper: bytes, match_id: str, seat: int, key: str) -> bytes:
    message = f"seal\0{match_id}\0{seat}\0{key}".encode()
    return hmac.new(pepper, message, hashlib.sha512).digest()


def seal(pepper: bytes, match_id: str, key: str, tokens: list[str | None]) -> list[str | None]:
    """Tokens encrypted under the idempotency key (each token is at most 64 bytes)."""
    sealed: list[str | None] = []
    for seat, token in enumerate(tokens):
        if token is None:
            sealed.append(None)
            continue
        raw = token.encode()
        pad = _pad(pepper, match_id, seat, key)
        sealed.append(bytes(a ^ b for a, b in zip(raw, pad, strict=False)).hex())
    return sealed


def unseal(pepper: bytes, match_id: str, key: str, sealed: list[str | None]) -> list[str | None]:
    tokens: list[str | None] = []
    for seat, item in enumerate(sealed):
        if item is None:
            tokens.append(None)
            continue
        pad = _pad(pepper, match_id, seat, key)
        raw = bytes(a ^ b for a, b in zip(bytes.fromhex(item), pad, strict=False))
        tokens.append(raw.decode())
    return tokens
