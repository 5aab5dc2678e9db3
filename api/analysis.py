"""A finished match's move-by-move analysis (domain.analysis), served once the analysis job
has stored it (store/analysis.py, workers/analysis.py).

GET /v1/matches/{id}/analysis: 404 `match_not_finished` while the match is in play (an
analysis would tell the other seats about a hand), 202 with `Retry-After` while the job runs
(a finished match with no analysis and no live job gets its job again here, so a lost job or
a match finished before analyses existed heals itself), 200 with the analysis when done. The
export (GET .../log?annotations=true) carries the same judgments on the events (`annotate`).
"""

# mypy: disable-error-code="untyped-decorator"
from __future__ import annotations

from typing import Any

from flask import Response
from flask.views import MethodView
from flask_smorest import Blueprint
from marshmallow import EXCLUDE, Schema, fields, validate

from api import docs
from api.common import caller_seat, json_response, service
from api.errors import ApiError
from domain.analysis import CLASSES
from store.analysis import stored_analysis
from store.jobs import analysis_job

blp = Blueprint("analysis", __name__, url_prefix="/v1/matches", description="Analysis")

RETRY_SECONDS = 2
"""The retry hint of a 202 while the analysis job runs."""

RETRY_AFTER = {
    "Retry-After": {
        "description": "seconds to wait before asking again",
        "schema": {"type": "integer"},
    }
}


def _responses() -> dict[int | str, Any]:
    listed = docs.problems(401)
    listed[404] = {
        "description": "unknown_match, or match_not_finished while the match is in play",
        "content": {"application/problem+json": {"schema": docs.PROBLEM_REF}},
    }
    return listed


class ThresholdsSchema(Schema):
    unit = fields.String(required=True, metadata={"description": "deadwood or points"})
    exact = fields.Float(required=True, metadata={"description": "below this: best"})
    inaccuracy = fields.Float(required=True)
    mistake = fields.Float(required=True)
    blunder = fields.Float(required=True)


class DecisionSchema(Schema):
    seq = fields.Integer(required=True, metadata={"description": "the event recording the move"})
    seat = fields.Integer(required=True)
    round = fields.Integer(required=True)
    kind = fields.String(
        required=True, metadata={"description": "upcard, draw, discard, meld or knock"}
    )
    played = fields.Dict(required=True, metadata={"description": "the move played"})
    best = fields.Dict(required=True, metadata={"description": "the analyser's best move"})
    cost = fields.Float(required=True, metadata={"description": "in the thresholds' unit"})
    judgment = fields.String(required=True, validate=validate.OneOf(CLASSES))
    note = fields.String(required=True)
    tags = fields.List(fields.String(), required=True)
    details = fields.Dict(required=True)


class HindsightSchema(Schema):
    seq = fields.Integer(required=True)
    seat = fields.Integer(required=True)
    round = fields.Integer(required=True)
    kind = fields.String(required=True, metadata={"description": "undercut, discard_taken, ..."})
    points = fields.Integer(required=True)
    note = fields.String(required=True)


class WorstSchema(Schema):
    seq = fields.Integer(required=True)
    kind = fields.String(required=True)
    cost = fields.Float(required=True)
    judgment = fields.String(required=True)


class SeatSummarySchema(Schema):
    seat = fields.Integer(required=True)
    name = fields.String(required=True)
    decisions = fields.Integer(required=True)
    average_cost = fields.Float(required=True)
    total_cost = fields.Float(required=True)
    counts = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True)
    worst = fields.List(fields.Nested(WorstSchema), required=True)


class AnalysisSchema(Schema):
    id = fields.String(required=True)
    version = fields.Integer(required=True, metadata={"description": "the match's last event"})
    analysis_version = fields.Integer(required=True)
    variant = fields.String(required=True)
    events = fields.Integer(required=True)
    thresholds = fields.Nested(ThresholdsSchema, required=True)
    seats = fields.List(fields.Nested(SeatSummarySchema), required=True)
    decisions = fields.List(fields.Nested(DecisionSchema), required=True)
    hindsight = fields.List(fields.Nested(HindsightSchema), required=True)


class LogQuerySchema(Schema):
    class Meta:
        unknown = EXCLUDE

    annotations = fields.Boolean(
        load_default=False,
        metadata={
            "description": "add to each event its judged decision (`annotation`) and "
            "hindsight facts (`hindsight`) from the analysis; 202 with Retry-After while "
            "the analysis runs"
        },
    )


class AnalysisPendingSchema(Schema):
    id = fields.String(required=True)
    status = fields.String(required=True, validate=validate.OneOf(("running",)))
    retry_after = fields.Integer(required=True, metadata={"description": "seconds"})


def finished_analysis(match_id: str) -> tuple[dict[str, Any] | None, int]:
    """(the stored analysis or None while its job runs, the match version); 404
    `match_not_finished` for a match in play."""
    svc = service()
    loaded = svc.load(match_id)  # 404 unknown_match
    if not loaded.variant.is_finished(loaded.state):
        raise ApiError("match_not_finished", "a match has an analysis once it is finished", 404)
    found = stored_analysis(svc, match_id)
    if found is None:
        spec = analysis_job(match_id, loaded.version)
        if not svc.queues.is_live(spec):
            svc.queues.replace(spec)
    return found, loaded.version


def pending(match_id: str) -> Response:
    body = {"id": match_id, "status": "running", "retry_after": RETRY_SECONDS}
    response = json_response(body, 202)
    response.headers["Retry-After"] = str(RETRY_SECONDS)
    return response


def annotate(lines: list[dict[str, Any]], analysis: dict[str, Any]) -> None:
    """Add to each exported event its judged decision (`annotation`) and hindsight facts."""
    decisions = {d["seq"]: d for d in analysis.get("decisions") or []}
    facts: dict[int, list[dict[str, Any]]] = {}
    for fact in analysis.get("hindsight") or []:
        facts.setdefault(fact["seq"], []).append(fact)
    for line in lines:
        seq = line.get("seq")
        if seq in decisions:
            line["annotation"] = decisions[seq]
        if seq in facts:
            line["hindsight"] = facts[seq]


@blp.route("/<match_id>/analysis")
class Analysis(MethodView):
    @blp.response(200, AnalysisSchema, headers=docs.ETAG_HEADER)
    @blp.alt_response(202, schema=AnalysisPendingSchema, headers=RETRY_AFTER)
    @blp.doc(security=docs.SECURITY, responses=_responses())
    def get(self, match_id: str) -> Any:
        """Every decision of every seat judged, with a summary per seat, once finished.

        404 `match_not_finished` while the match is in play; 202 with `Retry-After` while
        the analysis runs (a job started when the match finished).
        """
        caller_seat(match_id)
        found, version = finished_analysis(match_id)
        if found is None:
            return pending(match_id)
        return json_response({"id": match_id, "version": version, **found}, 200, version)
