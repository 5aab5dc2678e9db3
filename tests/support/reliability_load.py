"""A load of legal moves over HTTP, with exact resends, stale If-Match and reused keys.

`run_load(base_url, matches, seconds, ...)` starts one thread per human seat of each match.
Each seat polls its legal moves, picks one, and POSTs it with `If-Match` (the version it read)
and a fresh `Idempotency-Key`. Faults, drawn per move:
- an exact resend (10%) of an acknowledged move: the same bytes and headers again, which must
  return the original status and body with `Idempotent-Replayed: true`;
- a stale `If-Match` (5%): the version before the one read, which must be 412;
- a reused key (2%): an acknowledged key with another valid body, which must be 422
  `idempotency_key_reused`.
A request whose outcome is unknown (a transport error, a timeout, a 5xx) is sent again with the
same key and body until it gets a definite answer, within a bound. Every acknowledged move
(a 200) is recorded for the audit (reliability_audit.py). A fault injector times its fault to a
move in flight with `Stats.gate` (FaultGate).
"""

from __future__ import annotations

import contextlib
import functools
import json
import random
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from domain.cards import parse_cards
from domain.gin.melds import deadwood
from tests.support.waiting import wait_until

RESEND = 0.10
STALE = 0.05
REUSE = 0.02
SETTLE_SECONDS = 60.0
"""How long a request of unknown outcome is retried after the run's end (Redis restarting)."""


COUNTERS = (
    "exact_resends",
    "refused_illegal_move",
    "refused_not_your_turn",
    "refused_version_conflict",
    "reused_keys",
    "stale_if_match",
    "unknown_outcome_polls",
    "unknown_outcome_retries",
)
"""Every counter the summary reports, present even at zero (issue 10); `transport_error_*`
come on top, one per kind of error seen."""


class Unknown(Exception):
    """No definite answer: a transport error, a timeout or a 5xx."""


class FaultGate:
    """Holds the next POST of any seat until a fault is in place, so a fault injector knows a
    move is in flight when Redis is paused or killed (issue 10).

    The injector calls `hold_next_post()`, which returns once a seat has claimed the gate (its
    POST is about to be sent), then injects the fault and calls `release()`; the seat sends
    its POST only then. Unarmed, the gate lets every POST through."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._armed = False
        self._claimed = threading.Event()
        self._released = threading.Event()

    def hold_next_post(self, timeout: float) -> None:
        with self._lock:
            self._armed = True
            self._claimed.clear()
            self._released.clear()
        if not self._claimed.wait(timeout):
            raise AssertionError(f"no seat sent a move within {timeout} s of arming the gate")

    def release(self) -> None:
        self._released.set()

    def before_post(self) -> None:
        with self._lock:
            claimed, self._armed = self._armed, False
        if claimed:
            self._claimed.set()
            self._released.wait(60.0)


@dataclass
class Ack:
    """An acknowledged move: its key, the move, and the 200 body."""

    match_id: str
    seat: int
    key: str
    move: dict[str, Any]
    body: dict[str, Any]
    attempts: int
    at: float = field(default_factory=time.monotonic)
    """When the 200 came (time.monotonic)."""


@dataclass
class Stats:
    """What the run saw (thread-safe through `lock`)."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    latencies: list[float] = field(default_factory=list)
    move_latencies: list[float] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=lambda: Counter(dict.fromkeys(COUNTERS, 0)))
    gate: FaultGate = field(default_factory=FaultGate)
    stopped: threading.Event = field(default_factory=threading.Event)
    """Set when the run is over: every seat stops after its current move."""
    statuses: Counter[int] = field(default_factory=Counter)
    acks: list[Ack] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    unresolved: list[tuple[str, int, str]] = field(default_factory=list)
    wall: float = 0.0

    def note(self, kind: str, n: int = 1) -> None:
        with self.lock:
            self.counts[kind] += n

    def fail(self, text: str) -> None:
        with self.lock:
            self.problems.append(text)

    def summary(self) -> dict[str, Any]:
        lat = sorted(self.latencies)
        moves = sorted(self.move_latencies)
        return {
            "requests": len(lat),
            "seconds": round(self.wall, 1),
            "rps": round(len(lat) / self.wall, 1) if self.wall else 0.0,
            "p50_ms": _pct(lat, 0.50),
            "p99_ms": _pct(lat, 0.99),
            "move_p50_ms": _pct(moves, 0.50),
            "move_p99_ms": _pct(moves, 0.99),
            "acked_moves": len(self.acks),
            **dict(sorted(self.counts.items())),
            "statuses": dict(sorted(self.statuses.items())),
        }


