"""One judged decision, one hindsight fact, the judgment classes and their thresholds.

A decision's `cost` is what the played move gives up against the best move the analyser's
judgement finds, in the game's own units (see `Thresholds` and the games' modules), never
negative. Its class follows from the cost and the game's thresholds, as on lichess:

    best        cost below `exact` (the played move is the best one, up to rounding)
    good        below `inaccuracy`
    inaccuracy  from `inaccuracy`
    mistake     from `mistake`
    blunder     from `blunder`, and always for a missed gin or a missed going out
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from domain.shapes import JSON

CLASSES = ("best", "good", "inaccuracy", "mistake", "blunder")
ALWAYS_BLUNDER = frozenset({"missed_gin", "missed_going_out"})


@dataclass(frozen=True, slots=True)
class Thresholds:
    """The least cost of each judgment class, in the game's unit."""

    unit: str
    exact: float
    inaccuracy: float
    mistake: float
    blunder: float

    def classify(self, cost: float, tags: Sequence[str] = ()) -> str:
        if any(tag in ALWAYS_BLUNDER for tag in tags) or cost >= self.blunder:
            return "blunder"
        if cost >= self.mistake:
            return "mistake"
        if cost >= self.inaccuracy:
            return "inaccuracy"
        return "good" if cost >= self.exact else "best"

    def as_json(self) -> dict[str, JSON]:
        return {
            "unit": self.unit,
            "exact": self.exact,
            "inaccuracy": self.inaccuracy,
            "mistake": self.mistake,
            "blunder": self.blunder,
        }


GIN_THRESHOLDS = Thresholds("deadwood", exact=0.05, inaccuracy=1.0, mistake=3.0, blunder=8.0)
"""Three-hand gin: a card choice is priced in the expert's hand value (deadwood minus its
weighted potential, domain.bots.gin.eval.value), a knock in expected points of the hand;
both are deadwood points. One point is a card of the hand kept one rank too high; three,
a small card's worth; eight, most of a face card or a lost knock."""

MANIPULATION_THRESHOLDS = Thresholds(
    "points", exact=0.05, inaccuracy=2.0, mistake=6.0, blunder=15.0
)
"""Manipulation: points left in the hand that the solver's best meld would have shed (M1.4),
or expected points of a knock. Two points is an ace or deuce kept back; six, a small meld
(A-2-3) not played; fifteen, more than a whole face-card meld."""


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision of one seat, judged from that seat's view at that event."""

    seq: int  # 1-based seq of the event that records the played move
    seat: int
    round: int
    kind: str  # upcard | draw | discard | meld | knock (the decision, not the move)
    played: Mapping[str, JSON]
    best: Mapping[str, JSON]
    cost: float
    judgment: str
    note: str
    tags: tuple[str, ...] = ()
    details: Mapping[str, JSON] = field(default_factory=dict)

    def as_json(self) -> dict[str, JSON]:
        return {
            "seq": self.seq,
            "seat": self.seat,
            "round": self.round,
            "kind": self.kind,
            "played": dict(self.played),
            "best": dict(self.best),
            "cost": round(self.cost, 2),
            "judgment": self.judgment,
            "note": self.note,
            "tags": list(self.tags),
            "details": dict(self.details),
        }


@dataclass(frozen=True, slots=True)
class Hindsight:
    """A fact known only once hidden cards are shown (never part of a judgment)."""

    seq: int
    seat: int
    round: int
    kind: str
    points: int
    note: str

    def as_json(self) -> dict[str, JSON]:
        return {
            "seq": self.seq,
            "seat": self.seat,
            "round": self.round,
            "kind": self.kind,
            "points": self.points,
            "note": self.note,
        }


def judged(
    thresholds: Thresholds,
    costs: Mapping[str, float],
    played: str,
    tags: Sequence[str] = (),
) -> tuple[str, float, str]:
    """(best option key, cost of `played`, its class) from each option's cost."""
    least = min(costs.values())
    best = min(costs, key=lambda k: (costs[k], k != played, k))
    cost = max(0.0, costs[played] - least)
    return best, cost, thresholds.classify(cost, tags)
