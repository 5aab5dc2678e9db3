"""Replays: check an uploaded log against the rules and show where it ends (api.md).

The body is the NDJSON of GET .../log, or a JSON array of the same event objects, up to
8 MiB. It is read event by event (api/replay_read.py) and each event goes to the check
(domain.log_check.LogCheck) as it comes; this module wires the two and answers.

One CPU budget (issue 28 item 2) counts everything a replay does: the check, the steps and
their encoding, charged as each is done (never after). It is `REPLAY_CPU_SECONDS` plus
`REPLAY_CPU_SECONDS_PER_EVENT` for each event read, and never more than
`REPLAY_CPU_SECONDS_MAX` whatever the log: 422 `replay_too_costly` beyond it. Measured on
the costliest 8 MiB log the domain makes (tests/support/replay_worst.py, 86,578 gin events):
checking costs 60-160 us an event, a step (view, hands, encoding) 20-40 us.

Steps come in two forms:
- `?steps=true` (JSON): the answer's `steps` array; each step is the whole spectator view, so
  it repeats every past round result and a long log's steps grow with the square of its
  length. Kept for the replay page and old clients, and refused with 413
  `replay_too_large` once the encoded steps pass `REPLAY_STEPS_MAX_BYTES`.
- `?steps=true&format=ndjson`: streamed NDJSON, one line a step, each with only what the
  event added to the round results (`rounds_added`): linear in the log. Its CPU is
  estimated before the first byte goes out (a 422 then); should the estimate be beaten, the
  stream ends with a `{"problem": ...}` line instead of the rest.
"""

# mypy: disable-error-code="untyped-decorator"
from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from flask import Response, current_app, request
from flask.views import MethodView
from flask_smorest import Blueprint

from api import docs
from api.common import idempotency_key, json_response, setting
from api.errors import PROBLEM_TYPE, TITLES, ApiError
from api.replay_read import read_events
from api.schemas import ReplayQuerySchema
from domain.events import Event
from domain.log_check import LogCheck, LogRejected, Replayed
from domain.variants import State, Variant

T = TypeVar("T")

blp = Blueprint("replays", __name__, url_prefix="/v1/replays", description="Replay checks")

YIELD_EVERY = 32
"""Events checked between two pauses that let the worker's other requests run (gevent)."""

CPU_SECONDS_MAX = 5.0
"""The default of REPLAY_CPU_SECONDS_MAX: checking the costliest 8 MiB log takes about 6 s,
an honest 1000-point gin match (some 10,000 events) under 1.5 s."""

STEPS_MAX_BYTES = 32 * 1024 * 1024
"""The default of REPLAY_STEPS_MAX_BYTES, the encoded `steps` of a `?steps=true` answer."""

STEP_CPU_SECONDS = 0.00005
"""What one NDJSON step is expected to cost (measured 20-40 us), for the estimate made
before a stream starts."""

STREAM_DOC = {
    "content": {
        "application/x-ndjson": {
            "example": '{"version":252,"match":{...},"hands":[...],"rounds":[...]}\n'
            '{"seq":1,"type":"MatchCreated","match":{...},"hands":[null,null,null],'
            '"rounds_added":[]}\n'
        }
    }
}
"""The `format=ndjson` form of the 200 answer (merged with the JSON one)."""

TOO_LARGE_DOC = {
    "description": "payload_too_large: a body over 8 MiB or a line over 64 KiB; "
    "replay_too_large (with `event`): the steps of `steps=true` over 32 MiB "
    "(ask for `format=ndjson`)",
    "content": {"application/problem+json": {"schema": docs.PROBLEM_REF}},
}

QUERY_DOC = [
    {
        "in": "query",
        "name": "steps",
        "schema": {"type": "boolean", "default": False},
        "description": "also answer the match after every event (`steps`)",
    },
    {
        "in": "query",
        "name": "format",
        "schema": {"type": "string", "enum": ["json", "ndjson"], "default": "json"},
        "description": "`ndjson`: answer application/x-ndjson, streamed: the answer, then with "
        "`steps=true` one line a step holding only the round results its event added",
    },
]

_ENCODE = json.JSONEncoder(separators=(",", ":"), check_circular=False).encode


