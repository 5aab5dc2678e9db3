"""Replays: check an uploaded log against the rules and show where it ends (api.md).

The body is the NDJSON of GET .../log, or a JSON array of the same event objects, up to
8 MiB. It is read event by event (api/replay_read.py) and each event goes to the check
(domain/log_check.LogCheck) as it comes, within a CPU budget proportional to the events read
(issue 11 item 2); this module wires the two and answers.
"""

# mypy: disable-error-code="untyped-decorator"
from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from flask import request
from flask.views import MethodView
from flask_smorest import Blueprint

from api import docs
from api.common import idempotency_key, json_response, setting
from api.errors import ApiError
from api.replay_read import read_events
from api.schemas import ReplayQuerySchema
from domain.events import Event
from domain.log_check import LogCheck, LogRejected, Replayed
from domain.variants import State, Variant

T = TypeVar("T")

blp = Blueprint("replays", __name__, url_prefix="/v1/replays", description="Replay checks")

YIELD_EVERY = 32
"""Events checked between two pauses that let the worker's other requests run (gevent)."""


class CpuBudget:
    """The CPU time a check may use: `base` seconds plus `per_event` for each event read.

    Only the check's own work is timed (thread CPU time around each step: under gevent no
    other request runs inside a step), not the reading of the body."""

    def __init__(self, base: float, per_event: float) -> None:
        self.base = base
        self.per_event = per_event
        self.used = 0.0

    def spend(self, work: Callable[[], T], events: int) -> T:
        started = time.thread_time()
        result = work()
        self.used += time.thread_time() - started
        limit = self.base + self.per_event * events
        if self.used > limit:
            raise ApiError(
                "replay_too_costly",
                f"checking this log took more CPU time than its budget of {limit:.3f} s "
                f"({self.base:g} s and {self.per_event * 1000:g} ms per event) by event "
                f"{events}: it is refused there",
                422,
                event=events,
            )
        return result


def _check(body: Iterator[Event], budget: CpuBudget) -> tuple[Replayed, list[Event]]:
    """The checked log's final state, and its events."""
    check = LogCheck()
    count = 0
    for count, event in enumerate(body, 1):
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


def _steps(variant: Any, events: list[Event]) -> list[dict[str, Any]]:
    """The match after each event of a log that passed the check (the fold trusts it).

    The hands are read from the folded state: a seat's view would also work out its legal
    moves, which for a Manipulation table costs far more than the fold.
    """
    state = variant.initial_state()
    steps: list[dict[str, Any]] = []
    for seq, event in enumerate(events, start=1):
        state = variant.evolve(state, event)
        view = {"id": None, **variant.view(state, None)}
        hands = [[str(card) for card in hand] or None for hand in state.hands]
        steps.append({"seq": seq, "type": event.type, "match": view, "hands": hands})
    return steps


@blp.route("")
class Replays(MethodView):
    @blp.arguments(ReplayQuerySchema, location="query")
    @blp.response(200, "ReplayResult")
    @blp.doc(parameters=[docs.IDEMPOTENCY_KEY], responses=docs.problems(400, 413, 415, 422))
    def post(self, query: dict[str, Any]) -> Any:
        """Check and replay a log.

        200: the final spectator view, every seat's final hand and every round's result.
        422 `invalid_log` names the first event (`event`, its seq) that does not follow the
        rules or the match's deal key. The log is checked while it is read, so it is refused
        at its first line that cannot start (line 1 is MatchCreated) or continue a match
        (seqs count 1, 2, 3, ...), whatever follows. 422 `replay_too_costly` when the check
        uses more CPU time than 1 s plus 2 ms per event (the server's defaults). With
        `?steps=true` the answer also has `steps`: the spectator view and every seat's hand
        right after each event, for stepping through.
        """
        idempotency_key()
        budget = CpuBudget(
            float(setting("REPLAY_CPU_SECONDS")), float(setting("REPLAY_CPU_SECONDS_PER_EVENT"))
        )
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
        if query["steps"]:
            body["steps"] = budget.spend(lambda: _steps(replayed.variant, events), len(events))
        return json_response(body)
