"""The reference's examples (issue 29): every operation shows a request and a response, every
move has an example, each example fits its schema, and the examples of one seeded match are
what the app answers for it (api/examples.py)."""

from __future__ import annotations

from typing import Any

import jsonschema_rs
import pytest

from api import create_app, examples, examples_replay
from api.contract_moves import MOVES
from api.docs import MOVE_EXAMPLES
from api.spec import spec_dict

DOCUMENT = spec_dict(create_app({"SERVICE": object()}))
OPERATIONS = [
    (method, path, operation)
    for path, item in DOCUMENT["paths"].items()
    for method, operation in item.items()
    if isinstance(operation, dict) and "responses" in operation
]


def _values(content: dict[str, Any]) -> list[Any]:
    if "example" in content:
        return [content["example"]]
    return [named["value"] for named in content.get("examples", {}).values()]


@pytest.mark.parametrize(
    "method, path, operation", OPERATIONS, ids=[f"{m} {p}" for m, p, _ in OPERATIONS]
)
def test_every_operation_shows_a_request_and_a_response(
    method: str, path: str, operation: dict[str, Any]
) -> None:
    for media, content in operation.get("requestBody", {}).get("content", {}).items():
        assert _values(content), f"{method} {path}: no example of the {media} body"
    shown = [
        status
        for status, response in operation["responses"].items()
        if status.startswith("2")
        for content in response.get("content", {}).values()
        if _values(content)
    ]
    assert shown, f"{method} {path}: no example of a successful response"


def test_every_move_has_an_example() -> None:
    examples: dict[str, Any] = MOVE_EXAMPLES
    shown = {(e["value"]["type"], "from" in e["value"]) for e in examples.values()}
    for schema in MOVES.values():
        kind = schema["properties"]["type"]["const"]
        assert any(k == kind for k, _ in shown), kind
    assert {("draw", True), ("draw", False)} <= shown  # gin's draw and manipulation's


def _examples_with_schemas() -> list[Any]:
    found = []
    for method, path, operation in OPERATIONS:
        bodies = [("request", operation.get("requestBody", {}))]
        bodies += [(status, response) for status, response in operation["responses"].items()]
        for where, body in bodies:
            for media, content in body.get("content", {}).items():
                if "json" in media and "schema" in content:
                    for value in _values(content):
                        where_ = f"{method} {path} {where} {media}"
                        found.append(pytest.param(content["schema"], value, id=where_))
    return found


@pytest.mark.parametrize("shape, value", _examples_with_schemas())
def test_each_example_fits_its_schema(shape: Any, value: Any) -> None:
    validator = jsonschema_rs.validator_for({**shape, "components": DOCUMENT["components"]})
    errors = [f"{e.instance_path}: {e.message}" for e in validator.iter_errors(value)]
    assert not errors, errors[:5]


def _masked(value: Any) -> Any:
    """`value` without what differs from one run to the next: ids, tokens, times, salts."""
    if isinstance(value, dict):
        hidden = ("id", "token", "at", "deal_commitment")
        return {k: "*" if k in hidden else _masked(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_masked(v) for v in value]
    return value


def test_the_walkthrough_examples_are_what_the_app_answers(client: Any) -> None:
    """Create, view, legal moves, move and events, as the examples show them."""
    created = client.post("/v1/matches", json=examples.CREATE)
    assert created.status_code == 201
    assert _masked(created.get_json()) == _masked(examples.CREATED)
    match_id = created.get_json()["id"]
    tokens = [seat["token"] for seat in created.get_json()["seats"]]
    captain = {"Authorization": f"Bearer {tokens[2]}"}
    view = client.get(f"/v1/matches/{match_id}", headers=captain).get_json()
    assert _masked(view) == _masked(examples.GIN_VIEW)
    legal = client.get(f"/v1/matches/{match_id}/legal-moves", headers=captain).get_json()
    assert legal == examples.LEGAL_MOVES
    moved = client.post(
        f"/v1/matches/{match_id}/moves",
        json={"type": "pass_upcard"},
        headers={**captain, "If-Match": '"3"'},
    )
    assert _masked(moved.get_json()) == _masked(examples.MOVE_RESULT)
    box = {"Authorization": f"Bearer {tokens[1]}"}
    client.post(f"/v1/matches/{match_id}/moves", json={"type": "pass_upcard"}, headers=box)
    client.post(
        f"/v1/matches/{match_id}/moves", json=MOVE_EXAMPLES["draw_gin"]["value"], headers=captain
    )
    page = client.get(f"/v1/matches/{match_id}/events?after=3&limit=3", headers=captain)
    assert _masked(page.get_json()) == _masked(examples.EVENTS_PAGE)
    stale = client.post(
        f"/v1/matches/{match_id}/moves", json={"type": "draw", "from": "stock"}, headers=box
    )
    assert stale.get_json()["detail"] == examples.NOT_YOUR_TURN["detail"]


def test_the_replay_example_replays_to_its_response(client: Any) -> None:
    answer = client.post("/v1/replays", json=examples_replay.REPLAY_LOG)
    assert answer.status_code == 200, answer.get_json()
    assert answer.get_json() == examples_replay.REPLAY_RESULT


def test_every_query_argument_is_documented() -> None:
    """Each `@blp.arguments(..., location="query")` field is a query parameter of its
    operation (flask-smorest drops them when `@blp.doc` gives parameters of its own)."""
    app = create_app({"SERVICE": object()})
    checked = 0
    for rule in app.url_map.iter_rules():
        view_class = getattr(app.view_functions[rule.endpoint], "view_class", None)
        path = rule.rule.replace("<", "{").replace(">", "}")
        for method in ("get", "post"):
            doc = getattr(getattr(view_class, method, None), "_apidoc", {})
            for argument in doc.get("arguments", {}).get("parameters", []):
                if argument["in"] != "query":
                    continue
                schema = argument["schema"]
                fields = (schema if isinstance(schema, type) else type(schema))().fields
                listed = {
                    p["name"]
                    for p in DOCUMENT["paths"][path][method].get("parameters", [])
                    if p["in"] == "query"
                }
                assert {f.data_key or name for name, f in fields.items()} <= listed, path
                checked += 1
    assert checked >= 4  # the view's ?at=, the events page, the stream, the replay
