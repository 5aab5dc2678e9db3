"""The SYSTEM-move jobs: score an ended round, deal the next round, finish the match.

Job `score-<match>-<round>` on queue `scoring` runs `score_round(match_id, version)`, where
`version` is the version at which the round ended: the domain computes the round result
(`decide(state, SYSTEM, {"type": "score_round"})`). Any other SYSTEM move the variant has
pending (three-hand gin deals the next round or finishes the match as a SYSTEM move of its own)
runs as job `system-<match>-<version>` -> `apply_system(match_id, version)`. Both append with
`expected_version=version`, so a second run, or a run after the match moved on, appends nothing.
"""

from __future__ import annotations

import logging

from domain.events import SYSTEM
from store.errors import UnknownMatch, VersionConflict
from workers.connection import service
from workers.retries import job_id, last_attempt

log = logging.getLogger(__name__)


def score_round(match_id: str, version: int) -> str:
    """Score the round pending at `version`; a short note of what happened (the job result)."""
    return _apply(match_id, version, only="score_round")


def apply_system(match_id: str, version: int) -> str:
    """Apply the SYSTEM move pending at `version` (deal, finish, role draw, score)."""
    return _apply(match_id, version, only=None)


def _apply(match_id: str, version: int, only: str | None) -> str:
    svc = service()
    try:
        loaded = svc.load(match_id)
    except UnknownMatch:
        return f"skipped: match {match_id} does not exist"
    if loaded.version != version:
        return f"stale: match {match_id} is at version {loaded.version}, the job was for {version}"
    move = loaded.variant.pending(loaded.state)
    if move is None or (only is not None and move.get("type") != only):
        return f"stale: no {only or 'SYSTEM move'} due in {match_id} at version {version}"
    try:
        appended = svc.submit(
            match_id, SYSTEM, move, expected_version=version, idempotency_key=None, fingerprint=""
        )
    except VersionConflict as conflict:
        return f"stale: {conflict}"
    except Exception as error:
        if not last_attempt():
            raise  # rq runs the job again after its retry interval
        job = job_id(f"system-{match_id}-{version}")
        svc.stall(match_id, job, f"{type(error).__name__}: {error}")
        return f"stalled: {match_id} at {version}: {type(error).__name__}"
    return f"{move['type']}: {match_id} now at version {appended.version}"
