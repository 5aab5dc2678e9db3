"""The deadline job: a clocked turn's timeout, on rq's scheduler (issue 31).

Job `deadline-<match>-<version>` on queue `deadlines` is scheduled (`enqueue_at`, inside the
append that started or continued the turn) for the turn's deadline and runs
`apply_deadline(match_id, version)`: the timeout is appended at exactly `version`, so a move
that landed first makes the job a no-op ("stale"), and running it twice appends once. The
service decides the timeout's events (store/clock.py); the job only says when. A deadline
job then sweeps up the other deadlines due already (store/clock_service.py `sweep_deadlines`).
"""

from __future__ import annotations

from store.errors import UnknownMatch
from workers.connection import service


def apply_deadline(match_id: str, version: int) -> str:
    """Apply the overdue timeout of `match_id` at `version`, then the other deadlines due
    already (`sweep_deadlines`); a short note (the job result)."""
    svc = service()
    try:
        note = svc.apply_deadline(match_id, version)
    except UnknownMatch:
        note = f"skipped: match {match_id} does not exist"
    swept = svc.sweep_deadlines()
    return f"{note}; {len(swept)} more swept" if swept else note


def apply_deadline_again(match_id: str, version: int) -> str:
    """The twin a deadline job schedules when it ran early: it never schedules another."""
    try:
        return service().apply_deadline(match_id, version, again=True)
    except UnknownMatch:
        return f"skipped: match {match_id} does not exist"
