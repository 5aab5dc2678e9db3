"""The names of a match's Redis keys: each carries the match's hash tag `{<id>}`, so all of a
match lives in one Redis Cluster slot (event_store.py lists what each holds)."""

from __future__ import annotations

from store import codec


def events_key(match_id: str) -> str:
    return f"match:{{{match_id}}}:events"


def meta_key(match_id: str) -> str:
    return f"match:{{{match_id}}}:meta"


def snap_key(match_id: str) -> str:
    return f"match:{{{match_id}}}:snap"


def kept_snaps_key(match_id: str) -> str:
    return f"match:{{{match_id}}}:snaps"


def settle_key(match_id: str) -> str:
    return f"match:{{{match_id}}}:settle"


def no_idem_key(match_id: str) -> str:
    return f"match:{{{match_id}}}:idem:-"


def match_id_of(key: bytes | str) -> str | None:
    """The match id in a `match:{<id>}:events` key."""
    name = codec.text(key)
    if name.startswith("match:{") and name.endswith("}:events"):
        return name[len("match:{") : -len("}:events")]
    return None