class CpuBudget:
    """The CPU time a replay may use: `base` seconds plus `per_event` for each event read,
    at most `most`.

    The replay's own work is timed (thread CPU time around each step: under gevent no other
    request runs inside a step): parsing each event, checking it, each step and encoding."""

    def __init__(self, base: float, per_event: float, most: float = CPU_SECONDS_MAX) -> None:
        self.base = base
        self.per_event = per_event
        self.most = most
        self.used = 0.0

    def limit(self, events: int) -> float:
        return min(self.most, self.base + self.per_event * events)

    def spend(self, work: Callable[[], T], events: int, doing: str = "checking this log") -> T:
        started = time.thread_time()
        result = work()
        self.used += time.thread_time() - started
        if self.used > self.limit(events):
            raise self.refusal(events, doing)
        return result

    def afford(self, estimate: float, events: int, doing: str) -> None:
        """Refuse now what would pass the budget by `estimate` more seconds."""
        if self.used + estimate > self.limit(events):
            raise self.refusal(events, doing)

    def refusal(self, events: int, doing: str) -> ApiError:
        return ApiError(
            "replay_too_costly",
            f"{doing} takes more CPU time than the replay's budget of "
            f"{self.limit(events):.3f} s ({self.base:g} s and {self.per_event * 1000:g} ms per "
            f"event, at most {self.most:g} s) by event {events}: it is refused there",
            422,
            event=events,
        )


def _budget() -> CpuBudget:
    return CpuBudget(
        float(setting("REPLAY_CPU_SECONDS")),
        float(setting("REPLAY_CPU_SECONDS_PER_EVENT")),
        float(current_app.config.get("REPLAY_CPU_SECONDS_MAX", CPU_SECONDS_MAX)),
    )


def _check(body: Iterator[Event], budget: CpuBudget) -> tuple[Replayed, list[Event]]:
    """The checked log's final state, and its events. Parsing each line counts as checking."""
    check = LogCheck()
    count = 0
    while True:
        event = budget.spend(lambda: next(body, None), count + 1)
        if event is None:
            break
        count += 1
        budget.spend(lambda event=event: check.feed(event), count)  # type: ignore[misc]
        if count % YIELD_EVERY == 0:
            time.sleep(0)  # gevent's sleep when monkey-patched: health and moves go on
    return budget.spend(check.finish, count), check.log


def _hands(variant: Variant, state: State) -> list[list[str] | None]:
    view = variant.view(state, None)
    hands: list[list[str] | None] = []
    for seat in view["seats"]:
        you = variant.view(state, seat["seat"])["you"]
        hand = you.get("hand") if you else None
        hands.append(list(hand) if hand else None)
    return hands


def _steps(variant: Any, events: list[Event], delta: bool) -> Iterator[Callable[[], str]]:
    """The match after each event of a log that passed the check (the fold trusts it), as
    work that encodes one step: the caller runs each inside its budget.

    The hands are read from the folded state: a seat's view would also work out its legal
    moves, which for a Manipulation table costs far more than the fold. With `delta` a step
    has no `rounds` in its view, only the results its event added (`rounds_added`).
    """
    state = variant.initial_state()
    seen = 0
    for seq, event in enumerate(events, start=1):

        def step(seq: int = seq, event: Event = event) -> str:
            nonlocal state, seen
            state = variant.evolve(state, event)
            view = {"id": None, **variant.view(state, None)}
            hands = [[str(card) for card in hand] or None for hand in state.hands]
            found: dict[str, Any] = {"seq": seq, "type": event.type, "match": view}
            found["hands"] = hands
            if delta:
                rounds = view.pop("rounds", None) or []
                found["rounds_added"] = rounds[seen:]
                seen = len(rounds)
            return _ENCODE(found)

        yield step


def _json_steps(replayed: Replayed, events: list[Event], budget: CpuBudget, most: int) -> list[str]:
    """The encoded steps of `?steps=true`, each charged to the budget as it is made; 413
    replay_too_large once they pass `most` bytes."""
    pieces: list[str] = []
    size = 0
    for seq, step in enumerate(_steps(replayed.variant, events, False), 1):
        text = budget.spend(step, len(events), f"building step {seq}")
        size += len(text) + 1
        if size > most:
            raise ApiError(
                "replay_too_large",
                f"the steps of this log pass {most} bytes by event {seq}: with steps=true every "
                "step repeats every past round's result; ask for steps=true&format=ndjson, whose "
                "steps carry only the round results their event added",
                413,
                event=seq,
            )
        pieces.append(text)
        if seq % YIELD_EVERY == 0:
            time.sleep(0)
    return pieces


