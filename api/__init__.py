"""The Deadwood HTTP API (api.md): a Flask app factory with one blueprint per resource.

    create_app(test_config=None) -> Flask

Configuration (each key may come from `test_config`; the environment gives the defaults):
    REDIS_URL / QUEUE_URL     event store and job queue (store.connection); REDIS_CLUSTER
                              (or DEADWOOD_REDIS_CLUSTER=1): the store is a Redis Cluster
    SERVICE                   a ready MatchService (tests); otherwise one is built
    MAX_BODY_BYTES            65536 (api.md: 413 over 64 KiB)
    MAX_REPLAY_BYTES          8 MiB for POST /v1/replays
    SSE_HEARTBEAT_SECONDS     10 (api.md promises a heartbeat at least every 15 s: 5 s to spare)
    SSE_MAX_SECONDS           3600: a stream ends after that many seconds (clients resume
                              with Last-Event-ID); 0: it stays open while the client holds it
    SSE_MAX_STREAMS           200 live streams per process, SSE_MAX_STREAMS_PER_ADDRESS 16
                              per client network, SSE_MAX_STREAMS_PER_TOKEN 4 (api/streams.py)
    REDIS_MAX_CONNECTIONS     100: the pool of ordinary requests (streams have their own)
    BODY_TIMEOUT_SECONDS      60: a request body must have arrived by then, else 408
                              request_timeout (api/deadline.py)
    HINT_CONCURRENCY          1 hint worked out at once per process; HINT_WAIT_SECONDS 2.0
                              for a turn, else 503 hints_busy (api/bots.py)
    REPLAY_CPU_SECONDS        1.0 and REPLAY_CPU_SECONDS_PER_EVENT 0.002: the CPU time a
                              replay check may use (422 replay_too_costly beyond it)
    RATELIMIT_CREATE / RATELIMIT_MOVES / RATELIMIT_HINTS   e.g. "30 per minute"; unset: no
                              limit (api/ratelimit.py); RATELIMIT_KEY per account key
                              (api/keyauth.py)
    CORS_ORIGINS              origins allowed from a browser; unset: none (api/cors.py)
    TRUSTED_PROXIES           0; N > 0: trust N proxy hops of X-Forwarded-For (api/observe.py)
    METRICS / METRICS_TOKEN   metrics on (DEADWOOD_METRICS=0: off) / a bearer token for
                              GET /metrics (api/observe.py)
    ACCESS_LOG                1: an access line per request (0: none)
    TESTING                   allows the development token pepper (store.connection)

The modules (a blueprint per resource first; then the request's path; then the document):
    matches.py          matches: create one, see it (now or `?at=`), its legal moves
    moves.py            one move as the caller's seat, with If-Match and Idempotency-Key
    lobby.py            the lobby (issue 30): list, join (a token minted), leave, cancel, rematch
    clock.py            abort, resign and claim (issue 31): what a seat can do about a stall
    events.py           the log as the caller may see it: paged, live (SSE), NDJSON at the end
    replays.py          check an uploaded log against the rules (POST /v1/replays)
    replay_read.py      an uploaded log read and checked line by line as it arrives
    analysis.py         a finished match's move-by-move analysis, once its job has stored it
    bots.py             the built-in bots, a hint for the caller's seat, `/v1/health`
    health.py           liveness and readiness (`/v1/health/live`, `/v1/health/ready`)
    pages.py            the browser pages: /docs, /watch/<id>, /replay, /ladder/<variant>
    common.py           what every blueprint needs: the service, the seat, views, ETags
    body.py             request bodies: size, media type, encoding, nesting, checked first
    deadline.py         a deadline on reading a request body (408 request_timeout)
    errors.py           RFC 9457 problem details: every refusal, built in one place
    ratelimit.py        rate limits per seat token and per client address
    keyauth.py          account keys (`Deadwood-Key`) on every request: checked, scoped, limited
    accounts.py         accounts and their keys: make, see (with ratings), list, add, revoke
    ladder.py           the rated ladder of a variant, best first, a page at a time
    seeks.py            seeks (issue 32): ask to be paired, see, cancel; the open ones listed
    schemas_seeks.py    marshmallow schemas of seeks
    examples_seeks.py   the examples of the seek operations and a keyed join
    schemas_accounts.py marshmallow schemas of accounts, keys and the ladder
    examples_accounts.py the examples of the accounts, keys and ladder operations
    addresses.py        the client address that limits count (a network prefix)
    streams.py          what live streams may hold, so idle streams never starve requests
    cors.py             CORS for third-party web clients, off unless origins are set
    observe.py          each request's id, access line and metrics, and the real client
    serving.py          gunicorn's gevent worker, with problem+json for its own refusals
    spec.py             the OpenAPI document: generated, made precise, DESCRIPTION
    contract.py         the precise schemas flask-smorest cannot derive, operation ids, links
    contract_moves.py   the OpenAPI schemas of moves, one per move `type`, and their unions
    contract_views.py   the OpenAPI schemas of each game: create body, created match, views
    contract_clock.py   the OpenAPI schemas of clocks: the create's clock, a view's clock
    schemas.py          marshmallow schemas of request bodies, queries and simple responses
    docs.py             pieces of the document the blueprints share: headers, problems
    examples.py         a request and a response for every operation, from a real session
    examples_analysis.py the example of a finished match's analysis
    examples_replay.py  the replay examples: the first events of a real log, replayed
    examples_lobby.py   the lobby's examples (a match with an open seat, a join, a page)
    examples_clock.py   the examples of abort, resign and claim and their refusals

The app refuses to start (InsecurePepper) without DEADWOOD_TOKEN_PEPPER, or with the public
development pepper, unless DEADWOOD_DEV=1 or TESTING.

`deadwood api` serves it under gunicorn (cli/serve.py), whose logger class (api/serving.py)
configures the logs of the process (store/logs.py).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from inspect import iscoroutinefunction
from typing import Any

from flask import Flask, g
from flask_smorest import Api

from api import cors, errors, keyauth, observe, pages, ratelimit
from api.body import check_media, read_body
from api.common import current_request
from api.deadline import BodyDeadline
from api.spec import SPEC_KWARGS, finish_spec

log = logging.getLogger("deadwood.api")

BODYLESS_ENDPOINTS = frozenset({"lobby.Leave", "lobby.Cancel", "lobby.Rematch"})
"""POSTs that take no body (api/lobby.py): an empty one is not refused."""

DEFAULTS: dict[str, Any] = {
    "API_TITLE": "Deadwood",
    "API_VERSION": "1.0.0",
    "OPENAPI_VERSION": "3.1.0",
    "OPENAPI_URL_PREFIX": "/v1",
    "OPENAPI_JSON_PATH": "openapi.json",
    "MAX_BODY_BYTES": 64 * 1024,
    "MAX_REPLAY_BYTES": 8 * 1024 * 1024,
    "SSE_HEARTBEAT_SECONDS": 10.0,
    "SSE_MAX_SECONDS": 3600.0,
    "SSE_MAX_STREAMS": 200,
    "SSE_MAX_STREAMS_PER_ADDRESS": 16,
    "SSE_MAX_STREAMS_PER_TOKEN": 4,
    "REDIS_MAX_CONNECTIONS": 100,
    "BODY_TIMEOUT_SECONDS": 60.0,
    "HINT_CONCURRENCY": 1,
    "HINT_WAIT_SECONDS": 2.0,
    "REPLAY_CPU_SECONDS": 1.0,
    "REPLAY_CPU_SECONDS_PER_EVENT": 0.002,
    "JSON_SORT_KEYS": False,
}

NDJSON_ENDPOINTS = {"replays.Replays"}


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """The app, wired to the event store named by the config or the environment."""
    app = _App(__name__)
    app.config.update(DEFAULTS)
    app.config.from_prefixed_env("DEADWOOD")
    if test_config:
        app.config.update(test_config)
    app.config["MAX_CONTENT_LENGTH"] = app.config["MAX_REPLAY_BYTES"]
    app.url_map.strict_slashes = True
    app.url_map.merge_slashes = False  # a redirect would be built from the Host header
    deadline = float(app.config["BODY_TIMEOUT_SECONDS"])
    app.wsgi_app = BodyDeadline(app.wsgi_app, deadline)  # type: ignore[method-assign]

    api = _Api(app, spec_kwargs=SPEC_KWARGS)
    _register_blueprints(api)
    app.register_blueprint(pages.blp)
    finish_spec(api)
    errors.register(app)
    observe.init_app(app)
    app.before_request(_bound_request)
    app.extensions["deadwood"] = {
        "api": api,
        "service": app.config.get("SERVICE") or _service(app),
    }
    ratelimit.init_app(app, app.extensions["deadwood"]["service"])
    keyauth.init_app(app, app.extensions["deadwood"]["service"])
    cors.init_app(app)
    app.after_request(pages.secure_headers)
    return app


class _App(Flask):
    """Flask whose `ensure_sync` (called for each hook and view of every request) remembers
    which functions are plain `def`s, by function: Flask asks `inspect.iscoroutinefunction`
    every time, which unwraps the function again. Flask documents overriding this method."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._plain: dict[Any, bool] = {}

    def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        key = getattr(func, "__func__", func)  # a bound method: its function
        plain = self._plain.get(key)
        if plain is None:
            if len(self._plain) >= 4096:  # a function made per request must not pile up
                self._plain.clear()
            plain = self._plain[key] = not iscoroutinefunction(func)
        return func if plain else super().ensure_sync(func)


