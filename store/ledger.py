"""The rating ledger (issue 32): one per variant, in keys of its own, never in match logs.

Every key of a variant's ledger carries the hash tag `{ladder:<variant>}` (one slot, so one
script writes a whole rating, on a cluster too):

    ladder:{v}:skills          hash: handle -> Skill JSON (mu, sigma, games, bot)
    ladder:{v}:board           sorted set: handle by its conservative rating mu - 3 sigma
    ladder:{v}:rated           hash: match id -> its place in the order (1-based)
    ladder:{v}:order           list: the match ids in the order they were rated
    ladder:{v}:history:<h>     list: the account's ratings after each of its rated matches

`rate(result)` reads the skills of the match's accounts and the order's length, computes
the new skills (store/ratings.py) and hands them to one script that writes them only if the
match is not rated yet (else 0: a repeated job rates once) and the order still has the
length read (else it reads and computes again: another match was rated meanwhile). The
marker, the skills, the board, the order and the histories are written together or not at
all, and the order is the one a rebuild replays (store/rebuild.py), so it gets the same
floats bit for bit.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from domain.rated import RatedResult
from store import codec
from store.ratings import Skill, initial, rate

ATTEMPTS = 64
HISTORY_SHOWN = 50

_COMMIT = """
if redis.call('HEXISTS', KEYS[3], ARGV[1]) == 1 then return 0 end
if redis.call('LLEN', KEYS[4]) ~= tonumber(ARGV[2]) then return -1 end
local place = redis.call('RPUSH', KEYS[4], ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], place)
for i = 1, tonumber(ARGV[3]) do
  local at = 3 + (i - 1) * 4
  redis.call('HSET', KEYS[1], ARGV[at + 1], ARGV[at + 2])
  redis.call('ZADD', KEYS[2], ARGV[at + 3], ARGV[at + 1])
  local entry = string.gsub(ARGV[at + 4], '"place":0,', '"place":' .. place .. ',', 1)
  redis.call('RPUSH', KEYS[4 + i], entry)
