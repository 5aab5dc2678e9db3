"""The opening event of every match, MatchCreated, written once for both games.

The players are checked by `domain.players.roster`, the options by the game's own
`validate_options`; the seed and the secret deal key here: a seeded match derives its deal
key from the seed (`seed_key`), an unseeded one uses the caller's secret, recorded but
hidden until the end; a seeded match's salts come from the secret (`salt_key`).
"""

from __future__ import annotations

from domain.clock import ClockOptions, with_clock
from domain.errors import InvalidOptions
from domain.events import Event
from domain.rated import check_create as check_rated
from domain.shapes import JSON
from domain.shuffle import seed_key

MATCH_CREATED_V = 3
"""v2 (issue 28 item 3): the options always hold `max_rounds`; v1 had none (domain/upcast.py
reads it as `max_rounds: None`, no bound, so an old match replays as it was played).
v3 (issue 32): the options always hold `rated`; v2 had none (read as `rated: false`)."""


def deal_key(seed: int | None, secret: str) -> str:
    """The key of every shuffle of the match; InvalidOptions for a bad seed or no secret."""
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise InvalidOptions(f"seed must be an integer or null, not {seed!r:.40}")
    if seed is None and (not isinstance(secret, str) or not secret):
        raise InvalidOptions("an unseeded match needs a secret deal key")
    return seed_key(seed) if seed is not None else secret


def match_created(
    variant: str,
    players: list[dict[str, JSON]],
    options: dict[str, JSON],
    seed: int | None,
    secret: str,
    clock: ClockOptions | None = None,
) -> Event:
    """MatchCreated of checked players, options and clock (pinned as `clock`, when there is
    one: domain/clock.py). A seeded match's deck order comes from its
    seed alone and its salts from `secret` (`salt_key`, recorded as such; with an empty secret,
    from the seed as before); an unseeded match's deal key is the secret itself. A rated
    match's own rules are domain/rated.py's (`check_create`)."""
    check_rated(players, options, seed, clock)
    data: dict[str, JSON] = {
        "variant": variant,
        "players": players,
        "options": options,
        "seeded": seed is not None,
        "seed": seed,
        "deal_key": deal_key(seed, secret),
    }
    if seed is not None and secret:
        data["salt_key"] = secret  # the salts of a seeded match stay secret (shuffle.py)
    return with_clock(Event("MatchCreated", data, MATCH_CREATED_V), clock)
