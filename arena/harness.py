"""The arena: bot-against-bot matches played in-process, and the statistics of many of them.

Pure: no I/O, no clock. A match is played through the variant surface only (domain/variants.py):
`create` with a seed, then, until the match is finished, every due SYSTEM move (`pending`:
the role draw, scoring, the next deal) and otherwise the seat to act chooses from
`view(state, seat)` and that view's legal moves, with `random.Random(f"{seed}:{version}:{seat}")`,
exactly as a bot-turn worker would. A bot never sees the state.

Seats are rotated: `plan` gives match i the deal seed of block i // P and the i % P-th of the P
distinct seatings of the line-up, so within a block every bot plays every seat (and, in
three-handed gin, where the role draw depends on the deal, every role) of the same deal.
`summarise` turns match records into a row per bot name: match wins and round wins with
Wilson 95% intervals, points per round with a normal (or Student t for few rounds) interval.
The wall clock (matches per second) belongs to the caller (cli/arena.py).
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import permutations
from typing import Any

from domain import bots
from domain.events import SYSTEM
from domain.variants import State, Variant, get_variant, move_from_json

Z95 = 1.959963984540054
"""The two-sided 95% quantile of the standard normal distribution."""

_T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
        9: 2.262, 10: 2.228, 12: 2.179, 15: 2.131, 20: 2.086, 25: 2.060, 30: 2.042}  # fmt: skip
"""Two-sided 95% Student t quantiles by degrees of freedom (the next lower entry is used)."""

DEFAULT_MAX_MOVES = 2_000_000
"""A guard against a match that never ends (a bot that never knocks, say)."""


Chooser = Callable[..., dict[str, Any]]


class ArenaError(RuntimeError):
    """A match that could not be played: a bot's move refused, or no end in sight."""


@dataclass(frozen=True, slots=True)
class MatchSpec:
    """One match to play: its number in the run, its deal seed and who sits where."""

    index: int
    seed: int
    lineup: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """What one match gave each seat (seat order is the line-up's)."""

    index: int
    seed: int
    lineup: tuple[str, ...]
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    round_points: tuple[tuple[int, ...], ...]  # per round: points per seat
    round_winners: tuple[tuple[int, ...], ...]  # per round: the seats that won it
    moves: int
    round_roles: tuple[tuple[int, int, int] | None, ...] = ()  # gin: (box, captain, advisor)


@dataclass(frozen=True, slots=True)
class Interval:
    value: float
    low: float
    high: float


@dataclass(frozen=True, slots=True)
class BotSummary:
    """One row of the results table: every seat a bot of this name held, pooled."""

    bot: str
    seat_matches: int
    matches_won: int
    match_share: Interval
    even_share: float
    rounds: int
    rounds_won: int
    round_share: Interval
    points_per_round: Interval
    mean_score: float


# --- statistics -------------------------------------------------------------------------------


def wilson(successes: int, trials: int, z: float = Z95) -> Interval:
    """The Wilson score interval of a proportion (95% by default); (0, 0, 1) for no trials."""
    if trials <= 0:
        return Interval(0.0, 0.0, 1.0)
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return Interval(p, max(0.0, centre - half), min(1.0, centre + half))


def t_quantile(df: int) -> float:
    """The two-sided 95% quantile for `df` degrees of freedom (normal beyond 30)."""
    if df > max(_T95):
        return Z95
    return _T95[max(k for k in _T95 if k <= df)]


def mean_interval(values: Sequence[float]) -> Interval:
    """Mean with a 95% interval: mean +- t * s / sqrt(n) (normal z for n > 31)."""
    n = len(values)
    if n == 0:
        return Interval(0.0, 0.0, 0.0)
    mean = sum(values) / n
    if n == 1:
        return Interval(mean, mean, mean)
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    half = t_quantile(n - 1) * math.sqrt(var / n)
    return Interval(mean, mean - half, mean + half)


# --- planning -----------------------------------------------------------------------------------


def seatings(lineup: Sequence[str]) -> tuple[tuple[str, ...], ...]:
    """The distinct orders of the line-up (all permutations, repeats removed), first as given."""
    seen: dict[tuple[str, ...], None] = {}
    for order in permutations(lineup):
        seen.setdefault(tuple(order), None)
    return tuple(seen)


def block_seed(seed: int, block: int) -> int:
    """The deal seed of a block of matches: a hash of the run seed and the block number."""
    digest = hashlib.sha256(f"arena:{seed}:{block}".encode()).digest()
    return int.from_bytes(digest[:6], "big")


