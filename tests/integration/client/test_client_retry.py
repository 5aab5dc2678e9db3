"""Moves are applied exactly once, whatever happens to their answers (issue 7).

A `Faulty` transport sits under the client and, for move requests, follows a plan: pass the
request on, perform it and then lose the response (a dropped connection after the server
acted), refuse to connect, or answer 503. The server, Redis and the log are real.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from deadwood_client import (
    Client,
    DeadwoodError,
    Forbidden,
    NotYourTurn,
    OutcomeUnknown,
    RateLimited,
    ServerError,
    VersionConflict,
)
from tests.support.client_support import FAST

PLAYERS = ["ana", "ben", "cy"]
Step = str | Callable[[httpx.Request], httpx.Response]


class Faulty(httpx.BaseTransport):
    """Real HTTP, except that move requests follow `plan` (then pass), recording each try."""

    def __init__(self, plan: list[Step]) -> None:
        self.inner = httpx.HTTPTransport()
        self.plan = list(plan)
        self.tries: list[tuple[dict[str, str], bytes]] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if not request.url.path.endswith("/moves"):
            return self.inner.handle_request(request)
        request.read()
        self.tries.append((dict(request.headers), request.content))
        step = self.plan.pop(0) if self.plan else "pass"
        if callable(step):
            return step(request)
        if step == "pass":
            return self.inner.handle_request(request)
        if step == "drop_response":
            self._perform(request)
            raise httpx.ReadError("connection dropped before the response", request=request)
        if step == "drop_unkeyed":  # the server acts but keeps no idempotency record
            headers = {k: v for k, v in request.headers.items() if k != "idempotency-key"}
            self._perform(
                httpx.Request("POST", request.url, headers=headers, content=request.content)
            )
            raise httpx.ReadError("connection dropped before the response", request=request)
        if step == "refuse":
            raise httpx.ConnectError("connection refused", request=request)
        if step == "503":
            return httpx.Response(503, json={"code": "store_unavailable", "detail": "away"})
        raise AssertionError(step)

    def _perform(self, request: httpx.Request) -> None:
        response = self.inner.handle_request(request)
        response.read()
        response.close()

    def close(self) -> None:
        self.inner.close()


def _seat_to_act(live: Any, plan: list[Step]) -> tuple[str, Client, Faulty, dict[str, Any]]:
    created = live.client().create_match("three-hand-gin", PLAYERS, seed=11)
    spectator = live.client()
    view = spectator.match(created["id"])
    token = created["seats"][view["turn"]]["token"]
    faulty = Faulty(plan)
    client = live.client(token, transport=faulty)
    return created["id"], client, faulty, client.match(created["id"])


def _moves_in_log(live: Any, match_id: str, after: int) -> list[dict[str, Any]]:
    return [e for e in live.client().history(match_id, after=after) if "seat" in e["data"]]


def test_a_move_whose_response_was_lost_is_resent_and_applied_once(live: Any) -> None:
    """The server applied the move but the answer was lost: the retry carries the same key,
    If-Match and body, gets the original answer back, and the log holds the move once."""
    match_id, client, faulty, view = _seat_to_act(live, ["drop_response"])
    move = view["you"]["legal_moves"][0]
    result = client.move(match_id, move)
    assert len(faulty.tries) == 2
    (first, body1), (second, body2) = faulty.tries
    assert first["idempotency-key"] == second["idempotency-key"] and body1 == body2
    assert first["if-match"] == second["if-match"] == f'"{view["version"]}"'
    assert client.last_replayed, "the second answer is the stored one (Idempotent-Replayed)"
    assert len(_moves_in_log(live, match_id, view["version"])) == 1
    assert result["version"] == view["version"] + len(result["events"])
    assert live.client().match(match_id)["version"] == result["version"]


def test_a_lost_move_is_recognised_in_the_log_when_the_retry_meets_a_412(live: Any) -> None:
    """The move landed without an idempotency record, so the retry is refused 412: the client
    reads the log, finds its own move at If-Match + 1, and returns it instead of failing."""
    match_id, client, faulty, view = _seat_to_act(live, ["drop_unkeyed"])
    move = view["you"]["legal_moves"][0]
    result = client.move(match_id, move)
    assert len(faulty.tries) == 2 and client.last_replayed
    mine = _moves_in_log(live, match_id, view["version"])
    assert len(mine) == 1 and mine[0]["seq"] == view["version"] + 1
    assert result["events"][0]["seq"] == view["version"] + 1
    assert result["match"]["version"] == live.client().match(match_id)["version"]


def test_a_lost_attempt_that_did_not_land_still_raises_the_conflict(live: Any) -> None:
    """The first try never reached the server and meanwhile the advisor spoke (G1.4): the
    retry's 412 is a real conflict, since the event at If-Match + 1 is not our move."""
    created = live.client().create_match("three-hand-gin", PLAYERS, seed=11)
    match_id = created["id"]
    view = live.client().match(match_id)
    advisor = live.client(created["seats"][view["roles"]["advisor"]]["token"])

    def advise_then_refuse(request: httpx.Request) -> httpx.Response:
        advisor.move(match_id, {"type": "advise", "text": "pass it"})
        raise httpx.ConnectError("connection refused", request=request)

    faulty = Faulty([advise_then_refuse])
    mover = live.client(created["seats"][view["turn"]]["token"], transport=faulty)
    at = mover.match(match_id)
    with pytest.raises(VersionConflict):
        mover.move(match_id, at["you"]["legal_moves"][0])
    assert [e["type"] for e in live.client().history(match_id, after=at["version"])] == [
        "AdviceGiven"
    ]


