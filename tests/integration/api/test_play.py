"""Whole matches of both games played over HTTP to the end, seat by seat (issue 4).

Each seat moves with its own token and its own view, with If-Match; the scoring jobs run in an
rq SimpleWorker (JSON serializer), as the workers would run them. At the end the log is
exported and replayed to the same final view.
"""

from __future__ import annotations

import json
import random
from typing import Any

from tests.support.api_helpers import auth, create, log_length, play, problem, run_jobs


def _check_every_response(kind: str, seat: int | None, response: Any) -> None:
    """api.md Versions: every response that shows a match carries version and its ETag."""
    body = response.get_json()
    version = body["version"]
    assert response.headers["ETag"] == f'"{version}"'
    if kind == "move":
        assert body["match"]["version"] == version
        assert [e["seq"] for e in body["events"]] == list(
            range(version - len(body["events"]) + 1, version + 1)
        )
        assert (body["match"]["you"] or {}).get("seat") == seat


def _finish(
    client: Any, service: Any, match_id: str, tokens: list[str | None], seed: int
) -> dict[str, Any]:
    view = play(client, service, match_id, tokens, random.Random(seed), hook=_check_every_response)
    assert view["status"] == "finished" and view["phase"] == "finished"
    assert view["winners"], "a finished match names its winners (G8.1, M11)"
    assert view["turn"] is None
    assert log_length(service, match_id) == view["version"]
    return view


def _replays_to(client: Any, match_id: str, final: dict[str, Any]) -> None:
    log = client.get(f"/v1/matches/{match_id}/log")
    assert log.status_code == 200 and log.mimetype == "application/x-ndjson"
    lines = [json.loads(line) for line in log.get_data(as_text=True).splitlines()]
    assert [e["seq"] for e in lines] == list(range(1, final["version"] + 1))
    assert lines[0]["data"]["deal_key"], "the finished log is unredacted"
    replayed = client.post(
        "/v1/replays", data=log.get_data(), headers={"Content-Type": "application/x-ndjson"}
    )
    assert replayed.status_code == 200, replayed.get_data(as_text=True)
    body = replayed.get_json()
    assert body["version"] == final["version"]
    assert {**body["match"], "id": final["id"]} == final
    assert body["rounds"] == final["rounds"]


def test_three_hand_gin_played_to_the_end_by_three_seats(client: Any, service: Any) -> None:
    """G1-G8 over HTTP: roles, upcard offer, draws, discards, knocks, advice, scoring."""
    match_id, tokens = create(client, options={"target_score": 30})
    final = _finish(client, service, match_id, tokens, seed=1)
    assert max(final["scores"]) >= 30 and len(final["rounds"]) >= 1
    seats_scoring = {s for r in final["rounds"] for s in r["winners"]}
    assert final["winners"][0] in seats_scoring
    _replays_to(client, match_id, final)


def test_gin_advice_reaches_captain_only(client: Any, service: Any) -> None:
    """G1.4: AdviceGiven text is seen by the advisor and captain, null for box and spectators."""
    match_id, tokens = create(client, seed=3)
    view = client.get(f"/v1/matches/{match_id}").get_json()
    roles = view["roles"]
    advice = {"type": "advise", "text": "take it", "move": {"type": "take_upcard"}}
    answer = client.post(
        f"/v1/matches/{match_id}/moves", json=advice, headers=auth(tokens[roles["advisor"]])
    )
    assert answer.status_code == 200, answer.get_data(as_text=True)
    seq = answer.get_json()["version"]
    for seat, sees in ((roles["captain"], True), (roles["box"], False), (None, False)):
        page = client.get(
            f"/v1/matches/{match_id}/events?after={seq - 1}",
            headers=auth(None if seat is None else tokens[seat]),
        ).get_json()
        (event,) = page["events"]
        assert event["type"] == "AdviceGiven"
        assert (event["data"]["text"] == "take it") is sees


def test_manipulation_played_to_the_end_by_four_seats(client: Any, service: Any) -> None:
    """M1-M11 over HTTP with four seats (two packs, M1.2)."""
    match_id, tokens = create(
        client, "manipulation-rummy", 4, seed=11, options={"target_score": 50}
    )
    final = _finish(client, service, match_id, tokens, seed=2)
    assert len(final["seats"]) == 4
    assert sum(len(m) for m in final["table"]) + sum(s["hand_size"] for s in final["seats"]) > 0
    _replays_to(client, match_id, final)


def test_manipulation_two_seats_with_a_bot(client: Any, service: Any) -> None:
    """A bot seat gets no token and is played by the bot job (M1.1, api.md Create)."""
    created = client.post(
        "/v1/matches",
        json={
            "variant": "manipulation-rummy",
            "players": [{"name": "ana"}, {"name": "bot", "bot": "random"}],
            "seed": 5,
            "options": {"target_score": 30},
        },
    ).get_json()
    assert created["seats"][1]["token"] is None and created["seats"][1]["bot"] == "random"
    tokens = [created["seats"][0]["token"], None]
    rng = random.Random(3)
    for _ in range(2000):
        run_jobs(service)
        view = client.get(f"/v1/matches/{created['id']}", headers=auth(tokens[0])).get_json()
        if view["status"] == "finished":
            break
        if view["turn"] == 0:
            from tests.support.api_helpers import greedy_manip

            move = greedy_manip(view, view["you"]["legal_moves"], rng)
            answer = client.post(
                f"/v1/matches/{created['id']}/moves", json=move, headers=auth(tokens[0])
            )
            assert answer.status_code == 200, answer.get_data(as_text=True)
    assert view["status"] == "finished"
    _replays_to(client, created["id"], {**client.get(f"/v1/matches/{created['id']}").get_json()})


def test_round_waits_in_scoring_until_the_job_runs(client: Any, service: Any) -> None:
    """Issue 4: until the scoring job runs the view shows the round being scored."""
    match_id, tokens = create(client, seed=4)

    def ended(view: dict[str, Any]) -> bool:
        return bool(view["phase"] == "scoring")

    view = play(client, service, match_id, tokens, random.Random(5), until=ended)
    assert view["turn"] is None and view["rounds"] == []
    version = view["version"]
    assert client.get(f"/v1/matches/{match_id}").get_json()["version"] == version
    run_jobs(service)
    after = client.get(f"/v1/matches/{match_id}").get_json()
    assert after["version"] > version and len(after["rounds"]) == 1


def test_log_refused_while_the_match_is_in_progress(client: Any, service: Any) -> None:
    """api.md: 403 match_in_progress until the match is finished."""
    match_id, tokens = create(client)
    problem(client.get(f"/v1/matches/{match_id}/log"), 403, "match_in_progress")
    problem(
        client.get(f"/v1/matches/{match_id}/log", headers=auth(tokens[0])), 403, "match_in_progress"
    )
