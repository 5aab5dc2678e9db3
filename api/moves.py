"""Moves: one move as the caller's seat, with If-Match and Idempotency-Key (api.md "Moves").

The token is checked before the body is validated, so a spectator or a stranger learns
nothing about what a valid move looks like (403/401 before 422).
"""

# mypy: disable-error-code="untyped-decorator"
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from flask import g
from flask.views import MethodView
from flask_smorest import Blueprint

from api import docs
from api.body import direct_body
from api.common import (
    add_clock,
    expected_version,
    fingerprint,
    idempotency_key,
    json_response,
    render_view,
    seat_required,
    service,
    shown_events,
)
from api.schemas import MoveSchema, plain_move
from domain.lobby import NotStarted
from store.lobby import lobby_service
from store.outcomes import Appended

blp = Blueprint("moves", __name__, url_prefix="/v1/matches", description="Moves")


def authenticated(view: Callable[..., Any]) -> Callable[..., Any]:
    """Outermost decorator of the move: the seat (401/403) before the body is checked. It
    runs inside the rate limits (api/ratelimit.py wraps the view), so a move with a bad token
    counts against its address like any other."""

    @functools.wraps(view)
    def call(self: Any, **view_args: Any) -> Any:
        g.seat = seat_required(str(view_args["match_id"]))
        return view(self, **view_args)

    return call


MOVE_SCHEMA = MoveSchema()  # one instance: no per-request build


@blp.route("/<match_id>/moves")
class Moves(MethodView):
    @authenticated
    @direct_body(MOVE_SCHEMA, plain_move)  # the documentation below, not its wrappers
    @blp.arguments(MOVE_SCHEMA, examples=docs.MOVE_EXAMPLES)
    @blp.response(200, "MoveResult", headers=docs.ETAG_HEADER)
    @blp.doc(
        security=docs.SECURITY,
        parameters=[docs.IF_MATCH, docs.IDEMPOTENCY_KEY],
        responses=docs.problems(400, 401, 403, 404, 409, 410, 412, 413, 415, 422),
    )
    def post(self, match_id: str) -> Any:
        """Make a move as the caller's seat.

        422 `illegal_move` names the rule; 409 `not_your_turn`; 412 `version_conflict` when
        `If-Match` is stale (nothing is appended); 403 `forbidden` for a spectator or a move
        the seat's role may never make.
        """
        seat: int = g.seat
        raw = g.json_body
        service().check_person(match_id, seat)  # a seat a bot took is not the token's
        key = idempotency_key()

        def submit() -> Appended:
            appended: Appended = service().submit(
                match_id,
                seat,
                dict(raw),
                expected_version=expected_version(),
                idempotency_key=key,
                # only a keyed request is compared with its first (hashing the body costs)
                fingerprint=fingerprint("move", seat, raw) if key is not None else "",
            )
            return appended

        try:
            appended = submit()
        except NotStarted:  # a match waiting for players: past its deadline, it is cancelled
            lobby_service(service()).settle(match_id)  # first (410 lobby_closed), issue 30
            appended = submit()
        body = appended.response or render_move(match_id, seat, appended)
        response = json_response(body, 200, appended.version)
        if appended.replayed:
            response.headers["Idempotent-Replayed"] = "true"
        return response


def render_move(match_id: str, seat: int, appended: Appended) -> dict[str, Any]:
    """The one rendering of a move's response: its events as the seat may see them (all of
    them once the match is finished) and the match view after it."""
    variant = appended.variant
    public = variant.is_finished(appended.state)
    events = shown_events(variant, appended.steps(), seat, public)
    return {
        "version": appended.version,
        "events": events,
        "match": add_clock(
            render_view(match_id, variant, appended.state, seat), match_id, appended.turn, False
        ),
    }
