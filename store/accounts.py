"""Accounts and their API keys (issue 32), in keys of their own beside the match logs.

An account `h` lives in one hash slot (`{account:h}`), so every write of it is one script:

    account:{h}        hash: handle, kind (`human` | `bot`, never changed), created_at
    account:{h}:keys   hash: key id -> JSON {hash, scopes, created_at, label}
    account:{h}:used   hash: key id -> when the key was last used (RFC 3339)

A key reads `dwk.<handle>.<key id>.<secret>` (the secret: 256 random bits, url-safe). It is
returned once, by the call that makes it, and stored only as
`HMAC-SHA256(pepper, "account-key\\0<handle>\\0<key id>\\0<key>")`, like a seat token
(store/tokens.py): a dump of Redis holds no usable key, and a changed prefix fails. The
handle in the key says which account to read; it is not trusted on its own. A revoked key's
record is deleted, so the next request with it is refused (nothing caches a key).

The built-in bots have accounts of kind `bot` and no keys (`ensure_builtin_bots`, idempotent:
a create that finds the account leaves it as it is).

LOBBY HOOK (issue 30): a join with a key calls `authenticate(key)`, needs the `join_seats`
scope (`KeyInfo.require`), and records `KeyInfo.handle` as the seat's account (the join's
event carries it, which domain/rated.py reads as the seat's account).
"""

from __future__ import annotations

import hmac
import json
import secrets
from dataclasses import dataclass
from typing import Any

from domain import bots
from domain.accounts import (
    BOT,
    KINDS,
    SCOPES,
    bot_account,
    check_handle,
    check_new_handle,
    is_builtin,
)
from domain.errors import InvalidOptions
from store import codec
from store.errors import StoreError

KEY_PREFIX = "dwk"
MAX_KEY_LENGTH = 120
MAX_KEYS = 20
"""The most keys an account holds at once (revoke one to make room)."""

