"""GET /metrics (issue 34): the Prometheus text format, off /v1, guarded by a token when one
is set; requests by route template, moves by outcome and code, rate-limit refusals, appends
and conflicts, queue depth and matches in play; no label holds a match id, token or seed."""

from __future__ import annotations

import re
from typing import Any

from flask.testing import FlaskClient
from prometheus_client.parser import text_string_to_metric_families

from api import create_app
from store.jobs import QUEUES
from tests.support.api_helpers import auth, create, players, problem


def _scrape(client: FlaskClient, **headers: str) -> dict[str, list[Any]]:
    response = client.get("/metrics", headers=headers)
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.mimetype == "text/plain"
    families = text_string_to_metric_families(response.get_data(as_text=True))
    return {family.name: family.samples for family in families}


def _value(samples: list[Any], name: str, **labels: str) -> float:
    total: float = sum(
        s.value
        for s in samples
        if s.name == name and all(s.labels.get(k) == v for k, v in labels.items())
    )
    return total


def test_requests_moves_and_store_figures(client: FlaskClient, service: Any) -> None:
    before = _scrape(client)
    match_id, tokens = create(client, seed=9)
    moves = client.get(f"/v1/matches/{match_id}/legal-moves", headers=auth(tokens[0]))
    for token in tokens:  # one seat may move; the others are refused with a code
        client.post(f"/v1/matches/{match_id}/moves", json={"type": "pass"}, headers=auth(token))
    assert moves.status_code == 200
    after = _scrape(client)
    moved = "/v1/matches/<match_id>/moves"
    requests = after["deadwood_http_requests"]
    assert (
        _value(requests, "deadwood_http_requests_total", route=moved, method="POST")
        - _value(
            before.get("deadwood_http_requests", []),
            "deadwood_http_requests_total",
            route=moved,
            method="POST",
        )
        == 3
    )
    refused = [
        s
        for s in after["deadwood_moves"]
        if s.name == "deadwood_moves_total" and s.labels["outcome"] == "refused" and s.value
    ]
    assert refused and all(re.fullmatch(r"[a-z_]+", s.labels["code"]) for s in refused)
    assert _value(after["deadwood_appends"], "deadwood_appends_total", result="ok") >= 1
    assert "deadwood_http_request_duration_seconds" in after
    assert _value(after["deadwood_matches_in_play"], "deadwood_matches_in_play") == 1
    depths = {s.labels["queue"] for s in after["deadwood_queue_depth"]}
    assert depths == set(QUEUES)
    text = client.get("/metrics").get_data(as_text=True)
    assert match_id not in text and not any(t and t in text for t in tokens)
    assert "/v1/matches/m_" not in text  # route templates, never paths


def test_rate_limit_refusals_are_counted(service: Any) -> None:
    app = create_app({"TESTING": True, "SERVICE": service, "RATELIMIT_CREATE": "1 per minute"})
    client = app.test_client()
    body = {"variant": "three-hand-gin", "players": players(3)}
    before = _value(_scrape(client).get("deadwood_rate_limited", []), "deadwood_rate_limited_total")
    client.post("/v1/matches", json=body)
    problem(client.post("/v1/matches", json=body), 429, "rate_limited")
    after = _value(_scrape(client)["deadwood_rate_limited"], "deadwood_rate_limited_total")
    assert after - before == 1


def test_a_metrics_token_guards_the_endpoint(service: Any) -> None:
    app = create_app({"TESTING": True, "SERVICE": service, "METRICS_TOKEN": "scrape-me"})
    client = app.test_client()
    problem(client.get("/metrics"), 401, "unauthorized")
    problem(client.get("/metrics", headers=auth("wrong")), 401, "unauthorized")
    assert _scrape(client, Authorization="Bearer scrape-me")


def test_metrics_off_serves_no_endpoint(service: Any) -> None:
    client = create_app({"TESTING": True, "SERVICE": service, "METRICS": 0}).test_client()
    problem(client.get("/metrics"), 404, "not_found")
    assert client.get("/v1/health/live").headers["X-Request-ID"]


def test_a_worker_serves_its_own_metrics(service: Any) -> None:
    """`deadwood worker --metrics-port P`: the job and reconciler figures over HTTP."""
    import urllib.request

    from cli.procs import free_port
    from workers.reconcile import reconcile
    from workers.run import serve_metrics

    reconcile(service)
    port = free_port()
    serve_metrics(port)
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
        text = response.read().decode()
    families = {family.name for family in text_string_to_metric_families(text)}
    assert {"deadwood_jobs", "deadwood_reconciler_passes"} <= families
    assert 'deadwood_reconciler_passes_total{kind="full"}' in text


def test_open_live_streams_are_counted_until_closed(client: FlaskClient, service: Any) -> None:
    def streams() -> float:
        families = _scrape(client)
        return _value(families.get("deadwood_live_streams", []), "deadwood_live_streams")

    match_id, _ = create(client, seed=3)
    before = streams()
    stream = client.get(f"/v1/matches/{match_id}/events/stream", buffered=False)
    assert stream.status_code == 200
    next(iter(stream.response))  # the stream is open and has sent its first bytes
    assert streams() == before + 1
    stream.close()
    assert streams() == before
