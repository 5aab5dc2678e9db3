"""The deadline job written directly (store/jobs.py `scheduled_commands`, a speed trick of
issue 31) is the job rq writes for it: rq loads the same job from its minimal hash (every
attribute but the creation time), the same registry entry (to the millisecond), and once rq's
scheduler queues it the hash is rq's own, field for field; rq loads and runs it."""

from __future__ import annotations

import zlib
from typing import Any

import redis
from rq.job import Job
from rq.serializers import JSONSerializer

from store.jobs import DEADLINE_FUNC, DEADLINES, JobSpec, Queues
from store.logs import request_id_var

SPEC = JobSpec(DEADLINES, "deadline-m_x-7", DEADLINE_FUNC, "m_x", 7, at_ms=1_800_000_000_123)
WHEN = ("created_at", "enqueued_at")


def _job(client: redis.Redis) -> Job:
    return Job.fetch(SPEC.job_id, connection=client, serializer=JSONSerializer)


def _attributes(job: Job) -> dict[str, Any]:
    seen = job.to_dict()
    for name in WHEN:
        seen.pop(name, None)
    seen["data"] = zlib.decompress(seen["data"])
    return seen


def _queued(client: redis.Redis) -> dict[bytes, Any]:
    """The job's hash after rq's scheduler queued it (what `enqueue_scheduled_jobs` does)."""
    queues = Queues(client)
    job = _job(client)
    with client.pipeline() as pipe:
        queues.queue(DEADLINES)._enqueue_job(job, pipeline=pipe)
        pipe.execute()
    raw: Any = client  # redis-py's replies are unions; these are bytes
    fields: dict[bytes, Any] = raw.hgetall(Job.key_for(SPEC.job_id))
    for name in WHEN:
        fields.pop(name.encode())
    fields[b"data"] = zlib.decompress(fields[b"data"])
    return fields


def _both(client: redis.Redis) -> tuple[dict[str, Any], dict[str, Any]]:
    """rq's and the direct job: as loaded, and the hash once queued by the scheduler."""
    queues = Queues(client)
    queues.enqueue([SPEC])  # through rq
    by_rq = _attributes(_job(client))
    score = client.zscore("rq:scheduled:deadlines", SPEC.job_id)
    by_rq_queued = _queued(client)
    client.flushdb()
    pipe: Any = client.pipeline(transaction=False)
    for command in queues.scheduled_commands(SPEC):
        pipe.execute_command(*command)
    pipe.execute()
    assert client.zscore("rq:scheduled:deadlines", SPEC.job_id) == score == 1_800_000_000.123
    direct = _attributes(_job(client))
    assert _queued(client) == by_rq_queued
    assert client.smembers("rq:queues") == {b"rq:queue:deadlines"}
    return by_rq, direct


def test_the_direct_deadline_job_is_rqs(redis_client: redis.Redis) -> None:
    by_rq, direct = _both(redis_client)
    assert direct == by_rq


def test_the_direct_deadline_job_carries_the_request_id(redis_client: redis.Redis) -> None:
    token = request_id_var.set("req-1")
    try:
        by_rq, direct = _both(redis_client)
    finally:
        request_id_var.reset(token)
    assert direct == by_rq and direct["meta"]


def test_rq_loads_the_direct_job(redis_client: redis.Redis) -> None:
    pipe: Any = redis_client.pipeline(transaction=False)
    for command in Queues(redis_client).scheduled_commands(SPEC):
        pipe.execute_command(*command)
    pipe.execute()
    job = _job(redis_client)
    assert job.func_name == DEADLINE_FUNC and job.args == ["m_x", 7]
    assert job.get_status() == "scheduled" and job.retries_left == 3
    assert job.created_at.year >= 2026 and job.timeout == 60 and job.result_ttl == 0
