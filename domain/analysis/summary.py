"""The per-seat summary: how many decisions, their average cost, counts per class, and the
biggest mistakes with their event seq, so a reader sees at a glance who played well."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from domain.analysis.judgment import CLASSES, Decision
from domain.shapes import JSON

WORST = 3
"""The biggest mistakes listed per seat."""


@dataclass(frozen=True, slots=True)
class SeatSummary:
    seat: int
    name: str
    decisions: int
    total_cost: float
    counts: tuple[tuple[str, int], ...]
    worst: tuple[Decision, ...]

    @property
    def average_cost(self) -> float:
        return self.total_cost / self.decisions if self.decisions else 0.0

    def as_json(self) -> dict[str, JSON]:
        return {
            "seat": self.seat,
            "name": self.name,
            "decisions": self.decisions,
            "average_cost": round(self.average_cost, 3),
            "total_cost": round(self.total_cost, 2),
            "counts": dict(self.counts),
            "worst": [
                {"seq": d.seq, "kind": d.kind, "cost": round(d.cost, 2), "judgment": d.judgment}
                for d in self.worst
            ],
        }


def summarise(names: Sequence[str], decisions: Sequence[Decision]) -> tuple[SeatSummary, ...]:
    """One summary per seat of the match, in seat order."""
    return tuple(_seat(seat, name, decisions) for seat, name in enumerate(names))


def _seat(seat: int, name: str, decisions: Sequence[Decision]) -> SeatSummary:
    mine = [d for d in decisions if d.seat == seat]
    counts = tuple((c, sum(d.judgment == c for d in mine)) for c in CLASSES)
    costly = sorted((d for d in mine if d.cost > 0), key=lambda d: (-d.cost, d.seq))
    return SeatSummary(
        seat=seat,
        name=name,
        decisions=len(mine),
        total_cost=sum(d.cost for d in mine),
        counts=counts,
        worst=tuple(costly[:WORST]),
    )
