"""The fold of the lobby's events in three-hand gin (issue 30; domain/lobby.py decides them).

Registered into the fold table of gin/state.py when the game's package is imported: the
seats and the lobby change at each event; at MatchStarted the role draw is due (G1.2), at
MatchCancelled the match is over and nobody is to act.
"""

from __future__ import annotations

from collections.abc import Mapping

from domain import lobby as lobbies
from domain.events import Event
from domain.gin.state import _FOLD, FINISHED, ROLE_DRAW, Changes, Fold, GinState
from domain.shapes import JSON


def lobby_fold(kind: str) -> Fold:
    """The fold step of one lobby event."""
    phase = {"MatchStarted": ROLE_DRAW, "MatchCancelled": FINISHED}.get(kind)

    def step(state: GinState, data: Mapping[str, JSON], out: Changes) -> None:
        out.lobby, out.players = lobbies.step(state.lobby, state.players, Event(kind, data))
        if phase is not None:  # nobody is to act at either
            out.phase, out.turn = phase, None

    return step


_FOLD.update({kind: lobby_fold(kind) for kind in sorted(lobbies.LOBBY_EVENTS)})