def test_5xx_and_refused_connections_are_retried_until_the_move_is_applied(live: Any) -> None:
    match_id, client, faulty, view = _seat_to_act(live, ["503", "refuse", "503"])
    result = client.move(match_id, view["you"]["legal_moves"][0])
    assert len(faulty.tries) == 4 and not client.last_replayed
    assert len(_moves_in_log(live, match_id, view["version"])) == 1
    assert result["match"]["version"] == result["version"]


def test_an_outage_longer_than_the_retries_hands_back_the_key_to_resend(live: Any) -> None:
    """OutcomeUnknown after the last try; resending with its key applies the move once, and
    resending again returns the same answer without a second move."""
    attempts = FAST.attempts
    match_id, client, faulty, view = _seat_to_act(live, ["drop_response", *["refuse"] * attempts])
    move = view["you"]["legal_moves"][0]
    with pytest.raises(OutcomeUnknown) as unknown:
        client.move(match_id, move, if_match=view["version"])
    key = unknown.value.idempotency_key
    assert len(faulty.tries) == attempts and key
    again = client.move(match_id, move, if_match=view["version"], idempotency_key=key)
    twice = client.move(match_id, move, if_match=view["version"], idempotency_key=key)
    assert again == twice and client.last_replayed
    assert len(_moves_in_log(live, match_id, view["version"])) == 1


def test_a_definite_refusal_is_not_retried(live: Any) -> None:
    """A 4xx means nothing was appended: one try, and the exception."""
    match_id, client, faulty, view = _seat_to_act(live, [])
    with pytest.raises(Forbidden):  # G1.4: only the advisor advises
        client.move(match_id, {"type": "advise", "text": "not mine"})
    assert live.client().match(match_id)["version"] == view["version"]
    assert len(faulty.tries) == 1


def test_problem_bodies_map_to_exception_classes() -> None:
    """api.md Errors: the class comes from `code`, else from the status."""
    error = DeadwoodError.from_problem(412, {"code": "version_conflict", "detail": "moved on"})
    assert isinstance(error, VersionConflict) and str(error) == "412 version_conflict: moved on"
    limited = DeadwoodError.from_problem(429, {"code": "rate_limited"}, {"Retry-After": "2"})
    assert isinstance(limited, RateLimited) and limited.retry_after == 2.0
    assert isinstance(DeadwoodError.from_problem(502, "<html>bad gateway</html>"), ServerError)
    odd = DeadwoodError.from_problem(409, {"code": "brand_new_code", "detail": "x"})
    assert isinstance(odd, NotYourTurn) and odd.code == "brand_new_code"
