"""Schemathesis against the served OpenAPI document, with auth for two seats (issue 6).

tests/api/test_openapi.py runs a bounded in-process schemathesis pass without credentials and
on made-up match ids. This one fuzzes the app as gunicorn serves it (the document from
/v1/openapi.json), on real matches: every generated case is pointed at one of two live
matches (or a match id that does not exist) and sent with the bearer token of one of the
three seats of the first match, of a seat of the second match, a
malformed token, or none; half the moves are replaced by a legal move of the caller's seat,
so the write path is probed too. So object-level authorization is probed: a token is tried
on the match it belongs to and on the other one. Every schemathesis check runs, with the
rule refusals of tests/support/contract_checks.py (issue 17). On top, our own checks:

- no 5xx, and every response conforms to the document (the checks above);
- a token of another match, or a malformed one, is always 401 `unauthorized`;
- a seat's view (and legal moves) is that seat's own: `you.seat` is the token's seat, and
  its hand has as many cards as its seat's `hand_size`; a spectator's `you` is null;
- a 200 to a move came from the seat whose turn it was;
- nothing is appended to a match except by a 200 move (the stream length is checked after
  every call against the version of the last answer).

Fixed seed (hypothesis derandomize), a bound on examples, and a wall-clock bound.
"""

from __future__ import annotations

import time
from typing import Any, TypeVar

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import run_state_machine_as_test
from schemathesis.core.result import Err, Ok

from tests.support.contract_checks import contract_config
from tests.support.reliability_procs import soak

T = TypeVar("T")
E = TypeVar("E", bound=Exception)

EXAMPLES = soak(120, 2000)
SECONDS = soak(60.0, 900.0)


@pytest.fixture
def target(stack: Any, private_redis: Any) -> dict[str, Any]:
    stack.start_api(workers=2)
    stack.start_worker()
    with httpx.Client(base_url=stack.base_url, timeout=10) as http:
        gin = http.post(
            "/v1/matches",
            json={"variant": "three-hand-gin", "players": [{"name": n} for n in "abc"]},
        ).json()
        manip = http.post(
            "/v1/matches",
            json={"variant": "manipulation-rummy", "players": [{"name": n} for n in "de"]},
        ).json()
        turn = http.get(f"/v1/matches/{gin['id']}").json()["turn"]
        m_turn = http.get(f"/v1/matches/{manip['id']}").json()["turn"]
    first, second, third = turn, (turn + 1) % 3, (turn + 2) % 3
    return {
        "base_url": stack.base_url,
        "redis": private_redis.client(),
        "matches": [gin["id"], manip["id"]],
        "tokens": {
            "seat_a": (gin["id"], first, gin["seats"][first]["token"]),
            "seat_b": (gin["id"], second, gin["seats"][second]["token"]),
            "seat_c": (gin["id"], third, gin["seats"][third]["token"]),
            "other": (manip["id"], m_turn, manip["seats"][m_turn]["token"]),
            "malformed": (None, None, "0.not-a-token"),
            "none": (None, None, None),
        },
    }


def test_schemathesis_served_with_two_seats_finds_no_5xx_no_violation_no_idor(
    target: Any,
) -> None:
    schema = schemathesis.openapi.from_url(
        f"{target['base_url']}/v1/openapi.json", config=contract_config()
    )
    operations = [_ok(r) for r in schema.get_all_operations()]
    operations = [op for op in operations if not op.path.endswith("/events/stream")]
    # abort, resign and claim end the match or hand a seat to a bot, whose worker then appends
    # on its own: the stateful test below and tests/integration/api/test_clock_api.py fuzz
    # and check them (issue 31)
    operations = [op for op in operations if not op.path.endswith(CONDUCT)]
    assert len(operations) >= 8
    moves = [op for op in operations if op.path.endswith("/moves")]
    weighted = operations + moves * 4  # the write path gets a fair share of the cases
    client = target["redis"]
    versions = {m: client.xlen(f"match:{{{m}}}:events") for m in target["matches"]}
    seen: dict[str, int] = {}
    deadline = time.monotonic() + SECONDS

    @settings(
        max_examples=EXAMPLES,
        derandomize=True,
        deadline=None,
        phases=(Phase.explicit, Phase.generate),
        suppress_health_check=list(HealthCheck),
    )
    @given(data=st.data())
    def fuzz(data: Any) -> None:
        if time.monotonic() > deadline:
            return
        op = data.draw(st.sampled_from(weighted), label="operation")
        case = data.draw(op.as_strategy(), label="case")
        who = data.draw(st.sampled_from(sorted(target["tokens"])), label="who")
        owner, seat, token = target["tokens"][who]
        match_id = None
        if "match_id" in (case.path_parameters or {}):
            ids = [*target["matches"], "m_nosuchmatch"]
            if owner is not None and data.draw(st.booleans()):
                ids = [owner]  # most tokens are tried on their own match, the rest elsewhere
            match_id = data.draw(st.sampled_from(ids))
            case.path_parameters = {**case.path_parameters, "match_id": match_id}
        headers = dict(case.headers or {})
        headers.pop("Authorization", None)
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        if headers.get("If-Match") is not None and data.draw(st.booleans()):
            headers.pop("If-Match")
        case.headers = headers
        if op.path.endswith("/moves") and match_id == owner and data.draw(st.booleans()):
            legal = _legal(target["base_url"], match_id, token)
            if legal:  # a move the rules accept, to exercise the write path too
                case.body = data.draw(st.sampled_from(legal), label="legal move")
                case.headers.pop("If-Match", None)
        turn = (
            _turn(target["base_url"], match_id)
            if match_id is not None and match_id in target["matches"]
            else None
        )
        response = case.call_and_validate(base_url=target["base_url"])
        key = f"{op.method.upper()} {op.path} {response.status_code}"
        seen[key] = seen.get(key, 0) + 1
        _object_level(response, match_id, owner, seat, who, op, turn, target)
        _nothing_else_appended(client, versions, response, match_id, op)

    fuzz()
    statuses = sorted(seen)
    print(f"\nschemathesis served: {sum(seen.values())} calls: {dict(sorted(seen.items()))}")
    assert any("/moves 200" in s for s in statuses), "no move was accepted: write path unprobed"
    assert any(" 401" in s for s in statuses)


