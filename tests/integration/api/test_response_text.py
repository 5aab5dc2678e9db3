"""Response bodies are compact JSON, the same text as json.dumps(body, separators=(",", ":"))
(api/common.py json_response encodes without the cycle check since issue 14)."""

from __future__ import annotations

import json
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from api.common import json_response

BODIES: list[Any] = [
    {"version": 3, "events": [], "match": None},
    {"name": 'Zoë ☃ "quoted" \\ \n', "scores": [0, -25, 1.5], "bot": None, "ok": True},
    [[{"a": [[], {}]}], {"b": {"c": {"d": [1, 2, 3]}}}],
    {"seats": [{"seat": i, "hand": ["7H", "JK"] * i} for i in range(3)]},
]


def test_json_response_gives_the_text_of_json_dumps_and_the_etag(app: Flask) -> None:
    with app.test_request_context():
        for body in BODIES:
            response = json_response(body, 200, 7)
            assert response.get_data() == json.dumps(body, separators=(",", ":")).encode()
            assert response.mimetype == "application/json"
            assert response.headers["ETag"] == '"7"'
            assert response.headers["Content-Length"] == str(len(response.get_data()))


def test_a_match_view_is_compact_json_of_its_own_value(client: FlaskClient) -> None:
    players = [{"name": "Zoë"}, {"name": "b"}, {"name": "c"}]
    created = client.post("/v1/matches", json={"variant": "three-hand-gin", "players": players})
    assert created.status_code == 201
    view = client.get(f"/v1/matches/{created.get_json()['id']}")
    assert view.status_code == 200
    assert view.get_data() == json.dumps(view.get_json(), separators=(",", ":")).encode()
