"""Leak scan and provably fair deals (issue 6; api.md Views, Events, Fair deals; G1.4).

Random matches are played to the end over HTTP against gunicorn with an rq worker, and
everything they produce is kept: every response (views, `?at=` views, legal moves, event
pages, hints, move results), every refusal (illegal moves naming a card, moves out of turn,
bad card codes), every Server-Sent Events frame of a live stream per seat and per spectator,
and every line the app, gunicorn and the workers logged. Then:

- no response or frame shows a card outside the caller's visible set at that moment
  (computed here from the unredacted log, round by round: the cards the seat has held this
  round, the captain's for the gin advisor (G1.4), and every card made public this round);
  after the match is finished nothing is hidden any more, so only what was received before
  the log's MatchFinished time is checked;
- no response, frame or log line holds a deal key or a round's salt before the end, nor a
  seat token (other than the create response that hands them out);
- no log line names a card at all;
- every view shows a `deal_commitment`, equal to the commitment of its round's RoundDealt in
  the log published at the end; `deadwood verify` (cli.client) recomputes every
  commitment of each published log. Tampering with a revealed deck is caught by
  tests/integration/client/test_client_cli.py::test_verify_passes_every_deal_and_names_the_round_of_a_tampered_deck
  (not repeated here).
"""

from __future__ import annotations

import json
import random
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis

from cli.client import main as deadwood
from domain.cards import FULL_DECK
from domain.variants import get_variant
from store.service import MatchService
from tests.support.reliability_load import choose
from tests.support.reliability_procs import PrivateRedis, Stack, soak
from tests.support.views import you_of
from tests.support.waiting import wait_until

CARD = re.compile(r"^(JK|[A2-9TJQK][CDHS])(=(JK|[A2-9TJQK][CDHS]))?$")
CARD_IN_TEXT = re.compile(r"(?<![A-Za-z0-9_-])(JK|[A2-9TJQK][CDHS])(?![A-Za-z0-9_-])")
ALL_CODES = [str(c) for c in FULL_DECK]


@dataclass
class Seen:
    """One thing a caller received."""

    viewer: int | None
    kind: str
    body: Any
    text: str
    received: float  # wall clock (time.time())
    sent_cards: frozenset[str] = frozenset()
    version_after: int | None = None


@dataclass
class Played:
    match_id: str
    variant: str
    tokens: list[str | None]
    seen: list[Seen] = field(default_factory=list)
    create_text: str = ""
    published: str = ""  # GET .../log once finished
    lock: threading.Lock = field(default_factory=threading.Lock)

    def keep(self, item: Seen) -> None:
        with self.lock:
            self.seen.append(item)


def card_strings(node: Any) -> Iterator[str]:
    """Every card code in a JSON value; `JK=8S` is the joker (the 8S is a declaration)."""
    if isinstance(node, str):
        if CARD.match(node):
            yield node.split("=")[0]
    elif isinstance(node, dict):
        for value in node.values():
            yield from card_strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from card_strings(value)


# --- playing ------------------------------------------------------------------------------


