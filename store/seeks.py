"""Seeks (issue 32): an account asks to be paired; the pairing (store/pairing.py) answers.

Every key of the seeks carries the hash tag `{seeks}` (one slot, so each write is one script,
on a cluster too), and every script is handed the same fixed keys (`KEYS`):

    seeks:{seeks}:records   hash: seek id -> the seek's fixed fields (JSON: account, terms...)
    seeks:{seeks}:status    hash: seek id -> open | paired | cancelled | expired
    seeks:{seeks}:owners    hash: seek id -> its account's handle
    seeks:{seeks}:open      sorted set: the open seeks by creation (ms): the listing, oldest first
    seeks:{seeks}:expires   sorted set: the open seeks by their deadline (ms)
    seeks:{seeks}:accounts  hash: handle -> its one open seek (one open seek per account)
    seeks:{seeks}:paired    hash: seek id -> its match {id, seat, join} (JSON)
    seeks:{seeks}:pending   hash: pairing id -> the match to open (JSON), until it is open
    seeks:{seeks}:ended     sorted set: ended seeks by when they ended (a day later: deleted)
and per keyed create `seeks:{seeks}:idem:<hash of handle and Idempotency-Key>` (a day).

The scripts: CREATE refuses a second open seek of an account (an expired one is closed
first); CANCEL closes an open seek of its owner; CLAIM marks the seeks of one pairing `paired`
and records the pairing's match as pending, all or nothing: it fails when any of the seeks
is no longer open (cancelled, expired or paired by another run), so a seek is in at most one
match and a cancel racing a pairing has exactly one winner (whichever script runs first);
SWEEP closes the open seeks past their deadline and deletes long-ended ones. Time is the
service's clock (`MatchService.now_ms`, a fake one in tests).

Settings (`SeekSettings.from_env`): DEADWOOD_SEEK_TTL_S (600: how long a seek stays open),
DEADWOOD_SEEK_BOT_DELAY_S (30: a seek waiting this long is completed with built-in bots),
DEADWOOD_PAIRING_EVERY_S (2: the pairing's period on rq's scheduler), DEADWOOD_PAIRED_JOIN_S
(120: how long a paired match waits for its seekers to join, its lobby ttl).

After each new seek the pairing job `pairing-<variant>` is enqueued on queue `scoring`
(`enqueue_pairing`: one queued job however many seeks arrive at once); while open seeks
remain, each run schedules the next on rq's scheduler (`schedule_pairing`).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any, cast

from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus

from domain.errors import InvalidOptions
from domain.rated import RatedMatchNeedsClock
from domain.variants import get_variant
from store import codec
from store.clock import checked_clock
from store.errors import IdempotencyKeyReused, StoreError
from store.jobs import SCORING
from store.lobby_index import rfc3339
from store.service import MatchService

log = logging.getLogger(__name__)

PAIR_FUNC = "workers.pairing.pair_seeks"
OPEN, PAIRED, CANCELLED, EXPIRED = "open", "paired", "cancelled", "expired"
KEEP_ENDED_MS = 86_400_000
IDEM_TTL_S = 86_400
PARTS = ("records", "status", "owners", "open", "expires", "accounts", "paired", "pending")
KEYS = [f"seeks:{{seeks}}:{part}" for part in (*PARTS, "ended")]
R, ST, OW, OP, EX, AC, PA, PE, EN = (f"KEYS[{i + 1}]" for i in range(len(KEYS)))

_CLOSE = f"""
local function close(id, status, now)
  redis.call('HSET', {ST}, id, status)
  redis.call('ZREM', {OP}, id)
  redis.call('ZREM', {EX}, id)
  local owner = redis.call('HGET', {OW}, id)
  if owner and redis.call('HGET', {AC}, owner) == id then redis.call('HDEL', {AC}, owner) end
  redis.call('ZADD', {EN}, now, id)
end
"""
_CREATE = (
    _CLOSE
    + f"""
local now = tonumber(ARGV[3])
if ARGV[7] == '1' then
  local prior = redis.call('GET', KEYS[10])
  if prior then return {{'replay', prior}} end
end
local held = redis.call('HGET', {AC}, ARGV[2])
if held then
  local due = redis.call('ZSCORE', {EX}, held)
  if due and tonumber(due) > now then return {{'open', held}} end
  close(held, 'expired', now)
