"""Seats joined with an account key (issue 32 on issue 30's lobby): the seat is the account's
(its name, `account` in the views and the lobby, its rating when a rated match is rated);
a rated match's open seats need a key that plays rated; a seat reserved for an account is
its own; an account holds one seat of a match. Real Redis, real burst workers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient

from store.jobs import Queues, rating_job
from store.ledger import Ledger
from store.rebuild import ExportedLogs, StoredLogs, compute
from tests.support.api_helpers import problem
from tests.support.ladder_play import install_quick, uninstall_quick
from tests.support.workers_play import MANIP, burst
from workers.connection import set_service

CLOCK = {"mode": "per_move", "move_s": 600}


@pytest.fixture(autouse=True)
def quick(service: Any) -> Iterator[None]:
    install_quick()
    set_service(service)
    yield
    set_service(None)
    uninstall_quick()


def _account(client: FlaskClient, handle: str, kind: str = "bot") -> str:
    response = client.post("/v1/accounts", json={"handle": handle, "kind": kind})
    assert response.status_code == 201, response.get_data(as_text=True)
    return str(response.get_json()["key"]["key"])


def _narrow(client: FlaskClient, key: str, handle: str, scopes: list[str]) -> str:
    response = client.post(
        f"/v1/accounts/{handle}/keys", json={"scopes": scopes}, headers={"Deadwood-Key": key}
    )
    assert response.status_code == 201, response.get_data(as_text=True)
    return str(response.get_json()["key"])


def _rated(client: FlaskClient, key: str, seats: list[dict[str, Any]]) -> str:
    body = {"variant": MANIP, "players": seats, "options": {"rated": True}, "clock": CLOCK}
    response = client.post("/v1/matches", json=body, headers={"Deadwood-Key": key})
    assert response.status_code == 201, response.get_data(as_text=True)
    return str(response.get_json()["id"])


def test_a_keyed_join_ties_the_seat_and_the_rated_result_to_the_account(
    client: FlaskClient, service: Any, redis_client: redis.Redis, tmp_path: Path
) -> None:
    key = _account(client, "robo")
    match_id = _rated(client, key, [{"name": "h", "bot": "hasty"}, {"open": True}])
    joined = client.post(f"/v1/matches/{match_id}/join", json={}, headers={"Deadwood-Key": key})
    assert joined.status_code == 201, joined.get_data(as_text=True)
    seat = joined.get_json()["match"]["seats"][1]
    assert (seat["name"], seat["account"], seat["account_bot"]) == ("robo", "robo", True)
    token = joined.get_json()["token"]
    burst(redis_client)  # the bot plays up to the person's turn (or the person is first)
    resigned = client.post(
        f"/v1/matches/{match_id}/resign", json={}, headers={"Authorization": f"Bearer {token}"}
    )
    assert resigned.status_code == 200, resigned.get_data(as_text=True)
    burst(redis_client)
    version = service.load(match_id).version
    for _ in range(2):  # rated once however often its job runs
        Queues(redis_client).replace(rating_job(match_id, version))
        burst(redis_client)
    ledger = Ledger(redis_client)
    assert ledger.order(MANIP) == [match_id]
    skills = ledger.skills(MANIP, ["robo", "deadwood-hasty"], {})
    assert skills["robo"].games == 1 and skills["robo"].bot is True
    assert skills["robo"].mu < skills["deadwood-hasty"].mu  # the resigner ranks last
    history = ledger.history(MANIP, "robo")
    assert [(h["match"], h["seat"], h["rank"]) for h in history] == [(match_id, 1, 2)]
    log = client.get(f"/v1/matches/{match_id}/log")  # the joins are in the exported log
    (tmp_path / f"{match_id}.ndjson").write_bytes(log.get_data())
    is_bot = {"robo": True, "deadwood-hasty": True}.__getitem__
    for logs in (ExportedLogs(tmp_path), StoredLogs(redis_client)):
        state, missing = compute(MANIP, [match_id], logs, is_bot)
        assert missing == [] and state.skills == ledger.all_skills(MANIP)


def test_a_rated_open_seat_needs_a_key_that_plays_rated(client: FlaskClient) -> None:
    key = _account(client, "robo")
    other = _account(client, "ana", "human")
    narrow = _narrow(client, other, "ana", ["join_seats"])
    match_id = _rated(client, key, [{"name": "h", "bot": "hasty"}, {"open": True}])
    url = f"/v1/matches/{match_id}/join"
    problem(client.post(url, json={"name": "dee"}), 403, "rated_seat_needs_key")
    no_rated = client.post(url, json={}, headers={"Deadwood-Key": narrow})
    problem(no_rated, 403, "rated_seat_needs_key")
    no_join = _narrow(client, other, "ana", ["play_rated"])
    problem(client.post(url, json={}, headers={"Deadwood-Key": no_join}), 403, "missing_scope")
    wrong = client.post(url, json={"name": "dee"}, headers={"Deadwood-Key": other})
    problem(wrong, 422, "name_not_handle")
    problem(client.post(url, json={}), 422, "validation_error")  # no key, no name
    joined = client.post(url, json={"name": "ana"}, headers={"Deadwood-Key": other})
    assert joined.status_code == 201


def test_a_reserved_seat_is_joined_only_by_its_account(client: FlaskClient) -> None:
    key = _account(client, "robo")
    other = _account(client, "ana", "human")
    seats: list[dict[str, Any]] = [
        {"name": "h", "bot": "hasty"},
        {"open": True, "account": "robo"},
        {"open": True},
    ]
    match_id = _rated(client, key, seats)
    url = f"/v1/matches/{match_id}/join"
    lobby_seat = client.get(f"/v1/matches/{match_id}").get_json()["seats"][1]
    assert (lobby_seat["open"], lobby_seat["account"], lobby_seat["account_bot"]) == (
        True,
        "robo",
        True,
    )
    refused = client.post(url, json={"seat": 1}, headers={"Deadwood-Key": other})
    problem(refused, 403, "seat_reserved")
    first = client.post(url, json={}, headers={"Deadwood-Key": other})  # the unreserved one
    assert first.status_code == 201 and first.get_json()["seat"] == 2
    again = client.post(url, json={}, headers={"Deadwood-Key": other})
    problem(again, 409, "already_seated")
    mine = client.post(url, json={}, headers={"Deadwood-Key": key})
    assert mine.status_code == 201 and mine.get_json()["seat"] == 1
    assert mine.get_json()["match"]["lobby"]["status"] == "started"


def test_an_unrated_keyed_join_shows_the_account_in_the_lobby(client: FlaskClient) -> None:
    key = _account(client, "ana", "human")
    seats = [{"name": "x"}, {"open": True}, {"open": True}]
    body = {"variant": MANIP, "players": seats, "listed": True}
    match_id = client.post("/v1/matches", json=body).get_json()["id"]
    joined = client.post(f"/v1/matches/{match_id}/join", json={}, headers={"Deadwood-Key": key})
    assert joined.status_code == 201
    entry = next(e for e in client.get("/v1/lobby").get_json()["matches"] if e["id"] == match_id)
    assert entry["seats"][1] == {
        "seat": 1,
        "name": "ana",
        "bot": None,
        "open": False,
        "account": "ana",
        "account_bot": False,
    }
    assert entry["seats"][2]["account"] is None
    anonymous = client.post(f"/v1/matches/{match_id}/join", json={"name": "dee"})
    assert anonymous.status_code == 201  # anonymous play as before
