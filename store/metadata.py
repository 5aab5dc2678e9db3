"""Metadata and tokens: `match:{<id>}:meta`, written once by the create, read once a process.

The fields that never change after the create (the variant, the players, the seat-token
hashes) are cached per process; the `finished` flag is written with the append that finishes
a match and read from Redis each time. A match retired from Redis is written back from its
archive the first time its metadata is missing (store/archive.py).
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from domain import bots
from domain.clock import ClockOptions, clock_of
from domain.errors import InvalidOptions
from domain.variants import State, Variant
from store import codec, tokens
from store.errors import Unauthorized, UnknownMatch
from store.event_store import EventStore, meta_key

CACHE_SIZE = 512


@dataclass(frozen=True)
class MatchMeta:
    """The fields of `match:{id}:meta` that never change after the create."""

    variant: str
    players: list[dict[str, Any]]
    token_hashes: dict[int, str]
    clock: ClockOptions | None = None  # a clocked match's clock (issue 31), pinned at create


class Metadata:
    """The fixed metadata of matches, read once and kept (at most CACHE_SIZE matches)."""

    def __init__(self, store: EventStore, pepper: bytes, archive: Any = None) -> None:
        self.store = store
        self.pepper = pepper
        self.archive = archive  # store.archive.Archive: where retired matches are kept
        self._lock = threading.Lock()
        self._metas: OrderedDict[str, MatchMeta] = OrderedDict()

    def get(self, match_id: str) -> MatchMeta:
        """The match's fixed metadata (UnknownMatch when there is no such match)."""
        with self._lock:
            meta = self._metas.get(match_id)
        if meta is not None:
            return meta
        fields = self._fields(match_id)
        if "variant" not in fields and self._restored(match_id):
            fields = self._fields(match_id)
        if "variant" not in fields:
            raise UnknownMatch(f"match {match_id!r} does not exist")
        clock = clock_of({"clock": json.loads(fields["clock"])}) if "clock" in fields else None
        meta = MatchMeta(fields["variant"], _players(fields), _token_hashes(fields), clock)
        if fields.get("open") == "1":  # a match waiting for players: its seats still change
            return meta
        with self._lock:
            self._metas[match_id] = meta
            while len(self._metas) > CACHE_SIZE:
                self._metas.popitem(last=False)
        return meta

    def _fields(self, match_id: str) -> dict[str, str]:
        raw = self.store.hgetall(meta_key(match_id)).items()
        return {codec.text(k): codec.text(v) for k, v in raw}

    def _restored(self, match_id: str) -> bool:
        """A match retired from Redis is written back from its archive (store/archive.py)."""
        if self.archive is None:
            return False
        from store.archive import restore

        return restore(self.store, self.archive, match_id)

    def forget(self, match_id: str) -> None:
        with self._lock:
            self._metas.pop(match_id, None)

    def clear(self) -> None:
        with self._lock:
            self._metas.clear()

    def authenticate(self, match_id: str, token: str) -> int:
        """The seat `token` holds in this match; Unauthorized otherwise. The hashes are
        cached; a refusal reads them again once (the match may have been made anew)."""
        try:
            return tokens.verify(self.pepper, match_id, token, self.get(match_id).token_hashes)
        except Unauthorized:  # only the metadata is read again: a bad token costs no state
            self.forget(match_id)
            return tokens.verify(self.pepper, match_id, token, self.get(match_id).token_hashes)

    def is_finished(self, match_id: str) -> bool:
        """The finished flag written with the last event (cheap: no load)."""
        raw = self.store.hget(meta_key(match_id), "finished")
        return raw is not None and codec.text(raw) == "1"

    def create_fields(
        self, match_id: str, game: Variant, state: State, seat_tokens: Sequence[str | None]
    ) -> dict[str, str]:
        """The metadata a create writes: the seats as the game shows them, each token's
        hash (never the token), and the finished flag."""
        meta = {
            "variant": game.name,
            "created_at": codec.now(),
            "players": json.dumps(game.public_seats(state)),
            "finished": "1" if game.is_finished(state) else "0",
        }
        for seat, token in enumerate(seat_tokens):
            if token is not None:
                meta[f"token:{seat}"] = tokens.token_hash(self.pepper, match_id, seat, token)
        return meta


def new_seat_tokens(players: Sequence[Mapping[str, Any]]) -> list[str | None]:
    """A fresh token for each person's seat; None for a bot's."""
    return [None if p.get("bot") else tokens.new_token(s) for s, p in enumerate(players)]


def check_bots(variant: str, players: Sequence[Mapping[str, Any]]) -> None:
    """Every bot seat names a built-in bot of this variant (InvalidOptions otherwise)."""
    if not isinstance(players, Sequence) or isinstance(players, str):
        raise InvalidOptions("players must be a list of {name, bot} objects")
    for seat, player in enumerate(players):
        if not isinstance(player, Mapping):
            raise InvalidOptions(f"player {seat} must be an object with a name")
        bot = player.get("bot")
        if bot is not None:
            if not isinstance(bot, str):
                raise InvalidOptions(f"player {seat}: bot must be a bot name or null")
            bots.get_bot(variant, bot)


def _players(fields: Mapping[str, str]) -> list[dict[str, Any]]:
    raw = fields.get("players")
    return list(json.loads(raw)) if raw else []


def _token_hashes(fields: Mapping[str, str]) -> dict[int, str]:
    return {
        int(name[len("token:") :]): value
        for name, value in fields.items()
        if name.startswith("token:")
    }
