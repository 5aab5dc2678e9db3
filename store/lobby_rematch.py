"""The lobby's rematch (issue 30), beside store/lobby.py: the next match of a finished one.

Every caller gets the same match (`rematch_id`: one id however many ask at once, made from
the pepper so it cannot be guessed), same variant and options, each previous player's seat
kept for them (their names reserved) and bot seats carried over; the caller's seat is claimed
with a fresh token through the lobby's ordinary write (`LobbyService._write`), and the match
starts when every person has asked. A rated match has none (RematchNotReady): its players
seek again (issue 32).
"""

from __future__ import annotations

import base64
import hmac
from typing import TYPE_CHECKING

from domain import lobby as rules
from domain.errors import RulesError
from domain.events import Event
from domain.variants import State, Variant
from store import idempotency
from store.errors import UnknownMatch
from store.event_store import Conflict

if TYPE_CHECKING:
    from store.lobby import LobbyService, Seated


class RematchNotReady(RulesError):
    """A rematch asked for before the match finished (or of a cancelled one)."""

    code = "rematch_not_ready"


def rematch_id(pepper: bytes, match_id: str) -> str:
    """The next match of `match_id`: the same for every caller, unguessable without the pepper."""
    digest = hmac.digest(pepper, f"rematch\0{match_id}".encode(), "sha256")
    return "m_" + base64.urlsafe_b64encode(digest).decode()[:22]


def rematch(
    lobby: LobbyService, match_id: str, seat: int, *, key: str | None, fingerprint: str
) -> Seated:
    """The next match of a finished one, the caller's seat claimed with a fresh token."""
    from store.lobby import Seated

    svc = lobby.service
    old = svc.load(match_id)
    state = old.state
    waiting = state.lobby
    if not old.variant.is_finished(state) or (
        waiting is not None and not waiting.status == "started"
    ):
        raise RematchNotReady("a rematch is offered once the match has finished")
    if getattr(state.options, "rated", False) is True:
        raise RematchNotReady("a rated match has no rematch: seek again (POST /v1/seeks)")
    next_id = rematch_id(svc.pepper, match_id)
    if key is not None:  # a repeat of a keyed call: the first answer, token and all
        raw = svc.store.get(idempotency.record_key(next_id, key))
        if raw is not None:
            return lobby._replayed(next_id, key, raw, fingerprint, seat)
    _opened(lobby, next_id, match_id, old.variant, state)
    name = state.players[seat].name
    now = svc.states.fresh(next_id, old.variant).state
    if not now.players[seat].open and now.lobby is not None and now.lobby.status != "cancelled":
        version = svc.states.fresh(next_id, old.variant).version
        return Seated(next_id, seat, None, version, now, old.variant, fresh=False)

    def decide(game: Variant, current: State) -> tuple[int | None, tuple[Event, ...]]:
        return rules.join(game, current, seat, name, claim=True)

    return lobby._write(next_id, decide, seat, key, fingerprint, mint=True)


def _opened(lobby: LobbyService, next_id: str, match_id: str, game: Variant, state: State) -> None:
    """Write the rematch's MatchCreated unless another caller already did: the same seats,
    rule options and clock as the match it follows."""
    try:
        lobby.service.variant_name(next_id)
        return
    except UnknownMatch:
        pass
    players = [
        {"name": p.name, "bot": p.bot} if p.bot else {"name": p.name, "open": True}
        for p in state.players
    ]
    options = dict(game.view(state, None)["options"])
    try:
        lobby._open(
            next_id, game.name, players, options, False, rules.DEFAULT_TTL_S, [],
            match_id, None, "", clock=lobby.service.clock_options(match_id),
        )  # fmt: skip
    except Conflict:  # another caller created it a moment ago: one match
        lobby.service.states.forget(next_id)