def plan(lineup: Sequence[str], matches: int, seed: int) -> tuple[MatchSpec, ...]:
    """The matches of a run: match i plays seating i % P of the P seatings, deal of i // P."""
    orders = seatings(lineup)
    return tuple(
        MatchSpec(i, block_seed(seed, i // len(orders)), orders[i % len(orders)])
        for i in range(matches)
    )


def check_lineup(variant: str, lineup: Sequence[str]) -> None:
    """ArenaError unless every name is a bot of `variant` and the seat count fits."""
    game = get_variant(variant)
    if not game.min_players <= len(lineup) <= game.max_players:
        want = (
            f"exactly {game.min_players}"
            if game.min_players == game.max_players
            else f"{game.min_players} to {game.max_players}"
        )
        raise ArenaError(f"{variant} needs {want} bots, one per seat, not {len(lineup)}")
    for name in lineup:
        if name not in bots.BOTS.get(variant, {}):
            known = ", ".join(sorted(bots.BOTS.get(variant, {})))
            raise ArenaError(f"bot {name!r} is unknown for {variant}: expected one of {known}")


# --- playing ----------------------------------------------------------------------------------


def bot_rng(seed: int, version: int, seat: int) -> random.Random:
    """The bot's generator for one decision: a pure function of the deal, version and seat."""
    return random.Random(f"{seed}:{version}:{seat}")  # noqa: S311 - seeded, for bots


def _apply(game: Variant, state: State, seat: int, move: Mapping[str, Any]) -> State:
    for event in game.decide(state, seat, move_from_json(move)):
        state = game.evolve(state, event)
    return state


def play_match(
    variant: str,
    spec: MatchSpec,
    options: Mapping[str, Any] | None = None,
    max_moves: int = DEFAULT_MAX_MOVES,
    advice: bool = False,
    observe: Callable[[Mapping[str, Any]], None] | None = None,
) -> MatchRecord:
    """Play one match to its end; ArenaError if a bot's move is refused or it never ends.

    With `advice` (three-hand gin, G1.4), the ADVISOR's bot is asked before each of CAPTAIN's
    moves, its advice is recorded, and CAPTAIN's bot is handed it as `you.advice` (a copy of
    the view: see `with_advice`). `observe`
    is shown every view a bot decides from (bench/bots.py collects positions so).
    """
    game = get_variant(variant)
    choosers = [bots.get_bot(variant, name).choose for name in spec.lineup]
    state = _opened(game, spec, options)
    moves = 0
    while not game.is_finished(state):
        state, moved = _step(game, state, spec, choosers, advice, observe)
        moves += moved
        if moves >= max_moves:
            raise ArenaError(f"match {spec.index} (seed {spec.seed}): no end after {moves} moves")
    return _record(spec, game.view(state, None), moves)


def _opened(game: Variant, spec: MatchSpec, options: Mapping[str, Any] | None) -> State:
    """The state after the opening events of a match of bots named after their seats. The
    options are checked as for a new match, so every arena match has its bound on rounds
    (`max_rounds`, issue 28 item 3: no bound is refused, InvalidOptions)."""
    players = [{"name": f"{name}-{seat}", "bot": name} for seat, name in enumerate(spec.lineup)]
    state = game.initial_state()
    full = game.validate_options(options)
    for event in game.create(players, full, spec.seed, ""):
        state = game.evolve(state, event)
    return state


def _step(
    game: Variant,
    state: State,
    spec: MatchSpec,
    choosers: Sequence[Chooser],
    advice: bool,
    observe: Callable[[Mapping[str, Any]], None] | None,
) -> tuple[State, int]:
    """One due SYSTEM move (0 moves) or one bot move (1), with advice first if asked."""
    due = game.pending(state)
    if due is not None:
        return _apply(game, state, SYSTEM, due), 0
    seat = game.to_act(state)
    if seat is None:
        raise ArenaError(f"match {spec.index}: nobody to act and nothing pending")
    given = None
    if advice:
        state, given = _advise(game, state, spec, choosers, seat, observe)
    view: Mapping[str, Any] = game.view(state, seat)
    if given is not None:
        view = with_advice(view, given)
    if observe is not None:
        observe(view)
    return _play(game, state, spec, seat, choosers[seat], view), 1


def with_advice(view: Mapping[str, Any], advice: Mapping[str, Any]) -> dict[str, Any]:
    """CAPTAIN's view as the arena hands it to CAPTAIN's bot: a copy with the ADVISOR's advice
    in `you.advice` (G1.4; the bots read it there, domain/bots/common.py `follow_advice`).
    The view itself stays as the game declares it: GinYou has no `advice`, because no API
    view shows it (a client learns advice from the AdviceGiven event)."""
    return {**view, "you": {**view["you"], "advice": advice}}


def _advise(
    game: Variant,
    state: State,
    spec: MatchSpec,
    choosers: Sequence[Chooser],
    seat: int,
    observe: Callable[[Mapping[str, Any]], None] | None,
) -> tuple[State, dict[str, Any] | None]:
    """G1.4: the ADVISOR's advice to CAPTAIN `seat`, applied; None when it has nothing."""
    spectated: Mapping[str, Any] = game.view(state, None)
    roles = spectated.get("roles") or {}
    advisor = roles.get("advisor")
    if advisor is None or roles.get("captain") != seat:
        return state, None
    view: Mapping[str, Any] = game.view(state, advisor)
    legal = view["you"]["legal_moves"]
    if not legal:
        return state, None
    if observe is not None:
        observe(view)
    move = choosers[advisor](view, legal, bot_rng(spec.seed, view["version"], advisor))
    if not move.get("move") and not move.get("text"):
        return state, None
    state = _play(game, state, spec, advisor, lambda *_: move, view)
    return state, {"text": move.get("text"), "move": move.get("move")}


def _play(
    game: Variant, state: State, spec: MatchSpec, seat: int, chooser: Chooser, view: Any
) -> State:
    """The seat chooses from its own view (what an HTTP client sees) and moves."""
    legal = view["you"]["legal_moves"]
    move = chooser(view, legal, bot_rng(spec.seed, view["version"], seat))
    try:
        return _apply(game, state, seat, move)
    except Exception as refused:
        raise ArenaError(
            f"match {spec.index} (seed {spec.seed}): bot {spec.lineup[seat]} of seat {seat} "
            f"played {move!r} at version {view['version']}: {refused}"
        ) from refused


def _record(spec: MatchSpec, final: Mapping[str, Any], moves: int) -> MatchRecord:
    """The record of a finished match, read from the public (spectator) view."""
    rounds = final["rounds"]
    return MatchRecord(
        index=spec.index,
        seed=spec.seed,
        lineup=spec.lineup,
        scores=tuple(final["scores"]),
        winners=tuple(final["winners"]),
        round_points=tuple(tuple(r["points"]) for r in rounds),
        round_winners=tuple(tuple(r["winners"]) for r in rounds),
        moves=moves,
        round_roles=tuple(_roles_of(r) for r in rounds),
    )


def _roles_of(result: Mapping[str, Any]) -> tuple[int, int, int] | None:
    """(BOX, CAPTAIN, ADVISOR) of a three-hand gin round result; None for other games."""
    if "advisor" not in result:
        return None
    return int(result["box"]), int(result["captain"]), int(result["advisor"])


def run(
    variant: str,
    lineup: Sequence[str],
    matches: int,
    seed: int,
    options: Mapping[str, Any] | None = None,
) -> tuple[MatchRecord, ...]:
    """Play a whole run in order (the CLI plays the same specs, possibly in parallel)."""
    check_lineup(variant, lineup)
    return tuple(play_match(variant, spec, options) for spec in plan(lineup, matches, seed))


# --- summaries --------------------------------------------------------------------------------


def summarise(records: Sequence[MatchRecord]) -> tuple[BotSummary, ...]:
    """A row per bot name, in order of first appearance in the line-ups."""
    names: dict[str, None] = {}
    for record in records:
        for name in record.lineup:
            names.setdefault(name, None)
    return tuple(_summary(name, records) for name in names)


@dataclass
class _Tally:
    """One bot's counts over the seats it played, built up record by record."""

    seat_matches: int = 0
    won: int = 0
    rounds: int = 0
    rounds_won: int = 0
    points: list[float] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)
    shares: list[float] = field(default_factory=list)

    def add(self, record: MatchRecord, seat: int) -> None:
        self.seat_matches += 1
        self.won += seat in record.winners
        self.scores.append(record.scores[seat])
        self.shares.append(1 / len(record.lineup))
        self.rounds += len(record.round_points)
        self.rounds_won += sum(seat in w for w in record.round_winners)
        self.points.extend(p[seat] for p in record.round_points)


def _summary(name: str, records: Sequence[MatchRecord]) -> BotSummary:
    tally = _Tally()
    for record in records:
        for seat, bot in enumerate(record.lineup):
            if bot == name:
                tally.add(record, seat)
    return BotSummary(
        bot=name,
        seat_matches=tally.seat_matches,
        matches_won=tally.won,
        match_share=wilson(tally.won, tally.seat_matches),
        even_share=_mean(tally.shares),
        rounds=tally.rounds,
        rounds_won=tally.rounds_won,
        round_share=wilson(tally.rounds_won, tally.rounds),
        points_per_round=mean_interval(tally.points),
        mean_score=_mean(tally.scores),
    )


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


@dataclass(frozen=True, slots=True)
class TeamSummary:
    """Three-hand gin: CAPTAIN's margin over BOX per round, by the name of the ADVISOR's bot."""

    advisor: str
    rounds: int
    margin: Interval  # points of CAPTAIN minus points of BOX, per round (G7.4: ADVISOR none)


def team_margins(records: Sequence[MatchRecord]) -> dict[str, list[float]]:
    """Per ADVISOR bot name (in line-up order): CAPTAIN's points minus BOX's in each round
    it advised."""
    out: dict[str, list[float]] = {}
    for record in records[:1]:
        for name in record.lineup:
            out.setdefault(name, [])
    for record in records:
        for roles, points in zip(record.round_roles, record.round_points, strict=True):
            if roles is not None:
                box, captain, advisor = roles
                out.setdefault(record.lineup[advisor], []).append(points[captain] - points[box])
    return out


def summarise_teams(records: Sequence[MatchRecord]) -> tuple[TeamSummary, ...]:
    """A row per ADVISOR bot name (empty for games without teams)."""
    return tuple(
        TeamSummary(name, len(m), mean_interval(m))
        for name, m in team_margins(records).items()
        if m
    )


def difference_interval(a: Sequence[float], b: Sequence[float]) -> Interval:
    """mean(a) - mean(b) with a Welch (normal) 95% interval; (0, 0, 0) without data."""
    if len(a) < 2 or len(b) < 2:
        return Interval(0.0, 0.0, 0.0)
    ma, mb = sum(a) / len(a), sum(b) / len(b)
    va = sum((x - ma) ** 2 for x in a) / (len(a) - 1)
    vb = sum((x - mb) ** 2 for x in b) / (len(b) - 1)
    half = Z95 * math.sqrt(va / len(a) + vb / len(b))
    return Interval(ma - mb, ma - mb - half, ma - mb + half)


def format_teams(records: Sequence[MatchRecord]) -> str:
    """The team table: CAPTAIN's margin per round by ADVISOR bot, and the first two's gap."""
    margins = {name: m for name, m in team_margins(records).items() if m}
    if not margins:
        return ""
    lines = [f"{'advisor':<10} {'rounds':>7} {'captain - box per round [95% CI]':>34}"]
    for row in summarise_teams(records):
        lines.append(f"{row.advisor:<10} {row.rounds:>7} {_num(row.margin):>34}")
    names = list(margins)
    if len(names) >= 2:
        gap = difference_interval(margins[names[0]], margins[names[1]])
        lines.append(f"{names[0]} - {names[1]} advising: {_num(gap)} points per round (Welch)")
    return "\n".join(lines)


def _pct(interval: Interval) -> str:
    return f"{100 * interval.value:5.1f}% [{100 * interval.low:4.1f}, {100 * interval.high:4.1f}]"


def _num(interval: Interval) -> str:
    return f"{interval.value:6.2f} [{interval.low:6.2f}, {interval.high:6.2f}]"


def format_table(summaries: Sequence[BotSummary]) -> str:
    """The results table: a row per bot; intervals are 95%."""
    head = (
        f"{'bot':<10} {'seats':>6} {'matches won':>12} {'share [95% CI]':>22} {'even':>6} "
        f"{'rounds won':>11} {'share [95% CI]':>22} {'points/round [95% CI]':>26} {'score':>7}"
    )
    lines = [head, "-" * len(head)]
    for s in summaries:
        lines.append(
            f"{s.bot:<10} {s.seat_matches:>6} {s.matches_won:>12} {_pct(s.match_share):>22} "
            f"{100 * s.even_share:5.1f}% {f'{s.rounds_won}/{s.rounds}':>11} "
            f"{_pct(s.round_share):>22} {_num(s.points_per_round):>26} {s.mean_score:7.1f}"
        )
    return "\n".join(lines)
