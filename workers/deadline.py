"""The deadline job: a clocked turn's timeout, on rq's scheduler (issue 31).

Job `deadline-<match>-<version>` on queue `deadlines` is scheduled (inside an append) for
the turn's deadline and runs `apply_deadline(match_id, version)`. An append writes one only
when the newest job written would not fire by the new deadline (store/clock.py
`with_deadline_job`), so one job may carry a turn that later moves continued. At fire time
the job does nothing when a later append wrote its own ("stale"); else it carries the
running turn: an overdue one times out at the version it read (version-checked: a move that
lands first makes it a no-op, "raced", and running it twice appends once), and one not due
yet (moves pushed its deadline on) gets job (match, current version) at its deadline
("chased"). The service decides the timeout's events (store/clock.py); the job only says
when (store/deadlines.py). A deadline job then sweeps up the other deadlines due already
(`sweep_deadlines`).
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
