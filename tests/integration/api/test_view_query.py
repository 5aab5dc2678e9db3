"""GET /v1/matches/{id} without a query string skips flask-smorest's query parsing and its
wrappers (api/body.py `direct_query`, issue 14); with a query string it goes through them.
Both paths must answer alike: the same view and ETag, and the same 422 for a bad `at`."""

from __future__ import annotations

from flask.testing import FlaskClient

PLAYERS = [{"name": "a"}, {"name": "b"}, {"name": "c"}]


def test_a_view_is_the_same_with_and_without_a_query(client: FlaskClient) -> None:
    created = client.post("/v1/matches", json={"variant": "three-hand-gin", "players": PLAYERS})
    assert created.status_code == 201
    body = created.get_json()
    path = f"/v1/matches/{body['id']}"
    version = body["version"]
    for token in [None, *(s["token"] for s in body["seats"])]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        plain = client.get(path, headers=headers)
        assert plain.status_code == 200
        for query in ("?unknown=1", f"?at={version}"):
            queried = client.get(path + query, headers=headers)
            assert queried.status_code == 200, query
            assert queried.get_data() == plain.get_data(), query
            assert queried.headers["ETag"] == plain.headers["ETag"] == f'"{version}"'


def test_a_bad_at_is_refused_with_a_validation_error(client: FlaskClient) -> None:
    created = client.post("/v1/matches", json={"variant": "three-hand-gin", "players": PLAYERS})
    path = f"/v1/matches/{created.get_json()['id']}"
    for query in ("?at=0", "?at=x", "?at=999999"):
        refused = client.get(path + query)
        assert refused.status_code == 422, query
        assert refused.mimetype == "application/problem+json"
        assert refused.get_json()["code"] == "validation_error"
