"""Pairing seeks (issue 32), pure: which open seeks make a match together, and which built-in
bots complete a seek that has waited too long.

A seek asks for a match on terms: its variant, rated or not, clock, seat count and rule
options. Seeks pair only with seeks of the very same terms (`terms_key`: one canonical
string, so two seeks agree exactly when their keys are equal). Within one set of terms the
seeks are ordered by their account's conservative ladder rating (mu - 3 sigma, best first;
then the oldest first, then by id, so the order is a pure function of the input) and taken
`seats` at a time: each match is made of rating neighbours, so near ratings meet.

What is left over (fewer than `seats` seeks) waits for more seekers, unless one of them has
waited `bot_delay_ms` or longer: then the leftovers make a match with built-in bots in the
other seats, the bots whose ratings are nearest the leftovers' mean (ties by name), each bot
at most once (a rated match seats an account once: domain/rated.py). A set of terms that needs
more bots than there are waits on.

`Group.pairing_id` names a group by its seeks alone, so the same group always gets the same
id (the store keys the match it opens by it: a retried pairing opens one match).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from domain.shapes import JSON


@dataclass(frozen=True, slots=True)
class Waiting:
    """An open seek as the pairing sees it."""

    seek_id: str
    account: str
    terms: str  # terms_key(...) of the seek
    seats: int
    created_ms: int
    rating: float  # the account's conservative ladder rating in the seek's variant


@dataclass(frozen=True, slots=True)
class Group:
    """Seeks that make one match, and the built-in bots (by name) in its other seats."""

    seeks: tuple[Waiting, ...]
    bots: tuple[str, ...] = ()

    @property
    def pairing_id(self) -> str:
        return pairing_id(s.seek_id for s in self.seeks)


def pairing_id(seek_ids: Iterable[str]) -> str:
    """The id of a pairing of these seeks (order does not matter)."""
    ids = sorted(seek_ids)
    return "p_" + hashlib.sha256("\0".join(ids).encode()).hexdigest()[:24]


def terms_key(
    variant: str, rated: bool, clock: Mapping[str, JSON] | None, seats: int, options: JSON
) -> str:
    """The terms of a seek as one canonical string: equal exactly when the terms agree."""
    body = {"variant": variant, "rated": rated, "clock": clock, "seats": seats, "options": options}
    return json.dumps(body, sort_keys=True, separators=(",", ":"))


def group(
    waiting: Sequence[Waiting],
    now_ms: int,
    bot_delay_ms: int,
    bots: Mapping[str, float],
) -> list[Group]:
    """The matches to make now from the open seeks `waiting` (one seek per account, as the
    store keeps them); `bots`: the built-in bots that may fill seats, with their ratings."""
    pools: dict[str, list[Waiting]] = {}
    for seek in waiting:
        pools.setdefault(seek.terms, []).append(seek)
    groups: list[Group] = []
    for terms in sorted(pools):
        groups += _pool(pools[terms], now_ms, bot_delay_ms, bots)
    return groups


def _pool(
    seeks: list[Waiting], now_ms: int, bot_delay_ms: int, bots: Mapping[str, float]
) -> list[Group]:
    seats = seeks[0].seats
    ordered = sorted(seeks, key=lambda s: (-s.rating, s.created_ms, s.seek_id))
    whole = len(ordered) - len(ordered) % seats
    groups = [Group(tuple(ordered[i : i + seats])) for i in range(0, whole, seats)]
    rest = tuple(ordered[whole:])
    if rest and now_ms - min(s.created_ms for s in rest) >= bot_delay_ms:
        fillers = nearest_bots(rest, seats - len(rest), bots)
        if fillers is not None:
            groups.append(Group(rest, fillers))
    return groups


def nearest_bots(
    seeks: Sequence[Waiting], count: int, bots: Mapping[str, float]
) -> tuple[str, ...] | None:
    """`count` bots nearest in rating to the seeks' mean (ties by name); None when there are
    too few bots."""
    if count > len(bots):
        return None
    mean = sum(s.rating for s in seeks) / len(seeks)
    ranked = sorted(bots, key=lambda name: (abs(bots[name] - mean), name))
    return tuple(ranked[:count])
