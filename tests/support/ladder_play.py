"""Helpers for ladder tests: quick test bots with accounts of their own, rated matches played
to the end by burst workers, and the ledger read back."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from domain import bots
from store.ledger import Ledger
from store.service import MatchService
from tests.support.workers_play import GIN, MANIP, burst, hasty

CLOCK = {"mode": "per_move", "move_s": 600}
"""A rated match needs a clock; a long one, so no deadline falls inside a test."""
QUICK = ("hasty", "hasty2", "hasty3", "hasty4")
"""Test bots that end rounds fast (workers_play.hasty), each its own built-in account."""


def install_quick() -> None:
    for variant in (GIN, MANIP):
        template = bots.BOTS[variant]["random"]
        for name in QUICK:
            bots.BOTS[variant][name] = replace(
                template, name=name, description="test bot", choose=hasty
            )


def uninstall_quick() -> None:
    for variant in (GIN, MANIP):
        for name in QUICK:
            bots.BOTS[variant].pop(name, None)


def rated_match(
    service: MatchService, variant: str, lineup: tuple[str, ...], target: int = 40
) -> str:
    """A rated match of quick bots, played to the end (its rating job included)."""
    players = [{"name": name, "bot": name} for name in lineup]
    options = {"rated": True, "target_score": target}
    created = service.create_match(variant, players, options, None, clock_options=CLOCK)
    burst(service.queues.connection)
    loaded = service.load(created.match_id)
    assert loaded.variant.is_finished(loaded.state)
    return created.match_id


def ledger_dump(service: MatchService, variant: str) -> dict[str, Any]:
    ledger = Ledger(service.redis)
    return {"skills": ledger.all_skills(variant), "order": ledger.order(variant)}
