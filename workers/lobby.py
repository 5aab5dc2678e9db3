"""The lobby's scheduled job: cancel a match still waiting for players at its deadline.

`expire_lobby(match_id)` runs on rq's scheduler (store/lobby.py enqueues it with
`enqueue_at` at the deadline, job id `lobby-expire-<id>`; every worker runs with the
scheduler). It appends MatchCancelled (`lobby_expired`) at the version it read, so it and a
request that found the match past due (which cancels it too) record it exactly once. A match
that started, or was cancelled, meanwhile is left alone.
"""

from __future__ import annotations

from store.errors import UnknownMatch
from store.lobby import lobby_service
from workers.connection import service


def expire_lobby(match_id: str) -> str:
    """Cancel `match_id` if it still waits past its deadline; a short note (the job result)."""
    try:
        cancelled = lobby_service(service()).expire(match_id)
    except UnknownMatch:
        return f"skipped: match {match_id} does not exist"
    return f"cancelled: {match_id} (lobby_expired)" if cancelled else f"kept: {match_id}"
