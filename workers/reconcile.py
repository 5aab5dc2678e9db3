"""The reconciler: a lost follow-up job heals itself.

It scans the match streams (`SCAN match:*:events`, on every primary of a cluster), skips
finished matches (a flag written with the last event), and for each match whose current
state needs a job (a round to score, a bot to move) that is not live (queued in its queue,
scheduled, deferred or running), it enqueues that job with its deterministic id. A job
made twice is harmless: it carries the version it was made for, and a stale or repeated
run appends nothing.

Run at worker start and on a timer (workers/run.py), or by hand: `python -m workers.reconcile`.
"""

from __future__ import annotations

import logging

import redis

from store.service import MatchService

log = logging.getLogger(__name__)


def reconcile(service: MatchService, *, batch: int = 500) -> list[str]:
    """Enqueue every missing follow-up job; the ids of the jobs enqueued."""
    enqueued: list[str] = []
    for match_id in service.store.scan_matches(batch):
        if service.is_finished(match_id):
            continue
        try:
            specs = service.followups(match_id)
        except Exception:  # one broken match must not stop the scan
            log.exception("reconciler could not load match %s", match_id)
            continue
        for spec in specs:
            if service.queues.is_live(spec):
                continue
            # The job may have just finished after appending: only a match still at the
            # job's version needs it (a stale copy would be harmless, but is noise).
            if service.store.version(match_id) != spec.version:
                continue
            service.queues.replace(spec)
            enqueued.append(spec.job_id)
    if enqueued:
        log.info("reconciler enqueued %d job(s): %s", len(enqueued), ", ".join(enqueued))
    return enqueued


def main() -> None:
    from store.service import service_from_env

    logging.basicConfig(level=logging.INFO)
    svc = service_from_env()
    try:
        print("\n".join(reconcile(svc)) or "nothing to do")
    except redis.RedisError as error:
        raise SystemExit(f"reconciler: {error}") from None


if __name__ == "__main__":
    main()
