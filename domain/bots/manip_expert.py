"""`expert` Manipulation Rummy (work in progress: plays like basic)."""

from __future__ import annotations

from domain.bots.manip_basic import choose, explain

DESCRIPTION = "the solver's best shed, with a sampled knock decision"

__all__ = ["DESCRIPTION", "choose", "explain"]