end
redis.call('HSET', {R}, ARGV[1], ARGV[4])
redis.call('HSET', {ST}, ARGV[1], 'open')
redis.call('HSET', {OW}, ARGV[1], ARGV[2])
redis.call('ZADD', {OP}, now, ARGV[1])
redis.call('ZADD', {EX}, tonumber(ARGV[5]), ARGV[1])
redis.call('HSET', {AC}, ARGV[2], ARGV[1])
if ARGV[7] == '1' then redis.call('SET', KEYS[10], ARGV[1] .. ' ' .. ARGV[6], 'EX', ARGV[8]) end
return {{'made', ARGV[1]}}
"""
)
_CANCEL = (
    _CLOSE
    + f"""
local status = redis.call('HGET', {ST}, ARGV[1])
if not status or redis.call('HGET', {OW}, ARGV[1]) ~= ARGV[2] then return 'unknown' end
if status ~= 'open' then return status end
local due = tonumber(redis.call('ZSCORE', {EX}, ARGV[1]) or '0')
if due <= tonumber(ARGV[3]) then close(ARGV[1], 'expired', ARGV[3]) return 'expired' end
close(ARGV[1], 'cancelled', ARGV[3])
return 'cancelled'
"""
)
_CLAIM = (
    _CLOSE
    + f"""
local now, count = tonumber(ARGV[1]), tonumber(ARGV[4])
for i = 1, count do
  local id = ARGV[4 + (i - 1) * 2 + 1]
  if redis.call('HGET', {ST}, id) ~= 'open' then return {{'taken', id}} end
  if tonumber(redis.call('ZSCORE', {EX}, id) or '0') <= now then return {{'taken', id}} end
end
if redis.call('HEXISTS', {PE}, ARGV[2]) == 1 then return {{'pending', ARGV[2]}} end
for i = 1, count do
  local at = 4 + (i - 1) * 2
  close(ARGV[at + 1], 'paired', now)
  redis.call('HSET', {PA}, ARGV[at + 1], ARGV[at + 2])
end
redis.call('HSET', {PE}, ARGV[2], ARGV[3])
return {{'claimed', ARGV[2]}}
"""
)
_SWEEP = (
    _CLOSE
    + f"""
local now = tonumber(ARGV[1])
local due = redis.call('ZRANGEBYSCORE', {EX}, '-inf', now)
for _, id in ipairs(due) do close(id, 'expired', now) end
local old = redis.call('ZRANGEBYSCORE', {EN}, '-inf', now - tonumber(ARGV[2]))
for _, id in ipairs(old) do
  for _, key in ipairs({{{R}, {ST}, {OW}, {PA}}}) do redis.call('HDEL', key, id) end
  redis.call('ZREM', {EN}, id)
end
return #due
"""
)


class UnknownSeek(StoreError):
    """No seek of the caller's account has this id (404)."""

    code = "unknown_seek"


class SeekOpen(StoreError):
    """The account has an open seek already (409)."""

    code = "seek_open"


class SeekPaired(StoreError):
    """The seek is paired: its match is made (409)."""

    code = "seek_paired"


@dataclass(frozen=True)
class SeekSettings:
    ttl_s: int = 600
    bot_delay_s: float = 30.0
    every_s: float = 2.0
    join_s: int = 120

    @classmethod
    def from_env(cls) -> SeekSettings:
        env = os.environ.get
        return cls(
            int(env("DEADWOOD_SEEK_TTL_S") or cls.ttl_s),
            float(env("DEADWOOD_SEEK_BOT_DELAY_S") or cls.bot_delay_s),
            float(env("DEADWOOD_PAIRING_EVERY_S") or cls.every_s),
            int(env("DEADWOOD_PAIRED_JOIN_S") or cls.join_s),
        )


@dataclass(frozen=True)
class Seek:
    """A seek: its fixed fields (`record`), its status and, once paired, its match."""

    record: dict[str, Any]
    status: str
    match: dict[str, Any] | None = None
    replayed: bool = False

    @property
    def id(self) -> str:
        return str(self.record["id"])

    def public(self) -> dict[str, Any]:
        """What anyone may see of an open seek (GET /v1/seeks, the lobby)."""
        shown = ("id", "account", "bot", "variant", "rated", "clock", "seats", "options")
        return {
            **{k: self.record[k] for k in shown},
            "status": self.status,
            "created": self.record["created"],
            "expires": self.record["expires"],
        }

    def owned(self) -> dict[str, Any]:
        """What its owner sees: with its match once paired."""
        return {**self.public(), "match": self.match}