class Driver:
    """Plays one match to its end, asking for everything a client can ask along the way."""

    def __init__(self, base_url: str, played: Played, rng: random.Random, max_moves: int):
        self.played = played
        self.rng = rng
        self.max_moves = max_moves
        self.http = httpx.Client(base_url=base_url, timeout=20)
        self.path = f"/v1/matches/{played.match_id}"
        self.viewers: list[int | None] = [None] + [
            s for s, t in enumerate(played.tokens) if t is not None
        ]

    def auth(self, seat: int | None) -> dict[str, str]:
        token = None if seat is None else self.played.tokens[seat]
        return {} if token is None else {"Authorization": f"Bearer {token}"}

    def get(self, seat: int | None, kind: str, url: str) -> Any:
        response = self.http.get(url, headers=self.auth(seat))
        self._keep(seat, kind, response)
        return response

    def _keep(
        self, seat: int | None, kind: str, response: httpx.Response, sent: Any = None
    ) -> None:
        try:
            body = response.json()
        except ValueError:
            body = None
        self.played.keep(
            Seen(seat, kind, body, response.text, time.time(), frozenset(card_strings(sent)))
        )

    def play(self) -> None:
        try:
            for _ in range(self.max_moves):
                spectator = self.get(None, "view", self.path).json()
                if spectator["status"] == "finished":
                    return
                self._look_around(spectator["version"])
                if spectator["turn"] is None:
                    self._wait_past(spectator["version"], "a scoring job")
                    continue
                self._move(spectator["turn"], spectator["version"])
            raise AssertionError(f"{self.played.match_id} did not finish in {self.max_moves}")
        finally:
            self.http.close()

    def _look_around(self, version: int) -> None:
        viewer = self.rng.choice(self.viewers)
        after = self.rng.randrange(version)
        self.get(viewer, "view", self.path)
        self.get(viewer, "view", f"{self.path}?at={after + 1}")
        self.get(viewer, "events", f"{self.path}/events?after={after}")
        self.get(viewer, "legal", f"{self.path}/legal-moves")
        if viewer is not None and self.rng.random() < 0.3:
            self._after(self.get(viewer, "hint", f"{self.path}/hint"))
        if self.rng.random() < 0.3:
            self._refusals()

    def _after(self, item: Any) -> None:
        """Note the version right after a response that carries none (hints, errors)."""
        version = self.http.get(self.path).json()["version"]
        with self.played.lock:
            self.played.seen[-1].version_after = version

    def _refusals(self) -> None:
        """Moves the rules refuse, whose problem details are scanned too."""
        seat = self.rng.choice([s for s in self.viewers if s is not None])
        card = self.rng.choice(ALL_CODES)
        moves = [
            {"type": "discard", "card": card},
            {"type": "knock", "card": card},
            {"type": "meld", "table": [[card, card, card]]},
            {"type": "discard", "card": "ZZ"},
            {"type": "draw", "from": "discard"},
            {"type": "end_turn"},
        ]
        move = self.rng.choice(moves)
        response = self.http.post(f"{self.path}/moves", json=move, headers=self.auth(seat))
        self._keep(seat, "refusal", response, sent=move)
        self._after(None)

    def _wait_past(self, version: int, what: str) -> None:
        """Until a job (scoring, a deal, a bot's turn) moved the match past `version`: waiting
        takes no move from the driver's budget, however slow the machine (issue 10)."""
        wait_until(
            lambda: self.http.get(self.path).json()["version"] > version,
            60.0,
            f"{what} to play in {self.played.match_id} after version {version}",
            every=0.02,
        )

    def _move(self, turn: int, version: int) -> None:
        seat = turn
        if self.played.tokens[seat] is None:
            self._wait_past(version, f"the bot of seat {seat}")
            return
        listed = self.get(seat, "legal", f"{self.path}/legal-moves").json()
        moves = listed["moves"]
        move = choose(self.played.variant, moves, self.rng) if moves else None
        if move is None:
            return
        headers = {**self.auth(seat), "If-Match": f'"{listed["version"]}"'}
        response = self.http.post(f"{self.path}/moves", json=move, headers=headers)
        self._keep(seat, "move", response)
        assert response.status_code in (200, 409, 412), response.text


class Follower(threading.Thread):
    """One live stream (a seat's or a spectator's) followed to the match's end, resuming with
    Last-Event-ID when the server ends it."""

    def __init__(self, base_url: str, played: Played, seat: int | None, seconds: float):
        super().__init__(daemon=True, name=f"sse-{played.match_id}-{seat}")
        self.base_url = base_url
        self.played = played
        self.seat = seat
        self.deadline = time.monotonic() + seconds
        self.frames = 0

    def run(self) -> None:
        token = None if self.seat is None else self.played.tokens[self.seat]
        headers = {} if token is None else {"Authorization": f"Bearer {token}"}
        last = 0
        url = f"{self.base_url}/v1/matches/{self.played.match_id}/events/stream"
        with httpx.Client(timeout=httpx.Timeout(10, read=15)) as http:
            while time.monotonic() < self.deadline:
                finished = False
                with http.stream("GET", url, headers={**headers, "Last-Event-ID": str(last)}) as r:
                    for line in r.iter_lines():
                        if not line.startswith("data: "):
                            continue
                        event = json.loads(line[len("data: ") :])
                        last = event["seq"]
                        self.frames += 1
                        self.played.keep(
                            Seen(self.seat, "sse", {"events": [event]}, line, time.time())
                        )
                        finished = finished or event["type"] == "MatchFinished"
                if finished:
                    return


