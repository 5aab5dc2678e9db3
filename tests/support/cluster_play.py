"""Playing matches straight through the service (the SYSTEM moves too, as the workers would)."""

from __future__ import annotations

import random
from typing import Any

from domain.events import SYSTEM
from store.service import Appended, MatchService

GIN = "three-hand-gin"


def new_gin(
    service: MatchService, seed: int, bots: int = 0, idempotency_key: str | None = None
) -> str:
    players = [{"name": f"p{i}", "bot": "random" if i < bots else None} for i in range(3)]
    return service.create_match(GIN, players, {}, seed, idempotency_key, "new").match_id


def step(service: MatchService, match_id: str, rng: random.Random, **kw: Any) -> Appended | None:
    """One move of whoever is to act (SYSTEM's pending move included); None when finished."""
    loaded = service.load(match_id)
    game, state = loaded.variant, loaded.state
    if game.is_finished(state):
        return None
    pending = game.pending(state)
    if pending is not None:
        seat, move = SYSTEM, pending
    else:
        to_act = game.to_act(state)
        assert to_act is not None
        seat = to_act
        move = rng.choice(game.legal_moves(state, seat))
    kw.setdefault("idempotency_key", None)
    kw.setdefault("fingerprint", "")
    return service.submit(match_id, seat, move, expected_version=loaded.version, **kw)
