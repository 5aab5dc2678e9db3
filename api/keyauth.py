"""Account keys on every request (issue 32): the `Deadwood-Key` header, its scopes, its limits.

Seat tokens travel in `Authorization: Bearer <token>` and mean "this seat of this match": every
match route reads that header as a seat token, refuses any other token with 401, and counts
its rate limits by it. An account key is another credential with another meaning (who is
calling, on every route, and with which scopes), so it has its own header, `Deadwood-Key:
dwk.<handle>.<id>.<secret>`. A request may carry both: a bot playing a seat of a rated match
sends its seat token to act as the seat and its key to be the account (the lobby's join will
need both), and neither can be mistaken for the other.

Any /v1 request with the header is checked before its route runs, so a revoked, unknown or
malformed key is refused everywhere, at once, with 401 `invalid_key` (a key is never cached).
A valid key is counted against RATELIMIT_KEY ("20 per second; 600 per minute" under
`deadwood up`, unset: no limit), per key, beside the per-token and per-address limits of
api/ratelimit.py; past it the answer is 429 `rate_limited` with `Retry-After` and, for
programs, `limit`, `retry_after` (seconds) and `scope: "key"` in the body. The key itself
never reaches a log line, a metric label or a response: the limit counts its id.
"""

from __future__ import annotations

import math
import time
from typing import Any

from flask import Flask, current_app, g, request

from api.errors import ApiError
from store.accounts import Accounts, KeyInfo, MissingScope

KEY_HEADER = "Deadwood-Key"


def accounts() -> Accounts:
    """The accounts on the service's event store (made once per store client)."""
    extensions = current_app.extensions["deadwood"]
    service = extensions["service"]
    redis = service.redis
    made: Accounts | None = extensions.get("accounts")
    if made is None or made.redis is not redis:
        made = extensions["accounts"] = Accounts(redis, service.pepper)
    return made


def init_app(app: Flask, service: Any) -> None:
    """Check the key of every /v1 request; count RATELIMIT_KEY per key."""
    app.extensions["deadwood"]["key_limits"] = _limiter(app, service)
    app.before_request(_check_key)


def _limiter(app: Flask, service: Any) -> Any:
    setting = app.config.get("RATELIMIT_KEY")
    if setting is None or str(setting).strip().lower() in ("", "off", "none"):
        return None
    from limits import parse_many
    from limits.storage import storage_from_string
    from limits.strategies import FixedWindowRateLimiter

    pool = service.queues.connection.connection_pool
    storage = storage_from_string("redis://", connection_pool=pool)
    return FixedWindowRateLimiter(storage), parse_many(str(setting))


def _check_key() -> None:
    g.account_key = None
    raw = request.headers.get(KEY_HEADER)
    if raw is None or not request.path.startswith("/v1/"):
        return
    info = accounts().authenticate(raw.strip())
    _count(info)
    g.account_key = info


def _count(info: KeyInfo) -> None:
    limiter = current_app.extensions["deadwood"].get("key_limits")
    if limiter is None:
        return
    strategy, items = limiter
    for item in items:
        if not strategy.hit(item, "key", info.handle, info.key_id):
            reset = strategy.get_window_stats(item, "key", info.handle, info.key_id).reset_time
            wait = max(1, math.ceil(reset - time.time()))
            raise ApiError(
                "rate_limited",
                f"too many requests with this key: the limit is {item}; try again in {wait} s",
                429,
                limit=str(item),
                retry_after=wait,
                scope="key",
            )


def caller_key() -> KeyInfo | None:
    """The request's valid account key (None without the header)."""
    found: KeyInfo | None = g.get("account_key")
    return found


def key_required(scope: str | None = None) -> KeyInfo:
    """The caller's key, with `scope` when given: 401 key_required, 403 missing_scope."""
    info = caller_key()
    if info is None:
        raise ApiError(
            "key_required", f"send an account key in the {KEY_HEADER} header to do this", 401
        )
    if scope is not None:
        require(info, scope)
    return info


def require(info: KeyInfo, scope: str) -> None:
    try:
        info.require(scope)
    except MissingScope as missing:
        raise ApiError("missing_scope", str(missing), 403, scope=missing.scope) from None


def own_account(handle: str) -> KeyInfo:
    """The caller's key, which must be one of `handle`'s (403 forbidden otherwise)."""
    info = key_required()
    if info.handle != handle:
        raise ApiError("forbidden", "this key belongs to another account", 403)
    return info
