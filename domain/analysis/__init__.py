"""Move-by-move analysis of a finished match: `analyse(events) -> Analysis`.

Every decision of every seat is judged from that seat's view at that event (the variant's
own `view`, exactly what the seat's client saw), never from hidden cards: what was played,
what the analyser's judgement would have played, the cost of the difference in the game's
own units and a judgment class (judgment.py gives the thresholds). Facts that need hidden
cards (a knock undercut by the defender's hand, a discard the opponent took and what it
saved it) are reported apart, as hindsight. A summary per seat closes it.

    judgment.py      Decision, Hindsight, the classes and each game's thresholds
    gin_judge.py     three-hand gin: one decision from one view (the expert's evaluation)
    gin.py           three-hand gin: the log walk, the advisor's advice, hindsight
    manipulation.py  Manipulation: the exact solver's best meld, the expert's knock, the walk
    summary.py       the per-seat summary

The analysis exists only for a finished match (`MatchNotFinished` otherwise): during play
the judgments of one seat would tell the others about its hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from domain.analysis import gin, manipulation
from domain.analysis.judgment import (
    CLASSES,
    GIN_THRESHOLDS,
    MANIPULATION_THRESHOLDS,
    Decision,
    Hindsight,
    Thresholds,
)
from domain.analysis.summary import SeatSummary, summarise
from domain.errors import RulesError
from domain.events import Event
from domain.manipulation.table.solver import BUDGET
from domain.replay import replay
from domain.shapes import JSON, json_list, json_object
from domain.variants import variant_of

__all__ = [
    "CLASSES",
    "Analysis",
    "Decision",
    "Hindsight",
    "MatchNotFinished",
    "SeatSummary",
    "analyse",
]

ANALYSIS_VERSION = 1
"""Bumped when a judgment of the same log may change (a stored analysis is then stale)."""


class MatchNotFinished(RulesError):
    """The match is still in play: no analysis exists for it yet."""


@dataclass(frozen=True, slots=True)
class Analysis:
    variant: str
    events: int
    thresholds: Thresholds
    decisions: tuple[Decision, ...]
    hindsight: tuple[Hindsight, ...]
    seats: tuple[SeatSummary, ...]

    def as_json(self) -> dict[str, JSON]:
        return {
            "analysis_version": ANALYSIS_VERSION,
            "variant": self.variant,
            "events": self.events,
            "thresholds": self.thresholds.as_json(),
            "seats": [s.as_json() for s in self.seats],
            "decisions": [d.as_json() for d in self.decisions],
            "hindsight": [h.as_json() for h in self.hindsight],
        }


def analyse(events: Sequence[Event], budget: int | None = BUDGET) -> Analysis:
    """The analysis of a finished match's whole log (MatchCreated first). `budget` bounds
    the Manipulation solver's work per decision (None: exact, no bound)."""
    variant = variant_of(events)
    final = replay(events)
    if not variant.is_finished(final):
        raise MatchNotFinished(f"the match is not finished after {len(events)} events")
    if variant.name == "three-hand-gin":
        decisions, facts = gin.walk(events)
        thresholds = GIN_THRESHOLDS
    else:
        decisions, facts = manipulation.walk(events, budget)
        thresholds = MANIPULATION_THRESHOLDS
    players = json_list(events[0].data.get("players"))
    names = [str(json_object(p).get("name")) for p in players]
    return Analysis(
        variant=variant.name,
        events=len(events),
        thresholds=thresholds,
        decisions=tuple(decisions),
        hindsight=tuple(facts),
        seats=summarise(names, decisions),
    )
