"""Issue 28 against the app on a real Redis: live streams hold places and have their own pool,
hints have a price, limits count networks, and a bad token costs no cached state."""

from __future__ import annotations

from typing import Any

import pytest

from api import create_app
from api.addresses import network_of

GIN = {"variant": "three-hand-gin", "players": [{"name": "a"}, {"name": "b"}, {"name": "c"}]}
MANIP = {"variant": "manipulation-rummy", "players": [{"name": "a"}, {"name": "b"}]}


def _app(service: Any, **config: Any) -> Any:
    base = {"TESTING": True, "SERVICE": service, "SSE_HEARTBEAT_SECONDS": 0.05}
    return create_app({**base, "SSE_MAX_SECONDS": 0.3, **config})


def _addr(ip: str) -> dict[str, Any]:
    return {"environ_base": {"REMOTE_ADDR": ip}}


def _problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == "application/problem+json"
    body: dict[str, Any] = response.get_json()
    assert body["code"] == code
    return body


def _created(client: Any, body: dict[str, Any] = GIN) -> tuple[str, list[str]]:
    made = client.post("/v1/matches", json=body).get_json()
    return made["id"], [s["token"] for s in made["seats"]]


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


# --- live streams -------------------------------------------------------------------------


def test_streams_use_a_pool_of_their_own(service: Any) -> None:
    from api.streams import stream_parts

    app = _app(service, SSE_MAX_STREAMS=7)
    _, reader = stream_parts(app)
    assert reader.connection_pool is not service.redis.connection_pool
    assert reader.connection_pool.max_connections == 9


def test_streams_are_capped_per_network_and_the_rest_goes_on(service: Any) -> None:
    app = _app(service, SSE_MAX_STREAMS_PER_ADDRESS=2, SSE_MAX_SECONDS=30)
    client = app.test_client()
    match_id, _ = _created(client)
    url = f"/v1/matches/{match_id}/events/stream"
    held = [client.get(url, **_addr("10.3.0.1"), buffered=False) for _ in range(2)]
    assert [r.status_code for r in held] == [200, 200]
    refused = client.get(url, **_addr("10.3.0.1"))
    body = _problem(refused, 429, "stream_limit")
    assert "client network" in body["detail"] and int(refused.headers["Retry-After"]) >= 1
    assert client.get(url, **_addr("2001:db8::1"), buffered=False).status_code == 200
    assert client.get(f"/v1/matches/{match_id}", **_addr("10.3.0.1")).status_code == 200
    assert client.get("/v1/health", **_addr("10.3.0.1")).status_code == 200
    for response in held:
        response.close()
    again = client.get(url, **_addr("10.3.0.1"), buffered=False)
    assert again.status_code == 200, "a closed stream gives its place back"
    again.close()


def test_streams_are_capped_per_seat_token(service: Any) -> None:
    app = _app(service, SSE_MAX_STREAMS_PER_TOKEN=1, SSE_MAX_SECONDS=30)
    client = app.test_client()
    match_id, tokens = _created(client)
    url = f"/v1/matches/{match_id}/events/stream"
    held = client.get(url, headers=_bearer(tokens[0]), **_addr("10.4.0.1"), buffered=False)
    assert held.status_code == 200
    body = _problem(
        client.get(url, headers=_bearer(tokens[0]), **_addr("10.4.0.2")), 429, "stream_limit"
    )
    assert "seat token" in body["detail"]
    other = client.get(url, headers=_bearer(tokens[1]), **_addr("10.4.0.2"), buffered=False)
    assert other.status_code == 200
    held.close()
    other.close()


def test_streams_are_capped_per_process(service: Any) -> None:
    app = _app(service, SSE_MAX_STREAMS=1, SSE_MAX_SECONDS=30)
    client = app.test_client()
    match_id, _ = _created(client)
    url = f"/v1/matches/{match_id}/events/stream"
    held = client.get(url, **_addr("10.5.0.1"), buffered=False)
    assert held.status_code == 200
    refused = client.get(url, **_addr("10.5.0.2"))
    _problem(refused, 503, "streams_full")
    assert refused.headers["Retry-After"] == "5"
    held.close()


