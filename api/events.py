"""Events: the log as the caller may see it (paged, or live as Server-Sent Events), and the
whole unredacted log as NDJSON once the match is finished (api.md "Events").
"""

# mypy: disable-error-code="untyped-decorator"
from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Iterator
from typing import Any

import redis
from flask import Response, current_app, request
from flask.views import MethodView
from flask_smorest import Blueprint

from api import docs, examples
from api.addresses import client_network
from api.analysis import (
    RETRY_AFTER,
    AnalysisPendingSchema,
    LogQuerySchema,
    annotate,
    finished_analysis,
    pending,
)
from api.common import (
    bearer_token,
    caller_seat,
    json_response,
    raw_event_json,
    redacted_events,
    service,
    setting,
    settled,
    shown_events,
    state_before,
)
from api.errors import ApiError
from api.schemas import EventsPageSchema, EventsQuerySchema, StreamQuerySchema
from api.streams import stream_parts

log = logging.getLogger("deadwood.api")

blp = Blueprint("events", __name__, url_prefix="/v1/matches", description="Event log")


def _page(
    match_id: str, seat: int | None, after: int, limit: int
) -> tuple[list[dict[str, Any]], int]:
    store = service()
    now = settled(match_id)  # a lobby past its deadline is cancelled first
    version = now.version
    if after >= version:
        return [], version
    stored = store.events(match_id, after=after, limit=limit)
    first = stored[0] if after == 0 and stored else None
    variant, before = state_before(match_id, after, first)
    public = now.variant.is_finished(now.state)
    return redacted_events(variant, before, stored, seat, public), version


@blp.route("/<match_id>/events")
class Events(MethodView):
    @blp.arguments(EventsQuerySchema, location="query")
    @blp.response(200, EventsPageSchema, headers=docs.ETAG_HEADER)
    @blp.doc(security=docs.SECURITY, responses=docs.problems(401, 404, 422))
    def get(self, query: dict[str, Any], match_id: str) -> Any:
        """The events after `after`, oldest first, as the caller may see them.

        Cards the caller may not see are null; once the match is finished nothing is hidden.
        """
        seat = caller_seat(match_id)
        shown, version = _page(match_id, seat, query["after"], query["limit"])
        return json_response({"version": version, "events": shown}, 200, version)


_SEQ = re.compile("[0-9]{1,15}")


def _last_event_id(query: dict[str, Any]) -> int:
    header = request.headers.get("Last-Event-ID")
    text = "" if header is None else header.strip(" \t")
    if text == "":  # EventSource sends no header before its first event; empty is the same
        return int(query.get("after") or 0)
    if not _SEQ.fullmatch(text):  # ASCII digits only ("²".isdigit() is true)
        raise ApiError(
            "validation_error",
            "Last-Event-ID must be the seq of an event (a non-negative integer)",
            422,
            errors={"Last-Event-ID": ["must be a non-negative integer"]},
        )
    return int(text)


def sse_event(event: dict[str, Any]) -> str:
    data = json.dumps(event, separators=(",", ":"))
    return f"id: {event['seq']}\nevent: {event['type']}\ndata: {data}\n\n"


class _Stream:
    """The live events of one match for one seat, folding the state to redact each event."""

    def __init__(
        self, store: Any, match_id: str, seat: int | None, after: int, reader: Any = None
    ) -> None:
        self.store = store
        self.reader = reader
        self.place: Any = None
        self.match_id = match_id
        self.seat = seat
        self.after = after
        now = settled(match_id)  # a lobby past its deadline is cancelled first
        version = now.version
        self.variant = now.variant
        self.finished_at_start = self.variant.is_finished(now.state)
        if after == 0:
            self.state = self.variant.initial_state()
        else:
            self.state = store.load(match_id, at=min(after, version)).state
            self.after = min(after, version)

    def frames(self, stored: list[Any]) -> Iterator[str]:
        for event in stored:
            if self.finished_at_start:
                shown = raw_event_json(event)
            else:
                shown = shown_events(self.variant, [(self.state, event)], self.seat, False)[0]
            self.state = self.variant.evolve(self.state, event.event)
            self.after = event.seq
            yield sse_event(shown)

    def run(self, heartbeat: float, max_seconds: float) -> Iterator[str]:
        """The frames: events as they come, a heartbeat comment every `heartbeat` seconds on
        a clock; it ends when the match finishes, after `max_seconds` (0: never) or when the
        event store fails (logged in one line; the client resumes with Last-Event-ID)."""
        try:
            yield f"retry: {int(heartbeat * 1000) or 1000}\n: stream of {self.match_id}\n\n"
            yield from self._live(_Clock(heartbeat, max_seconds))
        except redis.RedisError as error:
            log.warning("live stream of %s ended: %s", self.match_id, type(error).__name__)
        finally:
            self.close()

    def close(self) -> None:
        """Give the stream's place back (once; also when the client leaves mid-wait)."""
        if self.place is not None:
            self.place.release()

    def _live(self, clock: _Clock) -> Iterator[str]:
        while not self.variant.is_finished(self.state) and not clock.expired():
            if clock.heartbeat_due():
                if self.place is not None:
                    self.place.renew()
                if self.seat is not None:  # an open stream keeps its seat present (issue 31)
                    self.store.touch(self.match_id, self.seat)
                yield ": heartbeat\n\n"
            waited = self.store.wait_events(
                self.match_id, self.after, clock.wait_ms(), client=self.reader
            )
            yield from self.frames(waited)


