"""Helpers for worker tests: a hasty test bot, burst workers, and a driver for human seats."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import redis
from rq import Queue, SimpleWorker
from rq.job import Job
from rq.serializers import JSONSerializer

from domain import bots
from domain.gin.melds import deadwood
from store.jobs import QUEUES
from store.service import MatchService

GIN = "three-hand-gin"
MANIP = "manipulation-rummy"
PREFERENCE = ("gin", "knock", "meld")


def hasty(
    view: Mapping[str, Any], legal_moves: Sequence[Mapping[str, Any]], rng: random.Random
) -> dict[str, Any]:
    """A test bot that ends rounds fast: knock or meld when it can; in gin discard the card that
    leaves the least deadwood (G3.4); else a random legal move. Pure, like every bot: it reads
    only the view and the legal moves."""
    for kind in PREFERENCE:
        moves = [m for m in legal_moves if m.get("type") == kind]
        if moves:
            return dict(rng.choice(moves))
    discards = [m for m in legal_moves if m.get("type") == "discard"]
    hand = (view.get("you") or {}).get("hand") or []
    if discards and view.get("variant") == GIN and len(hand) == 11:
        return dict(min(discards, key=lambda m: deadwood([c for c in hand if c != m["card"]])))
    return dict(rng.choice(list(legal_moves)))


def install_hasty() -> None:
    for variant in (GIN, MANIP):
        template = bots.BOTS[variant]["random"]
        bots.BOTS[variant]["hasty"] = replace(
            template, name="hasty", description="test bot", choose=hasty
        )


def uninstall_hasty() -> None:
    for variant in (GIN, MANIP):
        bots.BOTS[variant].pop("hasty", None)


class BurstWorker(SimpleWorker):
    """rq's SimpleWorker without the pub/sub thread for `rq` commands (shutdown, kill), which
    a burst run in a test never receives and whose join costs ~0.5 s per run."""

    def subscribe(self) -> None:
        pass

    def unsubscribe(self) -> None:
        pass


def burst(client: redis.Redis) -> None:
    """Run every queued job (and the jobs they enqueue) with a SimpleWorker in burst mode."""
    queues = [Queue(name, connection=client, serializer=JSONSerializer) for name in QUEUES]
    BurstWorker(queues, connection=client, serializer=JSONSerializer).work(
        burst=True, logging_level="WARNING"
    )


def jobs(client: redis.Redis) -> str:
    """What the queues hold (for a failure message): every job id by status, and the
    exceptions of failed jobs."""
    parts = []
    for name in QUEUES:
        queue = Queue(name, connection=client, serializer=JSONSerializer)
        registries = {
            "queued": queue.get_job_ids(),
            "started": queue.started_job_registry.get_job_ids(),
            "scheduled": queue.scheduled_job_registry.get_job_ids(),
            "failed": queue.failed_job_registry.get_job_ids(),
            "finished": queue.finished_job_registry.get_job_ids()[-3:],
        }
        parts.append(f"{name}: {registries}")
        for job in Job.fetch_many(
            registries["failed"], connection=client, serializer=JSONSerializer
        ):
            if job is not None:
                parts.append(f"{job.id} failed: {job.exc_info}")
    return "; ".join(parts)


def play_humans(
    service: MatchService, client: redis.Redis, match_id: str, seed: int = 0, limit: int = 3000
) -> Any:
    """Alternate burst workers (scoring, bots) with moves of the human seats until the end."""
    rng = random.Random(seed)
    for _ in range(limit):
        burst(client)
        _loaded = service.load(match_id)
        state, version = _loaded.state, _loaded.version
        game = service.variant(state)
        if game.is_finished(state):
            return state
        seat = game.to_act(state)
        assert seat is not None, f"version {version}: a SYSTEM move is due but no job ran"
        if game.view(state, None)["seats"][seat]["bot"] is not None:
            raise AssertionError(f"version {version}: a bot seat was left waiting; {jobs(client)}")
        move = hasty(game.view(state, seat), game.legal_moves(state, seat), rng)
        service.submit(
            match_id, seat, move, expected_version=version, idempotency_key=None, fingerprint=""
        )
    raise AssertionError(f"match {match_id} did not finish in {limit} human moves")
