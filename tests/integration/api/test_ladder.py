"""The ladder over HTTP (issue 32): rated matches played by real workers show on
GET /v1/ladder/{variant} and GET /v1/accounts/{handle}, and ratings rebuilt from the exported
logs (GET .../log, as `deadwood export` writes them) equal the live ones bit for bit."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from store.ledger import Ledger
from store.rebuild import ExportedLogs, compute, rebuild
from tests.support.api_helpers import problem
from tests.support.ladder_play import install_quick, ledger_dump, rated_match, uninstall_quick
from workers.connection import set_service

GIN = "three-hand-gin"
LINEUPS = [
    ("hasty", "hasty2", "hasty3"),
    ("hasty2", "hasty4", "hasty"),
    ("hasty3", "hasty", "hasty4"),
]


@pytest.fixture(autouse=True)
def quick(service: Any) -> Iterator[None]:
    install_quick()
    set_service(service)
    yield
    set_service(None)
    uninstall_quick()


def _played(service: Any, rounds: int = 2) -> list[str]:
    return [rated_match(service, GIN, lineup) for lineup in LINEUPS * rounds]


def test_the_ladder_lists_rated_accounts_best_first(client: FlaskClient, service: Any) -> None:
    ids = _played(service, 1)
    page = client.get(f"/v1/ladder/{GIN}?limit=3").get_json()
    assert page["total"] == 4 and len(page["rows"]) == 3
    ratings = [row["rating"] for row in page["rows"]]
    assert ratings == sorted(ratings, reverse=True)
    assert [row["place"] for row in page["rows"]] == [1, 2, 3]
    for row in page["rows"]:
        assert row["bot"] is True and row["provisional"] is True
        assert row["low"] == pytest.approx(row["mu"] - 2 * row["sigma"])
        assert row["rating"] == pytest.approx(row["mu"] - 3 * row["sigma"])
    rest = client.get(f"/v1/ladder/{GIN}?offset=3").get_json()["rows"]
    assert [row["place"] for row in rest] == [4]
    hasty = client.get("/v1/accounts/deadwood-hasty").get_json()
    assert hasty["ratings"][GIN]["games"] == 3
    assert [entry["match"] for entry in hasty["history"][GIN]] == ids
    problem(client.get("/v1/ladder/chess"), 404, "unknown_variant")
    problem(client.get(f"/v1/ladder/{GIN}?limit=0"), 422, "validation_error")


def test_ratings_rebuilt_from_exported_logs_equal_the_live_ones(
    client: FlaskClient, service: Any, tmp_path: Path
) -> None:
    ids = _played(service)
    for match_id in ids:
        log = client.get(f"/v1/matches/{match_id}/log")
        assert log.status_code == 200
        (tmp_path / f"{match_id}.ndjson").write_bytes(log.get_data())
    live = ledger_dump(service, GIN)
    logs = ExportedLogs(tmp_path)
    state, missing = compute(GIN, live["order"], logs, lambda h: h.startswith("deadwood-"))
    assert not missing and state.order == live["order"]
    assert state.skills == live["skills"]  # the same floats, bit for bit
    ledger = Ledger(service.redis)
    before = ledger.history(GIN, "deadwood-hasty")
    report = rebuild(ledger, GIN, logs, lambda h: h.startswith("deadwood-"))
    assert report.equal and ledger_dump(service, GIN) == live
    assert ledger.history(GIN, "deadwood-hasty") == before


def test_the_ladder_page_is_served_beside_watch_with_its_policy(client: FlaskClient) -> None:
    page = client.get(f"/ladder/{GIN}")
    assert page.status_code == 200
    assert "script-src 'self'" in page.headers["Content-Security-Policy"]
    html = page.get_data(as_text=True)
    assert 'src="/static/deadwood/ladder.js"' in html and "<script>" not in html
    assert f'data-variant="{GIN}"' in html
    assert client.get("/ladder").status_code == 302
    assert client.get("/ladder/chess").status_code == 404
    with client.get("/static/deadwood/ladder.js") as script:
        assert script.status_code == 200