MATCHES = [
    ("three-hand-gin", [{"name": "ana"}, {"name": "ben"}, {"name": "cy"}], {"target_score": 10}),
    (
        "three-hand-gin",
        [{"name": "dee"}, {"name": "eve"}, {"name": "fay", "bot": "basic"}],
        {"target_score": 10},
    ),
    (
        "manipulation-rummy",
        [{"name": "gus"}, {"name": "hal"}, {"name": "ivy"}],
        {"target_score": 20},
    ),
    (
        "manipulation-rummy",
        [{"name": "jon"}, {"name": "kim", "bot": "basic"}],
        {"target_score": 20},
    ),
]


def play_all(base_url: str, seed: int, rounds: int) -> list[Played]:
    rng = random.Random(seed)
    played: list[Played] = []
    with httpx.Client(base_url=base_url, timeout=20) as http:
        for _ in range(rounds):
            for variant, players, options in MATCHES:
                body = {"variant": variant, "players": players, "options": options}
                response = http.post("/v1/matches", json=body)
                assert response.status_code == 201, response.text
                created = response.json()
                played.append(
                    Played(
                        created["id"],
                        variant,
                        [s["token"] for s in created["seats"]],
                        create_text=response.text,
                    )
                )
    threads: list[threading.Thread] = []
    for p in played:
        for seat in [None, *range(len(p.tokens))]:
            if seat is None or p.tokens[seat] is not None:
                threads.append(Follower(base_url, p, seat, 150.0))
        driver = Driver(base_url, p, random.Random(rng.random()), 3000)
        threads.append(threading.Thread(target=driver.play, daemon=True))
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=200)
    assert not [t.name for t in threads if t.is_alive()], "a driver or stream did not end"
    with httpx.Client(base_url=base_url, timeout=20) as http:
        for p in played:
            response = http.get(f"/v1/matches/{p.match_id}/log")
            assert response.status_code == 200, response.text
            p.published = response.text
    return played


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[list[Played], Any]]:
    base = tmp_path_factory.mktemp("leak")
    server = PrivateRedis(base / "redis")
    server.start()
    stack = Stack(base, server.url)
    try:
        stack.start_api(workers=2)
        stack.start_worker()
        games = play_all(stack.base_url, seed=61, rounds=soak(1, 4))
        stack.stop()  # flush every log line
        yield games, (stack, server)
    finally:
        stack.stop()
        server.stop()


# --- the oracle ---------------------------------------------------------------------------


@dataclass
class Truth:
    """What the unredacted log says about one match."""

    log: list[Any]
    visible: dict[int, dict[int | None, set[str]]]  # seq -> viewer -> cards it may see
    round_of: dict[int, int]  # seq -> round
    commitments: dict[int, str]  # round -> commitment
    secrets: set[str]  # deal key and salts
    finished_at: float  # wall clock of MatchFinished
    last_before_scoring: dict[int, int]  # round -> last seq before its RoundScored


GIN_PUBLIC = {
    "UpcardPassed": ("card",),
    "UpcardTaken": ("card",),
    "CardDiscarded": ("card",),
    "Knocked": ("melds", "deadwood_cards"),
}


def _public(variant: str, event: Any) -> set[str]:
    data = event.data
    if event.type == "RoundDealt":
        return {data["upcard"]} if data.get("upcard") else set()
    if event.type == "CardDrawn" and data.get("from") == "discard":
        return {data["card"]}
    if variant == "three-hand-gin" and event.type in GIN_PUBLIC:
        return {c for key in GIN_PUBLIC[event.type] for c in card_strings(data.get(key))}
    if event.type in ("TableMelded", "RoundScored", "MatchFinished"):
        return set(card_strings(data))
    return set()


