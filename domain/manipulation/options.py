"""Manipulation Rummy match options (rules.md section 5, manip rows), checked and frozen.

The options travel in the MatchCreated event as a plain dict (every key, defaults filled in)
and in the state as a frozen `ManipOptions`, never as module constants.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields

from domain.options import OptionTables, frozen, validate
from domain.shapes import JSON, json_int

_CHOICES: dict[str, tuple[str, ...]] = {
    "knock_timing": ("end_of_turn", "after_any_draw"),
    "joker_replacement_source": ("hand_or_table", "hand_only"),
    "freed_joker_placement": ("anywhere", "new_meld_from_hand"),
    "tie_handling": ("all_score_as_winners", "split_equally"),
    "round_bonus_recipients": ("others_only", "all_players"),
    "next_dealer": ("rotate_left", "round_winner", "random"),
    "final_tie": ("shared", "most_rounds_won"),
}

_LIMITS: dict[str, tuple[int, int]] = {
    "knock_limit": (0, 250),
    "initial_meld_min_points": (0, 250),
    "undercut_bonus": (0, 10_000),
    "going_out_bonus": (0, 10_000),
    # M11.1. At most ten times the standard 150: a 150-point match takes about 6 rounds
    # (`deadwood arena --bots basic,basic,basic`: 57 rounds and 3527 moves in 10 matches),
    # so 1500 is some 60 rounds, hours of play for people; a higher target only keeps a
    # bot-only match busy for its own sake (issue 11).
    "target_score": (1, 1_500),
    "game_bonus": (0, 10_000),
    "round_win_bonus": (0, 10_000),
    # Issue 28 item 3: every match ends. A round can score nothing (every hand tied, or a
    # tied knock without an undercut bonus, or `split_equally` rounding down to 0), so after
    # `max_rounds` rounds the match ends and the totals decide (M11.5). The most is the
    # default of the highest target.
    "max_rounds": (1, 300),
}


def default_max_rounds(options: Mapping[str, JSON]) -> int:
    """M11.5: a round per 5 points of the target, at least 20 (150 points: 30 rounds, five
    times the 6 a match of basic bots takes; 1500 points: 300)."""
    return max(20, json_int(options["target_score"]) // 5)


_HINTS = {
    "max_rounds": "every match ends: after this many rounds the totals decide (M11.5); "
    "the default is max(20, target_score // 5)",
}


@dataclass(frozen=True, slots=True)
class ManipOptions:
    """Every option of section 5 for manip, with the rules.md default."""

    knock_limit: int = 5  # M8.1
    knock_timing: str = "end_of_turn"  # M8.1, A-M7
    initial_meld_per_player: bool = False  # I6, A-M6
    initial_meld_from_hand_only: bool = False  # I6
    initial_meld_min_points: int = 0  # I6
    joker_replacement_source: str = "hand_or_table"  # A-M18
    freed_joker_placement: str = "anywhere"  # A-M18
    one_real_card_frees_one_joker: bool = True  # M5.6
    joker_identity_respects_copy_count: bool = False  # M5.7
    last_lap_knock: bool = False  # M9.2
    tie_handling: str = "all_score_as_winners"  # M10.1
    undercut_bonus: int = 10  # M10.4
    going_out_bonus: int = 25  # M10.4
    target_score: int = 150  # M11.1
    game_bonus: int = 100  # M11.2
    round_win_bonus: int = 25  # M11.3
    round_bonus_recipients: str = "others_only"  # M11.3, A-M14
    next_dealer: str = "rotate_left"  # M3.3
    final_tie: str = "shared"  # M11.4
    max_rounds: int | None = None  # M11.5; None only in matches recorded before it existed
    rated: bool = False  # issue 32: rated on the ladder (domain/rated.py)

    def as_dict(self) -> dict[str, JSON]:
        return asdict(self)


NAMES = tuple(f.name for f in fields(ManipOptions))
DEFAULTS = ManipOptions().as_dict()
TABLES = OptionTables.of(
    "manipulation-rummy",
    ManipOptions,
    _LIMITS,
    _CHOICES,
    _HINTS,
    {"max_rounds": default_max_rounds},
)


def validate_options(options: Mapping[str, JSON] | None) -> dict[str, JSON]:
    """The full options dict with defaults; InvalidOptions names the first bad key (section 5)."""
    return validate(TABLES, options)


def recorded_options(options: Mapping[str, JSON] | None) -> dict[str, JSON]:
    """`validate_options` of a recorded MatchCreated: `max_rounds` may be None (no bound: the
    match was recorded before it existed, domain/upcast.py)."""
    return validate(TABLES, options, recorded=True)


def options_of(options: Mapping[str, JSON]) -> ManipOptions:
    """The frozen options of a recorded (already valid) options dict; unknown keys ignored."""
    return frozen(ManipOptions, options)


LIMITS = _LIMITS
"""The accepted range of each integer option (the API's contract describes them)."""
CHOICES = _CHOICES
"""The accepted values of each string option."""
