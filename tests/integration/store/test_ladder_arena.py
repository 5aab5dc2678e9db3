"""The ladder finds the bots' level (issue 32): rated matches among the built-in bots, played
in-process at arena speed (arena/harness.py) and rated through the real ledger, order expert
above basic above random, and the model's predicted chance that expert places above basic
falls inside the arena's own measured interval for it (Wilson 95%, over the same matches).

Manipulation is where the bots differ most (the arena: expert wins 87% of its meetings with
basic, basic 97% of its with random), so there the intervals (mu +- 2 sigma) separate too. It
plays the three pairings in turn, two seats a match: in a three-seat match the two seats
behind the winner often both end on 0 points and share a rank, which says nothing about
which of them is the better. Its expert is slow (about two matches a second) and one-sided
results teach the model little (sigma stays near 5 after 40 such matches), so of every six
matches two are expert-basic, three basic-random (the fast pairing) and one expert-random:
`make test` plays 120 matches, `make soak` (DEADWOOD_SOAK=1) 480.

Three-hand gin plays its three seats (expert, basic, random), 240 matches (1200 in the soak).
There expert and basic are close (expert places above basic in 58% of matches at any target),
and with OpenSkill's default dynamics (tau = 25/300 added each match) sigma settles near 1.9,
so their intervals overlap however many matches are played, and the model's own uncertainty
about their gap (a win chance of 0.5 +- 0.15) is wider than the arena's interval: gin checks
the order of the conservative ratings only."""

from __future__ import annotations

import itertools
import os
from collections.abc import Sequence
from typing import Any

import redis

from arena.harness import MatchRecord, plan, play_match, wilson
from domain.accounts import bot_account
from domain.rated import Placing, RatedResult
from store.ledger import Ledger
from store.ratings import win_probability

GIN = "three-hand-gin"
MANIP = "manipulation-rummy"
LINEUP = ("expert", "basic", "random")
SOAK = bool(os.environ.get("DEADWOOD_SOAK"))
OPTIONS = {"target_score": 25}  # short matches


def _result(variant: str, number: int, record: MatchRecord) -> RatedResult:
    placings = tuple(
        Placing(seat, bot_account(bot), score)
        for seat, (bot, score) in enumerate(zip(record.lineup, record.scores, strict=True))
    )
    return RatedResult(f"m_arena{number}", variant, placings)


def _above(record: MatchRecord, a: str, b: str) -> float:
    """1 when `a` finished above `b`, 0 below, 1/2 for a tie."""
    score = dict(zip(record.lineup, record.scores, strict=True))
    return 1.0 if score[a] > score[b] else 0.5 if score[a] == score[b] else 0.0


def _rated(
    redis_client: redis.Redis, variant: str, lineups: Sequence[tuple[str, ...]], matches: int
) -> tuple[list[Any], list[Any]]:
    """Play and rate `matches` of the line-ups in turn; the match records and the rows."""
    ledger = Ledger(redis_client)
    bots = {bot_account(b): True for b in LINEUP}
    each = [plan(lineup, matches // len(lineups), 32 + i) for i, lineup in enumerate(lineups)]
    specs = [spec for turn in zip(*each, strict=True) for spec in turn]
    records = [play_match(variant, spec, OPTIONS) for spec in specs]
    for number, record in enumerate(records):
        assert ledger.rate(_result(variant, number, record), bots, "") == number + 1
    _, rows = ledger.page(variant, 0, 10)
    assert [row.handle for row in rows] == [bot_account(b) for b in LINEUP]
    assert all(row.skill.bot for row in rows), rows
    return records, rows


def test_manipulation_ladder_separates_the_builtin_bots(redis_client: redis.Redis) -> None:
    expert, basic, random = LINEUP
    pairs = [(expert, basic), (basic, random), (expert, basic), (basic, random)]
    pairs += [(basic, random), (expert, random)]
    records, rows = _rated(redis_client, MANIP, pairs, 480 if SOAK else 120)
    for upper, lower in itertools.pairwise(rows):
        assert upper.skill.mu - 2 * upper.skill.sigma > lower.skill.mu + 2 * lower.skill.sigma
    _check_prediction(records, rows)


def test_gin_ladder_orders_the_builtin_bots(redis_client: redis.Redis) -> None:
    _, rows = _rated(redis_client, GIN, [LINEUP], 1200 if SOAK else 240)
    ratings = [row.skill.conservative for row in rows]
    assert ratings == sorted(ratings, reverse=True)
    assert not any(row.skill.provisional for row in rows), rows


def _check_prediction(records: list[Any], rows: list[Any]) -> None:
    expert, basic = rows[0].skill, rows[1].skill
    met = [r for r in records if {"expert", "basic"} <= set(r.lineup)]
    wins = sum(_above(record, "expert", "basic") for record in met)
    measured = wilson(round(wins), len(met))
    predicted = win_probability(expert, basic)
    print(f"expert above basic: predicted {predicted:.3f}, measured {measured}")
    assert measured.low <= predicted <= measured.high, (predicted, measured)
