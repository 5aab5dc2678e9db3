"""One arena match played with its whole log kept (bench/analysis*.py analyse the logs).

The same play as arena.harness.play_match without advice: each seat's bot chooses from its
own view with the harness's generator (`bot_rng`), SYSTEM moves are applied as the workers
would; the events are returned in order, MatchCreated first.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from arena.harness import DEFAULT_MAX_MOVES, ArenaError, MatchSpec, bot_rng
from domain import bots
from domain.events import SYSTEM, Event
from domain.variants import get_variant, move_from_json


def play_logged(
    variant: str, spec: MatchSpec, options: Mapping[str, Any] | None = None
) -> list[Event]:
    """The events of one match of the bots of `spec.lineup`, played to its end."""
    game = get_variant(variant)
    choosers = [bots.get_bot(variant, name).choose for name in spec.lineup]
    players = [{"name": f"{name}-{seat}", "bot": name} for seat, name in enumerate(spec.lineup)]
    events = list(game.create(players, options or {}, spec.seed, ""))
    state = game.initial_state()
    for event in events:
        state = game.evolve(state, event)
    for _ in range(DEFAULT_MAX_MOVES):
        if game.is_finished(state):
            return events
        due = game.pending(state)
        seat = SYSTEM if due is not None else game.to_act(state)
        if seat is None:
            raise ArenaError(f"match {spec.index}: nobody to act and nothing pending")
        if due is not None:
            move = due
        else:
            view = cast("dict[str, Any]", game.view(state, seat))
            chosen = choosers[seat](
                view, view["you"]["legal_moves"], bot_rng(spec.seed, view["version"], seat)
            )
            move = move_from_json(chosen)
        for event in game.decide(state, seat, move):
            state = game.evolve(state, event)
            events.append(event)
    raise ArenaError(f"match {spec.index} (seed {spec.seed}): no end")
