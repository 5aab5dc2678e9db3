"""Liveness and readiness (issue 34); `/v1/health` (api/bots.py) keeps its meaning (the
event store answers PING).

- `GET /v1/health/live`: 200 whenever this process answers; it reads nothing, so a Redis
  outage never makes an orchestrator restart a healthy API.
- `GET /v1/health/ready`: 200 when the event store and the queue's Redis answer PING and at
  least one rq worker is alive (its record exists, kept by heartbeats, and is not marked
  dead); else 503 problem+json `not_ready`, naming each failing part in `detail` and in
  `checks` (`event_store`, `queue`, `workers`).
"""

# mypy: disable-error-code="untyped-decorator"
from __future__ import annotations

from typing import Any

import redis
from flask.views import MethodView
from flask_smorest import Blueprint

from api import docs
from api.common import json_response, service
from api.errors import ApiError
from api.schemas import LiveSchema, ReadySchema

blp = Blueprint("health", __name__, url_prefix="/v1/health", description="Bots, hints and health")


@blp.route("/live")
class Live(MethodView):
    @blp.response(200, LiveSchema)
    @blp.doc(responses=docs.problems())
    def get(self) -> Any:
        """`{"status": "live"}`: the process answers (nothing else is checked)."""
        return json_response({"status": "live"})


@blp.route("/ready")
class Ready(MethodView):
    @blp.response(200, ReadySchema)
    @blp.doc(responses=docs.problems(503))
    def get(self) -> Any:
        """Ready to serve: the event store and the queue answer, and a worker is alive.

        503 `not_ready` names each failing part (`checks`: `event_store`, `queue`,
        `workers`). `stalled`: matches whose system job failed after its retries (an
        operator's to mend; the service stays ready)."""
        checks = readiness(service())
        failing = [part for part, state in checks.items() if state != "ok"]
        if failing:
            detail = "; ".join(f"{part}: {checks[part]}" for part in failing)
            raise ApiError("not_ready", f"not ready: {detail}", 503, checks=checks)
        return json_response({"status": "ready", "checks": checks, "stalled": _stalled()})


def _stalled() -> int:
    try:
        return int(service().stalled_count())
    except redis.RedisError:
        return 0


def readiness(svc: Any) -> dict[str, str]:
    """Each part's state: `ok` or why not."""
    checks = {"event_store": "ok" if svc.ping() else "does not answer PING"}
    queue = svc.queues.connection
    try:
        queue.ping()
    except redis.RedisError:
        checks["queue"] = "does not answer PING"
        checks["workers"] = "unknown (the queue does not answer)"
        return checks
    checks["queue"] = "ok"
    try:
        alive = len(svc.queues.live_workers())
    except redis.RedisError:
        alive = 0
    checks["workers"] = "ok" if alive else "no live rq worker"
    return checks