def _pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    return round(1000 * values[min(len(values) - 1, int(q * len(values)))], 1)


@dataclass(frozen=True)
class Seat:
    match_id: str
    variant: str
    seat: int
    token: str


def create_matches(
    base_url: str, count: int, rng: random.Random, *, timeout: float = 10.0
) -> list[tuple[str, str, list[str | None]]]:
    """`count` matches, alternately three-hand gin and manipulation rummy (2-4 players), no
    seed (the deal key comes from the server's cryptographic source)."""
    made = []
    with httpx.Client(base_url=base_url, timeout=timeout) as client:
        for i in range(count):
            if i % 2 == 0:
                variant, n, options = "three-hand-gin", 3, {"target_score": 40}
            else:
                variant, n, options = "manipulation-rummy", 2 + i % 3, {"target_score": 60}
            names = ["ana", "ben", "cy", "dee", "eve"][:n]
            body = {"variant": variant, "players": [{"name": x} for x in names], "options": options}
            headers = {"Idempotency-Key": f"create-{i}-{uuid.uuid4()}"}
            response = _until_answer(
                functools.partial(client.post, "/v1/matches", json=body, headers=headers)
            )
            assert response.status_code == 201, response.text
            created = response.json()
            made.append((created["id"], variant, [s["token"] for s in created["seats"]]))
    return made


def _until_answer(send: Callable[[], httpx.Response], seconds: float = 30.0) -> httpx.Response:
    deadline = time.monotonic() + seconds
    while True:
        try:
            response = send()
            if response.status_code < 500:
                return response
        except httpx.TransportError:
            if time.monotonic() > deadline:
                raise
        if time.monotonic() > deadline:
            return response
        time.sleep(0.1)


def choose(variant: str, moves: list[dict[str, Any]], rng: random.Random) -> dict[str, Any] | None:
    """A legal move that keeps the match going: knocks and melds are preferred, advice (which
    changes nothing) is rare. None: wait (the gin advisor, most of the time)."""
    by_type: dict[str, list[dict[str, Any]]] = {}
    for move in moves:
        by_type.setdefault(move["type"], []).append(move)
    if "knock" in by_type and rng.random() < 0.8:
        return rng.choice(by_type["knock"])
    if "meld" in by_type and rng.random() < 0.6:
        return rng.choice(by_type["meld"])
    if variant == "three-hand-gin" and "discard" in by_type and rng.random() < 0.9:
        return _least_deadwood(by_type["discard"], rng)
    plain = [m for m in moves if m["type"] not in ("advise", "knock")]
    if plain:
        return rng.choice(plain)
    if "advise" in by_type and rng.random() < 0.05:
        return {"type": "advise", "text": "keep going"}
    if "knock" in by_type:
        return rng.choice(by_type["knock"])
    return None


