"""Accounts, keys and rated creates over HTTP (issue 32): a key is shown once and stored only
as a keyed hash; a revoked key is refused everywhere at once; scopes hold; a rated match
refuses a seed and a missing clock, and seats only accounts and built-in bots; anonymous play
is as before."""

from __future__ import annotations

import logging
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from api import create_app
from tests.support.api_helpers import create, problem

GIN = "three-hand-gin"
BOTS = [{"name": "e", "bot": "expert"}, {"name": "b", "bot": "basic"}]
CLOCK = {"mode": "per_move", "move_s": 60}


def _account(client: FlaskClient, handle: str = "ana", kind: str = "human") -> dict[str, Any]:
    response = client.post("/v1/accounts", json={"handle": handle, "kind": kind})
    assert response.status_code == 201, response.get_data(as_text=True)
    body: dict[str, Any] = response.get_json()
    return body


def _key(key: str) -> dict[str, str]:
    return {"Deadwood-Key": key}


def _new_key(client: FlaskClient, key: str, scopes: list[str], handle: str = "ana") -> str:
    response = client.post(
        f"/v1/accounts/{handle}/keys", json={"scopes": scopes}, headers=_key(key)
    )
    assert response.status_code == 201, response.get_data(as_text=True)
    return str(response.get_json()["key"])


