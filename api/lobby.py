"""The lobby (issue 30): list the matches waiting for players, join one with a token minted
for you, leave before the start, cancel (the creator), and ask for a rematch.

A join may carry an account key (`Deadwood-Key`, issue 32): the seat is then the account's
(`domain.lobby.Joiner`: its handle, its kind, whether the key may play rated), which is how a
rated match seats strangers and how a paired seeker (a seek, issue 32) takes its reserved
seat.

Each write goes through store/lobby.py: one version-checked append on the match's slot
with its idempotency record, so an `Idempotency-Key` works as for every POST. A request that
finds a match past its lobby deadline cancels it first (410 `lobby_closed`).
"""

# mypy: disable-error-code="untyped-decorator"
from __future__ import annotations

from typing import Any

from flask import url_for
from flask.views import MethodView
from flask_smorest import Blueprint

from api import docs, keyauth
from api.body import BodyParser
from api.common import (
    caller_seat,
    fingerprint,
    idempotency_key,
    json_response,
    render_view,
    seat_required,
    service,
)
from api.errors import ApiError
from api.schemas import JoinSchema, LobbyQuerySchema
from api.seeks import open_seeks
from domain.accounts import JOIN_SEATS, PLAY_RATED
from domain.lobby import Joiner
from store.lobby import LobbyService, Seated, lobby_service

blp = Blueprint("lobby", __name__, url_prefix="/v1", description="The lobby and open seats")
blp.ARGUMENTS_PARSER = BodyParser()


def lobby() -> LobbyService:
    return lobby_service(service())


def _seated(match_id: str, seated: Seated, status: int) -> Any:
    """A join's (or rematch's) answer: the seat, its new token, the match as it sees it."""
    body = {
        "id": seated.match_id,
        "seat": seated.seat,
        "token": seated.token,
        "version": seated.version,
        "match": render_view(seated.match_id, seated.variant, seated.state, seated.seat),
    }
    response = json_response(body, status, seated.version)
    if seated.match_id != match_id or status == 201:
        response.headers["Location"] = url_for("matches.Match", match_id=seated.match_id)
    if seated.replayed:
        response.headers["Idempotent-Replayed"] = "true"
    return response


def _changed(match_id: str, seated: Seated, seat: int | None) -> Any:
    body = {
        "version": seated.version,
        "match": render_view(match_id, seated.variant, seated.state, seat),
    }
    response = json_response(body, 200, seated.version)
    if seated.replayed:
        response.headers["Idempotent-Replayed"] = "true"
    return response


@blp.route("/lobby")
class Lobby(MethodView):
    @blp.arguments(LobbyQuerySchema(), location="query")
    @blp.response(200, "LobbyPage")
    @blp.doc(responses=docs.problems(422))
    def get(self, query: dict[str, Any]) -> Any:
        """Listed matches waiting for players, soonest deadline first.

        Never a started, full, cancelled, expired or unlisted match. Page with `next`.
        `seeks`: the open seeks (issue 32, as `GET /v1/seeks`), on every page."""
        matches, cursor = lobby().listing(
            query.get("variant"), query.get("cursor"), query.get("limit", 50)
        )
        waiting = open_seeks(query.get("variant"))
        return json_response({"matches": matches, "next": cursor, "seeks": waiting}, 200)


@blp.route("/matches/<match_id>/join")
class Join(MethodView):
    @blp.arguments(JoinSchema, examples=docs.JOIN_EXAMPLES)
    @blp.response(201, "Joined", headers=docs.LOCATION_HEADER)
    @blp.doc(
        security=docs.SECURITY,
        parameters=[docs.IDEMPOTENCY_KEY],
        responses=docs.problems(400, 401, 403, 404, 409, 410, 413, 415, 422),
    )
    def post(self, body: dict[str, Any], match_id: str) -> Any:
        """Take an open seat (the given one, or the first): 201 with its token, minted now.

        409 `seat_taken` when another join won the seat, `match_full`, `match_started`;
        410 `lobby_closed` when the match expired or was cancelled; 403 `seat_reserved`
        for a rematch's seat (its previous player takes it with POST .../rematch) or a seat
        reserved for another account. The token is shown only here; with an
        `Idempotency-Key` a repeat gives it again. No token is needed; one that is sent must
        be a token of this match (else 401).

        With a `Deadwood-Key` (scope `join_seats`) the seat is the account's: named by its
        handle, shown with `account` in every view, counted for it when a rated match is
        rated. A rated match's open seat needs a key with `play_rated` (403
        `rated_seat_needs_key`); an account holds one seat of a match (409
        `already_seated`); a seat reserved for an account (pairing, `/v1/seeks`) is joined
        only with that account's key.
        """
        caller_seat(match_id)  # no token needed; one sent must be this match's (401)
        key = idempotency_key()
        joiner = _joiner(body)
        name = joiner.handle if joiner is not None else body.get("name")
        if name is None:
            raise ApiError(
                "validation_error",
                "name: a join without a Deadwood-Key needs a name",
                422,
                errors={"name": ["Missing data for required field."]},
            )
        seated = lobby().join(
            match_id,
            name,
            body.get("seat"),
            key=key,
            fingerprint=fingerprint("join", match_id, body, *([name] if joiner else []))
            if key
            else "",
            joiner=joiner,
        )
        return _seated(match_id, seated, 201)


