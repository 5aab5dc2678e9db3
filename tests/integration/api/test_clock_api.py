"""Clocks over HTTP (issue 31): the create's clock, the view's clock, a late move's 409,
abort, resign and claim with their refusals. Every response is checked against openapi.yaml
(CheckedClient). The service's clock is a fake one, moved by the test."""

from __future__ import annotations

from typing import Any

import pytest
import redis

from store.service import MatchService
from tests.support.clock_play import GIN, MANIP, FakeClock, clocked_service

PER_MOVE = {"mode": "per_move", "move_s": 10, "claim_after_s": 30, "first_move_s": 60}


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def service(redis_client: redis.Redis, clock: FakeClock) -> MatchService:
    return clocked_service(redis_client, clock)


def _create(client: Any, variant: str = MANIP, seats: int = 2, **clock: Any) -> dict[str, Any]:
    body = {
        "variant": variant,
        "players": [{"name": f"p{s}"} for s in range(seats)],
        "seed": 11,
        "clock": {**PER_MOVE, **clock},
    }
    created = client.post("/v1/matches", json=body)
    assert created.status_code == 201, created.get_json()
    return dict(created.get_json())


def _auth(created: dict[str, Any], seat: int) -> dict[str, str]:
    return {"Authorization": f"Bearer {created['seats'][seat]['token']}"}


def _view(client: Any, created: dict[str, Any], seat: int | None = None) -> dict[str, Any]:
    headers = _auth(created, seat) if seat is not None else {}
    return dict(client.get(f"/v1/matches/{created['id']}", headers=headers).get_json())


def _post(client: Any, created: dict[str, Any], action: str, seat: int | None) -> Any:
    headers = _auth(created, seat) if seat is not None else {}
    return client.post(f"/v1/matches/{created['id']}/{action}", json={}, headers=headers)


def test_the_view_shows_each_seats_clock_and_the_deadline(client: Any, clock: FakeClock) -> None:
    created = _create(client)
    view = _view(client, created)
    turn = view["turn"]
    clock.advance(4)
    view = _view(client, created)
    shown = view["clock"]
    assert shown["turn_seat"] == turn and shown["abortable"] is True
    assert shown["seats"][turn]["running"] and shown["seats"][turn]["left_ms"] == 56_000
    assert shown["seats"][1 - turn]["left_ms"] == 10_000
    assert shown["deadline_ms"] == int((clock.now - 4) * 1000) + 60_000
    assert shown["options"]["move_s"] == 10


def test_a_match_without_a_clock_shows_none(client: Any) -> None:
    body = {"variant": MANIP, "players": [{"name": "a"}, {"name": "b"}], "seed": 1}
    created = client.post("/v1/matches", json=body).get_json()
    assert "clock" not in _view(client, created)


def test_a_late_move_gets_409_turn_timed_out(client: Any, clock: FakeClock) -> None:
    created = _create(client, first_move_s=0)
    view = _view(client, created)
    seat = view["turn"]
    move = client.get(
        f"/v1/matches/{created['id']}/legal-moves", headers=_auth(created, seat)
    ).get_json()["moves"][0]
    clock.advance(11)
    late = client.post(
        f"/v1/matches/{created['id']}/moves", json=move, headers=_auth(created, seat)
    )
    assert late.status_code == 409 and late.get_json()["code"] == "turn_timed_out"
    events = client.get(f"/v1/matches/{created['id']}/events?limit=1000").get_json()["events"]
    assert [e["type"] for e in events].count("TurnTimedOut") == 1


def test_claim_before_and_after_claim_after_s(client: Any, clock: FakeClock) -> None:
    created = _create(client, first_move_s=0, move_s=600)
    turn = _view(client, created)["turn"]
    other = 1 - turn
    clock.advance(10)
    early = _post(client, created, "claim", other)
    assert early.status_code == 409
    problem = early.get_json()
    assert problem["code"] == "claim_not_available" and problem["seconds_left"] == 20
    assert early.headers["Retry-After"] == "20"
    clock.advance(15)
    _view(client, created, turn)  # the absent seat comes back: its absence starts again
    clock.advance(20)
    assert _post(client, created, "claim", other).get_json()["seconds_left"] == 10
    clock.advance(10)
    claimed = _post(client, created, "claim", other)
    assert claimed.status_code == 200, claimed.get_json()
    body = claimed.get_json()
    assert body["events"][0]["type"] == "VictoryClaimed"
    assert body["match"]["status"] == "finished" and body["match"]["winners"] == [other]