def test_a_stream_ends_by_default_within_its_lifetime(service: Any) -> None:
    app = create_app({"TESTING": True, "SERVICE": service})
    assert 0 < app.config["SSE_MAX_SECONDS"] <= 3600


# --- hints ------------------------------------------------------------------------------------


def _seat_to_act(client: Any, match_id: str, tokens: list[str]) -> str:
    for token in tokens:
        view = client.get(f"/v1/matches/{match_id}", headers=_bearer(token)).get_json()
        if view["you"]["legal_moves"]:
            return token
    raise AssertionError("no seat to act")


def test_hints_are_limited_per_seat_token(service: Any) -> None:
    client = _app(service, RATELIMIT_HINTS="2 per minute").test_client()
    match_id, tokens = _created(client, MANIP)
    token = _seat_to_act(client, match_id, tokens)
    url = f"/v1/matches/{match_id}/hint"
    first = client.get(url, headers=_bearer(token), **_addr("10.6.0.1"))
    assert first.status_code == 200
    assert client.get(url, headers=_bearer(token), **_addr("10.6.0.2")).get_json() == (
        first.get_json()
    )
    _problem(client.get(url, headers=_bearer(token), **_addr("10.6.0.3")), 429, "rate_limited")


def test_hints_are_limited_per_network(service: Any) -> None:
    client = _app(service, RATELIMIT_HINTS_ADDRESS="1 per minute").test_client()
    match_id, tokens = _created(client, MANIP)
    url = f"/v1/matches/{match_id}/hint"
    token = _seat_to_act(client, match_id, tokens)
    assert client.get(url, headers=_bearer(token), **_addr("2001:db8:0:7::1")).status_code == 200
    refused = client.get(url, headers=_bearer(token), **_addr("2001:db8:0:7::9"))
    _problem(refused, 429, "rate_limited")


def test_a_hint_asked_again_is_remembered_not_worked_out(
    service: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from domain import bots  # what api.bots calls `registry`

    client = _app(service).test_client()
    match_id, tokens = _created(client, MANIP)
    token = _seat_to_act(client, match_id, tokens)
    calls: list[str] = []
    explain = bots.explain

    def counted(*args: Any) -> Any:
        calls.append(args[1])
        return explain(*args)

    monkeypatch.setattr(bots, "explain", counted)
    answers = [client.get(f"/v1/matches/{match_id}/hint", headers=_bearer(token)) for _ in range(3)]
    assert {a.status_code for a in answers} == {200}
    assert len({a.get_data() for a in answers}) == 1
    assert len(calls) == 1


def test_hints_wait_their_turn_then_answer_busy(service: Any) -> None:
    from api import bots

    app = _app(service, HINT_CONCURRENCY=1, HINT_WAIT_SECONDS=0.01)
    client = app.test_client()
    match_id, tokens = _created(client, MANIP)
    token = _seat_to_act(client, match_id, tokens)
    turns = bots._turns(1)
    assert turns.acquire(timeout=1)  # another hint is being worked out
    try:
        refused = client.get(f"/v1/matches/{match_id}/hint", headers=_bearer(token))
    finally:
        turns.release()
    _problem(refused, 503, "hints_busy")
    assert refused.headers["Retry-After"] == "1"
    assert client.get(f"/v1/matches/{match_id}/hint", headers=_bearer(token)).status_code == 200


# --- addresses, bad tokens ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("address", "v4", "v6", "network"),
    [
        ("2001:db8:1:2:3:4:5:6", 32, 64, "2001:db8:1:2::/64"),
        ("2001:db8:1:2:ffff::1", 32, 64, "2001:db8:1:2::/64"),
        ("2001:db8:1:2::1", 32, 48, "2001:db8:1::/48"),
        ("127.0.0.2", 32, 64, "127.0.0.2/32"),
        ("127.0.0.5", 24, 64, "127.0.0.0/24"),
        ("::ffff:10.1.2.3", 32, 64, "10.1.2.3/32"),
        ("fe80::1%eth0", 32, 64, "fe80::/64"),
        ("not an address", 32, 64, "not an address"),
        (None, 32, 64, "unknown"),
    ],
)
def test_limits_count_networks(address: str | None, v4: int, v6: int, network: str) -> None:
    assert network_of(address, v4, v6) == network


