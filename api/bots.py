"""Bots, hints and health: the built-in strategies, a hint for the caller's seat, and the
liveness of the event store.

A hint is the move the strongest built-in bot of the variant (`domain.bots.best_bot`: today
`expert`) would make, with its reason, computed from the caller's own view and legal moves only
(exactly what that bot would see in the seat), with a `random.Random` seeded from the match id,
version and seat, so asking twice gives one answer.

A hint costs up to half a second of CPU (a Manipulation hand), so it has a price (issue 28):
answers are remembered per (match, version, seat), so asking again is free; each process
works out at most HINT_CONCURRENCY hints at once (default 1) and a caller waits at most
HINT_WAIT_SECONDS (default 2) for a turn, else 503 `hints_busy` with Retry-After; under gevent
the work runs in the hub's thread pool, so the greenlets serving other requests keep running
while it does; and RATELIMIT_HINTS counts hints per seat token and per client network
(api/ratelimit.py).
"""

# mypy: disable-error-code="untyped-decorator"
from __future__ import annotations

import hashlib
import random
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from flask.views import MethodView
from flask_smorest import Blueprint

from api import docs
from api.common import caller_seat, json_response, service, setting, settled
from api.errors import ApiError
from api.schemas import BotSchema, HealthSchema
from domain import bots as registry
from domain.errors import RulesError

blp = Blueprint("bots", __name__, url_prefix="/v1", description="Bots, hints and health")


def strongest(variant: str) -> str:
    """The strongest built-in bot of `variant` (domain.bots.best_bot)."""
    try:
        return registry.best_bot(variant)
    except RulesError:
        raise ApiError("not_found", f"no built-in bot plays {variant}", 404) from None


def _rng(match_id: str, version: int, seat: int) -> random.Random:
    seed = hashlib.sha256(f"hint:{match_id}:{version}:{seat}".encode()).digest()
    return random.Random(int.from_bytes(seed[:8], "big"))  # noqa: S311 (a seeded bot rng)


@blp.route("/bots")
class Bots(MethodView):
    @blp.response(200, BotSchema(many=True))
    @blp.doc(responses=docs.problems())
    def get(self) -> Any:
        """The built-in bot strategies: a name to use as `bot` when creating a match."""
        return json_response(registry.catalogue())


@blp.route("/matches/<match_id>/hint")
class Hint(MethodView):
    @blp.response(200, "Hint", headers=docs.ETAG_HEADER)
    @blp.doc(security=docs.SECURITY, responses=docs.problems(401, 403, 404, 409))
    def get(self, match_id: str) -> Any:
        """The move the strongest built-in bot would make now for the caller's seat.

        403 `forbidden` for a spectator; 409 `not_your_turn` when the seat has no move now.
        """
        seat = caller_seat(match_id)
        loaded = settled(match_id)  # 404 for an unknown match, for everyone
        if seat is None:
            raise ApiError("forbidden", "a spectator has no seat to hint for", 403)
        state, version, variant = loaded.state, loaded.version, loaded.variant
        view = variant.view(state, seat)
        moves = view["you"]["legal_moves"] if view.get("you") else []
        if not moves:
            raise ApiError("not_your_turn", f"seat {seat} has no move to make now", 409)
        bot = strongest(variant.name)
        key = (match_id, version, seat)
        hint = _HINTS.get(key)
        if hint is None:
            rng = _rng(match_id, version, seat)
            move, reason = _worked_out(
                lambda: registry.explain(variant.name, bot, view, moves, rng)
            )
            hint = _HINTS.put(key, {"move": move, "reason": reason, "bot": bot})
        return json_response(hint, 200, version)


class _Remembered:
    """The last `size` hints given, by (match, version, seat): a hint never changes."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._hints: OrderedDict[tuple[str, int, int], dict[str, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[str, int, int]) -> dict[str, Any] | None:
        with self._lock:
            return self._hints.get(key)

    def put(self, key: tuple[str, int, int], hint: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            self._hints[key] = hint
            while len(self._hints) > self.size:
                self._hints.popitem(last=False)
        return hint


_HINTS = _Remembered(4096)
_TURNS: dict[int, threading.BoundedSemaphore] = {}


def _turns(concurrency: int) -> threading.BoundedSemaphore:
    """This process's hint turns (one semaphore per configured size)."""
    if concurrency not in _TURNS:
        _TURNS[concurrency] = threading.BoundedSemaphore(concurrency)
    return _TURNS[concurrency]


def _worked_out(work: Callable[[], tuple[Any, str]]) -> tuple[Any, str]:
    """`work()` in one of this process's hint turns, off the gevent hub when there is one."""
    turns = _turns(max(1, int(setting("HINT_CONCURRENCY"))))
    if not turns.acquire(timeout=float(setting("HINT_WAIT_SECONDS"))):
        raise ApiError(
            "hints_busy",
            "this server is working out as many hints as it may at once; try again shortly",
            503,
            retry_after=1,
        )
    try:
        return _off_hub(work)
    finally:
        turns.release()


def _off_hub(work: Callable[[], tuple[Any, str]]) -> tuple[Any, str]:
    """Under gevent, in the hub's thread pool: the thread shares the GIL with the hub, which
    takes it back within the switch interval, so other requests are served meanwhile."""
    try:
        from gevent import get_hub, monkey
    except ImportError:  # pragma: no cover (gevent is a dependency)
        return work()
    if not monkey.is_module_patched("socket"):
        return work()
    result: tuple[Any, str] = get_hub().threadpool.apply(work)
    return result


@blp.route("/health")
class Health(MethodView):
    @blp.response(200, HealthSchema)
    @blp.doc(responses=docs.problems(503))
    def get(self) -> Any:
        """`{"status": "ok"}` when the event store answers PING; 503 otherwise."""
        if not service().ping():
            raise ApiError("store_unavailable", "the event store does not answer PING", 503)
        return json_response({"status": "ok"})