end
return place
"""


def _key(variant: str, part: str) -> str:
    return f"ladder:{{{variant}}}:{part}"


def skills_key(variant: str) -> str:
    return _key(variant, "skills")


def board_key(variant: str) -> str:
    return _key(variant, "board")


def rated_key(variant: str) -> str:
    return _key(variant, "rated")


def order_key(variant: str) -> str:
    return _key(variant, "order")


def history_key(variant: str, handle: str) -> str:
    return _key(variant, f"history:{handle}")


@dataclass(frozen=True)
class Row:
    """One row of a ladder page."""

    place: int
    handle: str
    skill: Skill

    def as_json(self) -> dict[str, Any]:
        return {
            "place": self.place,
            "handle": self.handle,
            "bot": self.skill.bot,
            **self.skill.as_json(),
        }


class Ledger:
    """The rating ledgers of every variant on one Redis (or cluster) client."""

    def __init__(self, redis: Any) -> None:
        self.redis = redis
        self._commit = redis.register_script(_COMMIT)

    def rate(self, result: RatedResult, bots: Mapping[str, bool], finished_at: str) -> int:
        """Rate a finished match once: its place in the order, or 0 when it was rated
        already. `bots`: which of its accounts are bots (kept beside their ratings);
        `finished_at`: when its last event was stored (its history entries say so)."""
        variant = result.variant
        for _ in range(ATTEMPTS):
            if self.redis.hexists(rated_key(variant), result.match_id):
                return 0
            length = int(self.redis.llen(order_key(variant)))
            before = self.skills(variant, result.accounts(), bots)
            after = rate(result, before)
            args = self._args(result, after, length, finished_at)
            place = int(self._commit(keys=self._keys(result), args=args))
            if place >= 0:
                return place
        raise RuntimeError(f"could not rate {result.match_id}: the ledger kept moving")

    def _keys(self, result: RatedResult) -> list[str]:
        v = result.variant
        fixed = [skills_key(v), board_key(v), rated_key(v), order_key(v)]
        return fixed + [history_key(v, a) for a in result.accounts()]

    @staticmethod
    def _args(result: RatedResult, after: Mapping[str, Skill], length: int, at: str) -> list[Any]:
        args: list[Any] = [result.match_id, length, len(result.placings)]
        for placing, rank in zip(result.placings, result.ranks(), strict=True):
            skill = after[placing.account]
            entry = history_entry(result, placing.seat, rank, skill, 0, at)
            args += [placing.account, skill.dumps(), repr(skill.conservative), entry]
        return args

    def skills(
        self, variant: str, handles: Sequence[str], bots: Mapping[str, bool]
    ) -> dict[str, Skill]:
        """The current skill of each handle (a new account's initial one)."""
        raws = self.redis.hmget(skills_key(variant), list(handles)) if handles else []
        return {
            h: Skill.loads(raw) if raw is not None else initial(bots.get(h, False))
            for h, raw in zip(handles, raws, strict=True)
        }

    def all_skills(self, variant: str) -> dict[str, Skill]:
        raw = self.redis.hgetall(skills_key(variant))
        return {codec.text(h): Skill.loads(v) for h, v in raw.items()}

    def order(self, variant: str) -> list[str]:
        return [codec.text(m) for m in self.redis.lrange(order_key(variant), 0, -1)]

    def page(self, variant: str, offset: int, limit: int) -> tuple[int, list[Row]]:
        """(accounts on the ladder, the rows from `offset`), best conservative rating first."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.zcard(board_key(variant))
        pipe.zrevrange(board_key(variant), offset, offset + limit - 1)
        total, handles = pipe.execute()
        names = [codec.text(h) for h in handles]
        raws = self.redis.hmget(skills_key(variant), names) if names else []
        rows = [
            Row(offset + i + 1, name, Skill.loads(raw))
            for i, (name, raw) in enumerate(zip(names, raws, strict=True))
            if raw is not None
        ]
        return int(total), rows

    def history(self, variant: str, handle: str, last: int = HISTORY_SHOWN) -> list[dict[str, Any]]:
        raw = self.redis.lrange(history_key(variant, handle), -last, -1)
        return [json.loads(item) for item in raw]

    def replace(self, variant: str, state: LadderState) -> None:
        """Write a whole ledger at once (a rebuild), in one transaction of its slot."""
        old = [codec.text(k) for k in self.redis.hkeys(skills_key(variant))]
        pipe = self.redis.pipeline(transaction=True)
        for handle in set(old) | set(state.histories):
            pipe.delete(history_key(variant, handle))
        for part in (skills_key, board_key, rated_key, order_key):
            pipe.delete(part(variant))
        if state.skills:
            pipe.hset(skills_key(variant), mapping={h: s.dumps() for h, s in state.skills.items()})
            pipe.zadd(board_key(variant), {h: s.conservative for h, s in state.skills.items()})
        if state.order:
            pipe.rpush(order_key(variant), *state.order)
            pipe.hset(rated_key(variant), mapping={m: i + 1 for i, m in enumerate(state.order)})
        for handle, entries in state.histories.items():
            if entries:
                pipe.rpush(history_key(variant, handle), *entries)
        pipe.execute()


@dataclass
class LadderState:
    """A ledger computed in memory (a rebuild): skills, the order, each account's history."""

    skills: dict[str, Skill]
    order: list[str]
    histories: dict[str, list[str]]


def history_entry(
    result: RatedResult, seat: int, rank: int, skill: Skill, place: int, at: str
) -> str:
    """One line of an account's history (`place` 0 is filled in by the commit script)."""
    body = {
        "match": result.match_id,
        "place": place,
        "seat": seat,
        "rank": rank,
        "seats": len(result.placings),
        "at": at,
        **skill.as_json(),
    }
    return json.dumps(body, separators=(",", ":"))