def test_creates_from_one_ipv6_network_share_a_bucket(service: Any) -> None:
    client = _app(service, RATELIMIT_CREATE="2 per minute").test_client()
    assert client.post("/v1/matches", json=GIN, **_addr("2001:db8:5::1")).status_code == 201
    assert client.post("/v1/matches", json=GIN, **_addr("2001:db8:5::2")).status_code == 201
    refused = client.post("/v1/matches", json=GIN, **_addr("2001:db8:5:0:abcd::3"))
    _problem(refused, 429, "rate_limited")
    assert client.post("/v1/matches", json=GIN, **_addr("2001:db8:6::1")).status_code == 201


def test_ipv4_prefix_is_a_setting(service: Any) -> None:
    client = _app(service, RATELIMIT_CREATE="1 per minute", RATELIMIT_IPV4_PREFIX=24).test_client()
    assert client.post("/v1/matches", json=GIN, **_addr("127.0.0.2")).status_code == 201
    _problem(client.post("/v1/matches", json=GIN, **_addr("127.0.0.3")), 429, "rate_limited")


def test_moves_with_bad_tokens_count_against_the_address(service: Any) -> None:
    client = _app(service, RATELIMIT_MOVES_ADDRESS="3 per minute").test_client()
    match_id, _ = _created(client)
    url = f"/v1/matches/{match_id}/moves"
    move = {"type": "pass_upcard"}
    for i in range(3):
        wrong = client.post(url, json=move, headers=_bearer(f"wrong{i}"), **_addr("10.7.0.1"))
        _problem(wrong, 401, "unauthorized")
    _problem(
        client.post(url, json=move, headers=_bearer("wrong9"), **_addr("10.7.0.1")),
        429,
        "rate_limited",
    )


def test_a_bad_token_keeps_the_cached_state(service: Any) -> None:
    client = _app(service).test_client()
    match_id, tokens = _created(client)
    client.get(f"/v1/matches/{match_id}", headers=_bearer(tokens[0]))
    cached = service.states.cache[match_id]
    _problem(
        client.get(f"/v1/matches/{match_id}", headers=_bearer("not-a-seat-token")),
        401,
        "unauthorized",
    )
    assert service.states.cache.get(match_id) is cached


# --- keyed creates, redirects, headers, names -----------------------------------------------


