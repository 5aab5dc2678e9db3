"""Three-handed Gin match options (rules.md section 5, gin3 rows), checked and frozen.

The options travel in the MatchCreated event as a plain dict (every key, defaults filled in)
and in the state as a frozen `GinOptions`, never as module constants.

Values the engine does not play yet are refused with InvalidOptions rather than silently
ignored: `team_scoring` other than `individual`, `opponent_layoffs` = `manual`, and any
`big_gin_bonus` other than 0 (off, G6.4).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields

from domain.memo import by_identity
from domain.options import OptionTables, frozen, validate
from domain.shapes import JSON, json_int

_CHOICES: dict[str, tuple[str, ...]] = {
    "role_draw_tiebreak": ("redraw", "suit_order"),
    "advice_window": ("always", "after_knock_only"),
    "team_scoring": ("individual",),
    "knocker_arrangement": ("player_choice_among_minimal", "auto_canonical"),
    "opponent_layoffs": ("auto_optimal",),
    "shutout_rule": ("none", "double_game_bonus", "double_score"),
}

_NOT_YET: dict[str, str] = {
    "team_scoring": "captain_and_advisor_share and chouette_settlement are not played yet",
    "opponent_layoffs": "manual layoffs are not played yet; the engine lays off optimally",
    "big_gin_bonus": "big gin is not played yet, only 0 (off) is accepted",
}

_LIMITS: dict[str, tuple[int, int]] = {
    "knock_limit": (0, 10),
    "gin_bonus": (0, 1_000),
    "undercut_bonus": (0, 1_000),
    "big_gin_bonus": (0, 0),
    # G8.1. At most ten times the standard 100: a 100-point match takes about 15 hands
    # (`deadwood arena --bots basic,basic,basic`: 306 hands and 8263 moves in 20 matches),
    # so 1000 is some 150 hands, hours of play for people; a higher target only keeps a
    # bot-only match busy for its own sake (issue 11).
    "target_score": (1, 1_000),
    "game_bonus": (0, 10_000),
    "box_bonus_per_hand": (0, 10_000),
    # Issue 28 item 3: every match ends. Nobody may knock (`knock_limit` 0 and no gin, or
    # seats that never knock) and then every hand is a draw and nobody ever scores. After
    # `max_rounds` hands (draws count) the match ends and the standing scores decide (G8.3).
    # The most is the default of the highest target: some 21,000 events of drawn hands.
    "max_rounds": (1, 500),
}


def default_max_rounds(options: Mapping[str, JSON]) -> int:
    """G8.3: half a hand per point of the target, at least 20 (100 points: 50 hands, three
    times the 15 a match of basic bots takes; 1000 points: 500)."""
    return max(20, json_int(options["target_score"]) // 2)


_HINTS = {
    "max_rounds": "every match ends: after this many hands the standing scores decide "
    "(G8.3); the default is max(20, target_score // 2)",
}


@dataclass(frozen=True, slots=True)
class GinOptions:
    """Every gin3 option of section 5, with the rules.md default."""

    role_draw_tiebreak: str = "redraw"  # G1.2, A-G17
    advisor_sees_captain_hand: bool = True  # G1.4, A-G4
    advice_enabled: bool = True  # G1.4
    advice_window: str = "always"  # A-G4
    team_scoring: str = "individual"  # G7.5, A-G5
    knock_limit: int = 10  # G6.2, A-G19
    gin_bonus: int = 25  # G7.1, A-G6
    gin_scores_opponent_deadwood: bool = True  # G7.1, A-G7
    undercut_bonus: int = 10  # G7.3, A-G8
    undercut_on_tie: bool = True  # G7.3, A-G8
    big_gin_bonus: int = 0  # G6.4 (off)
    no_discard_of_taken_card: bool = True  # G5.3, A-G12
    knocker_arrangement: str = "player_choice_among_minimal"  # G6.3, A-G11
    opponent_layoffs: str = "auto_optimal"  # G6.7
    layoff_chain: bool = True  # G6.6, A-G10
    target_score: int = 100  # G8.1
    game_bonus: int = 0  # G8.2
    box_bonus_per_hand: int = 0  # G8.2
    shutout_rule: str = "none"  # G8.2
    max_rounds: int | None = None  # G8.3; None only in matches recorded before it existed
    rated: bool = False  # issue 32: rated on the ladder (domain/rated.py)

    def as_dict(self) -> dict[str, JSON]:
        return dict(_as_dict(self))  # a fresh dict: every view may own (and change) its copy


@by_identity(256)
def _as_dict(options: GinOptions) -> dict[str, JSON]:
    """A pure memo of the options' dict by their identity (a match's options never change,
    and every state of a match shares one object): hashing 19 fields per view cost more than
    the copy."""
    return {name: getattr(options, name) for name in NAMES}


NAMES = tuple(f.name for f in fields(GinOptions))
DEFAULTS = GinOptions().as_dict()
TABLES = OptionTables.of(
    "three-hand-gin",
    GinOptions,
    _LIMITS,
    _CHOICES,
    {**_NOT_YET, **_HINTS},
    {"max_rounds": default_max_rounds},
)


def validate_options(options: Mapping[str, JSON] | None) -> dict[str, JSON]:
    """The full options dict with defaults; InvalidOptions names the first bad key (section 5)."""
    return validate(TABLES, options)


def recorded_options(options: Mapping[str, JSON] | None) -> dict[str, JSON]:
    """`validate_options` of a recorded MatchCreated: `max_rounds` may be None (no bound: the
    match was recorded before it existed, domain/upcast.py)."""
    return validate(TABLES, options, recorded=True)


def options_of(options: Mapping[str, JSON]) -> GinOptions:
    """The frozen options of a recorded (already valid) options dict; unknown keys ignored."""
    return frozen(GinOptions, options)


LIMITS = _LIMITS
"""The accepted range of each integer option (the API's contract describes them)."""
CHOICES = _CHOICES
"""The accepted values of each string option."""
