"""Rate limits on match creation and moves, per seat token and per client address (issue 6).

flask-limiter counts in the event store's Redis (the same server, so every gunicorn worker
and host shares the counts). Limits are strings of the `limits` package ("30 per minute",
"5/second"), from the app config or the environment (`DEADWOOD_` prefix):

    RATELIMIT_CREATE    POST /v1/matches and POST /v1/accounts, per client address
    RATELIMIT_MOVES     POST /v1/matches/{id}/moves, per seat token (and per client address
                        unless RATELIMIT_MOVES_ADDRESS is set)
    RATELIMIT_MOVES_ADDRESS  POST /v1/matches/{id}/moves, per client address
    RATELIMIT_HINTS     GET /v1/matches/{id}/hint, per seat token
    RATELIMIT_HINTS_ADDRESS  GET /v1/matches/{id}/hint, per client address
    RATELIMIT_STORAGE_URI  where to count (default: the service's own Redis connection)

A limit that is not set (or is `off`) is not enforced, so the app alone limits nothing unless
configured; `deadwood up` configures defaults (cli/limits.py). A request
over a limit gets 429 problem+json `rate_limited` with `Retry-After` (seconds), and the same
for programs in the body: `limit` (the limit broken) and `retry_after` (seconds). Tokens are
counted under their SHA-256, never as themselves. The address is the client's network
(api/addresses.py: an IPv6 /64 by default, each IPv4 address alone; behind a proxy, wrap the
app in werkzeug's ProxyFix to count real clients).
"""

from __future__ import annotations

import hashlib
import math
import time
from typing import Any

from flask import Flask, request

from api.addresses import client_network
from api.errors import problem

CREATE_ENDPOINT = "matches.Matches"
ACCOUNTS_ENDPOINT = "accounts.Accounts"
MOVES_ENDPOINT = "moves.Moves"
HINT_ENDPOINT = "bots.Hint"


def _address() -> str:
    return f"addr:{client_network()}"


def _token() -> str:
    """The bearer token's hash; the address when there is none (a spectator cannot move)."""
    header = request.headers.get("Authorization") or ""
    if not header.lower().startswith("bearer "):
        return _address()
    digest = hashlib.sha256(header[len("bearer ") :].strip().encode()).hexdigest()
    return f"token:{digest}"


def _too_many(limiter: Any) -> Any:
    """The 429 problem for the limit this request broke (flask-limiter's RateLimitExceeded)."""

    def handle(exc: Exception) -> Any:
        current = limiter.current_limit
        wait = max(1, math.ceil(current.reset_at - time.time())) if current else 60
        shown = current.limit if current else getattr(exc, "description", "a rate limit")
        response = problem(
            429,
            "rate_limited",
            f"too many requests: the limit here is {shown}; try again in {wait} s",
            limit=str(shown),
            retry_after=wait,
        )
        response.headers["Retry-After"] = str(wait)
        return response

    return handle


def _setting(app: Flask, key: str) -> str | None:
    value = app.config.get(key)
    if value is None or str(value).strip().lower() in ("", "off", "none"):
        return None
    return str(value)


def init_app(app: Flask, service: Any) -> None:
    """Install the configured limits (none when no limit is set)."""
    create, moves = _setting(app, "RATELIMIT_CREATE"), _setting(app, "RATELIMIT_MOVES")
    by_address = _setting(app, "RATELIMIT_MOVES_ADDRESS")
    hints, hints_address = (
        _setting(app, "RATELIMIT_HINTS"),
        _setting(app, "RATELIMIT_HINTS_ADDRESS"),
    )
    if not any((create, moves, by_address, hints, hints_address)):
        return
    from flask_limiter import Limiter, RateLimitExceeded

    uri = app.config.get("RATELIMIT_STORAGE_URI")
    options: dict[str, Any] = {}
    if not uri:
        uri, options = "redis://", {"connection_pool": service.queues.connection.connection_pool}
    limiter = Limiter(
        key_func=_address,
        app=app,
        storage_uri=uri,
        storage_options=options,
        strategy="fixed-window",
        key_prefix="deadwood:ratelimit",
        headers_enabled=False,
    )
    if create:
        _limit(app, limiter, CREATE_ENDPOINT, create, [_address])
        _limit(app, limiter, ACCOUNTS_ENDPOINT, create, [_address])
    if moves:
        _limit(app, limiter, MOVES_ENDPOINT, moves, [_token] if by_address else [_token, _address])
    if by_address:
        _limit(app, limiter, MOVES_ENDPOINT, by_address, [_address])
    if hints:
        _limit(app, limiter, HINT_ENDPOINT, hints, [_token], method="GET")
    if hints_address:
        _limit(app, limiter, HINT_ENDPOINT, hints_address, [_address], method="GET")
    app.register_error_handler(RateLimitExceeded, _too_many(limiter))
    app.extensions["deadwood"]["limiter"] = limiter


def _limit(
    app: Flask, limiter: Any, endpoint: str, limit: str, keys: list[Any], method: str = "POST"
) -> None:
    view = app.view_functions[endpoint]
    for key in keys:
        scope = f"{endpoint}:{key.__name__}"
        view = limiter.limit(limit, key_func=key, methods=[method], scope=scope)(view)
    app.view_functions[endpoint] = view
