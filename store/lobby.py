"""The lobby's writes (issue 30): open seats, joins, leaves, expiry, rematch.

Every lobby write is an ordinary version-checked append on the match's own slot, through the
same script as a move (event_store.py): the events, the idempotency record and the meta
fields in one step. A join mints the seat's token and stores its hash (`token:<seat>`) in
that same append, so exactly one of N concurrent joins of a seat wins (the others lose the
version race, reload, and are refused `seat_taken`); a leave writes an empty hash, so the
token is dead at once for every endpoint. While a match waits, its meta says `open: 1` and
the service reads its token hashes afresh on every request (store/service.py `_meta`).

The index of listed matches is store/lobby_index.py (`LobbyIndex`); `repair` is the
reconciler's pass over one match (cancels a past-due one, re-lists a missing one).

A rematch is store/lobby_rematch.py; a seat joined with an account key passes a
`domain.lobby.Joiner` to `join` (issue 32).

Expiry: a job `lobby-expire-<id>` on rq's scheduler at the deadline (`enqueue_at`), and any
request that finds the match past due (`settle`) cancels it first: both append
MatchCancelled at the version they read, so it is recorded exactly once.
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any, cast

from domain import lobby as rules
from domain.clock import ClockOptions
from domain.errors import InvalidOptions, RulesError
from domain.events import Event
from domain.lobby_shapes import CancelReason, LobbyCreated, LobbyEntry
from domain.replay import fold
from domain.variants import State, Variant, get_variant
from store import codec, idempotency, tokens
from store.clock import checked_clock
from store.errors import UnknownMatch
from store.event_store import AppendRequest, Conflict, IdemTaken
from store.jobs import SCORING, followups
from store.lobby_index import LobbyIndex, lobby_meta, rfc3339
from store.metadata import check_bots
from store.outcomes import Created
from store.service import MatchService
from store.states import Cached
from store.submit import _backoff

log = logging.getLogger(__name__)

EXPIRE_FUNC = "workers.lobby.expire_lobby"
ATTEMPTS = 32


class NotCreator(RulesError):
    """Only a seat the creator held may cancel the match."""

    code = "forbidden"


def expire_job_id(match_id: str) -> str:
    return f"lobby-expire-{match_id}"


@dataclass(frozen=True)
class Seated:
    """What a lobby write did: the match, the caller's seat and its new token (a join or a
    rematch claim; None otherwise), the version and state after it."""

    match_id: str
    seat: int | None
    token: str | None
    version: int
    state: State
    variant: Variant
    replayed: bool = False
    fresh: bool = True  # False: a rematch seat claimed before (no new token)


Decision = Callable[[Variant, State], tuple[int | None, tuple[Event, ...]]]


class LobbyService:
    """The lobby on a MatchService (its store, caches and clock: `service.clock`)."""

    def __init__(self, service: MatchService) -> None:
        self.service = service
        self.index = LobbyIndex(service, self.now_ms)
        self._variants: dict[str, str] = {}

    def now_ms(self) -> int:
        return self.service.now_ms()  # the service's clock (a fake one in tests)

    # --- creating -------------------------------------------------------------------------

    def create(
        self,
        variant: str,
        players: list[dict[str, Any]],
        options: dict[str, Any],
        seed: int | None,
        *,
        listed: bool,
        ttl_s: int,
        idempotency_key: str | None,
        fingerprint: str | None,
        clock_options: Mapping[str, Any] | None = None,
    ) -> Created:
        """Open seats, waiting (SeededOpenSeat, InvalidOptions); a clock starts at MatchStarted."""
        if seed is not None:
            raise rules.SeededOpenSeat(
                "a seeded match cannot have open seats: whoever knows the seed knows every hand"
            )
        if not 1 <= ttl_s <= rules.MAX_TTL_S:
            raise InvalidOptions(f"lobby_ttl_s must be 1..{rules.MAX_TTL_S}, not {ttl_s}")
        svc = self.service
        if idempotency_key is not None:
            match_id = idempotency.match_id_for_key(svc.pepper, idempotency_key)
            raw = svc.store.get(idempotency.record_key(match_id, idempotency_key))
            if raw is not None:
                return svc.replays.create(match_id, idempotency_key, fingerprint or "", raw)
        else:
            match_id = "m_" + secrets.token_urlsafe(16)
        creators = [s for s, p in enumerate(players) if not p.get("open") and not p.get("bot")]
        return self._open(
            match_id, variant, players, options, listed, ttl_s, creators, None,
            idempotency_key, fingerprint or "", checked_clock(variant, len(players), clock_options),
        )  # fmt: skip

    def _open(
        self,
        match_id: str,
        variant: str,
        players: list[dict[str, Any]],
        options: dict[str, Any],
        listed: bool,
        ttl_s: int,
        creators: list[int],
        rematch_of: str | None,
        idempotency_key: str | None,
        fingerprint: str,
        clock: ClockOptions | None = None,
    ) -> Created:
        svc = self.service
        game = get_variant(variant)
        check_bots(variant, [p for p in players if not p.get("open")])
        full = game.validate_options(options)
        expires = self.now_ms() + ttl_s * 1000
        lobby: LobbyCreated = {
            "listed": listed,
            "ttl_s": ttl_s,
            "expires_ms": expires,
            "expires_at": rfc3339(expires),
            "creator_seats": creators,
            "rematch_of": rematch_of,
        }
        created = rules.open_match(game, players, full, secrets.token_hex(32), lobby, clock)
        events, texts = codec.stored_forms((created,))
        state = fold(game, events)
        seat_tokens = [tokens.new_token(s) if s in creators else None for s in range(len(players))]
        request = svc.writer._create_request(match_id, game, events, texts, state, seat_tokens)
        if idempotency_key is not None:
            request = svc.writer._keyed(request, idempotency_key, fingerprint, seat_tokens)
        meta = {**request.meta, **lobby_meta(match_id, game, state)}
        if clock is not None:  # pinned now; no clock runs until MatchStarted
            meta["clock"] = json.dumps(clock.to_json())
        try:
            _, tx = svc.store.append(replace(request, meta=meta))
        except IdemTaken as taken:
            assert idempotency_key is not None
            return svc.replays.create(match_id, idempotency_key, fingerprint, taken.raw)
        svc.states.forget(match_id)
        svc.states.remember(match_id, Cached(1, state, tx))
        self.index.add(match_id, game, state)
        self._schedule(match_id, expires)
        return Created(match_id, 1, state, game, seat_tokens)

    # --- joining, leaving, cancelling -----------------------------------------------------

    def join(
        self,
        match_id: str,
        name: str,
        seat: int | None,
        *,
        key: str | None,
        fingerprint: str,
        joiner: rules.Joiner | None = None,
    ) -> Seated:
        """Take `seat` (or the first open one): SeatJoined (and the start when it was the
        last), with the seat's new token stored in the same append. `joiner`: the account
        of a keyed join (issue 32: the seat is its; domain/lobby.py checks the rest)."""

        def decide(game: Variant, state: State) -> tuple[int | None, tuple[Event, ...]]:
            return rules.join(game, state, seat, name, joiner=joiner)

        return self._write(match_id, decide, None, key, fingerprint, mint=True)

    def leave(self, match_id: str, seat: int, *, key: str | None, fingerprint: str) -> Seated:
        """SeatLeft: the caller's token is dead at once (its stored hash is emptied)."""
        return self._write(
            match_id, lambda g, s: (seat, rules.leave(s, seat)), seat, key, fingerprint
        )

    def cancel(self, match_id: str, seat: int, *, key: str | None, fingerprint: str) -> Seated:
        """MatchCancelled by the creator (a seat the creator held at the create)."""

        def decide(game: Variant, state: State) -> tuple[int | None, tuple[Event, ...]]:
            lobby = state.lobby
            if lobby is not None and lobby.waiting and seat not in lobby.creator_seats:
                raise NotCreator(f"seat {seat} did not create this match: it may only leave")
            return None, rules.cancel(state, "cancelled_by_creator")

        return self._write(match_id, decide, seat, key, fingerprint)

    def expire(self, match_id: str) -> bool:
        """Cancel the match if it is still waiting past its deadline; True when this call
        recorded MatchCancelled (lobby_expired)."""
        now = self.now_ms()

        def decide(game: Variant, state: State) -> tuple[int | None, tuple[Event, ...]]:
            if not rules.is_due(state, now):
                raise _NotDue()
            reason: CancelReason = "lobby_expired"
            return None, rules.cancel(state, reason)

        try:
            self._write(match_id, decide, None, None, "", lazy=False)
        except (_NotDue, rules.LobbyClosed, rules.AlreadyStarted):
            return False
        return True

    def settle(self, match_id: str) -> None:
        """A request's lazy expiry: a match found past its deadline is cancelled first."""
        state = self.service.states.fresh(match_id, self._game(match_id)).state
        if state.lobby is not None and rules.is_due(state, self.now_ms()):
            self.expire(match_id)

    def _game(self, match_id: str) -> Variant:
        """The match's game, remembered (it never changes; the service does not keep the meta
        of a match whose seats still change)."""
        name = self._variants.get(match_id)
        if name is None:
            name = self.service.variant_name(match_id)
            if len(self._variants) >= 4096:
                self._variants.clear()
            self._variants[match_id] = name
        return get_variant(name)

    def _write(
        self,
        match_id: str,
        decide: Decision,
        caller: int | None,
        key: str | None,
        fingerprint: str,
        *,
        mint: bool = False,
        lazy: bool = True,
    ) -> Seated:
        """Decide on the cached state and append (reload and decide again on a conflict). A
        match found waiting past its deadline (`lazy`) is cancelled first."""
        svc = self.service
        game = self._game(match_id)
        idem_key = idempotency.record_key(match_id, key) if key else None
        fresh, now = False, self.now_ms()
        for attempt in range(ATTEMPTS):
            current = (
                svc.states.fresh(match_id, game) if fresh else svc.states.cached(match_id, game)
            )
            if lazy and rules.is_due(current.state, now):
                if fresh:
                    self.expire(match_id)
                    lazy = False
                fresh = True
                continue
            try:
                seat, made = decide(game, current.state)
            except RulesError:
                if not fresh:
                    fresh = True
                    continue
                twin = self._twin(match_id, idem_key, key, fingerprint, caller)
                if twin is not None:
                    return twin
                raise
            idem = (idem_key, key, fingerprint)
            done = self._append(match_id, game, current, made, seat, caller, idem, mint)
            if done is not None:
                return done
            if fresh:  # lost the race again: a short pause spreads the contenders
                _backoff(attempt)
            fresh = True
        raise Conflict(-1)

    def _append(
        self,
        match_id: str,
        game: Variant,
        current: Cached,
        made: tuple[Event, ...],
        seat: int | None,
        caller: int | None,
        idem: tuple[str | None, str | None, str],
        mint: bool,
    ) -> Seated | None:
        """The append of one decision: what it did, or None when it lost the version race."""
        svc = self.service
        request, state, token = self._request(
            match_id, game, current, made, seat, caller, idem, mint
        )
        request, turn = svc.clock_started(match_id, game, made, state, request)
        try:
            _, tx = svc.store.append(request)
        except IdemTaken as taken:
            key, fingerprint = idem[1], idem[2]
            assert key is not None
            return self._replayed(match_id, key, taken.raw, fingerprint, caller)
        except Conflict:
            return None
        version = request.expected + len(made)
        svc.states.remember(match_id, Cached(version, state, tx, turn))
        svc.metadata.forget(match_id)
        self.index.after(match_id, game, current.state, state)
        return Seated(match_id, seat, token, version, state, game)

    def _request(
        self,
        match_id: str,
        game: Variant,
        current: Cached,
        made: tuple[Event, ...],
        seat: int | None,
        caller: int | None,
        idem: tuple[str | None, str | None, str],
        mint: bool,
    ) -> tuple[AppendRequest, State, str | None]:
        svc = self.service
        events = tuple(map(codec.as_stored, made))
        state = fold(game, events, current.state)
        version, new_version = current.version, current.version + len(events)
        meta = lobby_meta(match_id, game, state)
        meta["players"] = json.dumps(game.public_seats(state))
        token = None
        if seat is not None and mint:
            token = tokens.new_token(seat)
            meta[f"token:{seat}"] = tokens.token_hash(svc.pepper, match_id, seat, token)
        elif made and made[0].type == "SeatLeft" and seat is not None:
            meta[f"token:{seat}"] = ""  # dead at once: no token hashes to ""
        if game.is_finished(state):
            meta["finished"] = "1"
        idem_key, key, fingerprint = idem
        record = None
        if idem_key is not None and key is not None:
            sealed_tokens: list[str | None] = [None] * len(state.players)
            if token is not None and seat is not None:
                sealed_tokens[seat] = token
            sealed = idempotency.seal(svc.pepper, match_id, key, sealed_tokens)
            record = idempotency.Record(fingerprint, caller, new_version, version + 1, None, sealed)
        request = AppendRequest(
            match_id,
            version,
            events,
            idem_key=idem_key,
            idem_record=record.dumps() if record is not None else None,
            meta=meta,
            **svc.writer._snapshot(version, new_version, state),
            jobs=followups(game, state, match_id, new_version),
            check_tx=current.tx,
        )
        return request, state, token

    def _replayed(
        self, match_id: str, key: str, raw: bytes | str, fingerprint: str, caller: int | None
    ) -> Seated:
        """What the first request with this key did (its token unsealed again)."""
        svc = self.service
        record = svc.replays.settled(match_id, raw, fingerprint, caller)
        loaded = svc.load(match_id, at=record.version)
        unsealed = idempotency.unseal(svc.pepper, match_id, key, record.sealed_tokens)
        seat, token = next(((s, t) for s, t in enumerate(unsealed) if t), (caller, None))
        return Seated(match_id, seat, token, loaded.version, loaded.state, loaded.variant, True)

    def _twin(
        self,
        match_id: str,
        idem_key: str | None,
        key: str | None,
        fingerprint: str,
        caller: int | None,
    ) -> Seated | None:
        """Before a refusal: a twin with the same key may have written meanwhile."""
        if idem_key is None or key is None:
            return None
        raw = self.service.store.get(idem_key)
        if raw is None:
            return None
        return self._replayed(match_id, key, raw, fingerprint, caller)

    # --- rematch (store/lobby_rematch.py) -------------------------------------------------

    def rematch(self, match_id: str, seat: int, *, key: str | None, fingerprint: str) -> Seated:
        """The next match of a finished one (one id however many ask at once), the caller's
        seat claimed with a fresh token; it starts when every person has asked."""
        from store.lobby_rematch import rematch

        return rematch(self, match_id, seat, key=key, fingerprint=fingerprint)

    # --- the index ------------------------------------------------------------------------

    def _schedule(self, match_id: str, expires_ms: int) -> None:
        """The expiry job on rq's scheduler (a request past due cancels it anyway)."""
        try:
            queue = self.service.queues.queue(SCORING)
            when = datetime.fromtimestamp(expires_ms / 1000, UTC)
            queue.enqueue_at(when, EXPIRE_FUNC, match_id, job_id=expire_job_id(match_id))
        except Exception as error:  # the reconciler and any late request cancel it anyway
            log.warning("could not schedule the lobby expiry of %s: %r", match_id, error)

    def repair(self, match_id: str) -> bool:
        """The reconciler's pass over one match in play: a waiting match past due is
        cancelled, a listed one missing from the index is added. True when it did either."""
        try:
            game = get_variant(self.service.variant_name(match_id))
        except UnknownMatch:
            return False
        state = self.service.states.cached(match_id, game).state  # the pass has just loaded it
        lobby = state.lobby
        if lobby is None or not lobby.waiting:
            return False
        if rules.is_due(state, self.now_ms()):
            return self.expire(match_id)
        return lobby.listed and self.index.add(match_id, game, state, missing_only=True)

    def listing(
        self, variant: str | None, cursor: str | None, limit: int
    ) -> tuple[list[LobbyEntry], str | None]:
        """A page of listed matches waiting for players (store/lobby_index.py)."""
        return self.index.listing(variant, cursor, limit)


class _NotDue(Exception):
    """The match is not past its deadline (or no longer waits): nothing to expire."""


def lobby_service(service: MatchService) -> LobbyService:
    """The lobby of `service` (kept on it, so its clock and caches are shared)."""
    found = getattr(service, "_lobby", None)
    if found is None:
        found = LobbyService(service)
        service._lobby = found  # type: ignore[attr-defined]
    return cast(LobbyService, found)
