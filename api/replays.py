"""Replays: check an uploaded log against the rules and show where it ends (api.md).

The body is the NDJSON of GET .../log, or a JSON array of the same event objects, up to
8 MiB. The check itself is domain/log_check.py; this module reads and answers.
"""

# mypy: disable-error-code="untyped-decorator"
from __future__ import annotations

from typing import Any

from flask import g
from flask.views import MethodView
from flask_smorest import Blueprint
from marshmallow import ValidationError

from api import docs
from api.common import idempotency_key, json_response
from api.errors import ApiError, _flatten_messages
from api.schemas import ReplayEventSchema, ReplayQuerySchema
from domain.events import Event
from domain.log_check import LogRejected, replay_log

blp = Blueprint("replays", __name__, url_prefix="/v1/replays", description="Replay checks")

_EVENT = ReplayEventSchema()


def _events(body: Any) -> list[Event]:
    if not isinstance(body, list):
        raise ApiError(
            "validation_error",
            "send the log as NDJSON (one event per line) or as a JSON array of events",
            422,
            errors={"_schema": ["expected a list of events"]},
        )
    events: list[Event] = []
    for index, item in enumerate(body):
        try:
            loaded = _EVENT.load(item)
        except ValidationError as exc:
            errors = {f"{index}.{k}": v for k, v in _flatten_messages({"": exc.messages}).items()}
            raise ApiError(
                "validation_error",
                f"event {index + 1} is not an event object",
                422,
                errors=errors,
            ) from None
        if loaded.get("seq", index + 1) != index + 1:
            raise ApiError(
                "invalid_log",
                f"event {index + 1} has seq {loaded['seq']}: a log counts 1, 2, 3, ...",
                422,
                event=index + 1,
            )
        events.append(_upcast(Event(loaded["type"], loaded["data"], loaded["v"]), events))
    return events


def _upcast(event: Event, before: list[Event]) -> Event:
    """Old event shapes become current ones, as when the store reads its own streams."""
    from store import codec

    variant = before[0].data.get("variant") if before else event.data.get("variant")
    upcast = getattr(codec, "upcast", None)
    return event if upcast is None else upcast(event, variant)


def _hands(variant: Any, state: Any) -> list[list[str] | None]:
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
        rules or the match's deal key. With `?steps=true` the answer also has `steps`: the
        spectator view and every seat's hand right after each event, for stepping through.
        """
        idempotency_key()
        events = _events(g.json_body)
        try:
            replayed = replay_log(events)
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
            body["steps"] = _steps(replayed.variant, events)
        return json_response(body)
