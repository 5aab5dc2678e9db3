"""Seeks (issue 32): an account asks to be paired, sees its seek, cancels it; anyone lists
the open ones (here and in `GET /v1/lobby`).

Every write needs the account's key (`Deadwood-Key`, scope `join_seats`; `play_rated` too for
a rated seek). A seek is the store's (store/seeks.py: one open seek per account, expiry, the
Idempotency-Key); the pairing job (workers/pairing.py) pairs it and the owner's `GET` then
shows its `match`: the seat reserved for the account, joined with the same key
(`POST /v1/matches/{id}/join`, api/lobby.py).
"""

# mypy: disable-error-code="untyped-decorator"
from __future__ import annotations

from typing import Any

from flask import url_for
from flask.views import MethodView
from flask_smorest import Blueprint

from api import docs, keyauth
from api.body import BodyParser
from api.common import fingerprint, idempotency_key, json_response, service
from api.schemas_seeks import CreateSeekSchema, SeekSchema, SeeksQuerySchema, SeeksSchema
from domain.accounts import JOIN_SEATS, PLAY_RATED
from store.seeks import SeekService, seek_service

blp = Blueprint("seeks", __name__, url_prefix="/v1/seeks", description="Seeks and pairing")
blp.ARGUMENTS_PARSER = BodyParser()

KEY_SECURITY: list[dict[str, list[str]]] = [{"accountKey": []}]


def seeks() -> SeekService:
    return seek_service(service())


def open_seeks(variant: str | None) -> list[dict[str, Any]]:
    """The open seeks as anyone sees them, oldest first (the lobby shows them too)."""
    return [seek.public() for seek in seeks().open_seeks(variant, limit=200)]


@blp.route("")
class Seeks(MethodView):
    @blp.arguments(CreateSeekSchema)
    @blp.response(201, SeekSchema, headers=docs.LOCATION_HEADER)
    @blp.doc(
        security=KEY_SECURITY,
        parameters=[docs.IDEMPOTENCY_KEY],
        responses=docs.problems(401, 403, 409, 413, 415, 400, 422),
    )
    def post(self, body: dict[str, Any]) -> Any:
        """Ask to be paired: an open seek of the caller's account (201).

        A pairing job matches it with compatible seeks (same variant, rated, clock, seats and
        options), nearest in ladder rating, or after a while with built-in bots; poll
        `GET /v1/seeks/{id}` (about every 0.5 s) until it is `paired`, then join its
        `match` with your key. An account has one open seek (409 `seek_open`); it expires
        after a while (`expires`). A rated seek needs `play_rated` and a clock (422
        `rated_match_needs_clock`).
        """
        info = keyauth.key_required(JOIN_SEATS)
        if body["rated"]:
            keyauth.require(info, PLAY_RATED)
        key = idempotency_key()
        bot = keyauth.accounts().is_bot(info.handle)
        made = seeks().create(
            info.handle,
            bot,
            body,
            idempotency_key=key,
            fingerprint=fingerprint("seek", info.handle, body) if key else "",
        )
        response = json_response(made.owned(), 201)
        response.headers["Location"] = url_for("seeks.Seek", seek_id=made.id)
        if made.replayed:
            response.headers["Idempotent-Replayed"] = "true"
        return response

    @blp.arguments(SeeksQuerySchema(), location="query")
    @blp.response(200, SeeksSchema)
    @blp.doc(responses=docs.problems(422))
    def get(self, query: dict[str, Any]) -> Any:
        """The open seeks (of a variant), oldest first: who waits for what."""
        return json_response({"seeks": open_seeks(query.get("variant"))}, 200)


@blp.route("/<seek_id>")
class Seek(MethodView):
    @blp.response(200, SeekSchema)
    @blp.doc(security=KEY_SECURITY, responses=docs.problems(401, 404))
    def get(self, seek_id: str) -> Any:
        """The caller's own seek: its status and, once `paired`, the match and seat to join.

        Any other caller's seek is 404 `unknown_seek`. A match just paired may answer its
        join with 404 for a moment: try again shortly."""
        info = keyauth.key_required()
        return json_response(seeks().get(seek_id[:64], info.handle).owned(), 200)

    @blp.response(200, SeekSchema)
    @blp.doc(security=KEY_SECURITY, responses=docs.problems(401, 404, 409))
    def delete(self, seek_id: str) -> Any:
        """Cancel the caller's open seek (`cancelled`); a cancelled or expired seek is shown
        as it is. 409 `seek_paired` once it is paired (join or leave its match instead):
        a cancel and a pairing never both win."""
        info = keyauth.key_required()
        return json_response(seeks().cancel(seek_id[:64], info.handle).owned(), 200)
