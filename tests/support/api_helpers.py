"""Small helpers for the API tests: create a match over HTTP, drive the scoring jobs with an
rq SimpleWorker, and play whole matches with a simple greedy policy."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from typing import Any

from flask.testing import FlaskClient
from rq import Queue, SimpleWorker
from rq.serializers import JSONSerializer
from werkzeug.test import TestResponse

from domain.cards import parse_cards
from domain.gin.melds import deadwood
from store.jobs import QUEUES

GIN_PLAYERS = [{"name": "ana"}, {"name": "ben"}, {"name": "cy"}]
CARD_CODE = re.compile(r"^(JK|[A2-9TJQK][CDHS])(=(JK|[A2-9TJQK][CDHS]))?$")

Hook = Callable[[str, int | None, TestResponse], None]


def auth(token: str | None) -> dict[str, str]:
    return {} if token is None else {"Authorization": f"Bearer {token}"}


def players(n: int, bots: dict[int, str] | None = None) -> list[dict[str, Any]]:
    names = ["ana", "ben", "cy", "dee", "eve"]
    return [
        {"name": names[i], **({"bot": bots[i]} if bots and i in bots else {})} for i in range(n)
    ]


def create(
    client: FlaskClient,
    variant: str = "three-hand-gin",
    n: int = 3,
    seed: int | None = 7,
    options: dict[str, Any] | None = None,
    bots: dict[int, str] | None = None,
) -> tuple[str, list[str | None]]:
    body: dict[str, Any] = {"variant": variant, "players": players(n, bots)}
    if seed is not None:
        body["seed"] = seed
    if options:
        body["options"] = options
    response = client.post("/v1/matches", json=body)
    assert response.status_code == 201, response.get_data(as_text=True)
    created = response.get_json()
    return created["id"], [s["token"] for s in created["seats"]]


def run_jobs(service: Any) -> None:
    """Run every queued scoring and bot job once (rq SimpleWorker, burst, JSON serializer)."""
    from workers.connection import set_service

    connection = service.queues.connection
    queues = [Queue(name, connection=connection, serializer=JSONSerializer) for name in QUEUES]
    set_service(service)
    try:
        worker = SimpleWorker(queues, connection=connection, serializer=JSONSerializer)
        worker.work(burst=True, logging_level="WARNING")
    finally:
        set_service(None)


def greedy_gin(
    view: dict[str, Any], moves: list[dict[str, Any]], rng: random.Random
) -> dict[str, Any]:
    knocks = [m for m in moves if m["type"] == "knock"]
    if knocks:
        return rng.choice(knocks)
    discards = [m for m in moves if m["type"] == "discard"]
    if discards:
        hand = view["you"]["hand"]

        def left(move: dict[str, Any]) -> int:
            rest = [c for c in hand if c != move["card"]]
            return deadwood(parse_cards(rest))

        best = min(left(m) for m in discards)
        return rng.choice([m for m in discards if left(m) == best])
    if any(m["type"] == "advise" for m in moves):
        return {"type": "advise", "text": "keep the low cards", "move": {"type": "pass_upcard"}}
    draws = [m for m in moves if m["type"] == "draw"]
    if draws:
        from_discard = [m for m in draws if m["from"] == "discard"]
        return from_discard[0] if from_discard and rng.random() < 0.3 else draws[0]
    return rng.choice(moves)


def greedy_manip(
    view: dict[str, Any], moves: list[dict[str, Any]], rng: random.Random
) -> dict[str, Any]:
    for kind in ("knock", "meld"):
        found = [m for m in moves if m["type"] == kind]
        if found:
            return found[0] if kind == "knock" or rng.random() < 0.7 else rng.choice(found)
    for kind in ("draw", "end_turn", "pass"):
        found = [m for m in moves if m["type"] == kind]
        if found:
            return found[0]
    return rng.choice(moves)


POLICIES = {"three-hand-gin": greedy_gin, "manipulation-rummy": greedy_manip}


def play(
    client: FlaskClient,
    service: Any,
    match_id: str,
    tokens: list[str | None],
    rng: random.Random,
    *,
    max_moves: int = 4000,
    advise_every: int = 0,
    hook: Hook | None = None,
    until: Callable[[dict[str, Any]], bool] | None = None,
) -> dict[str, Any]:
    """Play the match over HTTP until it is finished (or `until(view)`); the last spectator
    view. Each seat moves with its own token, reading its own view; `hook` sees every
    response with the seat that asked."""
    made = 0
    while True:
        response = client.get(f"/v1/matches/{match_id}")
        view: dict[str, Any] = response.get_json()
        if hook:
            hook("view", None, response)
        if view["status"] == "finished" or (until is not None and until(view)):
            return view
        if view["turn"] is None or tokens[view["turn"]] is None:  # the service, or a bot seat
            run_jobs(service)
            continue
        seat = view["turn"]
        if advise_every and made % advise_every == 1 and view.get("roles"):
            seat = view["roles"]["advisor"]
        mine = client.get(f"/v1/matches/{match_id}", headers=auth(tokens[seat]))
        if hook:
            hook("view", seat, mine)
        seat_view = mine.get_json()
        moves = seat_view["you"]["legal_moves"]
        if not moves:
            seat = view["turn"]
            mine = client.get(f"/v1/matches/{match_id}", headers=auth(tokens[seat]))
            seat_view = mine.get_json()
            moves = seat_view["you"]["legal_moves"]
        move = POLICIES[view["variant"]](seat_view, moves, rng)
        headers = {**auth(tokens[seat]), "If-Match": mine.headers["ETag"]}
        answer = client.post(f"/v1/matches/{match_id}/moves", json=move, headers=headers)
        assert answer.status_code == 200, (move, answer.get_data(as_text=True))
        if hook:
            hook("move", seat, answer)
        made += 1
        assert made < max_moves, "the match did not end"


def problem(response: TestResponse, status: int, code: str) -> dict[str, Any]:
    """Assert `response` is the problem+json of `status`/`code`, and return it."""
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == "application/problem+json"
    body: dict[str, Any] = response.get_json(force=True)
    assert body["code"] == code, body
    assert body["status"] == status
    assert {"type", "title", "status", "detail", "code"} <= set(body)
    assert "Traceback" not in json.dumps(body)
    return body


def log_length(service: Any, match_id: str) -> int:
    return int(service.redis.xlen(f"match:{{{match_id}}}:events"))