def _ndjson(
    first: dict[str, Any], replayed: Replayed, events: list[Event], budget: CpuBudget | None
) -> Iterator[str]:
    """The answer's first line, then (with a budget: steps were asked for) one line a step."""
    yield _ENCODE(first) + "\n"
    if budget is None:
        return
    for seq, step in enumerate(_steps(replayed.variant, events, True), 1):
        try:
            yield budget.spend(step, len(events), f"streaming step {seq}") + "\n"
        except ApiError as exc:
            yield _ENCODE({"problem": _problem_body(exc)}) + "\n"
            return
        if seq % YIELD_EVERY == 0:
            time.sleep(0)


def _problem_body(exc: ApiError) -> dict[str, Any]:
    return {
        "type": PROBLEM_TYPE + exc.code,
        "title": TITLES.get(exc.code, exc.code),
        "status": exc.status,
        "detail": exc.detail,
        "code": exc.code,
        **exc.extra,
    }


@blp.route("")
class Replays(MethodView):
    @blp.arguments(ReplayQuerySchema, location="query")
    @blp.response(200, "ReplayResult")
    @blp.doc(
        parameters=[docs.IDEMPOTENCY_KEY, *QUERY_DOC],
        responses={**docs.problems(400, 413, 415, 422), 200: STREAM_DOC, 413: TOO_LARGE_DOC},
    )
    def post(self, query: dict[str, Any]) -> Any:
        """Check and replay a log.

        200: the final spectator view, every seat's final hand and every round's result.
        422 `invalid_log` names the first event (`event`, its seq) that does not follow the
        rules or the match's deal key. The log is checked while it is read, so it is refused
        at its first line that cannot start (line 1 is MatchCreated) or continue a match
        (seqs count 1, 2, 3, ...), whatever follows. 422 `replay_too_costly` when the check,
        the steps and their encoding together use more CPU time than 1 s plus 2 ms per event,
        and never more than 5 s (the server's defaults), naming the event where it ran out.

        With `?steps=true` the answer also has `steps`: the spectator view and every seat's
        hand right after each event, for stepping through. Each such step repeats every
        earlier round's result, so these steps are refused with 413 `replay_too_large` once
        they pass 32 MiB (the server's default). With `?steps=true&format=ndjson` the answer is
        `application/x-ndjson`, streamed: its first line is the answer without steps, then
        one line a step, `{seq, type, match, hands, rounds_added}`, where `match` is the view
        without `rounds` and `rounds_added` the round results that event added (so the lines
        stay small however long the log). The whole stream's CPU is estimated before it
        starts (422 `replay_too_costly`); should the estimate be beaten, the stream's last
        line is `{"problem": {...}}` (the problem details of `replay_too_costly`) instead of
        the remaining steps. `?format=ndjson` without steps answers the first line alone.
        """
        idempotency_key()
        budget = _budget()
        try:
            replayed, events = _check(read_events(request), budget)
        except LogRejected as rejected:
            raise ApiError("invalid_log", rejected.detail, 422, event=rejected.seq) from None
        view = {"id": None, **replayed.variant.view(replayed.state, None)}
        body = {
            "version": replayed.events,
            "match": view,
            "hands": _hands(replayed.variant, replayed.state),
            "rounds": view["rounds"],
        }
        if query["format"] == "ndjson":
            if query["steps"]:
                budget.afford(STEP_CPU_SECONDS * len(events), len(events), "streaming the steps")
            stream = _ndjson(body, replayed, events, budget if query["steps"] else None)
            return Response(stream, mimetype="application/x-ndjson")
        if not query["steps"]:
            return json_response(body)
        most = int(current_app.config.get("REPLAY_STEPS_MAX_BYTES", STEPS_MAX_BYTES))
        pieces = _json_steps(replayed, events, budget, most)
        text = budget.spend(lambda: _ENCODE(body), len(events), "encoding the answer")
        response = json_response(None)
        response.set_data(text[:-1] + ',"steps":[' + ",".join(pieces) + "]}")
        return response