def _ok(result: Ok[T] | Err[E]) -> T:
    """An operation the schema loaded (every one must)."""
    assert isinstance(result, Ok), result.err()
    return result.ok()


def _legal(base_url: str, match_id: str, token: str) -> list[dict[str, Any]]:
    headers = {"Authorization": f"Bearer {token}"}
    got = httpx.get(f"{base_url}/v1/matches/{match_id}/legal-moves", headers=headers, timeout=10)
    return list(got.json()["moves"])


def _turn(base_url: str, match_id: str) -> int | None:
    view: dict[str, Any] = httpx.get(f"{base_url}/v1/matches/{match_id}", timeout=10).json()
    turn: int | None = view.get("turn")
    return turn


def _object_level(
    response: Any,
    match_id: str | None,
    owner: str | None,
    seat: int | None,
    who: str,
    op: Any,
    turn: int | None,
    target: Any,
) -> None:
    if match_id not in target["matches"] or response.status_code == 422:
        return
    status = response.status_code
    if who == "malformed" or (owner is not None and owner != match_id):
        assert status == 401 and response.json()["code"] == "unauthorized", (
            f"{op.method} {op.path} with a token of another match: {status}"
        )
        return
    if status != 200:
        return
    body = response.json()
    if op.method.upper() == "GET" and op.path == "/v1/matches/{match_id}":
        you = body.get("you")
        if seat is None:
            assert you is None
        else:
            assert you["seat"] == seat, "a token shows its own seat only"
            sizes = {s["seat"]: s["hand_size"] for s in body["seats"]}
            assert len(you["hand"]) == sizes[seat]
    if op.path.endswith("/legal-moves"):
        assert body["seat"] == seat
    if op.path.endswith("/moves") and op.method.upper() == "POST":
        assert seat is not None and (turn == seat or body["events"][0]["type"] == "AdviceGiven")


def _nothing_else_appended(
    client: Any, versions: dict[str, int], response: Any, match_id: str | None, op: Any
) -> None:
    for m in versions:
        now = client.xlen(f"match:{{{m}}}:events")
        moved = m == match_id and op.path.endswith("/moves") and response.status_code == 200
        if now != versions[m]:
            # a 200 move appends; scoring jobs may follow it at once, so only growth after a
            # 200 move of this match (or after a move that started a scoring job) is allowed
            assert moved or _system_only(client, m, versions[m]), (m, versions[m], now)
            versions[m] = now


CONDUCT = ("/abort", "/resign", "/claim")


def _system_only(client: Any, match_id: str, after: int) -> bool:
    """Every event after `after` is a SYSTEM event (scoring, deal, end): worker output."""
    rows = client.xrange(f"match:{{{match_id}}}:events", f"0-{after + 1}", "+")
    system = {b"RoundScored", b"RoundDealt", b"MatchFinished", b"DealerChosen", b"RolesDrawn"}
    return all(fields[b"type"] in system for _, fields in rows)


STATEFUL_EXAMPLES = soak(25, 400)


def test_schemathesis_served_stateful_through_the_links_reports_no_failure(
    stack: Any, private_redis: Any
) -> None:
    """The stateful phase against gunicorn (issue 17): the links of POST /v1/matches take the
    new match's id and each seat's token into every match operation (the stream aside: it
    stays open for seconds); every check holds on every step, and the linked operations are
    reached with a real match."""
    stack.start_api(workers=2)
    stack.start_worker()
    schema = schemathesis.openapi.from_url(
        f"{stack.base_url}/v1/openapi.json", config=contract_config()
    ).exclude(path_regex="/events/stream$")
    reached: dict[str, int] = {}
    seated: list[int] = []

    class Machine(schema.as_state_machine()):  # type: ignore[misc]
        def after_call(self, response: Any, case: Any) -> None:
            super().after_call(response, case)
            key = f"{case.method.upper()} {case.path} {response.status_code}"
            reached[key] = reached.get(key, 0) + 1
            legal = case.path.endswith("/legal-moves") and response.status_code == 200
            if legal and response.json()["seat"] is not None:
                seated.append(response.json()["seat"])

    run_state_machine_as_test(
        Machine,
        settings=settings(
            max_examples=STATEFUL_EXAMPLES,
            stateful_step_count=6,
            derandomize=True,
            deadline=None,
            suppress_health_check=list(HealthCheck),
        ),
    )
    print(f"\nstateful served: {sum(reached.values())} calls: {dict(sorted(reached.items()))}")
    real = {k.rsplit(" ", 1)[0] for k in reached if not k.endswith((" 401", " 404"))}
    for path in ("", "/legal-moves", "/moves", "/events", "/log", "/hint"):
        method = "POST" if path == "/moves" else "GET"
        assert f"{method} /v1/matches/{{match_id}}{path}" in real, sorted(real)
    # Which links a run follows depends on the server's answers (ids, tokens, the worker's
    # timing), so a run need not take a seat's link: it failed once on a loaded machine.
    # test_every_link_of_a_created_match_reaches_its_operation_as_its_seat
    # (tests/integration/api/test_openapi.py) follows every link deterministically instead.
    print(f"legal-moves seen as a seat {len(seated)} times")
