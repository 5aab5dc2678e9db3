"""The durability promise of an acknowledged move (DEADWOOD_DURABILITY).

- `os` (the default): Redis appends to its AOF and fsyncs every second
  (`appendfsync everysec`); a power loss can drop up to about a second of acknowledged moves,
  a crashed Redis process loses nothing the kernel already had.
- `fsync`: the embedded Redis of `deadwood up` runs `appendfsync always`, so a move is
  acknowledged only once it is on disk (the Redis itself does the work; the store does not).
- `replica`: every append is followed by `WAIT 1 <ms>` on the same connection, so a move is
  acknowledged only once one replica has it; a primary killed then loses no acknowledged
  move when its replica is promoted. Without the replica's ack in time the append answers
  NotReplicated (503): the move may or may not survive a failover, and the client's retry
  with the same Idempotency-Key settles the outcome.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from store.connection import ConfigError

LEVELS = ("os", "fsync", "replica")
DEFAULT_WAIT_MS = 500


@dataclass(frozen=True)
class Durability:
    level: str = "os"
    wait_ms: int = DEFAULT_WAIT_MS

    @property
    def waits_for_replica(self) -> bool:
        return self.level == "replica"

    @property
    def appendfsync(self) -> str:
        """The `appendfsync` setting of an embedded Redis for this level."""
        return "always" if self.level == "fsync" else "everysec"


def durability_from_env() -> Durability:
    """DEADWOOD_DURABILITY (os | fsync | replica) and DEADWOOD_REPLICA_WAIT_MS."""
    level = os.environ.get("DEADWOOD_DURABILITY") or "os"
    if level not in LEVELS:
        raise ConfigError(f"DEADWOOD_DURABILITY={level!r}: expected one of {', '.join(LEVELS)}")
    wait = os.environ.get("DEADWOOD_REPLICA_WAIT_MS") or str(DEFAULT_WAIT_MS)
    if not wait.isdigit() or int(wait) < 1:
        raise ConfigError(f"DEADWOOD_REPLICA_WAIT_MS={wait!r}: expected a positive integer")
    return Durability(level, int(wait))
