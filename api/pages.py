"""The browser pages, served by the API itself with no build step and no outside URL:

    /docs               the API reference: Swagger UI (the pinned swagger-ui-py package
                        ships its scripts and styles) reading the served /v1/openapi.json
    /watch/<match_id>   a match live, as a spectator or, with a seat token pasted into the
                        page, as that seat (api/static/deadwood/watch.js)
    /replay             check an NDJSON log with POST /v1/replays and step through it
    /ladder/<variant>   the rated ladder, a page at a time (api/static/deadwood/ladder.js)

Every script, style and picture comes from api/static/deadwood or the swagger-ui-py
package; the pages call only this server's /v1 endpoints, and say so to the browser: every
response outside /v1 carries a Content-Security-Policy that allows only this origin's
scripts (no inline script, no eval), forbids framing (`frame-ancestors 'none'`,
X-Frame-Options), and every response says `X-Content-Type-Options: nosniff`
(`secure_headers`). A seat token stays in the tab's sessionStorage and travels in the
Authorization header, never in a URL.
"""

from __future__ import annotations

import importlib.util
from functools import cache
from pathlib import Path
from typing import Any

from flask import (
    Blueprint,
    Response,
    abort,
    redirect,
    render_template,
    request,
    send_from_directory,
    url_for,
)

from api.common import check_match_id
from domain.variants import NAMES

blp = Blueprint("pages", __name__)

CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",  # Swagger UI sets style attributes
        "img-src 'self' data:",  # and draws its icons from data: URLs
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)


def secure_headers(response: Response) -> Response:
    """nosniff on every response; on the pages and their files, the policy and no framing."""
    response.headers["X-Content-Type-Options"] = "nosniff"
    if not request.path.startswith("/v1/"):
        response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
    return response


SWAGGER_FILES = frozenset({"swagger-ui-bundle.js", "swagger-ui.css"})


@blp.get("/docs")
def docs() -> Any:
    return render_template("docs.html")


@blp.get("/docs/assets/<name>")
def docs_asset(name: str) -> Any:
    """Swagger UI's own files (5.x, which reads OpenAPI 3.1), from the installed swagger-ui-py
    package; only its static folder is used, none of its framework handlers."""
    if name not in SWAGGER_FILES:
        abort(404)
    return send_from_directory(_swagger_static(), name, max_age=3600)


@cache
def _swagger_static() -> Path:
    found = importlib.util.find_spec("swagger_ui")
    assert found is not None and found.origin is not None, "swagger-ui-py is a dependency"
    return Path(found.origin).parent / "static"


@blp.get("/watch/<match_id>")
def watch(match_id: str) -> Any:
    check_match_id(match_id)
    return render_template("watch.html", match_id=match_id)


@blp.get("/replay")
def replay() -> Any:
    return render_template("replay.html")


@blp.get("/ladder")
def ladders() -> Any:
    return redirect(url_for("pages.ladder", variant=NAMES[0]))


@blp.get("/ladder/<variant>")
def ladder(variant: str) -> Any:
    """The rated ladder of a variant (api/static/deadwood/ladder.js reads GET /v1/ladder)."""
    if variant not in NAMES:
        abort(404)
    return render_template("ladder.html", variant=variant, variants=NAMES)