def truth(service: MatchService, match_id: str) -> Truth:
    stored = service.store.read(match_id)
    log = [s.event for s in stored]
    opening: Any = log[0].data
    variant = get_variant(opening["variant"])
    state = variant.initial_state()
    public: set[str] = set()
    held: dict[int, set[str]] = {}
    visible: dict[int, dict[int | None, set[str]]] = {}
    round_of: dict[int, int] = {}
    commitments: dict[int, str] = {}
    secrets = {str(opening["deal_key"])}
    if opening.get("salt_key"):
        secrets.add(str(opening["salt_key"]))  # a seeded match's salt key (issue 11)
    last_before: dict[int, int] = {}
    current = 0
    for item in stored:
        event = item.event
        data: Any = event.data
        if event.type == "RoundDealt":
            current = int(data["round"])
            public, held = set(), {}
            commitments[current] = data["commitment"]
            secrets.add(data["salt"])
        if event.type == "RoundScored":
            last_before[current] = item.seq - 1
        state = variant.evolve(state, event)
        public |= _public(variant.name, event)
        spectator: Any = variant.view(state, None)  # gin has roles, Manipulation none
        roles = spectator.get("roles")
        for seat in range(len(spectator["seats"])):
            held.setdefault(seat, set()).update(you_of(variant.view(state, seat))["hand"] or [])
        seen: dict[int | None, set[str]] = {None: set(public)}
        for seat, cards in held.items():
            seen[seat] = public | cards
            if (
                roles
                and seat == roles["advisor"]
                and spectator["options"].get("advisor_sees_captain_hand")
            ):
                seen[seat] |= held.get(roles["captain"], set())
        visible[item.seq] = seen
        round_of[item.seq] = current
    finished = next((s for s in stored if s.event.type == "MatchFinished"), None)
    at = float("inf")  # a match still in progress (the browser tests look at one)
    if finished is not None:
        at = datetime.fromisoformat(finished.at.replace("Z", "+00:00")).timestamp()
    return Truth(log, visible, round_of, commitments, secrets, at, last_before)


def _leaks(item: Seen, t: Truth) -> list[str]:
    """Cards `item` shows that its viewer could not see when it was made."""
    body = item.body
    if item.received >= t.finished_at or not isinstance(body, (dict, list)):
        return []
    found: list[str] = []
    if isinstance(body, dict) and isinstance(body.get("events"), list):
        for event in body["events"]:
            if event.get("type") == "RolesDrawn":
                continue  # the role draw's cards come from another shuffle and are public
            allowed = t.visible[event["seq"]][item.viewer]
            found += [
                f"seq {event['seq']}: {c}" for c in card_strings(event["data"]) if c not in allowed
            ]
    view = body.get("match") if isinstance(body, dict) and "match" in body else body
    if isinstance(view, dict) and "version" in view:
        shown = {k: v for k, v in view.items() if k not in ("rounds", "events")}
        version = int(view["version"])
        allowed = t.visible[version][item.viewer]
        found += [f"v{version}: {c}" for c in card_strings(shown) if c not in allowed]
    elif item.kind in ("hint", "refusal") and item.version_after:
        version = item.version_after
        rnd = t.round_of[version]
        upto = min(version, t.last_before_scoring.get(rnd, version))
        allowed = t.visible[upto][item.viewer] | item.sent_cards
        found += [f"~v{version}: {c}" for c in card_strings(body) if c not in allowed]
    return found


def test_no_response_frame_or_error_shows_a_hidden_card(played: Any) -> None:
    games, (_, server) = played
    client = redis.Redis.from_url(server.url)
    service = MatchService(client, pepper=b"x")
    checked: dict[str, int] = {}
    for game in games:
        t = truth(service, game.match_id)
        for item in game.seen:
            leaks = _leaks(item, t)
            assert not leaks, f"{game.match_id} {item.kind} to seat {item.viewer}: {leaks[:5]}"
            checked[item.kind] = checked.get(item.kind, 0) + 1
    print(f"\nleak scan: checked {checked} in {len(games)} matches")
    assert checked.get("sse", 0) > 0 and checked.get("refusal", 0) > 0
    client.close()


