"""The rating model (issue 32): OpenSkill's Plackett-Luce, every match a free-for-all.

Each seat of a finished rated match is a team of one, ranked by final score (domain/rated.py:
ties share a rank, abandoners rank last), so a three-hand gin match is a three-player
free-for-all and never a box against a team. The model is openskill's `PlackettLuce` with its
defaults (mu 25, sigma 25/3, beta 25/6, tau 25/300), pinned with the package version in
pyproject.toml and requirements.lock: a rebuild must compute the very same floats. Its
dynamics (tau: 25/300 added to sigma before each match, so a rating can follow a player who
improves) hold sigma near 1.6 once an account has played a few hundred three-seat matches,
and sigma shrinks slowly before that (about 2.6 after 120 three-seat matches, 2.0 after 240):
two accounts whose results differ a little (one places above the other in 55% of their
matches) keep overlapping intervals (tests/integration/store/test_ladder_arena.py).

A `Skill` is (mu, sigma, games). The ladder orders by the conservative rating mu - 3 sigma,
shows mu +- 2 sigma, and marks a rating provisional while sigma is above PROVISIONAL_SIGMA
(a new account's 8.33 falls below it after about 15 three-seat matches against settled
opponents).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce

from domain.rated import RatedResult

MODEL = PlackettLuce()
PROVISIONAL_SIGMA = 3.0
"""A rating is provisional while its sigma is above this (the initial sigma is 25/3)."""


@dataclass(frozen=True, slots=True)
class Skill:
    mu: float
    sigma: float
    games: int = 0
    bot: bool = False  # the account's kind, kept beside the rating for the ladder's rows

    @property
    def conservative(self) -> float:
        return self.mu - 3 * self.sigma

    @property
    def provisional(self) -> bool:
        return self.sigma > PROVISIONAL_SIGMA

    def dumps(self) -> str:
        """The stored form: floats as repr, so a load gives back the same bits."""
        body = {"mu": self.mu, "sigma": self.sigma, "games": self.games, "bot": self.bot}
        return json.dumps(body, separators=(",", ":"))

    @classmethod
    def loads(cls, raw: bytes | str) -> Skill:
        data = json.loads(raw)
        return cls(float(data["mu"]), float(data["sigma"]), int(data["games"]), bool(data["bot"]))

    def as_json(self) -> dict[str, Any]:
        """The rating as the API shows it."""
        return {
            "mu": self.mu,
            "sigma": self.sigma,
            "rating": self.conservative,
            "low": self.mu - 2 * self.sigma,
            "high": self.mu + 2 * self.sigma,
            "games": self.games,
            "provisional": self.provisional,
        }


def initial(bot: bool = False) -> Skill:
    return Skill(MODEL.mu, MODEL.sigma, 0, bot)


def rate(result: RatedResult, skills: Mapping[str, Skill]) -> dict[str, Skill]:
    """Each seat's account's new skill after `result` (`skills`: their skills before)."""
    accounts = result.accounts()
    teams = [[MODEL.rating(mu=skills[a].mu, sigma=skills[a].sigma)] for a in accounts]
    rated = MODEL.rate(teams, ranks=list(result.ranks()))
    return {
        account: Skill(team[0].mu, team[0].sigma, skills[account].games + 1, skills[account].bot)
        for account, team in zip(accounts, rated, strict=True)
    }


def win_probability(a: Skill, b: Skill, others: Sequence[Skill] = ()) -> float:
    """The model's chance that `a` places above `b` in a match of `a`, `b` and `others`.

    Plackett-Luce's own likelihood of that order, exp(mu_a / c) / (exp(mu_a / c) +
    exp(mu_b / c)), with c = sqrt(sum of sigma^2 + beta^2 over every seat of the match): the
    c that `rate` learns from (openskill's `PlackettLuce._c`), and by Luce's choice axiom the
    chance of the pair's order in a ranking of all the seats, whoever else sits (so in a
    three-seat gin match pass the third seat in `others`; a two-seat match has none).
    openskill's `predict_win` reads the same numbers as Thurstone-Mosteller (a normal CDF
    over the pair alone), more extreme than the model that made them."""
    seats = (a, b, *others)
    c = math.sqrt(sum(s.sigma**2 + MODEL.beta**2 for s in seats))
    return 1 / (1 + math.exp((b.mu - a.mu) / c))
