"""Keyed replays: a request sent again with its Idempotency-Key gets the first one's answer.

The record of a keyed request is written by the same atomic append as its events
(idempotency.py has its shape). There is one check, here: `settled` reads a record, refuses a
key reused by another request or seat (IdempotencyKeyReused) and, under `replica`
durability, waits until a replica holds what the record acknowledges. A move's answer is
rendered again from the states at the record's versions, exactly as the first time; a
create's seat tokens are unsealed with the key.
"""

from __future__ import annotations

from store import idempotency
from store.event_store import EventStore
from store.outcomes import Appended, Created
from store.states import States, fold_along


class KeyedReplays:
    """Answers of keyed requests, rebuilt from their records."""

    def __init__(self, store: EventStore, states: States, pepper: bytes) -> None:
        self.store = store
        self.states = states
        self.pepper = pepper

    def record(self, match_id: str, key: str) -> bytes | str | None:
        """The raw record of `key` in this match (None: the key is unused)."""
        raw: bytes | str | None = self.store.get(idempotency.record_key(match_id, key))
        return raw

    def settled(
        self, match_id: str, raw: bytes | str, fingerprint: str, seat: int | None
    ) -> idempotency.Record:
        """The idempotency record a replayed answer is rendered from, once it is checked
        against this request (IdempotencyKeyReused) and, under `replica` durability, held by
        a replica (NotReplicated): a replay acknowledges what the first request wrote."""
        record = idempotency.Record.loads(raw)
        record.check(fingerprint, seat)
        self.store.confirm_replicated(match_id)
        return record

    def create(self, match_id: str, key: str, fingerprint: str, raw: bytes | str) -> Created:
        """The match a create with this key made, with its seat tokens unsealed."""
        record = self.settled(match_id, raw, fingerprint, None)
        game = self.states.game(match_id)
        loaded = self.states.at(match_id, game, record.version)
        seat_tokens = idempotency.unseal(self.pepper, match_id, key, record.sealed_tokens)
        return Created(
            match_id, loaded.version, loaded.state, loaded.variant, seat_tokens, replayed=True
        )

    def move(self, match_id: str, raw: bytes | str, fingerprint: str, seat: int) -> Appended:
        """What the first move with this key appended, from its record: the state before it,
        its events and the states along them, folded once."""
        record = self.settled(match_id, raw, fingerprint, seat)
        game = self.states.game(match_id)
        events = self.store.read(
            match_id, after=record.first - 1, upto=record.version, variant=game.name
        )
        start = self.states.at(match_id, game, record.first - 1)
        befores, state = fold_along(game, start.state, [item.event for item in events])
        version = events[-1].seq if events else start.version
        return Appended(
            version, events, start.state, state, game, True, record.body, tuple(befores)
        )

    def twin(
        self, match_id: str, idem_key: str | None, fingerprint: str, seat: int
    ) -> Appended | None:
        """Before a keyed move is refused: a twin request with the same key may have
        appended between our decide and our answer; then its record is the answer."""
        if idem_key is None:
            return None
        raw = self.store.get(idem_key)
        return None if raw is None else self.move(match_id, raw, fingerprint, seat)
