"""Built-in bots, found by variant and name (`GET /v1/bots`), and the hint (`GET .../hint`).

A bot is a pure function `choose(view, legal_moves, rng) -> move` of one seat's view (exactly
the dict `variant.view(state, seat)` returns, what an HTTP client of that seat sees), that
seat's legal moves and a `random.Random` seeded by the caller from the match and version, so
a rerun picks the same move and a bot cannot cheat: it never receives the state. Each bot
also has `explain(view, legal_moves, rng) -> (move, reason)`, the same move with a one-line
reason, for hints.

A bot is only asked to move when its seat has a legal move; with none it raises ValueError.
The three-handed gin ADVISOR's only move is `advise` (G1.3, G1.4), and since the advisor is
never the seat to act, no worker asks for it; `expert` answers it with advice for the
captain, the other bots with an empty `advise`.

The modules: random.py (the baseline), common.py (the shared plumbing and the types a bot
reads: `ViewJSON`, `MoveJSON`), fallback.py (the move the service makes for a seat: a timed-out
turn's auto move, a failing bot seat's stand-in), gin/ and manipulation/ (each game's bots and
their evaluation).

`BOTS[variant][name]` is the registry; `choose(variant, name, view, legal_moves, rng)` plays;
`best_bot(variant)` is the strongest bot's name; `hint(variant, view, legal_moves, rng)` is
its move and reason.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from random import Random

from domain.bots import random as random_bot
from domain.bots.common import Legal, Move, ViewJSON
from domain.bots.gin import basic as gin_basic
from domain.bots.gin import coach as gin_coach
from domain.bots.gin import expert as gin_expert
from domain.bots.manipulation import basic as manip_basic
from domain.bots.manipulation import expert as manip_expert
from domain.errors import InvalidOptions

Choose = Callable[[ViewJSON, Legal, Random], Move]
Explain = Callable[[ViewJSON, Legal, Random], tuple[Move, str]]


@dataclass(frozen=True)
class Bot:
    name: str
    variant: str
    description: str
    choose: Choose
    explain: Explain


GIN = "three-hand-gin"
MANIPULATION = "manipulation-rummy"
VARIANTS = (GIN, MANIPULATION)
BEST = "expert"

_RANDOM = "plays a uniformly random legal move"

BOTS: dict[str, dict[str, Bot]] = {
    GIN: {
        "random": Bot("random", GIN, _RANDOM, random_bot.choose, random_bot.explain),
        "basic": Bot(
            "basic",
            GIN,
            "greedy: takes a card only if it lowers its deadwood, discards to the least "
            "deadwood, knocks at the first chance",
            gin_basic.choose,
            gin_basic.explain,
        ),
        "expert": Bot(
            "expert",
            GIN,
            "weighs hand potential over the unseen cards, samples the opponent's hand from "
            "the public discard pile and picks to avoid feeding it, sheds deadwood when a knock "
            "is near, and knocks when the expected points beat playing on one more turn",
            gin_expert.choose,
            gin_expert.explain,
        ),
        "coach": Bot(
            "coach",
            GIN,
            "plays as basic; as ADVISOR it gives the expert's advice, which a basic CAPTAIN "
            "follows (G1.4): the arena's measure of the advice",
            gin_coach.choose,
            gin_coach.explain,
        ),
    },
    MANIPULATION: {
        "random": Bot("random", MANIPULATION, _RANDOM, random_bot.choose, random_bot.explain),
        "basic": Bot(
            "basic",
            MANIPULATION,
            "greedy: melds the listed move that sheds the most points, knocks at the first chance",
            manip_basic.choose,
            manip_basic.explain,
        ),
        "expert": Bot(
            "expert",
            MANIPULATION,
            manip_expert.DESCRIPTION,
            manip_expert.choose,
            manip_expert.explain,
        ),
    },
}


def get_bot(variant: str, name: str) -> Bot:
    """The bot `name` of `variant`; InvalidOptions names the unknown bot."""
    bots = BOTS.get(variant, {})
    if name not in bots:
        known = ", ".join(sorted(bots)) or "none"
        raise InvalidOptions(f"bot {name!r} is unknown for {variant}: expected one of {known}")
    return bots[name]


def choose(
    variant: str,
    name: str,
    view: ViewJSON,
    legal_moves: Legal,
    rng: Random,
) -> Move:
    """The move bot `name` makes from one seat's view and legal moves."""
    return get_bot(variant, name).choose(view, legal_moves, rng)


def explain(
    variant: str,
    name: str,
    view: ViewJSON,
    legal_moves: Legal,
    rng: Random,
) -> tuple[Move, str]:
    """The move bot `name` makes, with its one-line reason."""
    return get_bot(variant, name).explain(view, legal_moves, rng)


def best_bot(variant: str) -> str:
    """The name of the strongest built-in bot of `variant` (the hint's bot)."""
    get_bot(variant, BEST)
    return BEST


def hint(
    variant: str,
    view: ViewJSON,
    legal_moves: Legal,
    rng: Random,
) -> tuple[Move, str]:
    """GET /v1/matches/{id}/hint: the strongest bot's move for this view, and why."""
    return explain(variant, best_bot(variant), view, legal_moves, rng)


def catalogue() -> list[dict[str, str]]:
    """`[{"name", "variant", "description"}]` for every bot (GET /v1/bots)."""
    return [
        {"name": bot.name, "variant": bot.variant, "description": bot.description}
        for bots in BOTS.values()
        for bot in bots.values()
    ]
