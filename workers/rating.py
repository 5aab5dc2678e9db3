"""The rating job (issue 32): `rating-<match>` on queue `scoring` runs `rate_match(match_id,
version)` once a rated match is finished (store.jobs.followups), by MatchFinished or by a
resignation, claim or timeout forfeit; an aborted match is skipped (domain/rated.py). The
ledger rates a match once however often the job runs (store/ledger.py: the marker is written
by the same script as the ratings), so a repeat, a retry or a reconciler's duplicate changes
nothing.
"""

from __future__ import annotations

import logging

from domain.accounts import is_builtin
from store.accounts import Accounts
from store.ledger import Ledger
from store.rebuild import StoredLogs
from workers.connection import service

log = logging.getLogger(__name__)


def rate_match(match_id: str, version: int) -> str:
    """Rate the finished rated match; a short note of what happened."""
    svc = service()
    ends = next(StoredLogs(svc.redis, svc.archive).ends([match_id]))
    result = ends.result() if ends is not None else None
    if ends is None or result is None:
        return f"skipped: {match_id} is not a finished rated match"
    accounts = Accounts(svc.redis, svc.pepper)
    if any(is_builtin(handle) for handle in result.accounts()):
        accounts.ensure_builtin_bots()  # idempotent: a built-in bot on the ladder has its account
    bots = {handle: accounts.is_bot(handle) for handle in result.accounts()}
    place = Ledger(svc.redis).rate(result, bots, ends.finished_at)
    if place == 0:
        return f"done already: {match_id} is rated"
    return f"rated: {match_id}, number {place} of {result.variant} (version {version})"
