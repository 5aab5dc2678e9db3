"""`deadwood arena --clock per_move:2`: arena matches played through the service, with clocks.

The plain arena (arena/harness.py) folds the domain in-process; with `--clock` each match is
created by MatchService with that clock and every move (a bot's, and each due SYSTEM move)
goes through `MatchService.submit`, so the clock is charged, deadline jobs are scheduled and
an overdue turn is timed out (the lazy timeout every load applies: no worker is needed). The
service reads a virtual time that each bot decision advances by `--think` seconds, so a run
is repeatable: `--think` above the clock's allowance makes every turn time out (the clock's
`autoplay_bot` moves instead), 0 (the default) never does. The seats are people to the
service (named after their bots), so no bot job is queued; the arena's bots move for them.

Redis: `--redis-url`, else a private redis-server (no persistence) for the run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import redis

from arena import harness as arena
from domain import bots
from domain.bots import Choose
from domain.events import SYSTEM
from store.service import MatchService
from store.states import Loaded


@dataclass
class VirtualTime:
    """The service's time (Unix seconds): moves on only when a bot thinks."""

    now: float

    def __call__(self) -> float:
        return self.now


@dataclass(frozen=True)
class ClockedRecord:
    record: arena.MatchRecord
    timeouts: int
    match_id: str


def play_clocked(
    service: MatchService,
    time: VirtualTime,
    variant: str,
    spec: arena.MatchSpec,
    options: Mapping[str, Any] | None,
    clock: Mapping[str, Any],
    think_s: float = 0.0,
    max_moves: int = arena.DEFAULT_MAX_MOVES,
) -> ClockedRecord:
    """Play one match of `spec.lineup` through `service` on `clock` to its end."""
    choosers = [bots.get_bot(variant, name).choose for name in spec.lineup]
    players = [{"name": f"{name}-{seat}"} for seat, name in enumerate(spec.lineup)]
    created = service.create_match(
        variant, players, dict(options or {}), spec.seed, clock_options=dict(clock)
    )
    match_id, moves = created.match_id, 0
    while True:
        loaded = service.load(match_id)  # an overdue turn is timed out here
        game, state = loaded.variant, loaded.state
        if game.is_finished(state):
            timeouts = sum(loaded.turn.timeouts) if loaded.turn is not None else 0
            final = game.view(state, None)
            return ClockedRecord(arena._record(spec, final, moves), timeouts, match_id)
        if moves >= max_moves:
            raise arena.ArenaError(f"match {spec.index} (seed {spec.seed}): no end")
        chosen = _choose(service, time, match_id, loaded, choosers, spec, think_s)
        if chosen is None:
            continue  # the timeout (and its auto move) landed first: decide again
        seat, move, loaded = chosen
        moves += seat != SYSTEM
        try:  # no time passes between the load above and this append: no timeout races it
            service.submit(
                match_id, seat, move, expected_version=loaded.version, idempotency_key=None,
                fingerprint="",
            )  # fmt: skip
        except Exception as refused:
            raise arena.ArenaError(
                f"match {spec.index} (seed {spec.seed}): seat {seat} played {move!r} at "
                f"version {loaded.version}: {refused}"
            ) from refused


def _choose(
    service: MatchService,
    time: VirtualTime,
    match_id: str,
    loaded: Loaded,
    choosers: Sequence[Choose],
    spec: arena.MatchSpec,
    think_s: float,
) -> tuple[int, dict[str, Any], Loaded] | None:
    """The move due now (the system's, or the bot's to act after `think_s` of virtual time)
    and the match it is made on; None when a timeout landed while the bot thought."""
    game, state = loaded.variant, loaded.state
    due = game.pending(state)
    if due is not None:
        return SYSTEM, dict(due), loaded
    seat = game.to_act(state)
    if seat is None:
        raise arena.ArenaError(f"match {spec.index}: nobody to act and nothing pending")
    view: Any = game.view(state, seat)
    legal = view["you"]["legal_moves"]
    move = choosers[seat](view, legal, arena.bot_rng(spec.seed, view["version"], seat))
    time.now += think_s
    before = loaded.version
    loaded = service.load(match_id)  # the time it took: timed out meanwhile?
    if loaded.version != before:
        return None
    return seat, move, loaded


_SERVICES: dict[str, tuple[MatchService, VirtualTime]] = {}


def service_for(url: str, start: float) -> tuple[MatchService, VirtualTime]:
    """This process's service on `url` (one per process: the pool's workers each make one)."""
    if url not in _SERVICES:
        time = VirtualTime(start)
        _SERVICES[url] = (MatchService(redis.Redis.from_url(url), clock=time), time)
    return _SERVICES[url]
