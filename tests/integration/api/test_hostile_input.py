"""Hostile and malformed requests: every one is a 4xx problem+json and changes nothing.

api.md Conventions: 413 over 64 KiB (8 MiB for replays), bodies nested too deep are 400 (not a
500 from the parser's recursion), wrong content types 415, unknown fields 422 with `errors`.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from api import create_app
from tests.support.api_helpers import auth, create, log_length, problem

DEEP = "[" * 30_000 + "]" * 30_000


@pytest.fixture
def match(client: Any) -> tuple[str, list[str | None]]:
    return create(client)


def _moves(client: Any, match_id: str, token: str | None, **kwargs: Any) -> Any:
    headers = {**auth(token), **kwargs.pop("headers", {})}
    return client.post(f"/v1/matches/{match_id}/moves", headers=headers, **kwargs)


def _unchanged(client: Any, service: Any, match_id: str, version: int) -> None:
    assert log_length(service, match_id) == version
    assert client.get(f"/v1/matches/{match_id}").get_json()["version"] == version


BAD_BODIES = [
    ("too large", b'{"type": "draw", "pad": "' + b"x" * 70_000 + b'"}', "application/json", 413),
    ("deep nesting", DEEP.encode(), "application/json", 400),
    ("deep objects", ('{"a":' * 5000 + "1" + "}" * 5000).encode(), "application/json", 400),
    ("33 levels", ("[" * 33 + "]" * 33).encode(), "application/json", 400),
    ("invalid utf-8", b'{"type": "discard", "card": "\xff\xfe"}', "application/json", 400),
    ("not json", b"{type: draw}", "application/json", 400),
    ("empty", b"", "application/json", 400),
    ("nan", b'{"type": "discard", "card": NaN}', "application/json", 400),
    ("huge float", b'{"type": "discard", "card": 1e999}', "application/json", 400),
    ("huge integer", b'{"type": "draw", "from": ' + b"9" * 5000 + b"}", "application/json", 400),
    ("text/plain", b'{"type": "draw", "from": "stock"}', "text/plain", 415),
    ("form", b"type=draw", "application/x-www-form-urlencoded", 415),
    ("no content type", b'{"type": "draw", "from": "stock"}', "", 415),
    ("latin-1 charset", b'{"type": "pass_upcard"}', "application/json; charset=latin-1", 415),
    ("unknown field", b'{"type": "pass_upcard", "evil": 1}', "application/json", 422),
    ("unknown type", b'{"type": "win_now"}', "application/json", 422),
    ("array", b'[{"type": "pass_upcard"}]', "application/json", 422),
    ("wrong type", b'{"type": 7}', "application/json", 422),
    ("long text", b'{"type": "advise", "text": "' + b"y" * 600 + b'"}', "application/json", 422),
    ("nested move unknown", b'{"type": "advise", "move": {"type": "draw", "x": 1}}', None, 422),
]


@pytest.mark.parametrize(
    ("name", "body", "ctype", "status"), BAD_BODIES, ids=[b[0] for b in BAD_BODIES]
)
def test_bad_move_body_is_a_problem_and_appends_nothing(
    client: Any, service: Any, match: Any, name: str, body: bytes, ctype: str | None, status: int
) -> None:
    match_id, tokens = match
    version = log_length(service, match_id)
    captain = client.get(f"/v1/matches/{match_id}").get_json()["turn"]
    headers = {"Content-Type": ctype if ctype is not None else "application/json"}
    if ctype == "":
        headers = {}
    response = _moves(client, match_id, tokens[captain], data=body, headers=headers)
    codes = {400: "bad_request", 413: "payload_too_large", 415: "unsupported_media_type"}
    found = problem(response, status, codes.get(status, "validation_error"))
    if status == 422:
        assert found["errors"], "a validation_error names the fields (api.md)"
    _unchanged(client, service, match_id, version)


def test_deeply_nested_create_body_is_400(client: Any) -> None:
    body = '{"variant": "three-hand-gin", "players": ' + DEEP + "}"
    response = client.post(
        "/v1/matches", data=body.encode(), headers={"Content-Type": "application/json"}
    )
    problem(response, 400, "bad_request")
    nested = '{"variant": "three-hand-gin", "options": ' + '{"a":' * 40 + "1" + "}" * 40 + "}"
    problem(
        client.post("/v1/matches", data=nested, content_type="application/json"), 400, "bad_request"
    )


def test_body_exactly_at_the_limit_is_read(client: Any, match: Any) -> None:
    """64 KiB is allowed; one byte more is 413."""
    match_id, tokens = match
    pad = 64 * 1024 - len(b'{"type": "advise", "text": ""}')
    at_limit = b'{"type": "advise", "text": "' + b" " * 0 + b'"}' + b" " * pad
    assert len(at_limit) == 64 * 1024
    response = _moves(client, match_id, tokens[0], data=at_limit, content_type="application/json")
    assert response.status_code != 413
    over = at_limit + b" "
    problem(
        _moves(client, match_id, tokens[0], data=over, content_type="application/json"),
        413,
        "payload_too_large",
    )


def test_create_refuses_unknown_fields_options_and_huge_seeds(
    client: Any, redis_client: Any
) -> None:
    cases = [
        ({"variant": "three-hand-gin", "players": [{"name": "a"}] * 3, "x": 1}, "x"),
        (
            {"variant": "three-hand-gin", "players": [{"name": "a", "role": "box"}] * 3},
            "players.0.role",
        ),
        ({"variant": "three-hand-gin", "players": [{"name": "a"}] * 3, "seed": 2**70}, "seed"),
        ({"variant": "three-hand-gin", "players": [{"name": "a"}] * 3, "seed": True}, "seed"),
        ({"variant": "three-hand-gin", "players": [{"name": "a"}] * 3, "seed": 1.5}, "seed"),
        ({"variant": "chess", "players": [{"name": "a"}] * 3}, "variant"),
        ({"variant": "three-hand-gin", "players": []}, "players"),
        ({"variant": "three-hand-gin", "players": [{"name": ""}] * 3}, "players.0.name"),
        (
            {"variant": "three-hand-gin", "players": [{"name": "a"}] * 3, "options": {"k": [1]}},
            "options.k.value",
        ),
    ]
    for body, field in cases:
        found = problem(client.post("/v1/matches", json=body), 422, "validation_error")
        assert any(key.startswith(field.split(".")[0]) for key in found["errors"]), found
    # the domain's own checks: unknown option, wrong player count, unknown bot
    for body in (
        {"variant": "three-hand-gin", "players": [{"name": "a"}] * 3, "options": {"nope": 1}},
        {"variant": "three-hand-gin", "players": [{"name": "a"}] * 2},
        {"variant": "manipulation-rummy", "players": [{"name": "a"}] * 6},
        {
            "variant": "three-hand-gin",
            "players": [{"name": "a"}, {"name": "b"}, {"name": "c", "bot": "zz"}],
        },
    ):
        found = problem(client.post("/v1/matches", json=body), 422, "validation_error")
    assert redis_client.keys("match:*") == [], "nothing was created"


def test_invalid_card_names_the_code(client: Any, match: Any) -> None:
    """api.md Cards: a bad code is invalid_card naming it."""
    match_id, tokens = match
    view = client.get(f"/v1/matches/{match_id}").get_json()
    captain = view["turn"]
    take = _moves(client, match_id, tokens[captain], json={"type": "take_upcard"})
    assert take.status_code == 200
    found = problem(
        _moves(client, match_id, tokens[captain], json={"type": "discard", "card": "7h"}),
        422,
        "invalid_card",
    )
    assert "7h" in found["detail"]


def test_unknown_paths_methods_and_matches_are_problems(client: Any) -> None:
    problem(client.get("/v1/nothing"), 404, "not_found")
    problem(client.get("/v1/matches/m_doesnotexist"), 404, "unknown_match")
    problem(client.get("/v1/matches/" + "x" * 300), 404, "unknown_match")
    problem(client.get("/v1/matches/m_nope/events"), 404, "unknown_match")
    found = client.delete("/v1/matches")
    problem(found, 405, "method_not_allowed")
    assert "POST" in found.headers["Allow"]
    problem(client.put("/v1/health", json={}), 405, "method_not_allowed")
    problem(
        client.post("/v1/matches/m_nope/moves", json={"type": "draw"}, headers=auth("0.x")),
        404,
        "unknown_match",
    )


def test_bad_query_parameters_are_validation_errors(client: Any, match: Any) -> None:
    match_id, _ = match
    for query in ("limit=0", "limit=1001", "after=-1", "limit=abc", "after=1e3"):
        problem(client.get(f"/v1/matches/{match_id}/events?{query}"), 422, "validation_error")
    for query in ("at=0", "at=x", "at=99"):
        problem(client.get(f"/v1/matches/{match_id}?{query}"), 422, "validation_error")


def test_bad_headers_are_refused(client: Any, service: Any, match: Any) -> None:
    match_id, tokens = match
    captain = client.get(f"/v1/matches/{match_id}").get_json()["turn"]
    version = log_length(service, match_id)
    move = {"type": "pass_upcard"}
    for key in ("", "k" * 201, "caf\u00e9", "a b"):
        response = _moves(
            client, match_id, tokens[captain], json=move, headers={"Idempotency-Key": key}
        )
        problem(response, 422, "validation_error")
    for etag in ("3", 'W/"3"', '"x"', '"1", "2"'):
        response = _moves(client, match_id, tokens[captain], json=move, headers={"If-Match": etag})
        problem(response, 412, "version_conflict")
    for seq in ("abc", "\u00b2", "1 2", "9" * 16):  # "²".isdigit() is true: no 500 for it
        problem(
            client.get(f"/v1/matches/{match_id}/events/stream", headers={"Last-Event-ID": seq}),
            422,
            "validation_error",
        )
    _unchanged(client, service, match_id, version)


def test_replay_body_limit_is_8_mib(client: Any) -> None:
    """api.md: POST /v1/replays takes up to 8 MiB; over 64 KiB is fine there."""
    big = b"[" + b" " * (100 * 1024) + b"]"
    response = client.post("/v1/replays", data=big, content_type="application/json")
    problem(response, 422, "invalid_log")
    huge = b"[" + b" " * (8 * 1024 * 1024) + b"]"
    problem(
        client.post("/v1/replays", data=huge, content_type="application/json"),
        413,
        "payload_too_large",
    )


def test_unexpected_errors_are_generic_500_without_cards(service: Any, caplog: Any) -> None:
    """No error carries a stack trace or a card; the log line names no card either."""
    app = create_app({"SERVICE": service})

    @app.get("/v1/boom")
    def boom() -> Any:
        raise KeyError("AS 7H secret hand")

    with caplog.at_level(logging.ERROR, logger="deadwood.api"):
        response = app.test_client().get("/v1/boom")
    found = problem(response, 500, "internal_error")
    text = json.dumps(found)
    assert "7H" not in text and "KeyError" not in text
    assert caplog.records and all("7H" not in r.getMessage() for r in caplog.records)


def test_store_down_is_503(service: Any) -> None:
    import redis
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    from store.service import MatchService

    dead = MatchService(
        redis.Redis(port=1, socket_connect_timeout=0.2, retry=Retry(NoBackoff(), 0))
    )
    client = create_app({"SERVICE": dead}).test_client()
    problem(client.get("/v1/health"), 503, "store_unavailable")
    problem(client.get("/v1/matches/m_x"), 503, "store_unavailable")


def test_create_reads_a_number_with_a_zero_fraction_as_that_integer(client: Any) -> None:
    """openapi.yaml's `integer` admits `7.0` (JSON Schema 2020-12); the server agrees and
    reads it as 7, so the match is the one seed 7 makes (issue 17). `1.5` stays refused."""
    players = [{"name": n} for n in "abc"]

    def made(text: str) -> Any:
        body = '{"variant": "three-hand-gin", "players": ' + json.dumps(players) + ", " + text + "}"
        response = client.post("/v1/matches", data=body, content_type="application/json")
        assert response.status_code == 201, response.get_json()
        view = client.get(f"/v1/matches/{response.get_json()['id']}").get_json()
        # the commitment's salt is the server's secret even when seeded (issue 11 item 4)
        return {k: v for k, v in view.items() if k not in ("id", "deal_commitment")}

    whole = made('"seed": 7, "options": {"target_score": 50}')
    assert made('"seed": 7.0, "options": {"target_score": 5e1}') == whole
    assert whole["options"]["target_score"] == 50
    assert made('"seed": 8, "options": {"target_score": 50}') != whole