class _Api(Api):  # type: ignore[misc]
    """flask-smorest with our problem responses instead of its default error schema."""

    DEFAULT_ERROR_RESPONSE_NAME = None


def _service(app: Flask) -> Any:
    """The service of the environment (store/config.py), with the app's own settings of
    REDIS_URL, QUEUE_URL and REDIS_CLUSTER over it and a bounded pool."""
    from store.config import ServiceConfig, build_service

    cluster = app.config.get("REDIS_CLUSTER")
    config = ServiceConfig.from_env(
        allow_dev=bool(app.config.get("TESTING")),
        redis_url=app.config.get("REDIS_URL") or None,
        queue_url=app.config.get("QUEUE_URL") or None,
        cluster=None if cluster is None else bool(cluster),
        max_connections=int(app.config["REDIS_MAX_CONNECTIONS"]),
    )
    return build_service(config)


def _register_blueprints(api: Api) -> None:
    from api import (
        accounts,
        analysis,
        bots,
        clock,
        events,
        health,
        ladder,
        lobby,
        matches,
        moves,
        replays,
        seeks,
    )

    modules = (matches, moves, clock, events, lobby, replays, bots, health, analysis)
    for module in (*modules, accounts, ladder, seeks):
        api.register_blueprint(module.blp)


def _bound_request() -> None:
    """Size (413), media type (415), encoding, JSON and depth (400) of every POST body; a
    replay's log is only announced here (size, media type) and read by its view."""
    req = current_request()
    if req.method not in ("POST", "PUT", "PATCH"):
        return
    ndjson = req.endpoint in NDJSON_ENDPOINTS
    limit = current_limit(ndjson)
    req.max_content_length = limit
    length = req.content_length
    if length is not None and length > limit:
        from werkzeug.exceptions import RequestEntityTooLarge

        raise RequestEntityTooLarge()
    if req.endpoint is None or req.url_rule is None:
        return  # 404/405 come next, from routing
    if ndjson:
        check_media(req, ndjson=True)  # the view reads the log as it comes
        return
    if (
        req.endpoint in BODYLESS_ENDPOINTS
        and not length
        and "chunked" not in str(req.headers.get("Transfer-Encoding", ""))
    ):
        g.json_body = {}  # leave, cancel, rematch: no body to read (api/lobby.py)
        return
    g.json_body = read_body(req, ndjson=False)


def current_limit(ndjson: bool) -> int:
    from flask import current_app

    key = "MAX_REPLAY_BYTES" if ndjson else "MAX_BODY_BYTES"
    return int(current_app.config[key])
