"""The costliest replay log the domain package makes (issue 28 item 2), for tests and bench.

Three-hand gin with `knock_limit` 0 and seats that never knock: every hand is a draw, so the
match never ends (no target reached, no `max_rounds`: see OPTIONS) and every hand adds a round
result, the thing the old `?steps=true` answer repeated in every step. Events are small (a
draw, a discard), so a given number of bytes holds as many events and round results as a log
can. The log is
played with the domain package alone, seeded, and is valid: the replay check accepts it.
"""

from __future__ import annotations

import json
import random
from typing import Any

from domain.events import SYSTEM, Event
from domain.gin import VARIANT

OPTIONS: dict[str, Any] = {"knock_limit": 0, "target_score": 1000, "max_rounds": None}
"""`max_rounds: None` is how a match recorded before issue 28 item 3 reads (no bound on its
rounds): a replay still accepts such logs, so the longest log is one of them (a new match
ends after at most 500 hands, about 6 MiB of this kind)."""


def worst_log(max_bytes: int, seed: int = 28, options: dict[str, Any] | None = None) -> str:
    """The NDJSON of a valid gin log (no knocks) of at most `max_bytes`, as long as fits.

    It ends when the next event would not fit, or when the match ends by itself."""
    rules = VARIANT
    rng = random.Random(seed)
    players = [{"name": f"p{seat}"} for seat in range(3)]
    opening = rules.create(players, {**OPTIONS, **(options or {})}, seed, "s" * 64)
    lines: list[str] = []
    size = 0
    state = rules.initial_state()

    def add(event: Event) -> bool:
        nonlocal state, size
        line = json.dumps({"seq": len(lines) + 1, **event.to_json()}) + "\n"
        if size + len(line) > max_bytes:
            return False
        lines.append(line)
        size += len(line)
        state = rules.evolve(state, event)
        return True

    for event in opening:
        add(event)
    while not rules.is_finished(state):
        due = rules.pending(state)
        if due is None:
            to_act = rules.to_act(state)
            assert to_act is not None
            seat = to_act
            moves = [m for m in rules.legal_moves(state, seat) if m["type"] != "knock"]
            move = moves[rng.randrange(len(moves))]
        else:
            seat, move = SYSTEM, due.copy()
        if not all(add(event) for event in rules.decide(state, seat, move)):
            break
    return "".join(lines)
