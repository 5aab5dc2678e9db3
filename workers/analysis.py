"""The analysis job: `analysis-<match>` on queue `analysis` runs `analyse_match(match_id,
version)` once the match is finished (store.jobs.followups), and the analysis is stored once
(store/analysis.py: SET NX), however often the job runs: a second run finds it and returns.
"""

from __future__ import annotations

import logging

from domain.analysis import MatchNotFinished
from store.analysis import analyse_match as analysed
from store.analysis import store_once, stored_analysis
from store.errors import UnknownMatch
from workers.connection import service

log = logging.getLogger(__name__)


def analyse_match(match_id: str, version: int) -> str:
    """Analyse the finished match and store it; a short note of what happened."""
    svc = service()
    if stored_analysis(svc, match_id) is not None:
        return f"done already: {match_id} is analysed"
    try:
        if not svc.is_finished(match_id):
            return f"skipped: match {match_id} is not finished"
        analysis = analysed(svc, match_id)
    except UnknownMatch:
        return f"skipped: match {match_id} does not exist"
    except MatchNotFinished:
        return f"skipped: match {match_id} is not finished"
    wrote = store_once(svc, match_id, analysis.as_json())
    done = "analysed" if wrote else "analysed by another run first"
    return f"{done}: {match_id}, {len(analysis.decisions)} decisions (version {version})"
