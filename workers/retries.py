"""A job's last attempt (issue 31: a failing bot or system job never stalls a match unseen).

Every follow-up job is made with rq's `Retry` (store/jobs.py `RETRY_INTERVALS`, bounded).
A job whose attempt fails raises, and rq runs it again after the interval; on its last
attempt the job falls back instead of raising: a bot seat's turn is played by the `random`
bot's legal move (`MatchService.fallback`), a system job marks the match stalled
(`MatchService.stall`). Either way an event and an error log line name the job and the error.
The reconciler never re-enqueues a job that failed after its retries (`Queues.spent`).
"""

from __future__ import annotations

from rq import get_current_job


def last_attempt() -> bool:
    """True inside an rq job that has no retry left (rq stores 0 retries left as none). A
    direct call (no job) is never the last: it raises, as before."""
    job = get_current_job()
    return job is not None and not job.retries_left


def job_id(default: str) -> str:
    job = get_current_job()
    return job.id if job is not None else default
