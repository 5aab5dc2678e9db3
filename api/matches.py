"""Matches: create one, see it (now or `?at=` a past event), and its legal moves."""

# mypy: disable-error-code="untyped-decorator"
from __future__ import annotations

from typing import Any

from flask import url_for
from flask.views import MethodView
from flask_smorest import Blueprint

from api import docs, keyauth
from api.body import BodyParser, direct_query
from api.common import (
    CREATE_KEY_MIN,
    add_clock,
    caller_seat,
    fingerprint,
    idempotency_key,
    json_response,
    render_view,
    service,
    settled,
)
from api.errors import ApiError
from api.schemas import CreateMatchSchema, ViewQuerySchema
from domain.accounts import CREATE_MATCHES, PLAY_RATED
from store.lobby import lobby_service

blp = Blueprint("matches", __name__, url_prefix="/v1/matches", description="Matches and views")
blp.ARGUMENTS_PARSER = BodyParser()  # the body as read_body decoded it (`3.0` is 3)


@blp.route("")
class Matches(MethodView):
    @blp.arguments(CreateMatchSchema, examples=docs.CREATE_EXAMPLES)
    @blp.response(201, "Created", headers=docs.LOCATION_HEADER)
    @blp.doc(
        parameters=[docs.CREATE_IDEMPOTENCY_KEY],
        security=[{}, {"accountKey": []}],
        responses=docs.problems(401, 403, 413, 415, 400, 422),
    )
    def post(self, body: dict[str, Any]) -> Any:
        """Create a match.

        Returns one bearer token per human seat, once. With an `Idempotency-Key` a repeat of
        the same request returns the same match and tokens, so that key is a secret: at least
        16 characters, random, never shared or logged. A seeded match is reproducible, not
        secret (see Fair deals).

        With a `Deadwood-Key` (scope `create_matches`) a seat may name the caller's own
        `account`. A rated match (`options.rated: true`) needs a key with `play_rated` too,
        takes no seed, and seats only accounts and built-in bots.
        """
        key = idempotency_key(CREATE_KEY_MIN)
        created = _create(body, key)
        view = created.variant.view(created.state, None)
        seats = [
            {
                "seat": s["seat"],
                "name": s["name"],
                "bot": s.get("bot"),
                "token": token,
                "open": s["open"],
            }
            for s, token in zip(view["seats"], created.tokens, strict=True)
        ]
        payload = {
            "id": created.match_id,
            "variant": view["variant"],
            "version": created.version,
            "seeded": view["seeded"],
            "options": view["options"],
            "seats": seats,
            "lobby": view["lobby"],
        }
        response = json_response(payload, 201, created.version)
        response.headers["Location"] = url_for("matches.Match", match_id=created.match_id)
        return response


def seated_players(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The players of a create, each with the account it names. A caller with a key needs
    its `create_matches` scope; a seat may name only the caller's own account (another
    account takes its seat through the lobby's join, issue 30); a rated match needs
    `play_rated` (the domain checks the rest: domain/rated.py)."""
    caller = keyauth.caller_key()
    if caller is not None:
        keyauth.require(caller, CREATE_MATCHES)
    if body["options"].get("rated") is True:
        caller = keyauth.key_required(PLAY_RATED)
    players = []
    for seat, player in enumerate(body["players"]):
        if player.get("open"):
            players.append(_open_seat(player.get("account")))
            continue
        entry = {"name": player["name"], "bot": player.get("bot")}
        account = player.get("account")
        if account is not None:
            if caller is None or account != caller.handle:
                raise ApiError(
                    "forbidden", f"player {seat} may name only the caller's own account", 403
                )
            entry["account"] = account
        players.append(entry)
    return players


def _open_seat(account: str | None) -> dict[str, Any]:
    """An open seat, reserved for `account` when one is named (issue 32: only its key joins)."""
    if account is None:
        return {"open": True}
    return {"open": True, "account": account, "account_bot": keyauth.accounts().is_bot(account)}


def _create(body: dict[str, Any], key: str | None) -> Any:
    """A match with every seat given (store/service.py), or one with open seats that waits
    for its players (store/lobby.py)."""
    keyed = fingerprint("create", body) if key else None
    if any(p.get("open") for p in body["players"]):
        return lobby_service(service()).create(
            body["variant"],
            seated_players(body),
            body["options"],
            body["seed"],
            listed=body["listed"],
            ttl_s=body["lobby_ttl_s"],
            idempotency_key=key,
            fingerprint=keyed,
            clock_options=body.get("clock"),
        )
    return service().create_match(
        body["variant"], seated_players(body), body["options"], body["seed"], idempotency_key=key,
        fingerprint=keyed, clock_options=body.get("clock"),
    )  # fmt: skip


@blp.route("/<match_id>")
class Match(MethodView):
    @direct_query  # without a query string: the method itself, not the wrappers below
    @blp.arguments(ViewQuerySchema(), location="query")  # one instance, reused
    @blp.response(200, "View", headers=docs.ETAG_HEADER)
    @blp.doc(security=docs.SECURITY, responses=docs.problems(401, 404, 422))
    def get(self, query: dict[str, Any], match_id: str) -> Any:
        """The match as the caller may see it; `?at=<seq>`: right after event `seq`."""
        seat = caller_seat(match_id)
        loaded = settled(match_id)
        version = loaded.version
        at = query.get("at")
        if at is not None and at != version:
            if at > version:
                raise ApiError(
                    "validation_error",
                    f"at={at} is past the match's last event ({version})",
                    422,
                    errors={"at": [f"must be at most {version}"]},
                )
            loaded = service().load(match_id, at=at)
        view = render_view(match_id, loaded.variant, loaded.state, seat)
        add_clock(view, match_id, loaded.turn)
        return json_response(view, 200, loaded.version)


@blp.route("/<match_id>/legal-moves")
class LegalMoves(MethodView):
    @blp.response(200, "LegalMoves", headers=docs.ETAG_HEADER)
    @blp.doc(security=docs.SECURITY, responses=docs.problems(401, 404))
    def get(self, match_id: str) -> Any:
        """The moves the caller's seat may make now (an empty list when none, or a spectator)."""
        seat = caller_seat(match_id)
        loaded = settled(match_id)
        moves = [] if seat is None else loaded.variant.legal_moves(loaded.state, seat)
        body = {"version": loaded.version, "seat": seat, "moves": moves}
        return json_response(body, 200, loaded.version)
