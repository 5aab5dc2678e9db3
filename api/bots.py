"""Bots, hints and health: the built-in strategies, a hint for the caller's seat, and the
liveness of the event store.

A hint is the move the strongest built-in bot of the variant (`domain.bots.best_bot`: today
`expert`) would make, with its reason, computed from the caller's own view and legal moves only
(exactly what that bot would see in the seat), with a `random.Random` seeded from the match id,
version and seat, so asking twice gives one answer.
"""

# mypy: disable-error-code="untyped-decorator"
from __future__ import annotations

import hashlib
import random
from typing import Any

from flask.views import MethodView
from flask_smorest import Blueprint

from api import docs
from api.common import caller_seat, json_response, service
from api.errors import ApiError
from api.schemas import BotSchema, HealthSchema
from domain import bots as registry
from domain.errors import RulesError

blp = Blueprint("bots", __name__, url_prefix="/v1", description="Bots, hints and health")


def strongest(variant: str) -> str:
    """The strongest built-in bot of `variant` (domain.bots.best_bot)."""
    try:
        return registry.best_bot(variant)
    except RulesError:
        raise ApiError("not_found", f"no built-in bot plays {variant}", 404) from None


def _rng(match_id: str, version: int, seat: int) -> random.Random:
    seed = hashlib.sha256(f"hint:{match_id}:{version}:{seat}".encode()).digest()
    return random.Random(int.from_bytes(seed[:8], "big"))  # noqa: S311 (a seeded bot rng)


@blp.route("/bots")
class Bots(MethodView):
    @blp.response(200, BotSchema(many=True))
    @blp.doc(responses=docs.problems())
    def get(self) -> Any:
        """The built-in bot strategies: a name to use as `bot` when creating a match."""
        return json_response(registry.catalogue())


@blp.route("/matches/<match_id>/hint")
class Hint(MethodView):
    @blp.response(200, "Hint", headers=docs.ETAG_HEADER)
    @blp.doc(security=docs.SECURITY, responses=docs.problems(401, 403, 404, 409))
    def get(self, match_id: str) -> Any:
        """The move the strongest built-in bot would make now for the caller's seat.

        403 `forbidden` for a spectator; 409 `not_your_turn` when the seat has no move now.
        """
        seat = caller_seat(match_id)
        loaded = service().load(match_id)  # 404 for an unknown match, for everyone
        if seat is None:
            raise ApiError("forbidden", "a spectator has no seat to hint for", 403)
        state, version, variant = loaded.state, loaded.version, loaded.variant
        view = variant.view(state, seat)
        moves = view["you"]["legal_moves"] if view.get("you") else []
        if not moves:
            raise ApiError("not_your_turn", f"seat {seat} has no move to make now", 409)
        bot = strongest(variant.name)
        move, reason = registry.explain(
            variant.name, bot, view, moves, _rng(match_id, version, seat)
        )
        return json_response({"move": move, "reason": reason, "bot": bot}, 200, version)


@blp.route("/health")
class Health(MethodView):
    @blp.response(200, HealthSchema)
    @blp.doc(responses=docs.problems(503))
    def get(self) -> Any:
        """`{"status": "ok"}` when the event store answers PING; 503 otherwise."""
        if not service().ping():
            raise ApiError("store_unavailable", "the event store does not answer PING", 503)
        return json_response({"status": "ok"})