def idem_key(handle: str, key: str) -> str:
    digest = hashlib.sha256(f"{handle}\0{key}".encode()).hexdigest()
    return f"seeks:{{seeks}}:idem:{digest}"


def pairing_job_id(variant: str) -> str:
    return f"pairing-{variant}"


class SeekService:
    """The seeks on a MatchService (its Redis, its clock, its queues)."""

    def __init__(self, service: MatchService, settings: SeekSettings | None = None) -> None:
        self.service = service
        self.settings = settings or SeekSettings.from_env()
        redis = service.redis
        self._create = redis.register_script(_CREATE)
        self._cancel = redis.register_script(_CANCEL)
        self._claim = redis.register_script(_CLAIM)
        self._sweep = redis.register_script(_SWEEP)

    def now_ms(self) -> int:
        return self.service.now_ms()

    # --- an account's seeks ---------------------------------------------------------------

    def create(
        self,
        account: str,
        bot: bool,
        terms: Mapping[str, Any],
        *,
        idempotency_key: str | None = None,
        fingerprint: str = "",
    ) -> Seek:
        """A new open seek of `account` (SeekOpen when it has one; InvalidOptions,
        RatedMatchNeedsClock for bad terms). A repeat with the same Idempotency-Key gives
        the first answer's seek."""
        record = self._record(account, bot, terms)
        keyed = idempotency_key is not None
        args = [
            record["id"], account, record["created_ms"], json.dumps(record),
            record["expires_ms"], fingerprint, "1" if keyed else "0", IDEM_TTL_S,
        ]  # fmt: skip
        idem = idem_key(account, idempotency_key) if idempotency_key is not None else KEYS[0]
        kind, value = (codec.text(v) for v in self._create(keys=[*KEYS, idem], args=args))
        if kind == "replay":
            seek_id, _, first = value.partition(" ")
            if first != fingerprint:
                raise IdempotencyKeyReused("this Idempotency-Key was used for another seek")
            return replace(self.get(seek_id, account), replayed=True)
        if kind == "open":
            raise SeekOpen(f"the account has an open seek, {value}: cancel it or wait for it")
        self.enqueue_pairing(str(record["variant"]))
        return Seek(record, OPEN)

    def _record(self, account: str, bot: bool, terms: Mapping[str, Any]) -> dict[str, Any]:
        variant = str(terms["variant"])
        game = get_variant(variant)
        rated = terms.get("rated", True) is True
        seats = terms.get("seats") or game.min_players
        if not game.min_players <= seats <= game.max_players:
            low, high = game.min_players, game.max_players
            raise InvalidOptions(f"seats must be {low}..{high} for {variant}, not {seats}")
        options = dict(terms.get("options") or {})
        if "rated" in options:
            raise InvalidOptions("options.rated: a seek says `rated` beside its options")
        full = game.validate_options({**options, "rated": rated})
        clock = checked_clock(variant, seats, terms.get("clock"))
        if rated and clock is None:
            raise RatedMatchNeedsClock(
                'clock is required for a rated seek (e.g. "clock": {"mode": "per_move", '
                '"move_s": 60})'
            )
        shown = {k: v for k, v in full.items() if k != "rated"}
        now = self.now_ms()
        expires = now + self.settings.ttl_s * 1000
        return {
            "id": "s_" + secrets.token_urlsafe(12),
            "account": account,
            "bot": bot,
            "variant": variant,
            "rated": rated,
            "clock": None if clock is None else clock.to_json(),
            "seats": seats,
            "options": shown,
            "created": rfc3339(now),
            "expires": rfc3339(expires),
            "created_ms": now,
            "expires_ms": expires,
        }

    def get(self, seek_id: str, account: str) -> Seek:
        """The account's own seek (UnknownSeek for any other, or none)."""
        self.sweep()
        redis = self.service.redis
        pipe = redis.pipeline(transaction=False)
        for part in ("records", "status", "owners", "paired"):
            pipe.hget(f"seeks:{{seeks}}:{part}", seek_id)
        raw, status, owner, paired = pipe.execute()
        if raw is None or status is None or owner is None or codec.text(owner) != account:
            raise UnknownSeek(f"your account has no seek {seek_id[:40]!r}")
        match = json.loads(paired) if paired is not None else None
        return Seek(json.loads(raw), codec.text(status), match)

    def cancel(self, seek_id: str, account: str) -> Seek:
        """Close the account's open seek (cancelled); a cancelled or expired one is answered
        as it is; SeekPaired once it is paired."""
        outcome = codec.text(self._cancel(keys=KEYS, args=[seek_id, account, self.now_ms()]))
        if outcome == "unknown":
            raise UnknownSeek(f"your account has no seek {seek_id[:40]!r}")
        seek = self.get(seek_id, account)
        if outcome == PAIRED:
            match = seek.match or {}
            raise SeekPaired(
                f"seek {seek_id} is paired: join match {match.get('id')} (seat {match.get('seat')})"
            )
        return seek

    # --- every open seek ------------------------------------------------------------------

    def sweep(self) -> int:
        """Close the seeks past their deadline (and delete long-ended ones): how many closed."""
        return int(self._sweep(keys=KEYS, args=[self.now_ms(), KEEP_ENDED_MS]))

    def open_seeks(self, variant: str | None = None, limit: int = 1000) -> list[Seek]:
        """The open seeks (of `variant`), oldest first."""
        self.sweep()
        redis = self.service.redis
        ids = [codec.text(i) for i in redis.zrange("seeks:{seeks}:open", 0, limit - 1)]
        if not ids:
            return []
        raws = redis.hmget("seeks:{seeks}:records", ids)
        seeks = [Seek(json.loads(raw), OPEN) for raw in raws if raw is not None]
        return [s for s in seeks if variant is None or s.record["variant"] == variant]

    # --- pairing (store/pairing.py) -------------------------------------------------------

    def claim(self, pairing_id: str, pending: Mapping[str, Any], seats: Mapping[str, int]) -> bool:
        """Mark the seeks `seats` (seek id -> its seat) paired with the pending match, all or
        nothing; False when any is no longer open (or the pairing is pending already)."""
        match_id = str(pending["match_id"])
        args: list[Any] = [self.now_ms(), pairing_id, json.dumps(pending), len(seats)]
        for seek_id, seat in seats.items():
            join = f"/v1/matches/{match_id}/join"
            args += [seek_id, json.dumps({"id": match_id, "seat": seat, "join": join})]
        kind, _ = (codec.text(v) for v in self._claim(keys=KEYS, args=args))
        return kind == "claimed"

    def pending(self) -> dict[str, dict[str, Any]]:
        """The pairings claimed whose match may not be open yet: pairing id -> the match."""
        raw = self.service.redis.hgetall("seeks:{seeks}:pending")
        return {codec.text(k): json.loads(v) for k, v in raw.items()}

    def opened(self, pairing_id: str) -> None:
        """The pairing's match is open: it is pending no more."""
        self.service.redis.hdel("seeks:{seeks}:pending", pairing_id)

    def enqueue_pairing(self, variant: str) -> bool:
        """The pairing job of `variant` on queue `scoring`, unless one is queued already
        (while `pairing-<v>` runs, its follow-up is `pairing-<v>-again`, so a seek made
        during a run is seen by the next one)."""
        try:
            queue = self.service.queues.queue(SCORING)
            for job_id in (pairing_job_id(variant), pairing_job_id(variant) + "-again"):
                status = _status(queue, job_id)
                if status == JobStatus.QUEUED:
                    return False
                if status != JobStatus.STARTED:
                    queue.enqueue(
                        PAIR_FUNC, variant, job_id=job_id, result_ttl=60, failure_ttl=3600
                    )
                    return True
            return False
        except Exception as error:  # the next tick or seek pairs it anyway
            log.warning("could not enqueue the pairing of %s: %r", variant, error)
            return False

    def schedule_pairing(self, variant: str) -> None:
        """The next pairing run of `variant` on rq's scheduler, `every_s` from now (one job a
        period however many runs ask for it)."""
        every = self.settings.every_s
        slot = int(self.now_ms() / 1000 / every) + 1
        queue = self.service.queues.queue(SCORING)
        when = datetime.now(UTC) + timedelta(seconds=every)
        job_id = f"{pairing_job_id(variant)}-tick-{slot}"
        queue.enqueue_at(when, PAIR_FUNC, variant, job_id=job_id, result_ttl=60)


def _status(queue: Any, job_id: str) -> JobStatus | None:
    try:
        job = Job.fetch(job_id, connection=queue.connection, serializer=queue.serializer)
    except NoSuchJobError:
        return None
    return job.get_status()


def seek_service(service: MatchService) -> SeekService:
    """The seeks of `service` (kept on it, so its clock and settings are shared)."""
    found = getattr(service, "_seeks", None)
    if found is None:
        found = SeekService(service)
        service._seeks = found  # type: ignore[attr-defined]
    return cast(SeekService, found)