def test_claim_with_three_seats_puts_a_bot_in_the_absent_seat(
    client: Any, clock: FakeClock
) -> None:
    created = _create(client, GIN, 3, first_move_s=0, move_s=600)
    turn = _view(client, created)["turn"]
    claimant = (turn + 1) % 3
    clock.advance(31)
    claimed = _post(client, created, "claim", claimant)
    assert claimed.status_code == 200, claimed.get_json()
    types = [e["type"] for e in claimed.get_json()["events"]]
    assert types == ["VictoryClaimed", "SeatReplacedByBot"]
    assert claimed.get_json()["match"]["seats"][turn]["bot"] == "basic"


def test_claim_by_a_spectator_is_401_and_on_the_wrong_turn_409(
    client: Any, clock: FakeClock
) -> None:
    created = _create(client, first_move_s=0, move_s=600)
    turn = _view(client, created)["turn"]
    clock.advance(100)
    spectator = _post(client, created, "claim", None)
    assert spectator.status_code == 401 and spectator.get_json()["code"] == "unauthorized"
    own = _post(client, created, "claim", turn)
    assert own.status_code == 409 and own.get_json()["code"] == "claim_wrong_turn"


def test_abort_inside_its_window(client: Any) -> None:
    created = _create(client)
    aborted = _post(client, created, "abort", 0)
    assert aborted.status_code == 200, aborted.get_json()
    body = aborted.get_json()
    assert [e["type"] for e in body["events"]] == ["MatchAborted"]
    assert body["match"]["status"] == "finished" and body["match"]["winners"] == []
    again = _post(client, created, "abort", 1)
    assert again.status_code == 409 and again.get_json()["code"] == "match_finished"


def test_abort_outside_its_window(client: Any, service: MatchService) -> None:
    created = _create(client, move_s=600)
    for _ in range(40):  # every seat moves once
        view = _view(client, created)
        if not view["clock"]["abortable"]:
            break
        seat = view["turn"]
        moves = client.get(
            f"/v1/matches/{created['id']}/legal-moves", headers=_auth(created, seat)
        ).get_json()["moves"]
        client.post(
            f"/v1/matches/{created['id']}/moves", json=moves[0], headers=_auth(created, seat)
        )
    refused = _post(client, created, "abort", 0)
    assert refused.status_code == 409 and refused.get_json()["code"] == "abort_not_available"


def test_abort_needs_a_clock(client: Any) -> None:
    body = {"variant": MANIP, "players": [{"name": "a"}, {"name": "b"}], "seed": 1}
    created = client.post("/v1/matches", json=body).get_json()
    refused = _post(client, created, "abort", 0)
    assert refused.status_code == 409 and refused.get_json()["code"] == "no_clock"


def test_resign_with_two_seats_the_other_wins(client: Any) -> None:
    created = _create(client)
    resigned = _post(client, created, "resign", 1)
    assert resigned.status_code == 200
    body = resigned.get_json()
    assert [e["type"] for e in body["events"]] == ["SeatResigned"]
    assert body["match"]["winners"] == [0]


def test_resign_with_three_seats_a_bot_plays_on(client: Any) -> None:
    created = _create(client, GIN, 3)
    resigned = _post(client, created, "resign", 0)
    assert resigned.status_code == 200
    body = resigned.get_json()
    assert [e["type"] for e in body["events"]] == ["SeatResigned", "SeatReplacedByBot"]
    assert body["match"]["status"] == "active" and body["match"]["seats"][0]["bot"] == "basic"
    again = _post(client, created, "resign", 0)
    assert again.status_code == 409 and again.get_json()["code"] == "seat_replaced"


def test_a_bad_clock_is_refused_naming_the_option(client: Any) -> None:
    body = {
        "variant": MANIP,
        "players": [{"name": "a"}, {"name": "b"}],
        "clock": {"mode": "per_move", "move_s": 0},
    }
    refused = client.post("/v1/matches", json=body)
    assert refused.status_code == 422 and "move_s" in refused.get_json()["detail"]


def test_a_seat_a_bot_took_cannot_move_with_its_token(client: Any) -> None:
    created = _create(client, GIN, 3)
    assert _post(client, created, "resign", 0).status_code == 200
    moved = client.post(
        f"/v1/matches/{created['id']}/moves",
        json={"type": "pass_upcard"},
        headers=_auth(created, 0),
    )
    assert moved.status_code == 409 and moved.get_json()["code"] == "seat_replaced"
