"""Manipulation Rummy scoring: M10 (every case of the M10.1 table), M11, examples E8-E14."""

from __future__ import annotations

import pytest

from domain.manipulation.options import ManipOptions
from domain.manipulation.scoring import (
    EXHAUSTED,
    KNOCK,
    OUT,
    final_winners,
    game_end,
    round_points,
    round_winners,
)

DEFAULT = ManipOptions()


def score(
    outcome: str, counts: list[int], ender: int | None, options: ManipOptions = DEFAULT
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    winners = round_winners(outcome, counts, ender)
    knocker = ender if outcome == KNOCK else None
    return winners, round_points(outcome, counts, winners, knocker, options)


# ---------------------------------------------------------------- E8-E12 (M10)


def test_e8_two_players_knocker_wins_the_difference_m10_4() -> None:
    assert score(KNOCK, [4, 12], 0) == ((0,), (8, 0))


def test_e8_two_players_undercut_gets_difference_plus_10_m10_1_case_2() -> None:
    assert score(KNOCK, [4, 3], 0) == ((1,), (0, 11))


def test_e8_two_players_tie_with_knocker_gives_the_other_10_m10_1_case_3() -> None:
    assert score(KNOCK, [4, 4], 0) == ((1,), (0, 10))


def test_e9_knocker_ties_two_others_m10_1_case_4_m10_5() -> None:
    winners, points = score(KNOCK, [5, 5, 5, 20], 0)
    assert winners == (1, 2)  # a and b, each credited with a round won (M10.5)
    assert points == (0, 25, 25, 0)


def test_e10_two_non_knockers_tie_below_the_knocker_m10_1_case_6() -> None:
    winners, points = score(KNOCK, [5, 3, 3, 12], 0)
    assert winners == (1, 2) and points == (0, 21, 21, 0)


def test_e11_going_out_wins_the_sum_plus_25_m10_2() -> None:
    assert score(OUT, [0, 14, 30], 0) == ((0,), (69, 0, 0))


def test_e12_stock_exhausted_tie_both_win_without_bonus_m10_3() -> None:
    assert score(EXHAUSTED, [6, 6, 15], None) == ((0, 1), (9, 9, 0))


# ---------------------------------------------------------------- the M10.1 table


@pytest.mark.parametrize(
    ("case", "counts", "winners", "points"),
    [
        (1, [2, 9, 7], (0,), (12, 0, 0)),
        (2, [4, 9, 1], (2,), (0, 0, 3 + 8 + 10)),
        (3, [4, 4, 9], (1,), (0, 5 + 10, 0)),
        (4, [4, 4, 4, 9], (1, 2), (0, 15, 15, 0)),
        (5, [4, 4, 4, 4], (1, 2, 3), (0, 10, 10, 10)),
        (5, [4, 4, 4, 4, 4], (1, 2, 3, 4), (0, 10, 10, 10, 10)),
        (6, [5, 2, 2, 2, 8], (1, 2, 3), (0, 19, 19, 19, 0)),
    ],
)
def test_m10_1_knock_cases_1_to_6(
    case: int, counts: list[int], winners: tuple[int, ...], points: tuple[int, ...]
) -> None:
    assert score(KNOCK, counts, 0) == (winners, points), f"case {case}"


def test_m10_4_nobody_scores_below_zero_and_losers_score_zero() -> None:
    for counts in ([5, 3, 40], [1, 2, 3, 4, 5], [25, 0, 25]):
        _, points = score(KNOCK, counts, 0)
        assert all(p >= 0 for p in points)
        assert sum(1 for p in points if p) <= len(counts) - 1


def test_m10_4_bonus_options() -> None:
    options = ManipOptions(undercut_bonus=25, going_out_bonus=50)
    assert score(KNOCK, [4, 3], 0, options)[1] == (0, 26)
    assert score(OUT, [0, 10], 0, options)[1] == (60, 0)


def test_m10_1_tie_handling_split_equally() -> None:
    """A-M10 option: the winners share what one winner gets (rounded down)."""
    options = ManipOptions(tie_handling="split_equally")
    assert score(KNOCK, [5, 3, 3, 12], 0, options)[1] == (0, 10, 10, 0)
    assert score(EXHAUSTED, [6, 6, 15], None, options)[1] == (4, 4, 0)
    assert score(KNOCK, [4, 12], 0, options)[1] == (8, 0)


def test_m10_3_exhausted_single_lowest_wins() -> None:
    assert score(EXHAUSTED, [10, 3, 7], None) == ((1,), (0, 11, 0))


# ---------------------------------------------------------------- M11, E13, E14


def test_m11_1_nobody_at_the_target_means_no_end() -> None:
    assert game_end([149, 20, 0], [3, 1, 0], DEFAULT) is None


def test_m11_1_only_round_scores_trigger_the_end_a_m16() -> None:
    """140 + 4 rounds x 25 would pass 150, but bonuses never end the game."""
    assert game_end([140, 0], [4, 0], DEFAULT) is None


def test_e13_others_only_m11_2_m11_3() -> None:
    end = game_end([162, 120, 80], [5, 4, 2], DEFAULT)
    assert end is not None
    assert end.scores == (262, 220, 130) and end.winners == (0,)
    assert end.bonuses == (100, 100, 50)


def test_e13_all_players() -> None:
    end = game_end([162, 120, 80], [5, 4, 2], ManipOptions(round_bonus_recipients="all_players"))
    assert end is not None
    assert end.scores == (387, 220, 130) and end.winners == (0,)


def test_e14_others_only_b_wins() -> None:
    end = game_end([150, 140], [4, 5], DEFAULT)
    assert end is not None
    assert end.scores == (250, 265) and end.winners == (1,)


def test_e14_all_players_a_wins() -> None:
    end = game_end([150, 140], [4, 5], ManipOptions(round_bonus_recipients="all_players"))
    assert end is not None
    assert end.scores == (350, 265) and end.winners == (0,)


def test_m11_1_several_players_may_pass_the_target_together() -> None:
    end = game_end([160, 155, 10], [3, 3, 1], DEFAULT)
    assert end is not None
    assert end.scores == (260, 255, 35) and end.winners == (0,)


def test_m11_4_final_tie_shared_or_most_rounds_won() -> None:
    assert final_winners([200, 200, 50], [3, 4, 1], DEFAULT) == (0, 1)
    assert final_winners([200, 200, 50], [3, 4, 1], ManipOptions(final_tie="most_rounds_won")) == (
        1,
    )
    same = ManipOptions(final_tie="most_rounds_won")
    assert final_winners([200, 200], [3, 3], same) == (0, 1)


def test_m11_bonus_options() -> None:
    options = ManipOptions(target_score=40, game_bonus=7, round_win_bonus=3)
    end = game_end([41, 10], [2, 1], options)
    assert end is not None and end.scores == (48, 13)
