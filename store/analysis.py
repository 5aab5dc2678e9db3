"""A finished match's analysis (domain.analysis), stored once in the match's hash slot.

`match:{<id>}:analysis` holds the analysis JSON, written with SET NX by the job
`analysis-<match>` (workers/analysis.py), so it is written once however often the job runs.
The key carries the match's tag like its stream, metadata and snapshot (store.event_store),
so on a Redis Cluster it lives on the match's node. Nothing is ever written for a match in
play: the job refuses one, and the API answers 404 before asking.
"""

from __future__ import annotations

import json
from typing import Any

from domain.analysis import Analysis, analyse
from domain.events import Event
from store import codec
from store.service import MatchService

PAGE = 1000


def analysis_key(match_id: str) -> str:
    return f"match:{{{match_id}}}:analysis"


def stored_analysis(service: MatchService, match_id: str) -> dict[str, Any] | None:
    """The stored analysis of the match, or None when none is written yet."""
    raw = service.store.get(analysis_key(match_id))
    if raw is None:
        return None
    found: dict[str, Any] = json.loads(codec.text(raw))
    return found


def match_events(service: MatchService, match_id: str) -> list[Event]:
    """The whole log as recorded (upcast), oldest first."""
    events: list[Event] = []
    after = 0
    while True:
        page = service.events(match_id, after=after, limit=PAGE)
        if not page:
            return events
        events.extend(stored.event for stored in page)
        after = page[-1].seq


def analyse_match(service: MatchService, match_id: str) -> Analysis:
    """The analysis of a finished match (MatchNotFinished for a match in play)."""
    return analyse(match_events(service, match_id))


def store_once(service: MatchService, match_id: str, analysis: dict[str, Any]) -> bool:
    """Write the analysis unless one is there already; True when this call wrote it."""
    body = json.dumps(analysis, separators=(",", ":"))
    return bool(service.redis.set(analysis_key(match_id), body, nx=True))
