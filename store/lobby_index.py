"""The lobby's index (issue 30): which listed matches wait for players, without a scan.

A sorted set per variant and one for all (`deadwood:lobby`, `deadwood:lobby:<variant>`),
members `<expires_ms, 14 digits>:<match id>` at score 0, so a page is one ZRANGEBYLEX from the
cursor (or from now: the expired sort first and are never read) and one pipelined read of the
page's metas; the listing never scans the matches. The index lives outside the matches'
slots, written by separate commands after each append (store/lobby.py), so a reader checks
every entry against its match's meta (`open`, `lobby`: the entry as listed, written in the
same append as the events), skips and drops the stale ones, and the reconciler re-adds a
listed waiting match that is missing.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

from domain.lobby_shapes import LobbyEntry
from domain.variants import State, Variant
from store import codec
from store.event_store import meta_key
from store.service import MatchService

INDEX = "deadwood:lobby"


def index_keys(variant: str) -> tuple[str, str]:
    return INDEX, f"{INDEX}:{variant}"


def member(expires_ms: int, match_id: str) -> str:
    return f"{expires_ms:014d}:{match_id}"


def rfc3339(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def lobby_meta(match_id: str, game: Variant, state: State) -> dict[str, str]:
    """The meta fields a lobby write sets with its events: `open` (1 while it waits) and
    `lobby` (the entry GET /v1/lobby shows)."""
    lobby = state.lobby
    assert lobby is not None
    seats = [
        {
            "seat": s,
            "name": p.name,
            "bot": p.bot,
            "open": p.open,
            "account": p.account,
            "account_bot": p.account_bot,
        }
        for s, p in enumerate(state.players)
    ]
    entry = {
        "id": match_id,
        "variant": game.name,
        "options": game.view(state, None)["options"],
        "seats": seats,
        "expires_at": lobby.expires_at,
        "listed": lobby.listed,
    }
    return {"open": "1" if lobby.waiting else "0", "lobby": json.dumps(entry)}


class LobbyIndex:
    """The index on the service's event store; `now_ms` is the lobby's clock."""

    def __init__(self, service: MatchService, now_ms: Callable[[], int]) -> None:
        self.service = service
        self.now_ms = now_ms

    def add(self, match_id: str, game: Variant, state: State, missing_only: bool = False) -> bool:
        """List a listed waiting match; True when it was added (`missing_only`: only when
        it was not there, the reconciler's repair)."""
        lobby = state.lobby
        if lobby is None or not lobby.listed or not lobby.waiting:
            return False
        name = member(lobby.expires_ms, match_id)
        redis = self.service.redis
        if missing_only and redis.zscore(INDEX, name) is not None:
            return False
        for key in index_keys(game.name):
            redis.zadd(key, {name: 0})
        return True

    def after(self, match_id: str, game: Variant, before: State, after: State) -> None:
        """After a lobby write: a listed match that stopped waiting leaves the index."""
        lobby = after.lobby
        if lobby is None or not lobby.listed or lobby.waiting:
            return
        if before.lobby is not None and before.lobby.waiting:
            name = member(lobby.expires_ms, match_id)
            for key in index_keys(game.name):
                self.service.redis.zrem(key, name)

    def listing(
        self, variant: str | None, cursor: str | None, limit: int
    ) -> tuple[list[LobbyEntry], str | None]:
        """A page of listed matches waiting for players, soonest deadline first, and the
        cursor of the next page (None: no more). One ZRANGEBYLEX from the cursor (or from
        now: the expired entries sort first and are never read) and one pipelined read of
        the page's metas; stale entries are skipped, so a few more reads at most."""
        key = INDEX if variant is None else index_keys(variant)[1]
        start = f"[{self.now_ms() + 1:014d}"
        if cursor is not None and cursor > start[1:]:
            start = f"({cursor}"
        out: list[LobbyEntry] = []
        redis = self.service.redis
        for _ in range(4):
            want = limit - len(out)
            names = [codec.text(n) for n in redis.zrangebylex(key, start, "+", 0, want)]
            if not names:
                return out, None
            out.extend(self._entries(key, names))
            start = f"({names[-1]}"
            if len(names) < want:
                return out, None
            if len(out) >= limit:
                break
        return out, start[1:]

    def _entries(self, key: str, names: Sequence[str]) -> list[LobbyEntry]:
        """The waiting matches of `names`, in order; stale names are dropped from the index."""
        redis = self.service.redis
        pipe = redis.pipeline(transaction=False)
        ids = [name.split(":", 1)[1] for name in names]
        for match_id in ids:
            pipe.hmget(meta_key(match_id), ["open", "lobby", "created_at"])
        rows = pipe.execute()
        out: list[LobbyEntry] = []
        stale: list[str] = []
        for name, match_id, row in zip(names, ids, rows, strict=True):
            is_open, raw, created_at = (None if v is None else codec.text(v) for v in row)
            if is_open != "1" or raw is None:
                stale.append(name)
                continue
            entry = json.loads(raw)
            out.append(
                {
                    "id": match_id,
                    "variant": entry["variant"],
                    "options": entry["options"],
                    "seats": entry["seats"],
                    "created_at": created_at or "",
                    "expires_at": entry["expires_at"],
                }
            )
        if stale:
            for index in {INDEX, key}:
                redis.zrem(index, *stale)
        return out