_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'handle', ARGV[1], 'kind', ARGV[2], 'created_at', ARGV[3])
if ARGV[4] ~= '' then redis.call('HSET', KEYS[2], ARGV[4], ARGV[5]) end
return 1
"""
_ADD_KEY = """
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('HLEN', KEYS[2]) >= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return 1
"""


class InvalidKey(StoreError):
    """An account key that is malformed, unknown or revoked (401)."""

    code = "invalid_key"


class MissingScope(StoreError):
    """A valid key without the scope this request needs (403)."""

    code = "missing_scope"

    def __init__(self, message: str, scope: str) -> None:
        super().__init__(message)
        self.scope = scope


class UnknownAccount(StoreError):
    """No account has this handle (404)."""

    code = "unknown_account"


class HandleTaken(StoreError):
    """Another account has this handle (409)."""

    code = "handle_taken"


class TooManyKeys(StoreError):
    """The account holds MAX_KEYS keys already (409)."""

    code = "too_many_keys"


@dataclass(frozen=True)
class Account:
    handle: str
    kind: str
    created_at: str

    @property
    def bot(self) -> bool:
        return self.kind == BOT

    def as_json(self) -> dict[str, Any]:
        return {
            "handle": self.handle,
            "kind": self.kind,
            "bot": self.bot,
            "builtin": self.handle.startswith("deadwood-"),
            "created_at": self.created_at,
        }


@dataclass(frozen=True)
class KeyInfo:
    """A key as the store knows it (never the key itself)."""

    handle: str
    key_id: str
    scopes: tuple[str, ...]
    created_at: str
    label: str
    last_used: str | None = None

    def require(self, scope: str) -> None:
        """MissingScope unless the key has `scope`."""
        if scope not in self.scopes:
            raise MissingScope(f"this key has no {scope!r} scope", scope)

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.key_id,
            "scopes": list(self.scopes),
            "label": self.label,
            "created_at": self.created_at,
            "last_used": self.last_used,
        }


def account_key(handle: str) -> str:
    return f"account:{{{handle}}}"


def keys_key(handle: str) -> str:
    return f"account:{{{handle}}}:keys"


def used_key(handle: str) -> str:
    return f"account:{{{handle}}}:used"


def key_hash(pepper: bytes, handle: str, key_id: str, key: str) -> str:
    message = f"account-key\0{handle}\0{key_id}\0{key}".encode()
    return hmac.digest(pepper, message, "sha256").hex()


def parse_key(key: object) -> tuple[str, str]:
    """(handle, key id) of a well-formed key; InvalidKey otherwise."""
    if not isinstance(key, str) or not 0 < len(key) <= MAX_KEY_LENGTH:
        raise InvalidKey("the account key is missing or malformed")
    parts = key.split(".")
    if len(parts) != 4 or parts[0] != KEY_PREFIX or not parts[2] or not parts[3]:
        raise InvalidKey("the account key is malformed: expected 'dwk.<handle>.<id>.<secret>'")
    try:
        check_handle(parts[1])
    except InvalidOptions:
        raise InvalidKey("the account key is malformed: its handle is not one") from None
    return parts[1], parts[2]


class Accounts:
    """Accounts and keys on one Redis (or cluster) client."""

    def __init__(self, redis: Any, pepper: bytes) -> None:
        self.redis = redis
        self.pepper = pepper
        self._create = redis.register_script(_CREATE)
        self._add_key = redis.register_script(_ADD_KEY)

    def create(self, handle: str, kind: str) -> tuple[Account, str, KeyInfo]:
        """A new account and its first key (every scope): (account, key, key info)."""
        handle = check_new_handle(handle)
        if kind not in KINDS:
            raise InvalidOptions(f"kind must be one of {', '.join(KINDS)}, not {kind!r:.40}")
        now = codec.now()
        key, info, record = self._new_key(handle, SCOPES, "first key", now)
        args = [handle, kind, now, info.key_id, record]
        if not self._create(keys=[account_key(handle), keys_key(handle)], args=args):
            raise HandleTaken(f"the handle {handle!r} is taken")
        return Account(handle, kind, now), key, info

    def ensure_builtin_bots(self) -> list[str]:
        """Every built-in bot's account (kind bot, no keys), made when missing."""
        handles = sorted({bot_account(name) for table in bots.BOTS.values() for name in table})
        now = codec.now()
        for handle in handles:
            keys = [account_key(handle), keys_key(handle)]
            self._create(keys=keys, args=[handle, BOT, now, "", ""])
        return handles

    def get(self, handle: str) -> Account:
        fields = {
            codec.text(k): codec.text(v) for k, v in self.redis.hgetall(account_key(handle)).items()
        }
        if "kind" not in fields:
            raise UnknownAccount(f"no account has the handle {handle!r}")
        return Account(fields["handle"], fields["kind"], fields.get("created_at", ""))

    def is_bot(self, handle: str) -> bool:
        """True for a built-in bot and an account of kind bot."""
        if is_builtin(handle):
            return True
        return codec.text(self.redis.hget(account_key(handle), "kind") or b"") == BOT

    def add_key(self, handle: str, scopes: tuple[str, ...], label: str) -> tuple[str, KeyInfo]:
        """A new key of the account with these scopes: (key, its info)."""
        key, info, record = self._new_key(handle, scopes, label, codec.now())
        done = self._add_key(
            keys=[account_key(handle), keys_key(handle)], args=[info.key_id, record, MAX_KEYS]
        )
        if done == -1:
            raise UnknownAccount(f"no account has the handle {handle!r}")
        if done == 0:
            raise TooManyKeys(f"the account holds {MAX_KEYS} keys: revoke one first")
        return key, info

    def _new_key(
        self, handle: str, scopes: tuple[str, ...], label: str, now: str
    ) -> tuple[str, KeyInfo, str]:
        key_id = secrets.token_hex(6)
        key = f"{KEY_PREFIX}.{handle}.{key_id}.{secrets.token_urlsafe(32)}"
        info = KeyInfo(handle, key_id, scopes, now, label)
        record = {
            "hash": key_hash(self.pepper, handle, key_id, key),
            "scopes": list(scopes),
            "created_at": now,
            "label": label,
        }
        return key, info, json.dumps(record, separators=(",", ":"))

    def authenticate(self, key: object, touch: bool = True) -> KeyInfo:
        """The key's info (its last use noted); InvalidKey when malformed, unknown or revoked."""
        handle, key_id = parse_key(key)
        assert isinstance(key, str)
        raw = self.redis.hget(keys_key(handle), key_id)
        if raw is None:
            raise InvalidKey("the account key is not valid (unknown or revoked)")
        record = json.loads(raw)
        actual = key_hash(self.pepper, handle, key_id, key)
        if not hmac.compare_digest(str(record.get("hash", "")).encode(), actual.encode()):
            raise InvalidKey("the account key is not valid (unknown or revoked)")
        if touch:
            self.redis.hset(used_key(handle), key_id, codec.now())
        return _info(handle, key_id, record, None)

    def keys(self, handle: str) -> list[KeyInfo]:
        """The account's keys (never the keys themselves), oldest first."""
        records = self.redis.hgetall(keys_key(handle))
        used = {
            codec.text(k): codec.text(v) for k, v in self.redis.hgetall(used_key(handle)).items()
        }
        found = [
            _info(handle, codec.text(k), json.loads(v), used.get(codec.text(k)))
            for k, v in records.items()
        ]
        return sorted(found, key=lambda info: (info.created_at, info.key_id))

    def revoke(self, handle: str, key_id: str) -> bool:
        """Delete the key (refused from the next request on); False when there was none."""
        removed = int(self.redis.hdel(keys_key(handle), key_id))
        self.redis.hdel(used_key(handle), key_id)
        return removed > 0


def _info(handle: str, key_id: str, record: dict[str, Any], used: str | None) -> KeyInfo:
    scopes = tuple(s for s in SCOPES if s in record.get("scopes", ()))
    return KeyInfo(
        handle,
        key_id,
        scopes,
        str(record.get("created_at", "")),
        str(record.get("label", "")),
        used,
    )