def _least_deadwood(discards: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """The discard that leaves the least deadwood (the hand is the discardable cards)."""
    hand = [m["card"] for m in discards]

    def left(move: dict[str, Any]) -> int:
        return deadwood(parse_cards([c for c in hand if c != move["card"]]))

    best = min(left(m) for m in discards)
    return rng.choice([m for m in discards if left(m) == best])


def other_body(variant: str, move: dict[str, Any]) -> dict[str, Any]:
    """A valid move body that differs from `move` (for the reused-key fault)."""
    if variant == "three-hand-gin":
        return {"type": "advise", "text": f"not {move['type']}"}
    return {"type": "pass"} if move["type"] != "pass" else {"type": "draw"}


class SeatPlayer(threading.Thread):
    """One client of one seat: its own HTTP connection, its own random stream."""

    def __init__(
        self, base_url: str, seat: Seat, stats: Stats, deadline: float, seed: int, timeout: float
    ) -> None:
        super().__init__(name=f"seat-{seat.match_id}-{seat.seat}", daemon=True)
        self.seat = seat
        self.stats = stats
        self.deadline = deadline
        self.rng = random.Random(seed)
        self.http = httpx.Client(base_url=base_url, timeout=timeout)
        self.auth = {"Authorization": f"Bearer {seat.token}"}
        self.path = f"/v1/matches/{seat.match_id}"
        self.acked: list[Ack] = []

    # --- one exchange -----------------------------------------------------------------

    def _send(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        started = time.monotonic()
        try:
            response = self.http.request(method, url, **kwargs)
        except httpx.TransportError as error:
            self.stats.note(f"transport_error_{type(error).__name__}")
            raise Unknown(repr(error)) from None
        finally:
            elapsed = time.monotonic() - started
            with self.stats.lock:
                self.stats.latencies.append(elapsed)
                if method == "POST":
                    self.stats.move_latencies.append(elapsed)
        with self.stats.lock:
            self.stats.statuses[response.status_code] += 1
        if response.status_code >= 500:
            raise Unknown(f"{response.status_code} {response.text[:200]}")
        return response

    def _post(self, move: dict[str, Any], key: str, if_match: int) -> httpx.Response:
        """Send one keyed move until its outcome is known (same bytes every time)."""
        content = json.dumps(move, separators=(",", ":")).encode()
        headers = {
            **self.auth,
            "Content-Type": "application/json",
            "Idempotency-Key": key,
            "If-Match": f'"{if_match}"',
        }
        give_up = self.deadline + SETTLE_SECONDS
        attempt = 0
        while True:
            attempt += 1
            self.stats.gate.before_post()
            try:
                response = self._send(
                    "POST", f"{self.path}/moves", content=content, headers=headers
                )
                response.extensions["attempts"] = attempt
                return response
            except Unknown:
                self.stats.note("unknown_outcome_retries")
                if time.monotonic() > give_up:
                    raise
                time.sleep(min(0.5, 0.02 * attempt))

    # --- the loop -----------------------------------------------------------------------

    def run(self) -> None:
        try:
            while not self.stats.stopped.is_set() and time.monotonic() < self.deadline:
                if not self._step():
                    break
        except Unknown as error:
            with self.stats.lock:
                self.stats.unresolved.append((self.seat.match_id, self.seat.seat, str(error)))
        except Exception as error:  # a bug in the driver or an unexpected answer
            self.stats.fail(f"{self.name}: {type(error).__name__}: {error}")
        finally:
            self.http.close()

    def _step(self) -> bool:
        """One poll and, when the seat may act, one move; False when the match is over."""
        try:
            response = self._send("GET", f"{self.path}/legal-moves", headers=self.auth)
        except Unknown:
            self.stats.note("unknown_outcome_polls")
            time.sleep(0.05)
            return True
        if response.status_code != 200:
            self.stats.fail(f"legal-moves {response.status_code}: {response.text[:200]}")
            return False
        listed = response.json()
        move = choose(self.seat.variant, listed["moves"], self.rng) if listed["moves"] else None
        if move is None:
            if not listed["moves"] and self._finished():
                return False
            time.sleep(0.03)
            return True
        version = int(listed["version"])
        if version > 1 and self.rng.random() < STALE:
            self._stale(move, version)
        key = f"{self.seat.match_id}-{self.seat.seat}-{uuid.uuid4().hex}"
        answer = self._post(move, key, version)
        if answer.status_code != 200:
            self._refused(answer)
            return True
        ack = Ack(
            self.seat.match_id,
            self.seat.seat,
            key,
            move,
            answer.json(),
            answer.extensions["attempts"],
        )
        self.acked.append(ack)
        with self.stats.lock:
            self.stats.acks.append(ack)
        if self.rng.random() < RESEND:
            self._resend(ack, version)
        if self.rng.random() < REUSE:
            self._reuse(ack, version)
        return True

    def _finished(self) -> bool:
        try:
            view = self._send("GET", self.path, headers=self.auth)
        except Unknown:
            return False
        return view.status_code == 200 and view.json()["status"] == "finished"

    def _refused(self, answer: httpx.Response) -> None:
        """A definite refusal of a fresh move: only a lost race may cause one here."""
        code = (
            answer.json().get("code")
            if answer.headers.get("content-type", "").startswith("application/problem+json")
            else None
        )
        self.stats.note(f"refused_{code}")
        if code not in ("version_conflict", "not_your_turn", "illegal_move"):
            self.stats.fail(f"{self.name}: unexpected refusal {answer.status_code} {answer.text}")

    def _stale(self, move: dict[str, Any], version: int) -> None:
        key = f"stale-{uuid.uuid4().hex}"
        answer = self._post(move, key, version - 1)
        self.stats.note("stale_if_match")
        if answer.status_code != 412 or answer.json().get("code") != "version_conflict":
            self.stats.fail(f"{self.name}: stale If-Match got {answer.status_code} {answer.text}")

    def _resend(self, ack: Ack, version: int) -> None:
        again = self._post(ack.move, ack.key, version)
        self.stats.note("exact_resends")
        if again.status_code != 200 or again.json() != ack.body:
            self.stats.fail(
                f"{self.name}: resend of {ack.key} got {again.status_code} "
                f"{again.text[:300]}, not the original response"
            )
        elif again.headers.get("Idempotent-Replayed") != "true":
            self.stats.fail(f"{self.name}: resend of {ack.key} not marked Idempotent-Replayed")

    def _reuse(self, ack: Ack, version: int) -> None:
        answer = self._post(other_body(self.seat.variant, ack.move), ack.key, version)
        self.stats.note("reused_keys")
        if answer.status_code != 422 or answer.json().get("code") != "idempotency_key_reused":
            self.stats.fail(
                f"{self.name}: reused key {ack.key} got {answer.status_code} {answer.text[:300]}"
            )


def run_load(
    base_url: str,
    matches: list[tuple[str, str, list[str | None]]],
    seconds: float,
    *,
    seed: int = 1,
    timeout: float = 10.0,
    during: Any = None,
    until: Callable[[Stats], bool] | None = None,
    max_seconds: float = 0.0,
) -> Stats:
    """Play `matches` for `seconds` with one thread per human seat; `during(stats)` runs in
    this thread meanwhile (a fault injector). With `until`, the play goes on after `seconds`
    until `until(stats)` holds or `max_seconds` have passed (a loaded machine plays slower; the
    test's own assertions then name what is missing). Returns when every seat thread is done."""
    stats = Stats()
    started = time.monotonic()
    longest = started + max(seconds, max_seconds)
    players = [
        SeatPlayer(
            base_url,
            Seat(match_id, variant, s, token),
            stats,
            longest,
            seed * 1000 + i * 10 + s,
            timeout,
        )
        for i, (match_id, variant, tokens) in enumerate(matches)
        for s, token in enumerate(tokens)
        if token is not None
    ]
    for player in players:
        player.start()
    try:
        if during is not None:
            during(stats)
        _play_on(stats, started + seconds, longest, until)
    finally:
        stats.stopped.set()
        for player in players:
            player.join(timeout=max(seconds, max_seconds) + SETTLE_SECONDS + 30)
    stats.wall = time.monotonic() - started
    alive = [p.name for p in players if p.is_alive()]
    if alive:
        stats.fail(f"seat threads still running: {alive}")
    return stats


def _play_on(
    stats: Stats, end: float, longest: float, until: Callable[[Stats], bool] | None
) -> None:
    """Until `end`, then (with `until`) until `until(stats)` holds or `longest` passes."""
    stats.stopped.wait(max(0.0, end - time.monotonic()))
    if until is not None and time.monotonic() < longest:
        with contextlib.suppress(AssertionError):
            wait_until(
                lambda: until(stats), longest - time.monotonic(), "the run's goals", every=0.2
            )