def _truths(games: list[Played], server: PrivateRedis) -> dict[str, Truth]:
    client = redis.Redis.from_url(server.url)
    try:
        service = MatchService(client, pepper=b"x")
        return {g.match_id: truth(service, g.match_id) for g in games}
    finally:
        client.close()


def test_the_oracle_flags_the_raw_deal(played: Any) -> None:
    """Not vacuous: the unredacted first RoundDealt, shown to seat 0 before the end, leaks
    the other hands and the stock by this oracle."""
    games, (_, server) = played
    game = games[0]
    t = _truths([game], server)[game.match_id]
    seq, dealt = next((i + 1, e) for i, e in enumerate(t.log) if e.type == "RoundDealt")
    raw = {"events": [{"seq": seq, "type": dealt.type, "data": dealt.data}]}
    fake = Seen(0, "events", raw, json.dumps(raw), t.finished_at - 1)
    assert len(_leaks(fake, t)) >= 20


def test_no_secret_or_token_in_any_response_frame_or_log_line(played: Any) -> None:
    """Before the end nothing holds the deal key or a salt; nothing but the create response
    holds a seat token; no log line holds either."""
    games, (stack, server) = played
    truths = _truths(games, server)
    tokens = {tok for g in games for tok in g.tokens if tok}
    assert tokens
    lines = stack.logs()
    assert len(lines) > 100, "the app and the workers logged"
    for game in games:
        t = truths[game.match_id]
        assert all(tok in game.create_text for tok in game.tokens if tok)
        for item in game.seen:
            assert not [tok for tok in tokens if tok in item.text], (item.kind, item.viewer)
            if item.received < t.finished_at:
                assert not [s for s in t.secrets if s in item.text], (item.kind, item.viewer)
        for line in lines:
            assert not [s for s in t.secrets if s in line], line
    for line in lines:
        assert not [tok for tok in tokens if tok in line], line


def test_no_log_line_names_a_card(played: Any) -> None:
    """Log lines are for operators: no card code in any of them (ids and paths removed)."""
    games, (stack, _) = played
    ids = {g.match_id for g in games}
    named = []
    for line in stack.logs():
        text = line
        for match_id in ids:
            text = text.replace(match_id, "<m>")
        named += [(m, line) for m in CARD_IN_TEXT.findall(text)]
    assert not named, named[:5]


def test_every_view_shows_the_commitment_the_log_reveals_and_deadwood_verify_passes(
    played: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """api.md Fair deals: every view carries `deal_commitment` from the first moment of the
    round; the published log reveals deck and salt, and `deadwood verify` recomputes each
    round's commitment from them."""
    games, (_, server) = played
    truths = _truths(games, server)
    views = 0
    for game in games:
        t = truths[game.match_id]
        for item in game.seen:
            body = item.body
            view = body.get("match") if isinstance(body, dict) and "match" in body else body
            if not (isinstance(view, dict) and "deal_commitment" in view):
                continue
            rnd = t.round_of[int(view["version"])]
            expected = t.commitments.get(rnd)  # None before the first deal (`?at=1`)
            assert view["deal_commitment"] == expected, (game.match_id, view["version"])
            views += rnd > 0
        published = [json.loads(line) for line in game.published.splitlines()]
        assert [e["type"] for e in published] == [e.type for e in t.log]
        path = tmp_path / f"{game.match_id}.ndjson"
        path.write_text(game.published)
        capsys.readouterr()
        assert deadwood(["verify", str(path)]) == 0, capsys.readouterr().err
        assert f"all {len(t.commitments)} deals match" in capsys.readouterr().out
    assert views > 100
    print(f"\nfair deals: {views} views carried their round's commitment")
