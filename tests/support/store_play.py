"""Drive a real match through MatchService with random legal moves (store tests only)."""

from __future__ import annotations

import random
from typing import Any

from domain.events import SYSTEM
from store.service import MatchService

GIN = "three-hand-gin"
MANIP = "manipulation-rummy"
PLAYERS = {GIN: 3, MANIP: 2}
OPTIONS = {GIN: {"target_score": 1}, MANIP: {"target_score": 1}}


def create(service: MatchService, variant: str, seed: int = 3, **kw: Any) -> Any:
    players = [{"name": f"p{i}"} for i in range(PLAYERS[variant])]
    return service.create_match(variant, players, dict(OPTIONS[variant]), seed, **kw)


def step(service: MatchService, match_id: str, rng: random.Random) -> bool:
    """One move: the pending SYSTEM move, else a random legal move of the seat to act.
    False when the match is over."""
    _loaded = service.load(match_id)
    state, version = _loaded.state, _loaded.version
    game = service.variant(state)
    if game.is_finished(state):
        return False
    pending = game.pending(state)
    if pending is not None:
        seat, move = SYSTEM, pending
    else:
        to_act = game.to_act(state)
        assert to_act is not None, "nobody to act in an unfinished match"
        seat = to_act
        move = rng.choice(game.legal_moves(state, seat))
    service.submit(
        match_id, seat, move, expected_version=version, idempotency_key=None, fingerprint=""
    )
    return True


def play(service: MatchService, match_id: str, moves: int, seed: int = 0) -> int:
    """Up to `moves` moves; the number made."""
    rng = random.Random(seed)
    for made in range(moves):
        if not step(service, match_id, rng):
            return made
    return moves
