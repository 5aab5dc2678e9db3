"""The deadline job written directly (store/jobs.py `scheduled_commands`, a speed trick of
issue 31) is the job rq writes for it: the same hash (but its creation time), the same
registry entry (to the millisecond), and rq loads and runs it."""

from __future__ import annotations

import zlib
from typing import Any

import redis
from rq.job import Job
from rq.serializers import JSONSerializer

from store.jobs import DEADLINE_FUNC, DEADLINES, JobSpec, Queues
from store.logs import request_id_var

SPEC = JobSpec(DEADLINES, "deadline-m_x-7", DEADLINE_FUNC, "m_x", 7, at_ms=1_800_000_000_123)


def _hash(client: redis.Redis, job_id: str) -> dict[bytes, Any]:
    raw: Any = client  # redis-py's replies are unions; these are bytes
    fields: dict[bytes, Any] = raw.hgetall(Job.key_for(job_id))
    fields.pop(b"created_at")
    fields[b"data"] = zlib.decompress(fields[b"data"])
    return fields


def _both(client: redis.Redis) -> tuple[dict[bytes, Any], dict[bytes, Any]]:
    queues = Queues(client)
    queues.enqueue([SPEC])  # through rq
    by_rq = _hash(client, SPEC.job_id)
    score = client.zscore("rq:scheduled:deadlines", SPEC.job_id)
    client.flushdb()
    pipe: Any = client.pipeline(transaction=False)
    for command in queues.scheduled_commands(SPEC):
        pipe.execute_command(*command)
    pipe.execute()
    assert client.zscore("rq:scheduled:deadlines", SPEC.job_id) == score == 1_800_000_000.123
    assert client.smembers("rq:queues") == {b"rq:queue:deadlines"}
    return by_rq, _hash(client, SPEC.job_id)


def test_the_direct_deadline_job_is_rqs(redis_client: redis.Redis) -> None:
    by_rq, direct = _both(redis_client)
    assert direct == by_rq


def test_the_direct_deadline_job_carries_the_request_id(redis_client: redis.Redis) -> None:
    token = request_id_var.set("req-1")
    try:
        by_rq, direct = _both(redis_client)
    finally:
        request_id_var.reset(token)
    assert direct == by_rq and b"meta" in direct


def test_rq_loads_the_direct_job(redis_client: redis.Redis) -> None:
    pipe: Any = redis_client.pipeline(transaction=False)
    for command in Queues(redis_client).scheduled_commands(SPEC):
        pipe.execute_command(*command)
    pipe.execute()
    job = Job.fetch(SPEC.job_id, connection=redis_client, serializer=JSONSerializer)
    assert job.func_name == DEADLINE_FUNC and job.args == ["m_x", 7]
    assert job.get_status() == "scheduled" and job.retries_left == 3
