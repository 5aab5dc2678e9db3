"""The deadline job's work in the match service (issue 31): `Deadlines`, mixed into `Clocks`.

A clocked turn's timeout rides on rq's scheduler as job `deadline-<match>-<version>`
(store/clock.py says when an append writes one and when a job is stale). Run by the worker
(workers/deadline.py) or swept up by another deadline job:

    apply_deadline(match_id, version) nothing when a later append wrote its own job (stale);
                                      else the running turn's overdue timeout at the version
                                      read (nothing when a move lands first: raced), or, not
                                      due yet, the job of the current version at the
                                      deadline (chased: moves pushed it on) or the job's
                                      `-again` twin (the clocks of hosts differ)
    sweep_deadlines()                 the other deadlines due already, in the same job
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from domain.variants import Variant, get_variant
from store import codec
from store.clock import deadline_job, deadline_job_id, is_stale, parse_deadline_job_id
from store.errors import UnknownMatch
from store.event_store import Conflict
from store.jobs import DEADLINE_AGAIN_FUNC, DEADLINES, JobSpec

if TYPE_CHECKING:
    from store.event_store import EventStore
    from store.outcomes import Appended
    from store.states import Cached, States

SWEEP_LIMIT = 64
"""The most other due deadlines one deadline job applies (`sweep_deadlines`)."""


class Deadlines:
    """The deadline methods of MatchService (mixed into `Clocks`)."""

    if TYPE_CHECKING:  # what the mixin uses of MatchService (store/service.py, clock_service.py)
        clock: Callable[[], float]
        store: EventStore
        states: States

        def variant_name(self, match_id: str) -> str: ...

        def now_ms(self) -> int: ...

        def _time_out(self, match_id: str, game: Variant, current: Cached) -> Appended: ...

    def apply_deadline(self, match_id: str, version: int, again: bool = False) -> str:
        """The deadline job (match, `version`), or its `-again` twin: a note of what it did.
        Stale when a later append wrote a job of its own (store/clock.py `is_stale`); else
        it carries the running turn: an overdue one times out at the version read (a move
        that lands first makes that a no-op, "raced"), one not due yet is chased
        (`_chase`)."""
        game = get_variant(self.variant_name(match_id))
        current = self.states.fresh(match_id, game)
        turn = current.turn
        if is_stale(turn, current.version, version):
            return f"stale: {match_id} is at version {current.version}, a job newer than {version}"
        if turn is None or turn.deadline_ms is None:
            return f"not due: no clock runs in {match_id} at {current.version}"
        if not turn.overdue(self.now_ms()):
            return self._chase(match_id, version, again, current)
        try:
            appended = self._time_out(match_id, game, current)
        except Conflict:
            return f"raced: {match_id} moved on from {current.version}"
        return f"timed out: {match_id} at {appended.version}"

    def _chase(self, match_id: str, version: int, again: bool, current: Cached) -> str:
        """A deadline job that ran before the running turn's deadline. Moves since its
        version pushed the deadline on (they relied on this job): the job of the current
        version at the deadline, unless it exists already (its id is deterministic). Else
        the clocks of hosts differ: the `-again` twin, once; the reconciler makes a missing
        job anew after that."""
        queues = self.store.queues
        if current.version > version:
            job_id = deadline_job_id(match_id, current.version)
            if not queues.connection.exists(f"rq:job:{job_id}"):
                queues.enqueue(deadline_job(match_id, current.version, current.turn))
            return f"chased: {match_id} at {current.version}, its deadline job scheduled"
        if not again:
            queues.enqueue(_again(deadline_job(match_id, version, current.turn)))
        return f"not due: {match_id} at {version}, asked again for its deadline"

    def sweep_deadlines(self, limit: int = SWEEP_LIMIT) -> list[str]:
        """Apply up to `limit` other deadlines already due in rq's scheduled registry, in this
        job, rather than each as an rq job of its own once the scheduler polls (issue 31: a
        timeout's rq overhead is most of its cost, and a due job waits up to the scheduler's
        interval). The oldest first: those rq's scheduler queued already (claimed by LREM
        from the queue: of this and a worker's pop, one takes it), then those due in the
        registry (claimed by ZREM: of this and the scheduler, one removes it; should both
        get one, the job at (match, version) applies at most once anyway). Each is applied
        as its job would be, and its hash deleted. A
        claimed deadline lost to a crash is still applied: lazily by the next request of
        the match (`settle`) and by the reconciler, which schedules a missing deadline job
        anew (`followups`)."""
        queues: Any = self.store.queues.connection
        claimed = self._claim(queues, f"rq:queue:{DEADLINES}", limit)  # the oldest first
        if len(claimed) < limit:
            claimed += self._claim(queues, f"rq:scheduled:{DEADLINES}", limit - len(claimed))
        if not claimed:
            return []
        notes = []
        for job_id in claimed:
            parsed = parse_deadline_job_id(job_id)
            if parsed is None:
                continue
            match_id, version, again = parsed
            try:
                notes.append(self.apply_deadline(match_id, version, again))
            except UnknownMatch:
                notes.append(f"skipped: match {match_id} does not exist")
        if claimed:
            queues.delete(*[f"rq:job:{job_id}" for job_id in claimed])
        return notes

    def _claim(self, queues: Any, key: str, limit: int) -> list[str]:
        """Up to `limit` due deadline job ids taken from rq's queue (a list, oldest first) or
        its scheduled registry (due by score): those this call removed (LREM, ZREM)."""
        listed = key.startswith("rq:queue:")
        if listed:
            ids = queues.lrange(key, 0, limit - 1)
        else:
            ids = queues.zrangebyscore(key, "-inf", self.now_ms() / 1000, start=0, num=limit)
        if not ids:
            return []
        pipe = queues.pipeline(transaction=False)
        for job_id in ids:
            if listed:
                pipe.lrem(key, 1, job_id)
            else:
                pipe.zrem(key, job_id)
        return [codec.text(j) for j, won in zip(ids, pipe.execute(), strict=True) if won]


def _again(specs: list[JobSpec]) -> list[JobSpec]:
    return [replace(s, job_id=f"{s.job_id}-again", func=DEADLINE_AGAIN_FUNC) for s in specs]
