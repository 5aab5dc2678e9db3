"""Moves: one move as the caller's seat, with If-Match and Idempotency-Key (api.md "Moves").

The token is checked before the body is validated, so a spectator or a stranger learns
nothing about what a valid move looks like (403/401 before 422).
"""

# mypy: disable-error-code="untyped-decorator"
from __future__ import annotations

from typing import Any

from flask import g, request
from flask.views import MethodView
from flask_smorest import Blueprint

from api import docs
from api.common import (
    expected_version,
    fingerprint,
    idempotency_key,
    json_response,
    redacted_events,
    render_view,
    seat_required,
    service,
)
from api.schemas import MoveSchema
from domain.errors import RulesError
from store.errors import VersionConflict

blp = Blueprint("moves", __name__, url_prefix="/v1/matches", description="Moves")


@blp.before_request
def _authenticate() -> None:
    if request.method == "POST" and request.view_args:
        g.seat = seat_required(str(request.view_args["match_id"]))


@blp.route("/<match_id>/moves")
class Moves(MethodView):
    @blp.arguments(MoveSchema, examples=docs.MOVE_EXAMPLES)
    @blp.response(200, "MoveResult", headers=docs.ETAG_HEADER)
    @blp.doc(
        security=docs.SECURITY,
        parameters=[docs.IF_MATCH, docs.IDEMPOTENCY_KEY],
        responses=docs.problems(400, 401, 403, 404, 409, 412, 413, 415, 422),
    )
    def post(self, _move: dict[str, Any], match_id: str) -> Any:
        """Make a move as the caller's seat.

        422 `illegal_move` names the rule; 409 `not_your_turn`; 412 `version_conflict` when
        `If-Match` is stale (nothing is appended); 403 `forbidden` for a spectator or a move
        the seat's role may never make.
        """
        seat: int = g.seat
        raw = g.json_body
        key = idempotency_key()
        expected = expected_version()
        store = service()

        loaded, loaded_version = store.load(match_id)

        def render(new_events: list[Any], new_state: Any) -> dict[str, Any]:
            variant = store.variant(new_state)
            base = new_events[0].seq - 1 if new_events else new_state.version
            if base == loaded_version:
                before = loaded  # the state the move was decided on, as a rule
            else:
                before, _ = store.load(match_id, at=base)
            public = variant.is_finished(new_state)
            return {
                "version": base + len(new_events),
                "events": redacted_events(variant, before, new_events, seat, public),
                "match": render_view(match_id, variant, new_state, seat),
            }

        def submit() -> Any:
            return store.submit(
                match_id,
                seat,
                dict(raw),
                expected_version=expected,
                idempotency_key=key,
                fingerprint=fingerprint("move", seat, raw),
                render=render,
            )

        try:
            appended = submit()
        except (RulesError, VersionConflict):
            if key is None:
                raise
            # A twin request with this key may have appended between the store's key check
            # and its load: asking again returns its recorded response, or the same refusal.
            appended = submit()
        if appended.replayed and appended.response is not None:
            body = appended.response
            response = json_response(body, 200, body.get("version"))
            response.headers["Idempotent-Replayed"] = "true"
            return response
        body = appended.response
        if body is None:
            body = render(appended.events, appended.state)
        return json_response(body, 200, appended.version)
