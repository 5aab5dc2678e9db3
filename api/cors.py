"""CORS for third-party web clients (flask-cors), off unless origins are configured.

    DEADWOOD_CORS_ORIGINS   origins allowed to call /v1 from a browser: a comma-separated
                            list ("https://a.example,https://b.example"), a JSON list, or "*".
                            Unset or empty (the default): no CORS headers at all.

Every /v1 response carries the headers for an allowed origin, problem responses and the live
stream included (flask-cors adds them after the handler or the error handler ran). A preflight
(OPTIONS) for a move may ask for Authorization, Content-Type, If-Match and Idempotency-Key,
and for the stream Last-Event-ID; a script may read ETag, Location, Retry-After and
Idempotent-Replayed. No cookies are involved (tokens travel in Authorization), so credentials
are not allowed. Every /v1 response says `Vary: Origin` while CORS is on, with or without an
Origin in the request, so a shared cache never serves one origin's answer to another.
"""

from __future__ import annotations

from typing import Any

from flask import Flask, Response, request

ALLOW_HEADERS = [
    "Authorization",
    "Content-Type",
    "If-Match",
    "Idempotency-Key",
    "Last-Event-ID",
    "Deadwood-Key",
]
EXPOSE_HEADERS = ["ETag", "Location", "Retry-After", "Idempotent-Replayed"]
PREFLIGHT_MAX_AGE = 600


def origins(setting: Any) -> list[str]:
    """The configured origins as a list (empty: CORS off)."""
    if setting is None:
        return []
    items = setting if isinstance(setting, list | tuple) else str(setting).split(",")
    return [str(item).strip().rstrip("/") for item in items if str(item).strip()]


def init_app(app: Flask) -> None:
    """Install flask-cors on /v1 for the configured origins (nothing when there are none)."""
    allowed = origins(app.config.get("CORS_ORIGINS"))
    if not allowed:
        return
    from flask_cors import CORS

    CORS(
        app,
        resources={r"/v1/*": {"origins": "*" if "*" in allowed else allowed}},
        allow_headers=ALLOW_HEADERS,
        expose_headers=EXPOSE_HEADERS,
        methods=["GET", "POST", "OPTIONS"],
        max_age=PREFLIGHT_MAX_AGE,
        supports_credentials=False,
        vary_header=True,
    )
    app.after_request(_vary_on_origin)


def _vary_on_origin(response: Response) -> Response:
    if request.path.startswith("/v1/"):
        response.vary.add("Origin")
    return response
