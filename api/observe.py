"""What an operator sees of each request: its id, its access line, its metrics, and the real
client behind a proxy (issue 34).

- **Request id.** An `X-Request-ID` header of 1 to 128 characters of `[A-Za-z0-9._:@/+=-]`
  is taken as the request's id; any other value, or none, gets a new random id. The id is
  echoed in the `X-Request-ID` response header and in every problem body (`request_id`,
  api/errors.py), is on every log line of the request (store/logs.py), and rides into the
  jobs the request enqueues (their `meta`, store/jobs.py).
- **Access line.** One INFO line per request on logger `deadwood.access`: method, path
  (never the query string), status and duration in ms, with the route template, the request
  id, the match id, the seat and the client's address as fields; buffered, written within
  half a second (store/logs.py, store/flushing.py). DEADWOOD_ACCESS_LOG=0 turns it off.
- **Metrics** (store/metrics.py): requests by route template, method and status, latency,
  moves accepted and refused by code, 429s, open live streams; `GET /metrics` (off `/v1`) in
  the Prometheus text format, behind `Authorization: Bearer <DEADWOOD_METRICS_TOKEN>` when
  that is set. DEADWOOD_METRICS=0 turns the metrics and the endpoint off. A request's figures
  are batched in its process (store/metrics.py `Batched`); a method label is one of METHODS
  or `other`.
- **Proxies.** DEADWOOD_TRUSTED_PROXIES=N (default 0) wraps the app in werkzeug's ProxyFix
  trusting the last N `X-Forwarded-For` / `X-Forwarded-Proto` hops, so the rate limits and
  the logs see the real client. With 0 the headers are ignored, so a client cannot forge
  its address.
"""

from __future__ import annotations

import hmac
import time
from typing import Any

from flask import Flask, Request, Response, current_app, g, request

from api.common import current_request
from api.errors import ApiError
from store import logs, metrics

MOVES_ENDPOINT = "moves.Moves"
STREAM_ENDPOINT = "events.EventStream"
UNMATCHED = "unmatched"


def init_app(app: Flask) -> None:
    """Install the hooks (first of all `before_request`s, so even a refused body has an id)."""
    app.config.setdefault("ACCESS_LOG", True)
    app.config.setdefault("METRICS", metrics.ENABLED)
    app.config.setdefault("TRUSTED_PROXIES", 0)
    app.before_request_funcs.setdefault(None, []).insert(0, _start)
    app.after_request(_finish)
    app.teardown_request(_unbind)
    proxies = int(app.config["TRUSTED_PROXIES"] or 0)
    if proxies > 0:
        from werkzeug.middleware.proxy_fix import ProxyFix

        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies, x_proto=proxies)  # type: ignore[method-assign]
    app.extensions["deadwood_observe"] = _Settings(
        access=_on(app.config["ACCESS_LOG"]), metrics=_on(app.config["METRICS"])
    )
    if app.extensions["deadwood_observe"].metrics:
        app.add_url_rule("/metrics", endpoint="metrics.scrape", view_func=scrape)


class _Settings:
    __slots__ = ("access", "metrics")

    def __init__(self, access: bool, metrics: bool) -> None:
        self.access = access
        self.metrics = metrics


def _on(value: Any) -> bool:
    return str(value).strip().lower() not in ("0", "off", "false", "no", "")


def _start() -> None:
    req = current_request()
    store = g._get_current_object()
    store.started = time.perf_counter()
    given = req.environ.get("HTTP_X_REQUEST_ID")  # the header, without a Headers lookup
    rid = (given and logs.valid_request_id(given)) or logs.new_request_id()
    store.request_id = rid
    logs.request_id_var.set(rid)
    args = req.view_args
    if args and "match_id" in args:
        logs.match_id_var.set(logs.safe_match_id(str(args["match_id"])))


def _finish(response: Response) -> Response:
    store = g._get_current_object()
    seen = store.__dict__  # g's attributes, read without an AttributeError when absent
    rid = seen.get("request_id")
    if rid is None:
        return response
    response.headers["X-Request-ID"] = rid
    settings: _Settings = current_app.extensions["deadwood_observe"]
    if not (settings.metrics or settings.access):
        return response
    req = current_request()
    elapsed = time.perf_counter() - seen["started"]
    rule = req.url_rule
    route = rule.rule if rule is not None else UNMATCHED
    status = response.status_code
    method = req.method
    if settings.metrics:
        _count(req, seen, route, method, status, elapsed, response)
    if settings.access:
        seat = logs.seat_var.get()  # set with the caller's seat (api/common.py)
        logs.access(method, req.path, status, elapsed, route, seat, req.remote_addr)
    return response


METHODS = frozenset(("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"))
"""The methods a metric's label shows as they are; any other is `other` (a client cannot
make a label value of its own)."""
_children: dict[tuple[str, str, int], tuple[metrics.Batched, metrics.Batched]] = {}
_moves: dict[str, metrics.Batched] = {}


def _count(
    req: Request,
    seen: dict[str, Any],
    route: str,
    method: str,
    status: int,
    elapsed: float,
    response: Response,
) -> None:
    key = (route, method, status)
    pair = _children.get(key)
    if pair is None:
        if len(_children) > 2048:  # a client's own methods must not pile up keys here
            _children.clear()
        label = method if method in METHODS else "other"
        pair = _children[key] = (
            metrics.batched(metrics.REQUESTS, route, label, str(status)),
            metrics.batched(metrics.LATENCY, route, label),
        )
    pair[0].inc()
    pair[1].observe(elapsed)
    endpoint = req.endpoint
    if endpoint == MOVES_ENDPOINT and method == "POST":
        code = "" if status == 200 else seen.get("problem_code") or str(status)
        counter = _moves.get(code)
        if counter is None:
            outcome = "accepted" if status == 200 else "refused"
            counter = _moves[code] = metrics.batched(metrics.MOVES, outcome, code)
        counter.inc()
    if status == 429:
        metrics.RATE_LIMITED.labels(route).inc()
    elif endpoint == STREAM_ENDPOINT and status == 200:
        metrics.LIVE_STREAMS.inc()
        response.call_on_close(metrics.LIVE_STREAMS.dec)


def _unbind(exc: BaseException | None) -> None:
    logs.request_id_var.set(None)
    logs.match_id_var.set(None)
    logs.seat_var.set(None)


def scrape() -> Response:
    """GET /metrics: the Prometheus text format (every process's figures)."""
    from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

    token = current_app.config.get("METRICS_TOKEN")
    if token:
        header = request.headers.get("Authorization") or ""
        given = header[7:].strip() if header[:7].lower() == "bearer " else ""
        if not hmac.compare_digest(given.encode(), str(token).encode()):
            raise ApiError("unauthorized", "/metrics needs 'Authorization: Bearer <token>'", 401)
    metrics.flush()  # this process's pending figures (the others' are at most 0.5 s old)
    service = current_app.extensions["deadwood"]["service"]
    registry = metrics.registry_for_scrape(metrics.StoreCollector(service))
    return Response(generate_latest(registry), content_type=CONTENT_TYPE_LATEST)
