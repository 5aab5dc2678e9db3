"""The reconciler: a lost follow-up job heals itself.

A pass reads the active index (`deadwood:active`, store/event_store.py), so its cost
follows the matches in play, not every match ever played. For each match there whose
current state needs a job (a round to score, a bot to move, a clocked turn's deadline) that
is not live (queued in its queue, scheduled, deferred or running), it enqueues that job with
its deterministic id. A running turn's deadline is carried by job (match, `job_v`), the
newest one an append wrote (store/clock.py), or by job (match, current version), or by the
`-again` twin of either: when none is live, (match, current version) is made at the
deadline. A job made twice is harmless: it carries the version it was made for, and a stale
or repeated run appends nothing. The pass also repairs the index: a finished match still
listed moves to the finished index; an id with no match behind it (a create that failed
after indexing) is dropped once it is older than GRACE_SECONDS. Each pass also enqueues
the pairing job of every variant with open seeks (issue 32) unless one is queued.

A full pass (`full=True`, and the first pass ever on a store whose index was never built)
SCANs every match stream instead (on every primary of a cluster), indexes what is not
finished, and marks the index built. The worker's timer makes every 120th pass a full one
(workers/run.py FULL_EVERY), so a match the index missed (created by an API older than the
index, during an upgrade) is found within the hour.

Run at worker start and on a timer (workers/run.py), or by hand:
`python -m workers.reconcile [--full]`.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import time
from collections.abc import Iterable, Iterator
from itertools import islice

import redis

from store import metrics
from store.event_store import Conflict
from store.jobs import BOT_FUNC, JobSpec, bot_seat
from store.lobby import lobby_service
from store.seeks import pairing_job_id, seek_service
from store.service import MatchService

log = logging.getLogger(__name__)

GRACE_SECONDS = 60.0
"""How long an indexed id may have no stream (its create's script may still be running)."""


def reconcile(service: MatchService, *, batch: int = 500, full: bool = False) -> list[str]:
    """Enqueue every missing follow-up job; the ids of the jobs enqueued."""
    started = time.monotonic()
    store = service.store
    full = full or not store.index_built()
    enqueued: list[str] = []
    candidates = _from_scan(service, batch) if full else _from_index(service, batch)
    for match_id in candidates:
        enqueued += _heal(service, match_id)
    if full:
        store.mark_index_built()
    enqueued += _pairings(service)
    if metrics.ENABLED:
        metrics.RECONCILER_PASSES.labels("full" if full else "index").inc()
        metrics.RECONCILER_ENQUEUED.inc(len(enqueued))
        metrics.RECONCILER_SECONDS.observe(time.monotonic() - started)
    if enqueued:
        log.info("reconciler enqueued %d job(s): %s", len(enqueued), ", ".join(enqueued))
    return enqueued


def _pairings(service: MatchService) -> list[str]:
    """The pairing job of each variant with open seeks (issue 32), so a seek whose job was lost
    is paired within a pass (store/seeks.py: never two queued at once)."""
    seeks = seek_service(service)
    variants = sorted({str(s.record["variant"]) for s in seeks.open_seeks()})
    return [pairing_job_id(v) for v in variants if seeks.enqueue_pairing(v)]


def _chunks(items: Iterable[str], size: int) -> Iterator[list[str]]:
    it = iter(items)
    while chunk := list(islice(it, size)):
        yield chunk


def _from_index(service: MatchService, batch: int) -> Iterator[str]:
    """The indexed matches still in play; repairs the index on the way."""
    store = service.store
    now = time.time()
    entries = dict(store.active_entries(batch))
    for chunk in _chunks(entries, batch):
        for match_id, flag in zip(chunk, store.finished_flags(chunk), strict=True):
            if flag == "1":
                store.mark_finished(match_id)
            elif flag is None:
                old = now - entries[match_id] > GRACE_SECONDS
                if old and not store.version(match_id):
                    store.unindex(match_id)
            else:
                yield match_id


def _from_scan(service: MatchService, batch: int) -> Iterator[str]:
    """Every match not finished, from a SCAN of the streams; indexes them as it goes."""
    store = service.store
    for chunk in _chunks(store.scan_matches(batch), batch):
        flags = store.finished_flags(chunk)
        playing = [m for m, flag in zip(chunk, flags, strict=True) if flag != "1"]
        store.index_active(playing)
        store.mark_finished_many([m for m, flag in zip(chunk, flags, strict=True) if flag == "1"])
        yield from playing


def _heal(service: MatchService, match_id: str) -> list[str]:
    try:
        specs = service.followups(match_id)
        if lobby_service(service).repair(match_id):  # past due: cancelled; listed: indexed
            log.info("reconciler repaired the lobby of %s", match_id)
    except Exception:  # one broken match must not stop the pass
        log.exception("reconciler could not load match %s", match_id)
        return []
    enqueued = []
    if service.stalled(match_id) is not None:
        return []  # an operator's to mend: its failed job is not run again
    for spec in specs:
        if service.queues.is_live(spec):
            continue
        spent = service.queues.spent(spec)
        if spent is not None:  # failed after its retries: never re-enqueued (issue 31)
            _after_retries(service, spec, spent)
            continue
        # The job may have just finished after appending: only a match still at the
        # job's version needs it (a stale copy would be harmless, but is noise).
        if service.store.version(match_id) != spec.version:
            continue
        service.queues.replace(spec)
        enqueued.append(spec.job_id)
    return enqueued


def _after_retries(service: MatchService, spec: JobSpec, error: str) -> None:
    """A job that failed after its retries (killed, say, so it could not fall back itself):
    a bot's turn is played by the random bot, anything else marks the match stalled."""
    if spec.func != BOT_FUNC:
        service.stall(spec.match_id, spec.job_id, error)
        return
    loaded = service.load(spec.match_id)
    seat = loaded.variant.to_act(loaded.state)
    bot = bot_seat(loaded.variant, loaded.state, seat) if seat is not None else None
    if seat is None or bot is None or loaded.version != spec.version:
        return
    with contextlib.suppress(Conflict):
        service.fallback(spec.match_id, spec.version, seat, bot, spec.job_id, error)


def main(argv: list[str] | None = None) -> None:
    from store import logs
    from store.config import ServiceConfig, build_service

    parser = argparse.ArgumentParser(prog="python -m workers.reconcile")
    parser.add_argument("--full", action="store_true", help="SCAN every stream, rebuild index")
    args = parser.parse_args(argv)
    logs.configure("reconciler")
    svc = build_service(ServiceConfig.from_env())
    try:
        print("\n".join(reconcile(svc, full=args.full)) or "nothing to do")
    except redis.RedisError as error:
        raise SystemExit(f"reconciler: {error}") from None


if __name__ == "__main__":
    main()
