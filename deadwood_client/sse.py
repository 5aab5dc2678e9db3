"""Following a match's live event stream (`GET .../events/stream`, Server-Sent Events).

`follow(client, match_id, after)` yields every event with seq > `after` exactly once, in seq
order, for as long as the match runs:

- Each connection sends `Last-Event-ID: <last seq yielded>`, so after a disconnect (a
  dropped connection, a proxy cut, a read timeout because even the heartbeat stopped, a
  5xx) the server resumes right after the last event this follower has passed on.
- An event with a seq at or below the last one yielded is a repeat and is dropped; an event
  whose seq skips ahead is preceded by the missing ones, read from the paged endpoint. So
  nothing is lost or repeated even if a server resumed imprecisely.
- When a stream ends cleanly (the server closes streams after a few minutes, and when the
  match finishes) the follower asks for the match: finished and nothing left -> done;
  otherwise it reconnects (after a short pause if that connection brought nothing).
- Reconnects after failures pause with the client's `Retry` backoff; after `attempts`
  failures in a row without a single event the last failure is raised (TransportError, or
  the server's problem).

Events arrive as the caller may see them (redacted for a seat or a spectator), like the page.
"""

from __future__ import annotations

import json
from collections.abc import Generator, Iterator
from typing import TYPE_CHECKING, cast

import httpx
from httpx_sse import SSEError, connect_sse

from deadwood_client.errors import DeadwoodError, ServerError, TransportError
from deadwood_client.retry import problem
from deadwood_client.types import Event

if TYPE_CHECKING:
    from deadwood_client.client import Client


def follow(
    client: Client, match_id: str, after: int = 0, *, until_finished: bool = True
) -> Generator[Event, None, None]:
    """Every event after `after`, live, each exactly once (module docstring)."""
    last = after
    failures = 0
    while True:
        start = last
        try:
            for event in _connection(client, match_id, last):
                if event["seq"] <= last:
                    continue  # a repeat
                if event["seq"] > last + 1:
                    for missing in client.history(match_id, after=last, upto=event["seq"] - 1):
                        if missing["seq"] == last + 1:
                            yield missing
                            last = missing["seq"]
                    if event["seq"] != last + 1:
                        break  # the log disagrees with the stream: reconnect from `last`
                yield event
                last = event["seq"]
                failures = 0
        except (httpx.TransportError, SSEError, ServerError, _Dropped) as exc:
            failures += 1
            if failures >= client.retry.attempts:
                raise _as_error(exc) from exc
            client.retry.pause(failures - 1)
            continue
        if until_finished and _finished(client, match_id, last):
            return
        if last == start:  # closed at once with nothing new: do not spin
            client.retry.pause(0)


class _Dropped(Exception):
    """The server answered the stream request with a retryable status."""


def _connection(client: Client, match_id: str, last: int) -> Iterator[Event]:
    """One SSE connection resuming after `last`; its events until the server closes it."""
    headers = client._auth({"Last-Event-ID": str(last)})
    timeout = httpx.Timeout(client.timeout, read=client.stream_timeout)
    path = f"/matches/{match_id}/events/stream"
    with connect_sse(client.http, "GET", path, headers=headers, timeout=timeout) as source:
        response = source.response
        if response.status_code >= 500 or response.status_code == 429:
            response.read()
            raise _Dropped(f"HTTP {response.status_code}")
        if not response.is_success:
            response.read()
            raise problem(response)
        for message in source.iter_sse():
            if not message.data:
                continue
            event = cast(Event, json.loads(message.data))
            if message.id and message.id.isdigit() and int(message.id) != event["seq"]:
                raise _Dropped(f"SSE id {message.id} does not match the event's seq")
            client._note_version(match_id, event["seq"])
            yield event


def _finished(client: Client, match_id: str, last: int) -> bool:
    view = client.match(match_id)
    return view["status"] == "finished" and last >= view["version"]


def _as_error(exc: Exception) -> DeadwoodError:
    if isinstance(exc, DeadwoodError):
        return exc
    return TransportError(f"the event stream kept failing: {type(exc).__name__}: {exc}")
