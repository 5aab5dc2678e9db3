"""The golden log of a clocked match (issue 31): timeouts, auto moves and a replaced seat.

A two-seat Manipulation Rummy match (seed 31, one round) on a per-move clock of 5 s with
`max_timeouts` 2: seat after seat times out, each timeout's auto move is the autoplay bot's,
the second timeout of each seat puts the `random` bot in it, and the bots finish the match.
The fake clock makes it the same every time.

Regenerate (only after a deliberate change of the rules or of these events):
    .venv/bin/python -m tests.support.clock_golden --write
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import redis

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "clock_manip_2p.ndjson"
KEY = "golden-clocked-match-31"
CLOCK = {"mode": "per_move", "move_s": 5, "max_timeouts": 2, "autoplay_bot": "random"}


def record(client: redis.Redis) -> list[dict[str, object]]:
    """Play the match on `client` (flushed first) and return its log as exported."""
    from store.service import MatchService
    from tests.support.clock_play import FakeClock
    from tests.support.workers_play import burst
    from workers.connection import set_service

    client.flushdb()
    clock = FakeClock(start=1_700_000_000.0)
    service = MatchService(client, pepper=b"golden", clock=clock)
    set_service(service)
    try:
        players = [{"name": "ana"}, {"name": "ben"}]
        created = service.create_match(
            "manipulation-rummy",
            players,
            {"max_rounds": 1},
            seed=31,
            idempotency_key=KEY,  # the same match id each time, so the bots' seeds agree
            clock_options=CLOCK,
        )
        match_id = created.match_id
        for _ in range(500):
            loaded = service.load(match_id)
            if loaded.variant.is_finished(loaded.state):
                break
            clock.advance(5)
            service.load(match_id)  # the overdue timeout, applied by a read
            burst(client)  # the bots that took seats play their turns
    finally:
        set_service(None)
    return [
        {"type": e.event.type, "v": e.event.v, "data": dict(e.event.data)}
        for e in service.events(match_id, limit=1000)
    ]


def main() -> None:
    if "--write" not in sys.argv:
        print(__doc__)
        return
    client = redis.Redis.from_url(sys.argv[sys.argv.index("--write") + 1])  # a scratch Redis
    lines = [json.dumps(e, sort_keys=True, separators=(",", ":")) for e in record(client)]
    FIXTURE.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
