"""The small hostile-input items of issue 11 (item 7), against the app as gunicorn serves it
(the worker class of `deadwood up`). Every refusal is problem+json with a stable code and a
detail naming the input (api.md Conventions)."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.e2e.test_hostile_served import problem, raw_request
from tests.support.reliability_procs import PrivateRedis, Stack

PLAYERS = [{"name": "ana"}, {"name": "ben"}, {"name": "cy"}]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    base = tmp_path_factory.mktemp("small-hostile")
    private_redis = PrivateRedis(base / "redis", appendonly=False)
    private_redis.start()
    stack = Stack(base, private_redis.url)
    try:
        api = stack.start_api(workers=1)
        with httpx.Client(base_url=stack.base_url, timeout=10) as http:
            body = {"variant": "three-hand-gin", "players": PLAYERS, "seed": 5}
            yield {
                "port": api.port,
                "http": http,
                "match": http.post("/v1/matches", json=body).json(),
            }
    finally:
        stack.stop()
        private_redis.stop()


def _problem(answer: httpx.Response, status: int, code: str) -> dict[str, Any]:
    found = problem(answer.status_code, dict(answer.headers), answer.content)
    assert (found["status"], found["code"]) == (status, code), found
    return found


def _text(players: str, tail: str = "") -> str:
    """A create body as text (it may hold what json.dumps would never write)."""
    return '{"variant": "three-hand-gin", "players": ' + players + tail + "}"


def _create(served: dict[str, Any], text: str, **headers: str) -> httpx.Response:
    http: httpx.Client = served["http"]
    sent = {"Content-Type": "application/json", **headers}
    return http.post("/v1/matches", content=text.encode(), headers=sent)


@pytest.mark.parametrize(
    ("name", "what"),
    [
        ("an\\u0007a", "control"),
        ("ana\\u0000", "control"),
        ("bob\\u202egpj.exe", "bidi"),
        ("\\u2066ana\\u2069", "bidi"),
        ("ana\\ud800", "surrogate"),
        ("\\udfffben", "surrogate"),
    ],
)
def test_names_with_control_bidi_or_lone_surrogate_characters_are_422(
    served: dict[str, Any], name: str, what: str
) -> None:
    """api.md Conventions (validation errors name the field): a seat name shown to others
    must not hide or reorder text around it."""
    players = '[{"name": "cy"}, {"name": "' + name + '"}, {"name": "dee"}]'
    found = _problem(
        _create(served, _text(players)),
        422,
        "validation_error",
    )
    assert list(found["errors"]) == ["players.1.name"], found
    assert what in found["errors"]["players.1.name"][0], found


def test_plain_names_in_any_script_are_accepted(served: dict[str, Any]) -> None:
    players = [{"name": "Zoë"}, {"name": "李雷"}, {"name": "👩‍💻 ana"}]
    answer = served["http"].post(
        "/v1/matches", json={"variant": "three-hand-gin", "players": players}
    )
    assert answer.status_code == 201, answer.text
    assert [seat["name"] for seat in answer.json()["seats"]] == [p["name"] for p in players]


def test_a_key_twice_in_one_object_is_400_bad_request(served: dict[str, Any]) -> None:
    text = _text(json.dumps(PLAYERS), ', "seed": 1, "seed": 2')
    found = _problem(_create(served, text), 400, "bad_request")
    assert '"seed" appears twice' in found["detail"], found


def test_a_number_out_of_range_is_named(served: dict[str, Any]) -> None:
    text = _text(json.dumps(PLAYERS), ', "seed": 1e400')
    found = _problem(_create(served, text), 400, "bad_request")
    assert "1e400" in found["detail"] and "out of range" in found["detail"], found


def test_a_gzip_body_is_415(served: dict[str, Any]) -> None:
    body = json.dumps({"variant": "three-hand-gin", "players": PLAYERS}).encode()
    answer = served["http"].post(
        "/v1/matches",
        content=gzip.compress(body),
        headers={"Content-Type": "application/json", "Content-Encoding": "gzip"},
    )
    found = _problem(answer, 415, "unsupported_media_type")
    assert "gzip" in found["detail"], found


def test_an_over_long_request_line_is_problem_json_414(served: dict[str, Any]) -> None:
    head = f"GET /v1/health?pad={'a' * 6000} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    status, headers, body = raw_request(served["port"], head.encode())
    found = problem(status, headers, body)
    assert (found["status"], found["code"]) == (414, "uri_too_long"), found


def test_a_hint_on_an_unknown_match_is_404_for_everyone(served: dict[str, Any]) -> None:
    http: httpx.Client = served["http"]
    token = served["match"]["seats"][0]["token"]
    for headers in ({}, {"Authorization": f"Bearer {token}"}, {"Authorization": "Bearer x"}):
        _problem(http.get("/v1/matches/m_nosuchmatch/hint", headers=headers), 404, "unknown_match")


def test_an_idempotency_key_of_another_seat_says_so(served: dict[str, Any]) -> None:
    """api.md Idempotency: a key belongs to the seat that used it first."""
    http: httpx.Client = served["http"]
    match = served["match"]
    tokens = [seat["token"] for seat in match["seats"]]
    turn = http.get(f"/v1/matches/{match['id']}").json()["turn"]
    mine = {"Authorization": f"Bearer {tokens[turn]}", "Idempotency-Key": "k-11-seat-test-0001"}
    move = {"type": "pass_upcard"}
    first = http.post(f"/v1/matches/{match['id']}/moves", json=move, headers=mine)
    assert first.status_code == 200, first.text
    for other in {*range(3)} - {turn}:
        theirs = {**mine, "Authorization": f"Bearer {tokens[other]}"}
        answer = http.post(f"/v1/matches/{match['id']}/moves", json=move, headers=theirs)
        found = _problem(answer, 422, "idempotency_key_reused")
        assert "another seat" in found["detail"], found


@pytest.mark.parametrize(
    ("path", "headers", "field"),
    [
        ("/v1/matches/{id}?at=\u0661", {}, "at"),
        ("/v1/matches/{id}/events?after=\u0661", {}, "after"),
        ("/v1/matches/{id}/events?limit=\u0665", {}, "limit"),
        ("/v1/matches/{id}/events?limit=1_0", {}, "limit"),
        ("/v1/matches/{id}/events/stream?after=\u0661", {}, "after"),
        # a header arrives as latin-1, where superscript two is a digit to str.isdigit
        ("/v1/matches/{id}/events/stream", {"Last-Event-ID": "\u00b2"}, "Last-Event-ID"),
    ],
)
def test_query_integers_in_other_digits_are_refused(
    served: dict[str, Any], path: str, headers: dict[str, str], field: str
) -> None:
    http: httpx.Client = served["http"]
    sent = {k: v.encode("latin-1") for k, v in headers.items()}
    # latin-1 bytes on purpose: the header values no str could carry
    answer = http.get(path.format(id=served["match"]["id"]), headers=sent)  # type: ignore[arg-type]
    found = _problem(answer, 422, "validation_error")
    assert field in found["errors"], found
