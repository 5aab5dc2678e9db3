"""The scoring job: score an ended round, then deal the next round or finish the match.

Job `score-<match>-<round>` on queue `scoring` runs `score_round(match_id, version)`, where
`version` is the version at which the round ended. The domain computes the round result
(`decide(state, SYSTEM, {"type": "score_round"})` -> RoundScored, then RoundDealt or
MatchFinished) and the service appends it with `expected_version=version`, so a second run,
or a run after the match moved on, appends nothing.
"""

from __future__ import annotations

import logging

from domain.events import SYSTEM
from store.errors import UnknownMatch, VersionConflict
from workers.connection import service

log = logging.getLogger(__name__)


def score_round(match_id: str, version: int) -> str:
    """Score the round pending at `version`; a short note of what happened (the job result)."""
    svc = service()
    try:
        state, current = svc.load(match_id)
    except UnknownMatch:
        return f"skipped: match {match_id} does not exist"
    if current != version:
        return f"stale: match {match_id} is at version {current}, the job was for {version}"
    game = svc.variant(state)
    move = game.pending(state)
    if move is None or move.get("type") != "score_round":
        return f"stale: nothing to score in {match_id} at version {version}"
    try:
        appended = svc.submit(
            match_id, SYSTEM, move, expected_version=version, idempotency_key=None, fingerprint=""
        )
    except VersionConflict as conflict:
        return f"stale: {conflict}"
    return f"scored: {match_id} now at version {appended.version}"
