"""`Client`: one method per endpoint of api.md, over httpx.

    client = Client("http://127.0.0.1:8000", token=seat_token)
    view = client.match(match_id)
    result = client.move(match_id, {"type": "draw", "from": "stock"})
    for event in client.events(match_id, after=view["version"]): ...

Errors are the exceptions of `deadwood_client.errors` (`IllegalMove`, `NotYourTurn`,
`VersionConflict`, ...), each with the problem's `code`, `detail` and HTTP `status`.

Retries. A request whose answer is lost (connection refused or dropped, a timeout, a 5xx)
is sent again, at most `Retry.attempts` times with a doubling pause. That is safe because
every request is either a read, a pure check (POST /v1/replays), or a POST that carries an
`Idempotency-Key`: creating a match and moves. A 429 is waited out the same way.

Moves: unknown outcomes. `move()` sends `Idempotency-Key` (a fresh uuid4 unless given) and
`If-Match` (the last version this client saw of the match, unless given), serialises the
body once and resends exactly those bytes and headers on every retry. When an attempt's
outcome is unknown (no answer, or a 5xx) the move may or may not have been applied:
- The server checks the idempotency key before anything else, so if the move was applied
  the retry gets the original 200 and body back (`Idempotent-Replayed: true`) and nothing
  is appended twice; if it was not, the retry applies it now. Either way: exactly once.
- A retry may still be refused with 412 version_conflict (or 409 not_your_turn, 422
  illegal_move) after an unknown outcome: the version moved on and the server no longer
  has (or never kept) the key's record. Then the client reads the match again and looks at
  the log. With If-Match our move can only have been appended right at the If-Match
  version, so the event with seq `if_match + 1` decides: if it is ours (our seat, the
  event type of our move, the same card or source), the move landed and `move()` returns a
  result built from the events since then and the current view; if it is not ours, our move
  never landed and never will (its If-Match is stale), and the conflict is raised as a
  definite refusal. Without If-Match the client searches every event after the version it
  knew when it sent the move; without any known version it cannot tell, and raises
  `OutcomeUnknown`.
- After the last attempt with the outcome still unknown, `OutcomeUnknown` carries the key:
  sending the same move with `idempotency_key=error.idempotency_key` later is safe.
A definite refusal on the first answer (4xx) is never retried: nothing was appended.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Generator, Iterable, Mapping, Sequence
from typing import IO, Any, cast

import httpx

from deadwood_client.accounts import Accounts
from deadwood_client.conduct import ConductCalls
from deadwood_client.errors import (
    DeadwoodError,
    IllegalMove,
    InvalidCard,
    NotYourTurn,
    OutcomeUnknown,
    RateLimited,
    ServerError,
    VersionConflict,
)
from deadwood_client.lobby import LobbyCalls
from deadwood_client.retry import Lost, Retry, answer, problem
from deadwood_client.seeks import SeekCalls
from deadwood_client.types import (
    Bot,
    Created,
    Event,
    EventPage,
    Health,
    Hint,
    LegalMoves,
    Move,
    MoveResult,
    Player,
    ReplayResult,
    View,
)

__all__ = ["LAST_KNOWN", "Accounts", "Client", "Retry"]


class _LastKnown:
    def __repr__(self) -> str:
        return "LAST_KNOWN"


LAST_KNOWN: Any = _LastKnown()
"""`move(if_match=LAST_KNOWN)` (the default): the last version this client saw of the match."""

MOVE_EVENTS: dict[str, tuple[str, ...]] = {
    "take_upcard": ("UpcardTaken",),
    "pass_upcard": ("UpcardPassed",),
    "draw": ("CardDrawn",),
    "discard": ("CardDiscarded",),
    "knock": ("Knocked",),
    "advise": ("AdviceGiven",),
    "meld": ("TableMelded",),
    "end_turn": ("TurnEnded",),
    "pass": ("Passed",),
}
"""The event that records each move type (for telling whether a lost move landed)."""

_REFUSED_AFTER_UNKNOWN = (VersionConflict, NotYourTurn, IllegalMove, InvalidCard)


def api_root(base_url: str) -> str:
    """`http://host:8000` or `http://host:8000/v1` -> `http://host:8000/v1`."""
    root = base_url.rstrip("/")
    return root if root.endswith("/v1") else root + "/v1"


class Client(LobbyCalls, ConductCalls, SeekCalls):
    """A caller of one Deadwood server, as a spectator (no token) or as one seat."""

    def __init__(
        self,
        base_url: str,
        token: str | None = None,
        *,
        key: str | None = None,
        timeout: float = 10.0,
        stream_timeout: float = 45.0,
        retry: Retry | None = None,
        transport: httpx.BaseTransport | None = None,
        http: httpx.Client | None = None,
    ) -> None:
        """`stream_timeout`: a live stream silent this long (no event, no heartbeat; the server
        sends one at least every 15 s) is taken as dropped and resumed."""
        self.base_url = api_root(base_url)
        self.token = token
        self.key = key
        """An account key (issue 32), sent as `Deadwood-Key` on every request."""
        self.timeout = timeout
        self.stream_timeout = stream_timeout
        self.retry = retry or Retry()
        self._own_http = http is None
        self.http = http or httpx.Client(
            base_url=self.base_url,
            timeout=timeout,
            transport=transport,
            headers={"User-Agent": "deadwood-client/0.1", "Accept": "application/json"},
        )
        self._versions: dict[str, int] = {}
        self.last_replayed = False
        """True when the last move's answer was an idempotent replay of an earlier attempt
        (or was recognised in the log). One Client may serve several threads, but this flag
        is only meaningful to a single thread making moves."""

    # --- the client itself -------------------------------------------------------------------

    def with_token(self, token: str | None) -> Client:
        """Another seat's client sharing this one's connections (and retry policy)."""
        other = Client(
            self.base_url,
            token,
            key=self.key,
            timeout=self.timeout,
            stream_timeout=self.stream_timeout,
            retry=self.retry,
            http=self.http,
        )
        return other

    def close(self) -> None:
        if self._own_http:
            self.http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def known_version(self, match_id: str) -> int | None:
        """The newest version of the match this client has seen in any answer."""
        return self._versions.get(match_id)

    def _note_version(self, match_id: str, version: Any) -> None:
        if isinstance(version, int) and version > self._versions.get(match_id, -1):
            self._versions[match_id] = version

    # --- endpoints ---------------------------------------------------------------------------

    def create_match(
        self,
        variant: str,
        players: Sequence[str | Player | Mapping[str, Any]],
        *,
        seed: int | None = None,
        options: Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
        clock: Mapping[str, Any] | None = None,
        listed: bool = False,
        lobby_ttl_s: int | None = None,
    ) -> Created:
        """POST /v1/matches. `players`: names, `{"name", "bot"}` or `{"open": True}` (anyone
        may join it; `listed` puts the match in the lobby); tokens come back once. `clock`:
        e.g. `{"mode": "per_move", "move_s": 30}` (issue 31; none: no time limit)."""
        body: dict[str, Any] = {
            "variant": variant,
            "players": [{"name": p} if isinstance(p, str) else dict(p) for p in players],
        }
        if listed:
            body["listed"] = True
        if lobby_ttl_s is not None:
            body["lobby_ttl_s"] = lobby_ttl_s
        if seed is not None:
            body["seed"] = seed
        if options:
            body["options"] = dict(options)
        if clock:
            body["clock"] = dict(clock)
        key = idempotency_key or str(uuid.uuid4())
        response = self._call("POST", "/matches", json_body=body, headers={"Idempotency-Key": key})
        created = cast(Created, response.json())
        self._note_version(created["id"], created["version"])
        return created

    def match(self, match_id: str, *, at: int | None = None) -> View:
        """GET /v1/matches/{id}: the match as this caller may see it (`at`: after event `at`)."""
        params = {"at": at} if at is not None else None
        view = cast(View, self._get(f"/matches/{match_id}", params=params))
        if at is None:
            self._note_version(match_id, view["version"])
        return view

    view = match

    def legal_moves(self, match_id: str) -> LegalMoves:
        """GET .../legal-moves: this seat's moves now (empty when none, or a spectator)."""
        found = cast(LegalMoves, self._get(f"/matches/{match_id}/legal-moves"))
        self._note_version(match_id, found["version"])
        return found

    def move(
        self,
        match_id: str,
        move: Move | Mapping[str, Any],
        *,
        if_match: int | None = LAST_KNOWN,
        idempotency_key: str | None = None,
    ) -> MoveResult:
        """POST .../moves as this seat, exactly once (see the module docstring).

        `if_match`: the version the move was chosen at (default: the last one seen; None
        sends no If-Match). `idempotency_key`: reuse one to resend a move whose outcome was
        unknown (OutcomeUnknown.idempotency_key)."""
        expected = self._versions.get(match_id) if if_match is LAST_KNOWN else if_match
        known = self._versions.get(match_id)
        key = idempotency_key or str(uuid.uuid4())
        headers = {"Idempotency-Key": key, "Content-Type": "application/json"}
        if expected is not None:
            headers["If-Match"] = f'"{expected}"'
        body = json.dumps(dict(move), separators=(",", ":")).encode()
        path = f"/matches/{match_id}/moves"
        lost: list[Lost] = []

        def post() -> httpx.Response:
            return self.http.post(path, content=body, headers=self._auth(headers))

        try:
            response = self.retry.run(lambda: answer(post, f"POST {path}"), (Lost,), lost.append)
        except Lost as last:
            raise _exhausted([*lost, last], key, self.retry.attempts) from None
        if response.is_success:
            result = cast(MoveResult, response.json())
            self.last_replayed = response.headers.get("Idempotent-Replayed") == "true"
            self._note_version(match_id, result["version"])
            return result
        error = problem(response)
        if any(attempt.unknown for attempt in lost) and isinstance(error, _REFUSED_AFTER_UNKNOWN):
            return self._settle(match_id, dict(move), key, expected, known, error)
        raise error

    def event_page(self, match_id: str, after: int = 0, limit: int = 100) -> EventPage:
        """GET .../events: up to `limit` (1-1000) events with seq > `after`, as seen here."""
        page = cast(
            EventPage,
            self._get(f"/matches/{match_id}/events", params={"after": after, "limit": limit}),
        )
        self._note_version(match_id, page["version"])
        return page

    def history(self, match_id: str, after: int = 0, upto: int | None = None) -> list[Event]:
        """Every event with after < seq <= upto (default: to the end), page by page."""
        events: list[Event] = []
        while upto is None or after < upto:
            page = self.event_page(match_id, after=after, limit=1000)
            batch = [e for e in page["events"] if upto is None or e["seq"] <= upto]
            events.extend(batch)
            if not batch or len(page["events"]) < 1000:
                break
            after = batch[-1]["seq"]
        return events

    def events(
        self, match_id: str, after: int = 0, *, until_finished: bool = True
    ) -> Generator[Event, None, None]:
        """The events after `after`, live (SSE), resuming after every disconnect with
        Last-Event-ID: each event exactly once, in seq order. Ends when the match is finished
        (unless `until_finished` is False: then it waits for more forever)."""
        from deadwood_client.sse import follow

        return follow(self, match_id, after, until_finished=until_finished)

    stream = events

    def log(self, match_id: str) -> list[Event]:
        """GET .../log: the whole unredacted log of a finished match (403 MatchInProgress)."""
        text = self._call("GET", f"/matches/{match_id}/log").text
        return [cast(Event, json.loads(line)) for line in text.splitlines() if line.strip()]

    def export_log(
        self,
        match_id: str,
        sink: IO[bytes],
        progress: Callable[[int, int | None], None] | None = None,
    ) -> int:
        """Write the NDJSON log to `sink` as it arrives; the byte count. `progress(done, total)`."""

        def rewind(exc: Exception) -> None:
            if sink.seekable() is False:
                raise exc
            sink.seek(0)
            sink.truncate()

        return self.retry.run(
            lambda: self._export_once(match_id, sink, progress),
            (httpx.TransportError, ServerError),
            rewind,
        )

    def _export_once(
        self, match_id: str, sink: IO[bytes], progress: Callable[[int, int | None], None] | None
    ) -> int:
        headers = self._auth({"Accept": "application/x-ndjson"})
        with self.http.stream("GET", f"/matches/{match_id}/log", headers=headers) as response:
            if not response.is_success:
                response.read()
                raise problem(response)
            total = response.headers.get("Content-Length")
            done = 0
            for chunk in response.iter_bytes():
                sink.write(chunk)
                done += len(chunk)
                if progress is not None:
                    progress(done, int(total) if total and total.isdigit() else None)
            return done

    def replay(self, log: str | bytes | Iterable[Mapping[str, Any]]) -> ReplayResult:
        """POST /v1/replays: check a log (NDJSON text, or events) with the server's rules.

        422 `InvalidLog` names the first event (`.event`) that does not follow the rules."""
        if isinstance(log, str | bytes):
            content = log.encode() if isinstance(log, str) else log
        else:
            lines = (json.dumps(dict(e), separators=(",", ":")) + "\n" for e in log)
            content = "".join(lines).encode()
        response = self._call(
            "POST",
            "/replays",
            content=content,
            headers={"Content-Type": "application/x-ndjson", "Idempotency-Key": str(uuid.uuid4())},
        )
        return cast(ReplayResult, response.json())

    def hint(self, match_id: str) -> Hint:
        """GET .../hint: the strongest built-in bot's move for this seat now."""
        return cast(Hint, self._get(f"/matches/{match_id}/hint"))

    def analysis(self, match_id: str) -> dict[str, Any] | None:
        """GET .../analysis: the finished match's move-by-move analysis (every decision
        judged, a summary per seat); None while it is worked out (202: ask again after its
        Retry-After). A match in play has none: 404 `match_not_finished`."""
        response = self._call("GET", f"/matches/{match_id}/analysis")
        if response.status_code == 202:
            return None
        found: dict[str, Any] = response.json()
        return found

    def bots(self) -> list[Bot]:
        """GET /v1/bots: the built-in strategies."""
        return cast(list[Bot], self._get("/bots"))

    @property
    def accounts(self) -> Accounts:
        """Accounts, keys and the ladder (issue 32), with this client's key."""
        return Accounts(self)

    def health(self) -> Health:
        """GET /v1/health: `{"status": "ok"}` when the server reaches its event store."""
        return cast(Health, self._get("/health"))

    # --- plumbing ----------------------------------------------------------------------------

    def _auth(self, headers: Mapping[str, str] | None = None) -> dict[str, str]:
        merged = dict(headers or {})
        if self.token is not None:
            merged["Authorization"] = f"Bearer {self.token}"
        if self.key is not None:
            merged["Deadwood-Key"] = self.key
        return merged

    def _get(self, path: str, params: Mapping[str, Any] | None = None) -> Any:
        return self._call("GET", path, params=params).json()

    def _call(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        json_body: Any = None,
        content: bytes | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> httpx.Response:
        """One request that is safe to resend (a read, a pure check, or an idempotent POST)."""
        if json_body is not None:
            content = json.dumps(json_body, separators=(",", ":")).encode()
            headers = {"Content-Type": "application/json", **(headers or {})}

        def send() -> httpx.Response:
            return self.http.request(
                method, path, params=params, content=content, headers=self._auth(headers)
            )

        try:
            response = self.retry.run(lambda: answer(send, f"{method} {path}"), (Lost,))
        except Lost as last:
            raise last.error from None
        if not response.is_success:
            raise problem(response)
        version = response.headers.get("ETag", "").strip('"')
        if version.isdigit() and path.startswith("/matches/") and not params:
            self._note_version(path.split("/")[2], int(version))
        return response

    def _settle(
        self,
        match_id: str,
        move: dict[str, Any],
        key: str,
        expected: int | None,
        known: int | None,
        refusal: DeadwoodError,
    ) -> MoveResult:
        """After an unknown outcome and then a refusal: did our move land? (module docstring)"""
        view = self.match(match_id)
        seat = view["you"]["seat"] if view["you"] else None
        since = expected if expected is not None else known
        if seat is None or since is None:
            raise OutcomeUnknown(
                f"a lost attempt may have been applied, and the retry was refused ({refusal}); "
                "without If-Match or a known version the log cannot tell",
                idempotency_key=key,
                status=refusal.status,
            ) from refusal
        upto = since + 1 if expected is not None else view["version"]
        for event in self.history(match_id, after=since, upto=upto):
            if records_move(event, seat, move):
                self.last_replayed = True
                events = self.history(match_id, after=event["seq"] - 1, upto=view["version"])
                return {"version": view["version"], "events": events, "match": view}
        raise refusal


def records_move(event: Mapping[str, Any], seat: int, move: Mapping[str, Any]) -> bool:
    """True when `event` is what `move` by `seat` appends first (same seat, card, source)."""
    data = event.get("data") or {}
    types = MOVE_EVENTS.get(str(move.get("type")), ())
    if data.get("seat") != seat or event.get("type") not in types:
        return False
    for field in ("card", "from", "text"):
        mine, recorded = move.get(field), data.get(field)
        if mine is not None and recorded is not None and mine != recorded:
            return False
    return True


def _exhausted(lost: Sequence[Lost], key: str, attempts: int) -> DeadwoodError:
    """Every attempt of a move was lost: OutcomeUnknown if any may have landed, else 429s."""
    unknown = [attempt.reason for attempt in lost if attempt.unknown]
    if not unknown:
        return RateLimited(f"{attempts} attempts were all refused with 429")
    return OutcomeUnknown(
        f"the move's outcome is unknown after {attempts} attempts ({unknown[-1]}); "
        f"resend it with idempotency_key={key!r}",
        idempotency_key=key,
    )
