"""Hostile input that must cost nothing (issue 11, items 3 and 5), through the app on Redis:
a create's Idempotency-Key is a secret of at least 16 characters; `target_score` has a bound
a real match can reach; the gin advisor may advise at most 3 times per turn of the captain."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.api_helpers import GIN_PLAYERS, auth, create, problem

GIN = {"variant": "three-hand-gin", "players": GIN_PLAYERS}


def _keys(redis_client: Any) -> int:
    return len(redis_client.keys("match:*:events"))


def test_a_create_key_shorter_than_16_characters_is_refused(client: Any, redis_client: Any) -> None:
    """Issue 11 item 3: the key alone gives back the match and its tokens, so it is a
    secret; a short one is 422 naming Idempotency-Key, and nothing is created."""
    found = problem(
        client.post("/v1/matches", json=GIN, headers={"Idempotency-Key": "k" * 15}),
        422,
        "validation_error",
    )
    assert "Idempotency-Key" in found["errors"] and "16" in found["detail"]
    assert _keys(redis_client) == 0
    made = client.post("/v1/matches", json=GIN, headers={"Idempotency-Key": "k" * 16})
    assert made.status_code == 201, made.get_data(as_text=True)


def test_a_short_key_is_still_fine_for_a_move(client: Any) -> None:
    """Only creates need a secret key: a move's key is bound to its seat token."""
    match_id, tokens = create(client)
    view = client.get(f"/v1/matches/{match_id}").get_json()
    seat = view["turn"]
    headers = {**auth(tokens[seat]), "Idempotency-Key": "m1"}
    answer = client.post(
        f"/v1/matches/{match_id}/moves", json={"type": "pass_upcard"}, headers=headers
    )
    assert answer.status_code == 200, answer.get_data(as_text=True)


@pytest.mark.parametrize(
    ("variant", "players", "highest"),
    [("three-hand-gin", 3, 1000), ("manipulation-rummy", 2, 1500)],
)
def test_target_score_is_bounded(
    client: Any, redis_client: Any, variant: str, players: int, highest: int
) -> None:
    """G8.1 / M11.1 (issue 11 item 5): ten times the standard target at most; above, 422
    naming target_score, and no match."""
    body = {"variant": variant, "players": [{"name": f"p{i}"} for i in range(players)]}
    over = {**body, "options": {"target_score": highest + 1}}
    found = problem(client.post("/v1/matches", json=over), 422, "validation_error")
    assert "target_score" in found["detail"] and str(highest) in found["detail"]
    assert _keys(redis_client) == 0
    made = client.post("/v1/matches", json={**body, "options": {"target_score": highest}})
    assert made.status_code == 201, made.get_data(as_text=True)


def test_g1_4_the_fourth_advice_in_a_captain_turn_is_refused(client: Any) -> None:
    """G1.4 (issue 11 item 5): 3 pieces of advice per turn of the captain, then 422
    `advice_limit` (nothing appended) until the captain's turn ends."""
    match_id, tokens = create(client)
    view = client.get(f"/v1/matches/{match_id}").get_json()
    roles = view["roles"]
    advisor, captain = auth(tokens[roles["advisor"]]), auth(tokens[roles["captain"]])
    url = f"/v1/matches/{match_id}/moves"
    advice = {"type": "advise", "text": "pass it"}
    for _ in range(3):
        assert client.post(url, json=advice, headers=advisor).status_code == 200
    version = client.get(f"/v1/matches/{match_id}").get_json()["version"]
    found = problem(client.post(url, json=advice, headers=advisor), 422, "advice_limit")
    assert "at most 3" in found["detail"] and "G1.4" in found["detail"]
    assert client.get(f"/v1/matches/{match_id}").get_json()["version"] == version
    assert view["turn"] == roles["captain"]
    assert client.post(url, json={"type": "pass_upcard"}, headers=captain).status_code == 200
    assert client.post(url, json=advice, headers=advisor).status_code == 200


@pytest.mark.parametrize("variant", ["three-hand-gin", "manipulation-rummy"])
def test_every_match_has_a_bound_on_its_rounds(client: Any, variant: str) -> None:
    """Issue 28 item 3: `max_rounds` is an option like any other, shown in the view with its
    default (following the target); no bound (null, 0) and more than the most are refused
    with 422 validation_error naming it and the rule."""
    n, most = (3, 500) if variant == "three-hand-gin" else (2, 300)
    match_id, _ = create(client, variant, n, options={"target_score": 1000})
    options = client.get(f"/v1/matches/{match_id}").get_json()["options"]
    assert options["max_rounds"] == (500 if variant == "three-hand-gin" else 200)
    body = {"variant": variant, "players": [{"name": f"p{i}"} for i in range(n)]}
    for bad in (None, 0, most + 1, "many"):
        found = problem(
            client.post("/v1/matches", json={**body, "options": {"max_rounds": bad}}),
            422,
            "validation_error",
        )
        assert "max_rounds" in found["detail"] and f"1..{most}" in found["detail"], found