def _joiner(body: dict[str, Any]) -> Joiner | None:
    """The account of a join with a `Deadwood-Key` (scope `join_seats`): its handle is the
    seat's name (a body `name` must be it: 422 name_not_handle)."""
    info = keyauth.caller_key()
    if info is None:
        return None
    keyauth.require(info, JOIN_SEATS)
    name = body.get("name")
    if name is not None and name != info.handle:
        raise ApiError(
            "name_not_handle",
            f"name {name[:40]!r}: a seat joined with a key is named by its account's handle "
            f"({info.handle!r}); leave name out",
            422,
        )
    bot = keyauth.accounts().is_bot(info.handle)
    return Joiner(info.handle, bot, PLAY_RATED in info.scopes)


@blp.route("/matches/<match_id>/leave")
class Leave(MethodView):
    @blp.response(200, "SeatsChanged", headers=docs.ETAG_HEADER)
    @blp.doc(
        security=docs.SECURITY,
        parameters=[docs.IDEMPOTENCY_KEY],
        responses=docs.problems(401, 403, 404, 409, 410),
    )
    def post(self, match_id: str) -> Any:
        """Give up the caller's seat before the start (SeatLeft).

        The caller's token is dead at once, on every endpoint (401); the seat is open again.
        """
        seat = seat_required(match_id)
        key = idempotency_key()
        fp = fingerprint("leave", match_id, seat) if key else ""
        seated = lobby().leave(match_id, seat, key=key, fingerprint=fp)
        return _changed(match_id, seated, None)


@blp.route("/matches/<match_id>/cancel")
class Cancel(MethodView):
    @blp.response(200, "SeatsChanged", headers=docs.ETAG_HEADER)
    @blp.doc(
        security=docs.SECURITY,
        parameters=[docs.IDEMPOTENCY_KEY],
        responses=docs.problems(401, 403, 404, 409, 410),
    )
    def post(self, match_id: str) -> Any:
        """Cancel a match that waits for players (a seat the creator held at the create).

        MatchCancelled `cancelled_by_creator`; 409 `match_started` once it has started.
        """
        seat = seat_required(match_id)
        key = idempotency_key()
        fp = fingerprint("cancel", match_id, seat) if key else ""
        seated = lobby().cancel(match_id, seat, key=key, fingerprint=fp)
        return _changed(match_id, seated, seat)


@blp.route("/matches/<match_id>/rematch")
class Rematch(MethodView):
    @blp.response(201, "Joined", headers=docs.LOCATION_HEADER)
    @blp.alt_response(200, schema="Joined", description="the seat was claimed before")
    @blp.doc(
        security=docs.SECURITY,
        parameters=[docs.IDEMPOTENCY_KEY],
        responses=docs.problems(401, 403, 404, 409, 410),
    )
    def post(self, match_id: str) -> Any:
        """The next match of a finished one, the caller's seat in it with a fresh token.

        Every caller gets the same match (created once, however many ask at once), same
        variant and options, each previous player's seat kept for them and bot seats carried
        over; it starts when every person has asked, or is cancelled after 600 s. 409
        `rematch_not_ready` before the match finished; 200 with `token: null` when the seat
        was claimed before.
        """
        seat = seat_required(match_id)
        key = idempotency_key()
        fp = fingerprint("rematch", match_id, seat) if key else ""
        seated = lobby().rematch(match_id, seat, key=key, fingerprint=fp)
        return _seated(match_id, seated, 201 if seated.fresh else 200)


def settle(match_id: str) -> None:
    """Cancel the match first when it waits past its deadline (a lazy expiry)."""
    lobby().settle(match_id)
