"""Prometheus metrics of every Deadwood process (prometheus_client).

The counters and histograms below are module globals, written by the API (requests, moves,
rate-limit refusals, live streams), the store (appends, conflicts) and the worker (jobs, the
reconciler). With PROMETHEUS_MULTIPROC_DIR set (`deadwood up` sets it for all its children)
each process writes its values into that directory and any process's `/metrics` reads them
all (prometheus_client's multiprocess mode); without it each process has its own.

Figures that are a state, not an event (queue depth, matches in play, live workers), are read
from Redis when scraped (`StoreCollector`), so they are right whichever process answers.

Labels are bounded sets only: a route template (`/v1/matches/<match_id>/moves`, never a
path), a method, a status, a problem code, a queue name, an outcome. Never a match id, a
token or a seed.

The figures of every request (requests, latency, moves, appends) are `Batched`: a request
adds to a list in this process, and the flusher (store/flushing.py) writes the sums into the
shared values every half second, so a request takes no lock and writes no shared memory.
`/metrics` flushes its own process first; another process's figures are at most that half
second old when scraped.

DEADWOOD_METRICS=0 turns every update off (`enabled()`), and the API then serves no
`/metrics` (the bench's "off" build).
"""

from __future__ import annotations

import collections
import os
from bisect import bisect_left
from collections.abc import Iterator
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from store import flushing

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"


def enabled() -> bool:
    return os.environ.get("DEADWOOD_METRICS", "1").strip().lower() not in ("0", "off", "false")


ENABLED = enabled()

LATENCY_BUCKETS = (0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

REQUESTS = Counter(
    "deadwood_http_requests", "HTTP requests answered", ["route", "method", "status"]
)
LATENCY = Histogram(
    "deadwood_http_request_duration_seconds",
    "Time to answer an HTTP request (to the first byte of a stream)",
    ["route", "method"],
    buckets=LATENCY_BUCKETS,
)
MOVES = Counter("deadwood_moves", "Moves by outcome and problem code", ["outcome", "code"])
APPENDS = Counter(
    "deadwood_appends", "Atomic appends by result (ok, conflict, idempotent)", ["result"]
)
RATE_LIMITED = Counter("deadwood_rate_limited", "Requests refused with 429", ["route"])
LIVE_STREAMS = Gauge(
    "deadwood_live_streams", "Open live event streams (SSE)", multiprocess_mode="livesum"
)
JOBS = Counter("deadwood_jobs", "Jobs run by queue and outcome", ["queue", "outcome"])
JOB_DURATION = Histogram(
    "deadwood_job_duration_seconds",
    "Time a job ran",
    ["queue"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0),
)
RECONCILER_PASSES = Counter(
    "deadwood_reconciler_passes",
    "Reconciler passes (index: the active index; full: a SCAN)",
    ["kind"],
)
RECONCILER_ENQUEUED = Counter(
    "deadwood_reconciler_enqueued", "Follow-up jobs the reconciler enqueued again"
)
RECONCILER_SECONDS = Histogram(
    "deadwood_reconciler_pass_seconds",
    "Time one reconciler pass took",
    buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0),
)
ARCHIVED = Counter("deadwood_matches_archived", "Finished matches archived and removed from Redis")
TIMEOUTS = Counter(
    "deadwood_timeouts", "Clock timeouts applied, by the first event recorded", ["event"]
)
STALLS = Counter("deadwood_stalls", "Matches marked stalled after a job used its retries")


class Batched:
    """A counter's or a histogram's child (its labels given) whose increments wait in this
    process for the next flush (store/flushing.py). `inc` and `observe` append to a deque (one
    step, safe from any thread or greenlet); a flush drains it and writes each sum once: a
    counter's total; a histogram's sum and the count of each bucket it touched."""

    __slots__ = ("bounds", "child", "pending")

    def __init__(self, child: Any) -> None:
        self.child = child
        bounds = getattr(child, "_upper_bounds", None)  # a histogram's (prometheus_client)
        self.bounds: list[float] | None = None if bounds is None else list(bounds)
        self.pending: collections.deque[float] = collections.deque()

    def inc(self, amount: float = 1.0) -> None:
        pending = self.pending
        pending.append(amount)
        if len(pending) >= FLUSH_AT or not flushing.running:
            _filled(self)

    observe = inc

    def flush(self) -> None:
        pending = self.pending
        if not pending:
            return
        values = []
        try:
            while True:
                values.append(pending.popleft())
        except IndexError:
            pass
        if self.bounds is None:
            self.child.inc(sum(values))
            return
        counts = [0] * len(self.bounds)
        for value in values:  # a histogram counts a value in the first bucket that holds it
            counts[bisect_left(self.bounds, value)] += 1
        self.child._sum.inc(sum(values))
        for bucket, count in zip(self.child._buckets, counts, strict=True):
            if count:
                bucket.inc(count)


FLUSH_AT = 1024
"""A child with this many values pending is flushed then and there."""
_batched: dict[tuple[Any, tuple[str, ...]], Batched] = {}


def batched(metric: Any, *labels: str) -> Batched:
    """The batched child of `metric` with these label values (one per process and labels)."""
    key = (metric, labels)
    found = _batched.get(key)
    if found is None:
        found = _batched[key] = Batched(metric.labels(*labels) if labels else metric)
    return found


def _filled(child: Batched) -> None:
    if len(child.pending) >= FLUSH_AT:
        child.flush()
    if not flushing.running:
        flushing.start()


def flush() -> None:
    """Write every batched child's pending increments into its shared value."""
    for child in list(_batched.values()):
        child.flush()


flushing.register(flush)


def registry_for_scrape(extra: Collector | None = None) -> CollectorRegistry:
    """What `/metrics` shows: every process's values (multiprocess mode) or this one's."""
    from prometheus_client import REGISTRY, multiprocess

    if os.environ.get(MULTIPROC_ENV):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    else:
        registry = CollectorRegistry(auto_describe=False)
        registry.register(_Forward(REGISTRY))
    if extra is not None:
        registry.register(extra)
    return registry


class _Forward(Collector):
    """The process-wide registry inside a per-scrape one (so the per-scrape collectors are not
    registered globally, once per app)."""

    def __init__(self, inner: CollectorRegistry) -> None:
        self.inner = inner

    def collect(self) -> Iterator[Any]:
        yield from self.inner.collect()


class StoreCollector(Collector):
    """Read at scrape time: jobs waiting per queue, matches in play, live rq workers."""

    def __init__(self, service: Any) -> None:
        self.service = service

    def collect(self) -> Iterator[GaugeMetricFamily]:
        import redis

        from store.jobs import QUEUES

        depth = GaugeMetricFamily(
            "deadwood_queue_depth", "Jobs waiting in each queue", labels=["queue"]
        )
        try:
            for name in QUEUES:
                depth.add_metric([name], self.service.queues.queue(name).count)
            yield depth
            in_play = GaugeMetricFamily(
                "deadwood_matches_in_play", "Matches in the active index (not finished)"
            )
            in_play.add_metric([], self.service.store.active_count())
            yield in_play
            workers = GaugeMetricFamily("deadwood_workers_live", "rq workers alive")
            workers.add_metric([], len(self.service.queues.live_workers()))
            yield workers
        except redis.RedisError:
            up = GaugeMetricFamily("deadwood_store_up", "1 when Redis answered the scrape")
            up.add_metric([], 0)
            yield up


def mark_process_dead(pid: int) -> None:
    """Drop a finished process's live gauges (multiprocess mode)."""
    if os.environ.get(MULTIPROC_ENV):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(pid)  # type: ignore[no-untyped-call]
