"""Abort, resign and claim (issue 31): what a seat can do about a match that stalls.

    POST /v1/matches/{id}/abort    until every seat has moved once (a clocked match): an
                                   unscored, unrated end (MatchAborted)
    POST /v1/matches/{id}/resign   two seats: the other wins; more: a bot plays the seat on
                                   (SeatResigned, SeatReplacedByBot)
    POST /v1/matches/{id}/claim    when the seat to act has been absent `claim_after_s`: a
                                   victory with two seats, a bot in its place with more
                                   (VictoryClaimed); early: 409 `claim_not_available` with
                                   `seconds_left`, never a silent ok

Each takes an empty JSON object and a seat token (without one, or with another match's: 401) and
answers like a move: `{version, events, match}`. A refusal is 409 with a stable code
(store/errors.py NotAvailable): `abort_not_available`, `claim_not_available`,
`claim_wrong_turn`, `no_clock`, `match_finished`, `seat_replaced`.
"""

# mypy: disable-error-code="untyped-decorator"
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask.views import MethodView
from flask_smorest import Blueprint

from api import docs
from api.common import caller_seat, json_response, service
from api.errors import ApiError
from api.moves import render_move
from api.schemas import ConductSchema
from store.service import Appended

blp = Blueprint(
    "conduct", __name__, url_prefix="/v1/matches", description="Abort, resign and claim"
)

CONDUCT_EXAMPLES = {"empty": {"summary": "no members", "value": {}}}
CONDUCT_PROBLEMS = docs.problems(400, 401, 404, 409, 413, 415, 422)


def _act(match_id: str, action: Callable[[Any, str, int], Appended]) -> Any:
    """The seat's action: these need a seat token (a caller without one, a spectator, gets
    401 `unauthorized`: it cannot be the seat it would act for)."""
    seat = caller_seat(match_id)
    if seat is None:
        raise ApiError(
            "unauthorized", "abort, resign and claim need 'Authorization: Bearer <seat token>'", 401
        )
    appended = action(service(), match_id, seat)
    return json_response(render_move(match_id, seat, appended), 200, appended.version)


@blp.route("/<match_id>/abort")
class Abort(MethodView):
    @blp.arguments(ConductSchema, examples=CONDUCT_EXAMPLES)
    @blp.response(200, "MoveResult", headers=docs.ETAG_HEADER)
    @blp.doc(security=docs.SECURITY, responses=CONDUCT_PROBLEMS, operationId="abort_match")
    def post(self, body: dict[str, Any], match_id: str) -> Any:
        """Abort a match before every seat has moved once (a match with a clock).

        The match ends unscored and unrated (MatchAborted). 409 `abort_not_available` once
        every seat has moved, `no_clock` for a match without a clock.
        """
        return _act(match_id, lambda svc, m, s: svc.abort(m, s))


@blp.route("/<match_id>/resign")
class Resign(MethodView):
    @blp.arguments(ConductSchema, examples=CONDUCT_EXAMPLES)
    @blp.response(200, "MoveResult", headers=docs.ETAG_HEADER)
    @blp.doc(security=docs.SECURITY, responses=CONDUCT_PROBLEMS, operationId="resign_seat")
    def post(self, body: dict[str, Any], match_id: str) -> Any:
        """Resign the caller's seat.

        Two seats: the other seat wins (SeatResigned). Three or more: the clock's autoplay
        bot (else `basic`) plays the seat for the rest of the match (SeatReplacedByBot).
        """
        return _act(match_id, lambda svc, m, s: svc.resign(m, s))


@blp.route("/<match_id>/claim")
class Claim(MethodView):
    @blp.arguments(ConductSchema, examples=CONDUCT_EXAMPLES)
    @blp.response(200, "MoveResult", headers=docs.ETAG_HEADER)
    @blp.doc(security=docs.SECURITY, responses=CONDUCT_PROBLEMS, operationId="claim_victory")
    def post(self, body: dict[str, Any], match_id: str) -> Any:
        """Claim against the seat to act when it has been absent `claim_after_s` seconds.

        Absent: no authenticated request or open stream from that seat since its turn began.
        Two seats: the claimant wins (VictoryClaimed). More: a bot takes the absent seat.
        409 `claim_not_available` with `seconds_left` when it is too early, and
        `claim_wrong_turn` when the caller itself is to act.
        """
        return _act(match_id, lambda svc, m, s: svc.claim(m, s))
