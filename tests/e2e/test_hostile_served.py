"""Hostile input over real HTTP, to the app as gunicorn serves it (issue 6; api.md Conventions).

tests/integration/api/test_hostile_input.py covers the bodies in process (413, depth, 415,
UTF-8, NaN, huge numbers, unknown fields). This adds what only a served app meets, and the cases
it does
not have: a chunked body over 64 KiB with no Content-Length, a Content-Length that lies,
card codes out of range in every move field that takes one, huge integers in headers, query
and body, long strings in every field and header, bytes that are not UTF-8 in headers.
Every answer is a 4xx problem+json, and nothing changes: the Redis keyspace (every key and
every stream's length) is the same before and after.
"""

from __future__ import annotations

import json
import select
import socket
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import redis

from tests.support.reliability_procs import PrivateRedis, Stack

MOVES = "/v1/matches/{id}/moves"


def raw_request(
    port: int, head: bytes, body: bytes = b"", timeout: float = 10.0
) -> tuple[int, dict[str, str], bytes]:
    """Send bytes as they are, in pieces, stopping early when the server has answered (it may
    answer a too-large body before reading it all); (status, headers, body) of the answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        data = b""
        payload = head + body
        for i in range(0, len(payload), 4096):
            ready, _, _ = select.select([sock], [], [], 0)
            if ready:
                break
            try:
                sock.sendall(payload[i : i + 4096])
            except (BrokenPipeError, ConnectionResetError):
                break
        else:
            sock.shutdown(socket.SHUT_WR)
        while True:
            try:
                chunk = sock.recv(65536)
            except (TimeoutError, ConnectionResetError):
                break
            if not chunk:
                break
            data += chunk
    head_part, _, rest = data.partition(b"\r\n\r\n")
    lines = head_part.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1]) if lines[0] else 0
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return status, headers, rest


def snapshot(client: redis.Redis) -> dict[bytes, Any]:
    """Every key with its stream length, or its value for plain keys (TTL-free view)."""
    out: dict[bytes, Any] = {}
    for key in client.scan_iter(count=1000):
        kind: Any = client.type(key)  # raw reply (bytes)
        if kind == b"stream":
            out[key] = ("stream", client.xlen(key))
        elif kind == b"string":
            out[key] = ("string", client.get(key))
        elif kind == b"hash":
            out[key] = ("hash", client.hgetall(key))
        else:
            out[key] = (kind.decode(), None)
    return {k: v for k, v in out.items() if not k.startswith(b"rq:")}


def problem(status: int, headers: dict[str, str], body: bytes) -> dict[str, Any]:
    assert 400 <= status < 500, (status, body[:300])
    assert headers.get("content-type", "").startswith("application/problem+json"), (
        status,
        headers,
        body[:300],
    )
    found: dict[str, Any] = json.loads(body)
    assert found["status"] == status and isinstance(found["code"], str)
    assert "Traceback" not in body.decode("utf-8", "replace")
    return found


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """One served app (and its Redis) for the module: every test here changes nothing."""
    base = tmp_path_factory.mktemp("hostile")
    private_redis = PrivateRedis(base / "redis")
    private_redis.start()
    stack = Stack(base, private_redis.url)
    try:
        yield from _serve(stack, private_redis)
    finally:
        stack.stop()
        private_redis.stop()


def _serve(stack: Stack, private_redis: PrivateRedis) -> Iterator[dict[str, Any]]:
    stack.start_api(workers=2)
    with httpx.Client(base_url=stack.base_url, timeout=10) as http:
        body = {
            "variant": "three-hand-gin",
            "players": [{"name": "a"}, {"name": "b"}, {"name": "c"}],
        }
        created = http.post("/v1/matches", json=body).json()
        manip = {"variant": "manipulation-rummy", "players": [{"name": "a"}, {"name": "b"}]}
        other = http.post("/v1/matches", json=manip).json()
        match_id = created["id"]
        turn = http.get(f"/v1/matches/{match_id}").json()["turn"]
        token = created["seats"][turn]["token"]
        # the captain takes the upcard, so a discard / knock is what the rules expect next
        taken = http.post(
            f"/v1/matches/{match_id}/moves",
            json={"type": "take_upcard"},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert taken.status_code == 200, taken.text
        m_turn = http.get(f"/v1/matches/{other['id']}").json()["turn"]
        m_token = other["seats"][m_turn]["token"]
    client = private_redis.client()
    assert stack.api is not None
    yield {
        "port": stack.api.port,
        "gin": (match_id, token),
        "manip": (other["id"], m_token),
        "redis": client,
    }
    client.close()


def _post(
    port: int, path: str, body: bytes, headers: dict[str, str]
) -> tuple[int, dict[str, str], bytes]:
    head = f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
    head += f"Content-Length: {len(body)}\r\n"
    head += "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n"
    return raw_request(port, head.encode("latin-1"), body)


BAD_CARDS = [
    "ZZ",
    "1S",
    "0H",
    "AX",
    "as",
    "A S",
    "AS ",
    "10S",
    "JK=ZZ",
    "JK=JK",
    "\u00c1S",
    "",
    "A",
    "ASAS",
    "\x00S",
    "KS\n",
]
BAD_CARD_VALUES: list[Any] = [52, -1, 10**30, None, True, ["AS"], {"card": "AS"}, 1.5]


def _gin_cases() -> list[tuple[str, Any]]:
    cases: list[tuple[str, Any]] = []
    for code in BAD_CARDS + BAD_CARD_VALUES:
        cases.append((f"discard {code!r}", {"type": "discard", "card": code}))
        cases.append((f"knock {code!r}", {"type": "knock", "card": code}))
    cases.append(
        ("knock melds bad", {"type": "knock", "card": "AS", "melds": [["ZZ", "AS", "2S"]]})
    )
    cases.append(("knock melds deep", {"type": "knock", "card": "AS", "melds": [[["AS"]]]}))
    cases.append(("knock melds huge", {"type": "knock", "card": "AS", "melds": [["AS"] * 5000]}))
    cases.append(("advise long", {"type": "advise", "text": "x" * 50_000}))
    cases.append(
        ("advise move bad card", {"type": "advise", "move": {"type": "discard", "card": "99"}})
    )
    cases.append(("draw from huge int", {"type": "draw", "from": 10**40}))
    cases.append(("type long", {"type": "d" * 60_000}))
    cases.append(("unknown field", {"type": "discard", "card": "AS", "extra": 1}))
    return cases


def test_bad_cards_long_strings_and_huge_numbers_in_moves_are_4xx_and_change_nothing(
    served: Any,
) -> None:
    """api.md Cards: anything but an upper-case code is refused (invalid_card naming it, or a
    validation_error for a value that is not a string); nothing is appended."""
    before = snapshot(served["redis"])
    match_id, token = served["gin"]
    codes: dict[str, int] = {}
    for name, move in _gin_cases():
        body = json.dumps(move).encode()
        status, headers, answer = _post(
            served["port"],
            MOVES.format(id=match_id),
            body,
            {"Content-Type": "application/json", "Authorization": f"Bearer {token}"},
        )
        found = problem(status, headers, answer)
        codes[found["code"]] = codes.get(found["code"], 0) + 1
        assert found["code"] in (
            "invalid_card",
            "validation_error",
            "illegal_move",
            "payload_too_large",
        ), (name, found)
        card = move.get("card") if "melds" not in move else None
        if found["code"] == "invalid_card" and isinstance(card, str) and card.isprintable():
            assert card in found["detail"], (name, found["detail"])
    manip_id, manip_token = served["manip"]
    for code in BAD_CARDS + BAD_CARD_VALUES:
        move = {"type": "meld", "table": [[code, "2H", "3H"]]}
        status, headers, answer = _post(
            served["port"],
            MOVES.format(id=manip_id),
            json.dumps(move).encode(),
            {"Content-Type": "application/json", "Authorization": f"Bearer {manip_token}"},
        )
        problem(status, headers, answer)
    assert snapshot(served["redis"]) == before
    assert codes.get("invalid_card", 0) >= 10, codes


def _chunked(payload: bytes) -> bytes:
    chunks = b""
    for i in range(0, len(payload), 8192):
        part = payload[i : i + 8192]
        chunks += f"{len(part):x}\r\n".encode() + part + b"\r\n"
    return chunks + b"0\r\n\r\n"


@pytest.mark.parametrize(
    "payload",
    [
        b'{"type": "advise", "text": "' + b"y" * 100_000 + b'"}',
        b'{"type": "draw", "from": "stock"}' + b" " * 70_000,  # valid JSON within the first 64 KiB
    ],
    ids=["long string", "valid json then padding"],
)
def test_chunked_body_over_the_limit_is_413_without_a_content_length(
    served: Any, payload: bytes
) -> None:
    """A body sent chunked (no Content-Length) is still bounded at 64 KiB (api.md), not cut
    to its first 64 KiB and read as if that were all of it."""
    before = snapshot(served["redis"])
    match_id, token = served["gin"]
    head = (
        f"POST {MOVES.format(id=match_id)} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\n"
        "Transfer-Encoding: chunked\r\n\r\n"
    ).encode()
    status, headers, answer = raw_request(served["port"], head, _chunked(payload))
    assert problem(status, headers, answer)["code"] == "payload_too_large"
    assert snapshot(served["redis"]) == before


def test_chunked_body_within_the_limit_is_read(served: Any) -> None:
    match_id, token = served["gin"]
    head = (
        f"POST {MOVES.format(id=match_id)} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\n"
        "Transfer-Encoding: chunked\r\n\r\n"
    ).encode()
    body = b'{"type": "discard", "card": "ZZ"}' + b" " * 30_000
    status, headers, answer = raw_request(served["port"], head, _chunked(body))
    assert problem(status, headers, answer)["code"] == "invalid_card"


def test_a_content_length_that_lies_changes_nothing(served: Any) -> None:
    """Fewer bytes than announced: the request is not read as a move (4xx or no answer)."""
    before = snapshot(served["redis"])
    match_id, token = served["gin"]
    head = (
        f"POST {MOVES.format(id=match_id)} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\n"
        "Content-Length: 500\r\n\r\n"
    ).encode()
    status, headers, answer = raw_request(
        served["port"], head, b'{"type": "discard", "card": "AS"}', timeout=5
    )
    if status != 0:  # 0: the server closed without an answer, which is fine too
        problem(status, headers, answer)
    assert snapshot(served["redis"]) == before


def test_hostile_headers_query_and_paths_are_4xx_problems(served: Any) -> None:
    """Huge integers, long strings and non-UTF-8 bytes outside the body."""
    before = snapshot(served["redis"])
    match_id, token = served["gin"]
    port = served["port"]
    path = MOVES.format(id=match_id)
    move = b'{"type": "discard", "card": "AS"}'
    json_auth = {"Content-Type": "application/json", "Authorization": f"Bearer {token}"}
    cases = [
        ("If-Match huge", {**json_auth, "If-Match": '"' + "9" * 40 + '"'}),
        ("If-Match negative", {**json_auth, "If-Match": '"-1"'}),
        ("Idempotency-Key long", {**json_auth, "Idempotency-Key": "k" * 4000}),
        (
            "token long",
            {"Content-Type": "application/json", "Authorization": "Bearer " + "t" * 4000},
        ),
        (
            "token of another match",
            {"Content-Type": "application/json", "Authorization": f"Bearer {served['manip'][1]}"},
        ),
        (
            "token not utf-8",
            {"Content-Type": "application/json", "Authorization": "Bearer \xff\xfe"},
        ),
        ("key not utf-8", {**json_auth, "Idempotency-Key": "\xff\xfe"}),
        (
            "content type long",
            {"Content-Type": "application/" + "j" * 4000, "Authorization": f"Bearer {token}"},
        ),
    ]
    for name, headers in cases:
        status, got, answer = _post(port, path, move, headers)
        assert problem(status, got, answer)["code"], name
    gets = [
        f"/v1/matches/{match_id}/events?after=" + "9" * 40,
        f"/v1/matches/{match_id}/events?limit=" + "9" * 40,
        f"/v1/matches/{match_id}?at=" + "9" * 40,
        f"/v1/matches/{match_id}?at=-5",
        "/v1/matches/" + "m" * 4000,
        "/v1/matches/%ff%fe",
        f"/v1/matches/{match_id}/events?after=%ff",
    ]
    for url in gets:
        head = f"GET {url} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode()
        status, got, answer = raw_request(port, head)
        problem(status, got, answer)
    head = (
        f"GET /v1/matches/{match_id}/events/stream HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
        f"Last-Event-ID: {'9' * 40}\r\n\r\n"
    ).encode()
    problem(*raw_request(port, head))
    creates = [
        {"variant": "three-hand-gin", "players": [{"name": "n" * 20_000}] * 3},
        {"variant": "three-hand-gin", "players": [{"name": "a"}] * 3, "seed": 10**400},
        {"variant": "three-hand-gin", "players": [{"name": "a"}] * 3, "seed": -(10**30)},
        {"variant": "v" * 30_000, "players": [{"name": "a"}] * 3},
        {"variant": "three-hand-gin", "players": [{"name": "a"}] * 3000},
        {
            "variant": "three-hand-gin",
            "players": [{"name": "a"}] * 3,
            "options": {"target_score": 10**30},
        },
        {"variant": "three-hand-gin", "players": [{"name": "a"}] * 3, "options": {"k" * 5000: 1}},
    ]
    for body in creates:
        status, got, answer = _post(
            port, "/v1/matches", json.dumps(body).encode(), {"Content-Type": "application/json"}
        )
        problem(status, got, answer)
    assert snapshot(served["redis"]) == before


RAW_BODIES = [
    ("deep nesting", b"[" * 50_000 + b"]" * 50_000, "application/json", "payload_too_large"),
    ("deep within 64 KiB", b'{"a":' * 3000 + b"1" + b"}" * 3000, "application/json", "bad_request"),
    (
        "invalid utf-8",
        b'{"type": "discard", "card": "\xc3\x28"}',
        "application/json",
        "bad_request",
    ),
    ("nan", b'{"type": "discard", "card": NaN}', "application/json", "bad_request"),
    ("wrong type", b'{"type": "draw", "from": "stock"}', "text/plain", "unsupported_media_type"),
    ("xml", b"<move/>", "application/xml", "unsupported_media_type"),
]


@pytest.mark.parametrize(
    ("name", "body", "ctype", "code"), RAW_BODIES, ids=[b[0] for b in RAW_BODIES]
)
def test_raw_bodies_served_are_problems_and_change_nothing(
    served: Any, name: str, body: bytes, ctype: str, code: str
) -> None:
    before = snapshot(served["redis"])
    match_id, token = served["gin"]
    status, headers, answer = _post(
        served["port"],
        MOVES.format(id=match_id),
        body,
        {"Content-Type": ctype, "Authorization": f"Bearer {token}"},
    )
    assert problem(status, headers, answer)["code"] == code, name
    assert snapshot(served["redis"]) == before
