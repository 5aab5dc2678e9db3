"""openapi.yaml is exact (issues 4, 17): the committed file equals what the app generates, and
bounded schemathesis runs against the app (in process, fixed seed) report no failure of any
check: a stateless pass over every operation, and a stateful pass that follows the links
from `POST /v1/matches` (the id and each seat's token) into every match operation.
Regenerate the file with `make openapi`.

Every check runs, positive_data_acceptance included: a create body that fits the schema is
accepted (the per-variant schemas carry the player counts and the options). Two operations
take documented rule refusals of schema-valid input, as openapi.yaml says: a move may be
illegal (422 illegal_move, 412 for a stale If-Match) and a replayed log may break the rules
(422 invalid_log), and `?at=` may name an event past the match's last (422)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
import schemathesis
import yaml
from hypothesis import HealthCheck, Phase, settings
from hypothesis.stateful import run_state_machine_as_test

from api import create_app
from api.spec import spec_dict
from tests.support.contract_checks import contract_config

OPENAPI = Path(__file__).resolve().parents[3] / "openapi.yaml"


def test_committed_openapi_matches_the_app() -> None:
    committed = yaml.safe_load(OPENAPI.read_text())
    generated = json.loads(json.dumps(spec_dict(create_app({"SERVICE": object()}))))
    assert committed == generated, "openapi.yaml is stale: run `make openapi`"


def test_openapi_documents_every_route_and_problem() -> None:
    """Every route of the app is in the document (but the browser pages of api/pages.py),
    every operation lists problem responses, and the prose covers the event types and the
    commitment layout."""
    app = create_app({"SERVICE": object()})
    document = spec_dict(app)
    paths = document["paths"]
    for rule in app.url_map.iter_rules():
        if rule.endpoint in (
            "static",
            "api-docs.openapi_json",
            "metrics.scrape",  # GET /metrics: Prometheus text, off /v1 (README "Metrics")
        ) or rule.endpoint.startswith("pages."):
            continue
        path = rule.rule.replace("<", "{").replace(">", "}")
        assert path in paths, path
        assert rule.methods is not None
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            responses = paths[path][method.lower()]["responses"]
            assert "application/problem+json" in responses["default"]["content"]
    text = document["info"]["description"]
    for needle in ("RoundDealt", "TableMelded", "AdviceGiven", 'salt + ":" + " ".join(deck)'):
        assert needle in text


def test_request_schemas_give_defaults_in_words_and_views_keep_them() -> None:
    """openapi-typescript (default settings) types a property with `default` as required,
    in requests too, so `options: {target_score: 25}` would not compile (issue 29). No schema
    a request body reaches has a `default`; each input option says its default in words, the
    domain's; the views' options keep `default`, as the domain fills every one in."""
    from api.contract import _reached
    from domain.gin import options as gin_options
    from domain.manipulation import options as manip_options

    document = spec_dict(create_app({"SERVICE": object()}))
    schemas = document["components"]["schemas"]
    reached = _reached(document["paths"], schemas)
    assert {"CreateGinMatch", "GinOptionsInput", "ManipulationOptionsInput"} <= reached
    assert "ReplayEvent" in reached
    for name in reached:
        for key, member in schemas[name].get("properties", {}).items():
            assert "default" not in member, (name, key)
    for module, name in ((gin_options, "Gin"), (manip_options, "Manipulation")):
        given = schemas[f"{name}OptionsInput"]["properties"]
        shown = schemas[f"{name}Options"]["properties"]
        assert set(given) == set(shown) == set(module.DEFAULTS)
        for key, default in module.DEFAULTS.items():
            if key == "max_rounds":  # computed from target_score when not given
                assert "max(20, target_score //" in given[key]["description"], key
                continue
            assert f"Default: `{json.dumps(default)}`." in given[key]["description"], key
            assert shown[key]["default"] == default, key


@schemathesis.serializer("application/x-ndjson")
def _ndjson(ctx: Any, value: Any) -> bytes:
    items = value if isinstance(value, list) else [value]
    return "".join(json.dumps(item) + "\n" for item in items).encode()


class _ServiceSlot:
    """The schemathesis app is built at import time; each test puts its service in here."""

    target: Any = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.target, name)


SLOT = _ServiceSlot()
APP = create_app({"SERVICE": SLOT, "SSE_HEARTBEAT_SECONDS": 0.05, "SSE_MAX_SECONDS": 0.2})
schema = schemathesis.openapi.from_path(str(OPENAPI), config=contract_config())
schema.app = APP


@pytest.fixture(autouse=True)
def _slot(service: Any) -> Any:
    from rq import SimpleWorker

    SLOT.target = service
    # /v1/health/ready answers 200 only with a live rq worker: a registered one stands in
    worker = SimpleWorker(["scoring"], connection=service.queues.connection)
    worker.register_birth()  # type: ignore[no-untyped-call]
    yield
    worker.register_death()  # type: ignore[no-untyped-call]
    SLOT.target = None


@schema.parametrize()
@settings(
    max_examples=25,
    derandomize=True,
    deadline=None,
    phases=(Phase.explicit, Phase.generate),
    suppress_health_check=list(HealthCheck),
)
def test_schemathesis_finds_no_failure_of_any_check(case: Any) -> None:
    """Every check, on made-up match ids and without credentials."""
    case.call_and_validate()


STATEFUL_EXAMPLES = 300 if os.environ.get("DEADWOOD_SOAK") == "1" else 45
"""`make soak` runs many times the scenarios (45: the links reach every operation, with
abort, resign and claim among them since issue 31)."""
STEPS = {"calls": 0}
REACHED: set[str] = set()


class _Machine(schema.as_state_machine()):  # type: ignore[misc]
    def after_call(self, response: Any, case: Any) -> None:
        super().after_call(response, case)
        STEPS["calls"] += 1
        if response.status_code not in (401, 404):  # the link's id (and token) were real
            REACHED.add(f"{case.method.upper()} {case.path}")


def test_stateful_links_reach_every_match_operation_with_no_failure() -> None:
    """The links of POST /v1/matches carry the new id and each seat's token into every match
    operation; every check holds on every step, and every match operation is reached with a
    real match (neither 404 nor 401)."""
    REACHED.clear()
    run_state_machine_as_test(
        _Machine,
        settings=settings(
            max_examples=STATEFUL_EXAMPLES,
            stateful_step_count=6,
            derandomize=True,
            deadline=None,
            suppress_health_check=list(HealthCheck),
        ),
    )
    print(f"\nstateful: {STEPS['calls']} calls, reached {sorted(REACHED)}")
    for path in ("", "/legal-moves", "/events", "/events/stream", "/log", "/hint"):
        assert f"GET /v1/matches/{{match_id}}{path}" in REACHED, sorted(REACHED)
    assert "POST /v1/matches/{match_id}/moves" in REACHED, sorted(REACHED)


def _expression(text: str, body: Any) -> str:
    """An OpenAPI runtime expression of a link (`$response.body#/id`, or one in braces inside
    a string) read from the response body."""

    def pointer(expression: str) -> str:
        value = body
        for part in expression.removeprefix("$response.body#/").split("/"):
            value = value[int(part)] if isinstance(value, list) else value[part]
        return str(value)

    if text.startswith("$response.body#/"):
        return pointer(text)
    head, _, rest = text.partition("{")
    inner, _, tail = rest.partition("}")
    return head + pointer(inner) + tail


def test_every_link_of_a_created_match_reaches_its_operation_as_its_seat(client: Any) -> None:
    """The links of POST /v1/matches, followed by hand on a real three-seat match: each one
    reaches its operation (never 401 or 404), and a link that carries seat n's token is seen
    by the server as seat n (issue 17; the stateful runs follow the same links at random)."""
    spec = spec_dict(create_app({"SERVICE": object()}))
    operations = {
        op["operationId"]: (method, path)
        for path, item in spec["paths"].items()
        for method, op in item.items()
        if isinstance(op, dict) and "operationId" in op
    }
    players = [{"name": name} for name in ("ana", "ben", "cy")]
    created = client.post("/v1/matches", json={"variant": "three-hand-gin", "players": players})
    body = created.get_json()
    links = spec["paths"]["/v1/matches"]["post"]["responses"]["201"]["links"]
    followed = 0
    for name, link in links.items():
        method, path = operations[link["operationId"]]
        skipped = ("seats/3", "seats/4")  # a three-seat match has seats 0-2
        if any(s in json.dumps(link) for s in skipped) or method != "get" or "stream" in path:
            continue  # moves are played in test_play.py, the stream in test_events.py
        values = {k: _expression(v, body) for k, v in link["parameters"].items()}
        url = path.replace("{match_id}", values["path.match_id"])
        token = values.get("header.Authorization")
        headers = {"Authorization": token} if token else {}
        response = client.get(url, headers=headers)
        assert response.status_code not in (401, 404), (name, response.get_json())
        if link["operationId"] == "get_legal_moves":
            seat = int(name.rsplit("_", 1)[1]) if "_as_seat_" in name else None
            assert response.get_json()["seat"] == seat, name
        followed += 1
    assert followed == 5 * 4, f"{followed} links followed"  # 5 GET operations, 4 callers