def test_a_key_is_shown_once_and_stored_only_as_a_keyed_hash(
    client: FlaskClient, redis_client: redis.Redis, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    created = _account(client, kind="bot")
    key = created["key"]["key"]
    assert created["account"] == {**created["account"], "handle": "ana", "kind": "bot", "bot": True}
    assert key.startswith("dwk.ana.")
    listed = client.get("/v1/accounts/ana/keys", headers=_key(key)).get_json()["keys"]
    assert [k["id"] for k in listed] == [created["key"]["id"]]
    assert listed[0]["last_used"] is not None and "key" not in listed[0]
    secret = key.rsplit(".", 1)[1]
    for name in redis_client.keys("*"):
        kind = redis_client.type(name)
        raw: Any
        if kind == b"hash":
            raw = redis_client.hgetall(name)
        elif kind == b"string":
            raw = redis_client.get(name)
        else:
            continue
        assert secret.encode() not in repr(raw).encode(), name
    shown = client.get("/v1/accounts/ana").get_data(as_text=True)
    assert secret not in shown and secret not in caplog.text


def test_a_bot_account_is_a_bot_for_good(client: FlaskClient) -> None:
    _account(client, "robo", kind="bot")
    view = client.get("/v1/accounts/robo").get_json()
    assert view["kind"] == "bot" and view["bot"] is True
    assert view["ratings"] == {GIN: None, "manipulation-rummy": None}
    problem(
        client.post("/v1/accounts", json={"handle": "robo", "kind": "human"}), 409, "handle_taken"
    )
    problem(
        client.post("/v1/accounts", json={"handle": "deadwood-x", "kind": "bot"}),
        422,
        "invalid_handle",
    )
    expert = client.get("/v1/accounts/deadwood-expert").get_json()
    assert expert["builtin"] is True and expert["kind"] == "bot"
    problem(client.get("/v1/accounts/nobody"), 404, "unknown_account")


def test_a_revoked_key_is_refused_everywhere_at_once(client: FlaskClient) -> None:
    first = _account(client)["key"]["key"]
    second = _new_key(client, first, ["create_matches"])
    match_id, _ = create(client)
    second_id = second.split(".")[2]
    revoked = client.delete(f"/v1/accounts/ana/keys/{second_id}", headers=_key(first))
    assert revoked.get_json() == {"id": second_id, "revoked": True}
    body = {"variant": GIN, "players": [{"name": "a"}, {"name": "b"}, {"name": "c"}]}
    for method, path, json in [
        ("GET", "/v1/bots", None),
        ("GET", "/v1/health", None),
        ("GET", f"/v1/ladder/{GIN}", None),
        ("GET", "/v1/accounts/ana", None),
        ("GET", "/v1/accounts/ana/keys", None),
        ("GET", f"/v1/matches/{match_id}", None),
        ("POST", "/v1/matches", body),
        ("POST", "/v1/accounts", {"handle": "ben", "kind": "human"}),
    ]:
        response = client.open(path, method=method, json=json, headers=_key(second))
        problem(response, 401, "invalid_key")
    for bad in ("dwk.ana.nope.x", "nonsense", second[:-1] + "A", first.replace("ana", "bob")):
        problem(client.get("/v1/bots", headers=_key(bad)), 401, "invalid_key")
    assert client.get("/v1/bots", headers=_key(first)).status_code == 200


def test_scopes_hold(client: FlaskClient) -> None:
    first = _account(client)["key"]["key"]
    _account(client, "ben")
    rated_only = _new_key(client, first, ["play_rated"])
    anonymous = {"variant": GIN, "players": [{"name": "a"}, {"name": "b"}, {"name": "c"}]}
    refused = problem(
        client.post("/v1/matches", json=anonymous, headers=_key(rated_only)), 403, "missing_scope"
    )
    assert refused["scope"] == "create_matches"
    creator = _new_key(client, first, ["create_matches"])
    rated = {
        "variant": GIN,
        "players": [*BOTS, {"name": "ana", "account": "ana"}],
        "options": {"rated": True},
        "clock": CLOCK,
    }
    refused = problem(
        client.post("/v1/matches", json=rated, headers=_key(creator)), 403, "missing_scope"
    )
    assert refused["scope"] == "play_rated"
    problem(
        client.post(
            "/v1/accounts/ana/keys", json={"scopes": ["join_seats"]}, headers=_key(creator)
        ),
        403,
        "missing_scope",
    )
    problem(client.get("/v1/accounts/ben/keys", headers=_key(first)), 403, "forbidden")
    problem(client.get("/v1/accounts/ana/keys"), 401, "key_required")
    assert client.post("/v1/matches", json=anonymous, headers=_key(creator)).status_code == 201


def test_a_rated_match_refuses_a_seed_and_seats_only_accounts_and_builtin_bots(
    client: FlaskClient,
) -> None:
    key = _account(client)["key"]["key"]
    own = {"name": "ana", "account": "ana"}
    body: dict[str, Any] = {
        "variant": GIN,
        "players": [*BOTS, own],
        "options": {"rated": True},
        "clock": CLOCK,
    }
    problem(
        client.post("/v1/matches", json={**body, "seed": 7}, headers=_key(key)),
        422,
        "rated_match_seeded",
    )
    anonymous = {**body, "players": [*BOTS, {"name": "x"}]}
    problem(
        client.post("/v1/matches", json=anonymous, headers=_key(key)), 422, "rated_seat_not_account"
    )
    other = {**body, "players": [*BOTS, {"name": "ben", "account": "ben"}]}
    problem(client.post("/v1/matches", json=other, headers=_key(key)), 403, "forbidden")
    problem(client.post("/v1/matches", json=body), 401, "key_required")
    created = client.post("/v1/matches", json=body, headers=_key(key))
    assert created.status_code == 201, created.get_data(as_text=True)
    seats = created.get_json()["seats"]
    assert seats[2]["token"] is not None and created.get_json()["options"]["rated"] is True


def test_a_rated_match_without_a_clock_is_refused_and_nothing_is_written(
    client: FlaskClient, redis_client: redis.Redis
) -> None:
    key = _account(client)["key"]["key"]
    body = {"variant": GIN, "players": [*BOTS, {"name": "ana", "account": "ana"}]}
    before = sorted(redis_client.scan_iter("match:*"))
    refused = problem(
        client.post("/v1/matches", json={**body, "options": {"rated": True}}, headers=_key(key)),
        422,
        "rated_match_needs_clock",
    )
    assert "clock" in refused["detail"] and "rated" in refused["detail"]
    assert sorted(redis_client.scan_iter("match:*")) == before
    unrated = client.post("/v1/matches", json=body, headers=_key(key))
    assert unrated.status_code == 201, unrated.get_data(as_text=True)


def test_anonymous_play_is_as_before(client: FlaskClient) -> None:
    match_id, tokens = create(client)
    assert client.get(f"/v1/matches/{match_id}").get_json()["options"]["rated"] is False
    response = client.get(
        f"/v1/matches/{match_id}/legal-moves", headers={"Authorization": f"Bearer {tokens[0]}"}
    )
    assert response.status_code == 200


@pytest.fixture
def limited(service: Any) -> Flask:
    return create_app({"TESTING": True, "SERVICE": service, "RATELIMIT_KEY": "3 per minute"})


def test_a_key_over_its_limit_gets_a_machine_readable_429(limited: Flask) -> None:
    client = limited.test_client()
    key = _account(client)["key"]["key"]
    for _ in range(3):
        assert client.get("/v1/bots", headers=_key(key)).status_code == 200
    response = client.get("/v1/bots", headers=_key(key))
    body = problem(response, 429, "rate_limited")
    assert body["scope"] == "key" and body["limit"] == "3 per 1 minute"
    assert int(response.headers["Retry-After"]) == body["retry_after"] >= 1
    assert client.get("/v1/bots").status_code == 200  # anonymous: not this key's limit


def test_the_python_client_makes_and_uses_keys(app: Flask) -> None:
    import httpx

    from deadwood_client.client import Client
    from deadwood_client.errors import DeadwoodError

    transport = httpx.WSGITransport(app=app)
    with Client("http://test", transport=transport) as anonymous:
        made = anonymous.accounts.create("cli_bot", "bot")
    key = made["key"]["key"]
    with Client("http://test", key=key, transport=transport) as me:
        extra = me.accounts.create_key("cli_bot", ["play_rated"], label="ladder")
        assert [k["label"] for k in me.accounts.keys("cli_bot")] == ["first key", "ladder"]
        assert me.accounts.get("cli_bot")["bot"] is True
        assert me.accounts.ladder(GIN)["rows"] == []
        me.accounts.revoke_key("cli_bot", extra["id"])
    with Client("http://test", key=extra["key"], transport=transport) as revoked:
        with pytest.raises(DeadwoodError) as refused:
            revoked.bots()
        assert refused.value.status == 401


def test_deadwood_account_and_ladder_commands(
    app: Flask, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import argparse

    import httpx

    from cli import ladder as cli_ladder
    from cli.up import main
    from deadwood_client.client import Client

    def served(args: argparse.Namespace) -> Client:
        return Client("http://test", key=args.key, transport=httpx.WSGITransport(app=app))

    monkeypatch.setattr(cli_ladder, "client", served)
    assert main(["account", "create", "cmd_bot", "--kind", "bot"]) == 0
    out = capsys.readouterr().out
    assert "account cmd_bot (bot)" in out and "shown only this once" in out
    key = out.strip().splitlines()[-1]
    assert main(["account", "new-key", "cmd_bot", "--scope", "play_rated", "--key", key]) == 0
    assert "play_rated" in capsys.readouterr().out
    assert main(["account", "keys", "cmd_bot", "--key", key]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert len(listed) == 2 and key.split(".")[2] in listed[0]
    assert main(["account", "show", "cmd_bot"]) == 0
    assert "three-hand-gin: not rated" in capsys.readouterr().out
    assert main(["ladder", "show", GIN]) == 0
    assert "0 accounts" in capsys.readouterr().out
    assert main(["account", "keys", "cmd_bot"]) == 1  # no key: refused, said on stderr
    assert "key" in capsys.readouterr().err
