"""Accounts and their keys (issue 32): make one, see one (with its ratings), list, add and
revoke keys. A key is in the answer of the call that makes it and nowhere else."""

# mypy: disable-error-code="untyped-decorator"
from __future__ import annotations

from typing import Any

from flask.views import MethodView
from flask_smorest import Blueprint

from api import docs
from api.body import BodyParser
from api.common import json_response
from api.errors import ApiError
from api.keyauth import accounts, own_account
from api.schemas_accounts import (
    AccountViewSchema,
    CreateAccountSchema,
    CreatedAccountSchema,
    CreateKeySchema,
    KeysSchema,
    NewKeySchema,
    RevokedSchema,
)
from domain.accounts import check_handle, check_scopes, is_builtin
from domain.errors import InvalidOptions
from domain.variants import NAMES
from store.ledger import Ledger

blp = Blueprint("accounts", __name__, url_prefix="/v1/accounts", description="Accounts")
blp.ARGUMENTS_PARSER = BodyParser()

KEY_SECURITY: list[dict[str, list[str]]] = [{"accountKey": []}]


@blp.route("")
class Accounts(MethodView):
    @blp.arguments(CreateAccountSchema)
    @blp.response(201, CreatedAccountSchema)
    @blp.doc(responses=docs.problems(409, 413, 415, 400, 422, 429))
    def post(self, body: dict[str, Any]) -> Any:
        """Create an account and its first key (every scope), shown this once.

        `kind: "bot"` marks a program's account as a bot for good: every view of it, and its
        ladder rows, say so. Keep the key secret; make narrower keys with POST .../keys.
        """
        account, key, info = accounts().create(body["handle"], body["kind"])
        payload = {"account": account.as_json(), "key": {**info.as_json(), "key": key}}
        return json_response(payload, 201)


@blp.route("/<handle>")
class Account(MethodView):
    @blp.response(200, AccountViewSchema)
    @blp.doc(responses=docs.problems(404))
    def get(self, handle: str) -> Any:
        """The account (its kind for good) with its rating and recent history per variant."""
        found = _account(handle)
        ledger = Ledger(accounts().redis)
        ratings: dict[str, Any] = {}
        history: dict[str, Any] = {}
        for variant in NAMES:
            skill = ledger.skills(variant, [handle], {}).get(handle)
            rated = skill is not None and skill.games > 0
            ratings[variant] = skill.as_json() if rated and skill is not None else None
            history[variant] = ledger.history(variant, handle)
        return json_response({**found.as_json(), "ratings": ratings, "history": history})


@blp.route("/<handle>/keys")
class Keys(MethodView):
    @blp.response(200, KeysSchema)
    @blp.doc(security=KEY_SECURITY, responses=docs.problems(401, 403, 404))
    def get(self, handle: str) -> Any:
        """The account's keys (never the keys themselves): scopes, label, when last used."""
        own_account(handle)
        return json_response({"keys": [k.as_json() for k in accounts().keys(handle)]})

    @blp.arguments(CreateKeySchema)
    @blp.response(201, NewKeySchema)
    @blp.doc(security=KEY_SECURITY, responses=docs.problems(401, 403, 404, 409, 422))
    def post(self, body: dict[str, Any], handle: str) -> Any:
        """A new key with some scopes, shown this once. A key makes keys only within its
        own scopes."""
        caller = own_account(handle)
        scopes = check_scopes(body["scopes"])
        beyond = [s for s in scopes if s not in caller.scopes]
        if beyond:
            raise ApiError(
                "missing_scope",
                f"this key cannot give the scope {beyond[0]!r}",
                403,
                scope=beyond[0],
            )
        key, info = accounts().add_key(handle, scopes, body["label"])
        return json_response({**info.as_json(), "key": key}, 201)


@blp.route("/<handle>/keys/<key_id>")
class Key(MethodView):
    @blp.response(200, RevokedSchema)
    @blp.doc(security=KEY_SECURITY, responses=docs.problems(401, 403, 404))
    def delete(self, handle: str, key_id: str) -> Any:
        """Revoke a key: every request with it is refused from now on (401 invalid_key)."""
        own_account(handle)
        if not accounts().revoke(handle, key_id[:64]):
            raise ApiError("unknown_key", f"the account has no key {key_id[:64]!r}", 404)
        return json_response({"id": key_id, "revoked": True})


def _account(handle: str) -> Any:
    try:
        check_handle(handle)
    except InvalidOptions:
        raise ApiError(
            "unknown_account", f"no account has the handle {handle[:40]!r}", 404
        ) from None
    if is_builtin(handle):
        accounts().ensure_builtin_bots()
    return accounts().get(handle)