def test_a_keyed_create_that_lost_the_race_gets_the_one_match(
    service: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The twin's read of the key came before the first create's append (as when both are
    sent at once): the append finds the record, and the twin gets the same match."""
    key = "k" * 24
    players = GIN["players"]
    first = service.create_match("three-hand-gin", players, {}, None, key, "same")
    read = service.store.get
    calls: list[str] = []

    def before_the_twin_appended(name: str) -> Any:
        calls.append(name)
        return None if len(calls) == 1 else read(name)

    monkeypatch.setattr(service.store, "get", before_the_twin_appended)
    twin = service.create_match("three-hand-gin", players, {}, None, key, "same")
    assert twin.match_id == first.match_id and twin.replayed
    assert twin.tokens == first.tokens


def test_parallel_keyed_creates_give_one_match(service: Any, redis_client: Any) -> None:
    from concurrent.futures import ThreadPoolExecutor

    app = _app(service)
    headers = {"Idempotency-Key": "parallel-create-key-0001"}

    def create(_: int) -> tuple[int, str]:
        answer = app.test_client().post("/v1/matches", json=GIN, headers=headers)
        return answer.status_code, (answer.get_json() or {}).get("id", "")

    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(create, range(24)))
    assert {status for status, _ in answers} == {201}, answers
    assert len({match_id for _, match_id in answers}) == 1
    assert len(redis_client.keys("match:*:events")) == 1


def test_double_slashes_are_not_redirected_to_the_host_header(service: Any) -> None:
    client = _app(service).test_client()
    answer = client.post("/v1//matches", json=GIN, headers={"Host": "evil.example"})
    assert answer.status_code == 404 and "Location" not in answer.headers
    _problem(answer, 404, "not_found")


def test_pages_forbid_framing_and_outside_scripts(service: Any) -> None:
    client = _app(service).test_client()
    for path in ("/docs", "/replay", "/watch/m_x", "/static/deadwood/watch.js"):
        answer = client.get(path)
        assert answer.status_code == 200, path
        policy = answer.headers["Content-Security-Policy"]
        assert "frame-ancestors 'none'" in policy and "script-src 'self'" in policy
        assert answer.headers["X-Frame-Options"] == "DENY"
        assert answer.headers["X-Content-Type-Options"] == "nosniff"
        answer.close()
    assert client.get("/v1/health").headers["X-Content-Type-Options"] == "nosniff"


def test_cors_answers_vary_on_origin_with_or_without_one(service: Any) -> None:
    client = _app(service, CORS_ORIGINS="https://a.example").test_client()
    for headers in ({}, {"Origin": "https://a.example"}, {"Origin": "https://b.example"}):
        answer = client.get("/v1/health", headers=headers)
        assert "Origin" in answer.headers.get("Vary", ""), headers


@pytest.mark.parametrize(
    "name",
    [
        "\u200b",  # zero width space
        "ana\u200d",  # a zero width joiner at the end
        "\u202eana",  # right-to-left override
        "\U000e0061\U000e0062",  # tag characters
        "\u3164",  # Hangul filler: a letter that draws nothing
        "\u2800",  # blank braille pattern
        "   ",
        "\u3000\u2003",  # ideographic and em spaces only
        "a\u0378b",  # unassigned
        "a\u2028b",  # line separator
    ],
)
def test_names_must_be_printable_text(service: Any, name: str) -> None:
    client = _app(service).test_client()
    body = {**GIN, "players": [{"name": name}, {"name": "b"}, {"name": "c"}]}
    refused = _problem(client.post("/v1/matches", json=body), 422, "validation_error")
    assert "players.0.name" in refused["errors"]
    assert "plain text" in refused["detail"]


@pytest.mark.parametrize(
    "name",
    [
        "Zoë",
        "李雷",
        "José María",
        "a b",
        "🂡 ace",
        "👩\u200d💻 ana",
        "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",
    ],
)
def test_printable_names_are_taken(service: Any, name: str) -> None:
    client = _app(service).test_client()
    body = {**GIN, "players": [{"name": name}, {"name": "b"}, {"name": "c"}]}
    assert client.post("/v1/matches", json=body).status_code == 201


def test_a_slow_body_is_cut_at_its_deadline(service: Any) -> None:
    """In process there is no gevent to cut a waiting read: the deadline is checked between
    reads (the served test cuts a read that waits)."""
    import io

    from api.deadline import BodyDeadline, BodyTimeout, _TimedInput

    clock = [0.0]
    slow = _TimedInput(io.BytesIO(b"{}" * 10), 2.0, None)
    slow.timeout = None
    import time  # the module api.deadline reads its clock from

    real = time.monotonic
    try:
        time.monotonic = lambda: clock[0]
        assert slow.read(2) == b"{}"
        clock[0] = 2.5
        with pytest.raises(BodyTimeout):
            slow.read(2)
    finally:
        time.monotonic = real
    assert isinstance(BodyDeadline(lambda e, s: [], 1.0), BodyDeadline)


def test_a_stream_of_no_match_gives_its_place_back(service: Any) -> None:
    app = _app(service, SSE_MAX_STREAMS_PER_ADDRESS=1, SSE_MAX_SECONDS=30)
    client = app.test_client()
    match_id, _ = _created(client)
    missing = client.get("/v1/matches/m_missing/events/stream", **_addr("10.8.0.1"))
    _problem(missing, 404, "unknown_match")
    held = client.get(f"/v1/matches/{match_id}/events/stream", **_addr("10.8.0.1"), buffered=False)
    assert held.status_code == 200
    held.close()
