"""Three-handed Gin Rummy (rules.md section 1, G1-G9): the variant surface.

The engine is split by phase:
    gin_options  the match options (section 5), checked and frozen
    gin_state    the state and the fold of every event (`evolve`), the event list
    gin_deal     chance: the role draw (G1.2), the deal (G4), the role rotation (G1.5)
    gin_moves    moves, `decide`, `legal_moves`, `to_act`, `pending` (G1.3, G5, G6.1)
    gin_knock    knock, gin, lay-offs and scoring (G6, G7, G8)
    gin_views    per-seat views and redacted events (G1.4)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from domain.errors import InvalidOptions
from domain.events import SYSTEM, Event
from domain.gin.moves import decide, is_finished, legal_moves, pending, to_act
from domain.gin.options import GinOptions, validate_options
from domain.gin.state import GinState, Phase, evolve, initial_state
from domain.gin.views import event_view, view
from domain.shuffle import seed_key
from domain.variants import Variant

__all__ = [
    "VARIANT",
    "GinOptions",
    "GinState",
    "Phase",
    "autoplay_system",
    "create",
    "decide",
    "event_view",
    "evolve",
    "initial_state",
    "is_finished",
    "legal_moves",
    "pending",
    "to_act",
    "validate_options",
    "view",
]

PLAYERS = 3
MAX_NAME = 100


def _players(players: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """G1.1: exactly three players, each {"name": str, "bot": str | None}."""
    if isinstance(players, str | bytes) or not isinstance(players, Sequence):
        raise InvalidOptions("players must be a list of {name, bot} objects")
    if len(players) != PLAYERS:
        raise InvalidOptions(f"three-hand-gin needs exactly 3 players, not {len(players)} (G1.1)")
    out = []
    for i, player in enumerate(players):
        if not isinstance(player, Mapping):
            raise InvalidOptions(f"player {i} must be an object with a name")
        name, bot = player.get("name"), player.get("bot")
        if not isinstance(name, str) or not 0 < len(name) <= MAX_NAME:
            raise InvalidOptions(f"player {i} needs a name of 1..{MAX_NAME} characters")
        if bot is not None and not isinstance(bot, str):
            raise InvalidOptions(f"player {i}: bot must be a bot name or null")
        out.append({"name": name, "bot": bot})
    return out


def create(
    players: Sequence[Mapping[str, Any]],
    options: Mapping[str, Any] | None,
    seed: int | None,
    secret: str,
) -> tuple[Event, ...]:
    """MatchCreated, RolesDrawn (G1.2) and the first RoundDealt (G4). `secret` is the caller's
    secret (the store's `secrets.token_hex(32)`): the deal key of an unseeded match, the salt
    key of a seeded one."""
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise InvalidOptions(f"seed must be an integer or null, not {seed!r:.40}")
    if seed is None and (not isinstance(secret, str) or not secret):
        raise InvalidOptions("an unseeded match needs a secret deal key")
    created = Event("MatchCreated", created_data(players, options, seed, secret))
    _, opening = autoplay_system(evolve(initial_state(), created))
    return (created, *opening)


def created_data(
    players: Sequence[Mapping[str, Any]],
    options: Mapping[str, Any] | None,
    seed: int | None,
    secret: str,
) -> dict[str, Any]:
    """MatchCreated's data. A seeded match's deck order comes from its seed alone and its
    salts from `secret` (`salt_key`; with an empty secret, from the seed as before)."""
    data: dict[str, Any] = {
        "variant": VARIANT_NAME,
        "players": _players(players),
        "options": validate_options(options),
        "seeded": seed is not None,
        "seed": seed,
        "deal_key": seed_key(seed) if seed is not None else secret,
    }
    if seed is not None and secret:
        data["salt_key"] = secret
    return data


def autoplay_system(state: GinState) -> tuple[GinState, tuple[Event, ...]]:
    """Apply every due SYSTEM move (role draw, deal, scoring, end); for tests and the arena."""
    events: list[Event] = []
    due = pending(state)
    while due is not None:
        for event in decide(state, SYSTEM, due):
            state = evolve(state, event)
            events.append(event)
        due = pending(state)
    return state, tuple(events)


VARIANT_NAME = "three-hand-gin"

VARIANT = Variant(
    name=VARIANT_NAME,
    min_players=PLAYERS,
    max_players=PLAYERS,
    validate_options=validate_options,
    create=create,
    initial_state=initial_state,
    evolve=evolve,
    decide=decide,
    pending=pending,
    to_act=to_act,
    legal_moves=legal_moves,
    view=view,
    event_view=event_view,
    is_finished=is_finished,
)
