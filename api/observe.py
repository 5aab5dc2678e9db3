"""What an operator sees of each request: its id, its access line, its metrics, and the real
client behind a proxy (issue 34).

- **Request id.** An `X-Request-ID` header of 1 to 128 characters of `[A-Za-z0-9._:@/+=-]`
  is taken as the request's id; any other value, or none, gets a new random id. The id is
  echoed in the `X-Request-ID` response header and in every problem body (`request_id`,
  api/errors.py), is on every log line of the request (store/logs.py), and rides into the
  jobs the request enqueues (their `meta`, store/jobs.py).
- **Access line.** One INFO line per request on logger `deadwood.access`: method, path
  (never the query string), status and duration in ms, with the route template, the request
  id, the match id and the seat as fields. DEADWOOD_ACCESS_LOG=0 turns it off.
- **Metrics** (store/metrics.py): requests by route template, method and status, latency,
  moves accepted and refused by code, 429s, open live streams; `GET /metrics` (off `/v1`) in
  the Prometheus text format, behind `Authorization: Bearer <DEADWOOD_METRICS_TOKEN>` when
  that is set. DEADWOOD_METRICS=0 turns the metrics and the endpoint off.
- **Proxies.** DEADWOOD_TRUSTED_PROXIES=N (default 0) wraps the app in werkzeug's ProxyFix
  trusting the last N `X-Forwarded-For` / `X-Forwarded-Proto` hops, so the rate limits and
  the logs see the real client. With 0 the headers are ignored, so a client cannot forge
  its address.
"""

from __future__ import annotations

import hmac
import logging
import time
from typing import Any

from flask import Flask, Response, current_app, g, request

from api.errors import ApiError
from store import logs, metrics

access_log = logging.getLogger("deadwood.access")

MOVES_ENDPOINT = "moves.Moves"
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
    g.started = time.perf_counter()
    rid = logs.valid_request_id(request.headers.get("X-Request-ID")) or logs.new_request_id()
    g.request_id = rid
    logs.request_id_var.set(rid)
    args = request.view_args
    if args and "match_id" in args:
        logs.match_id_var.set(str(args["match_id"])[:64])


def _finish(response: Response) -> Response:
    rid = g.get("request_id")
    if rid is None:
        return response
    response.headers["X-Request-ID"] = rid
    settings: _Settings = current_app.extensions["deadwood_observe"]
    elapsed = time.perf_counter() - g.get("started", time.perf_counter())
    rule = request.url_rule
    route = rule.rule if rule is not None else UNMATCHED
    status = response.status_code
    if settings.metrics:
        _count(route, request.method, status, elapsed, response)
    if settings.access:
        seat = g.get("seat")
        access_log.info(
            "%s %s %d %.1fms",
            request.method,
            request.path,
            status,
            elapsed * 1000,
            extra={
                "route": route,
                "method": request.method,
                "status": status,
                "duration_ms": round(elapsed * 1000, 2),
                "seat": seat,
            },
        )
    return response


_children: dict[tuple[str, str, int], tuple[Any, Any]] = {}


def _count(route: str, method: str, status: int, elapsed: float, response: Response) -> None:
    key = (route, method, status)
    pair = _children.get(key)
    if pair is None:
        if len(_children) > 2048:  # routes x methods x statuses is small; a guard all the same
            _children.clear()
        pair = _children[key] = (
            metrics.REQUESTS.labels(route, method, str(status)),
            metrics.LATENCY.labels(route, method),
        )
    pair[0].inc()
    pair[1].observe(elapsed)
    if request.endpoint == MOVES_ENDPOINT and method == "POST":
        if status == 200:
            metrics.MOVES.labels("accepted", "").inc()
        else:
            metrics.MOVES.labels("refused", g.get("problem_code") or str(status)).inc()
    if status == 429:
        metrics.RATE_LIMITED.labels(route).inc()
    if response.mimetype == "text/event-stream" and status == 200:
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
    service = current_app.extensions["deadwood"]["service"]
    registry = metrics.registry_for_scrape(metrics.StoreCollector(service))
    return Response(generate_latest(registry), content_type=CONTENT_TYPE_LATEST)