class _Clock:
    """When a stream's next heartbeat is due, and when the stream ends (monotonic time)."""

    def __init__(self, heartbeat: float, max_seconds: float) -> None:
        self.heartbeat = max(0.001, heartbeat)
        self.started = self.last_beat = time.monotonic()
        self.ends = self.started + max_seconds if max_seconds > 0 else None

    def expired(self) -> bool:
        return self.ends is not None and time.monotonic() >= self.ends

    def heartbeat_due(self) -> bool:
        now = time.monotonic()
        if now - self.last_beat < self.heartbeat:
            return False
        self.last_beat = now
        return True

    def wait_ms(self) -> int:
        """Until the next heartbeat or the end (the store cuts it to its own bound)."""
        until = self.last_beat + self.heartbeat
        if self.ends is not None:
            until = min(until, self.ends)
        return max(1, int((until - time.monotonic()) * 1000))


@blp.route("/<match_id>/events/stream")
class EventStream(MethodView):
    @blp.arguments(StreamQuerySchema, location="query")
    @blp.response(
        200,
        content_type="text/event-stream",
        description=docs.SSE_DESCRIPTION,
        example=examples.STREAM,
    )
    @blp.doc(
        security=docs.SECURITY,
        parameters=[docs.LAST_EVENT_ID],
        responses=docs.problems(401, 404, 422, 429, 503),
    )
    def get(self, query: dict[str, Any], match_id: str) -> Any:
        """The events live, as Server-Sent Events (`id:` is the seq, `event:` the type).

        Resumes after `Last-Event-ID` (or `?after=`); a heartbeat comment comes at least every
        15 s (every 10 s by default), also while nobody moves; the stream stays open until the
        match finishes or the client leaves (a server may cap its length: reconnect with
        Last-Event-ID).

        Each stream holds a place: 429 `stream_limit` when the caller's network or seat token
        holds its most streams at once, 503 `streams_full` when the server does (both with
        `Retry-After`); streams end after `SSE_MAX_SECONDS` (an hour by default).
        """
        seat = caller_seat(match_id)
        after = _last_event_id(query)
        limits, reader = stream_parts(current_app)
        token = bearer_token() if seat is not None else None
        place = limits.take(client_network(), token)  # a refused stream loads nothing
        try:
            stream = _Stream(service(), match_id, seat, after, reader)
        except BaseException:
            place.release()
            raise
        stream.place = place
        heartbeat = float(setting("SSE_HEARTBEAT_SECONDS"))
        body = stream.run(heartbeat, float(setting("SSE_MAX_SECONDS")))
        response = Response(body, mimetype="text/event-stream")
        response.call_on_close(stream.close)
        response.headers["Cache-Control"] = "no-cache"
        response.headers["X-Accel-Buffering"] = "no"
        return response


@blp.route("/<match_id>/log")
class Log(MethodView):
    @blp.arguments(LogQuerySchema, location="query")
    @blp.response(
        200,
        content_type="application/x-ndjson",
        description=docs.LOG_DESCRIPTION,
        example=examples.LOG,
    )
    @blp.alt_response(202, schema=AnalysisPendingSchema, headers=RETRY_AFTER)
    @blp.doc(security=docs.SECURITY, responses=docs.problems(401, 403, 404, 422))
    def get(self, query: dict[str, Any], match_id: str) -> Any:
        """The whole unredacted log as NDJSON, one event per line; 403 until it is finished."""
        caller_seat(match_id)
        store = service()
        now = store.load(match_id)
        version = now.version
        if not now.variant.is_finished(now.state):
            raise ApiError(
                "match_in_progress",
                "the log is published when the match is finished",
                403,
            )
        analysis = None
        if query.get("annotations"):
            analysis, _ = finished_analysis(match_id)
            if analysis is None:
                return pending(match_id)
        lines = _log_lines(store, match_id, version, analysis)
        response = Response("".join(line + "\n" for line in lines), mimetype="application/x-ndjson")
        response.headers["ETag"] = f'"{version}"'
        return response


def _log_lines(
    store: Any, match_id: str, version: int, analysis: dict[str, Any] | None
) -> list[str]:
    """The log's events as JSON lines, each with its judgment when `analysis` is given."""
    lines: list[str] = []
    after = 0
    while after < version:
        page = store.events(match_id, after=after, limit=1000)
        if not page:
            break
        objects = [raw_event_json(e) for e in page]
        if analysis is not None:
            annotate(objects, analysis)
        lines.extend(json.dumps(o, separators=(",", ":")) for o in objects)
        after = page[-1].seq
    return lines
