"""The bot-turn job: the bot of the seat to act plays one move.

Job `bot-<match>-<version>` on queue `bots` runs `play_bot_turn(match_id, version)`. The bot
sees exactly what an HTTP client of its seat sees: `variant.view(state, seat)` and that seat's
legal moves (the view's `you.legal_moves`, i.e. `variant.legal_moves(state, seat)`), plus
`random.Random(f"{match_id}:{version}")`, so a rerun picks the same move. The move goes
through `MatchService.submit` with `expected_version=version`, like a client's move with
If-Match; that append enqueues the next bot's job when another bot is to act, so bots in a
row play on by themselves.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Mapping, Sequence
from typing import Any

from domain import bots
from domain.errors import RulesError
from domain.variants import Move
from store.errors import UnknownMatch, VersionConflict
from store.event_store import Conflict
from store.jobs import bot_seat
from workers.connection import service
from workers.retries import job_id, last_attempt

log = logging.getLogger(__name__)


def choose_move(
    variant: str,
    bot: str,
    view: Mapping[str, Any],
    legal_moves: Sequence[Mapping[str, Any]],
    seed: str,
) -> dict[str, Any]:
    """The bot's move from one seat's view and legal moves (nothing else reaches the bot)."""
    rng = random.Random(seed)  # noqa: S311 - a seeded generator so reruns agree, not a secret
    return bots.choose(variant, bot, view, legal_moves, rng)


def play_bot_turn(match_id: str, version: int) -> str:
    """Play the bot seat to act at `version`; a short note of what happened (the job result)."""
    svc = service()
    try:
        loaded = svc.load(match_id)
    except UnknownMatch:
        return f"skipped: match {match_id} does not exist"
    state, game = loaded.state, loaded.variant
    if loaded.version != version:
        return f"stale: match {match_id} is at version {loaded.version}, the job was for {version}"
    seat = game.to_act(state)
    bot = bot_seat(game, state, seat) if seat is not None else None
    if seat is None or bot is None:
        return f"stale: no bot to act in {match_id} at version {version}"
    view = game.view(state, seat)
    you = view["you"]  # the seat's legal moves as its view lists them (no second listing)
    legal: Sequence[Move] = (you["legal_moves"] if you is not None else None) or (
        game.legal_moves(state, seat)
    )
    try:
        move = choose_move(game.name, bot, view, legal, f"{match_id}:{version}")
        appended = svc.submit(
            match_id, seat, move, expected_version=version, idempotency_key=None, fingerprint=""
        )
    except VersionConflict as conflict:
        return f"stale: {conflict}"
    except Exception as error:
        if isinstance(error, RulesError):
            log.error("bot %s of seat %d in %s was refused: %s", bot, seat, match_id, error)
        if not last_attempt():
            raise  # rq runs the job again after its retry interval
        return _fall_back(match_id, version, seat, bot, error)
    return f"played: seat {seat} ({bot}) {move.get('type')}; {match_id} at {appended.version}"


def _fall_back(match_id: str, version: int, seat: int, bot: str, error: Exception) -> str:
    """The last attempt failed: the random bot's legal move, with BotMoveFailed before it."""
    job = job_id(f"bot-{match_id}-{version}")
    try:
        appended = service().fallback(
            match_id, version, seat, bot, job, f"{type(error).__name__}: {error}"
        )
    except Conflict:
        return f"stale: {match_id} moved on from {version}"
    return f"fell back: seat {seat} ({bot} failed) random move; {match_id} at {appended.version}"
