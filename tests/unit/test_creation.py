"""Creating a match, checked once for both games: options (section 5), players (G1.1, M1.1),
the seed and deal key."""

from __future__ import annotations

from typing import Any

import pytest

from domain import gin
from domain import manipulation as manip
from domain.errors import InvalidOptions
from domain.players import MAX_NAME
from domain.variants import get_variant

GAMES = ("three-hand-gin", "manipulation-rummy")


def _players(n: int) -> list[dict[str, Any]]:
    return [{"name": f"p{i}", "bot": None} for i in range(n)]


def _seats(name: str) -> int:
    return get_variant(name).min_players


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"nope": 1}, "option 'nope' is unknown for {name}: expected one of "),
        ({"knock_limit": True}, "option 'knock_limit' must be an integer 0.."),
        ({"knock_limit": -1}, "option 'knock_limit' must be an integer 0.."),
        ({"target_score": "100"}, "option 'target_score' must be an integer 1.."),
    ],
)
def test_section_5_both_games_refuse_bad_options_with_one_message(
    name: str, options: dict[str, Any], message: str
) -> None:
    with pytest.raises(InvalidOptions) as refused:
        get_variant(name).validate_options(options)
    assert str(refused.value).startswith(message.format(name=name))


def test_section_5_choices_and_booleans_name_the_key_and_the_not_yet_hint() -> None:
    with pytest.raises(InvalidOptions, match=r"'shutout_rule' must be one of none, "):
        gin.validate_options({"shutout_rule": "triple"})
    with pytest.raises(InvalidOptions, match=r"not played yet"):
        gin.validate_options({"team_scoring": "chouette_settlement"})
    with pytest.raises(InvalidOptions, match=r"'last_lap_knock' must be true or false, not 1$"):
        manip.validate_options({"last_lap_knock": 1})
    with pytest.raises(InvalidOptions, match="options must be an object"):
        manip.validate_options(["knock_limit"])  # type: ignore[arg-type]


@pytest.mark.parametrize("name", GAMES)
def test_section_5_defaults_fill_every_option_and_given_values_stay(name: str) -> None:
    variant = get_variant(name)
    full = variant.validate_options({"target_score": 77})
    derived = {"max_rounds": full["max_rounds"]}  # follows the target (issue 28 item 3)
    assert full == {**variant.validate_options(None), "target_score": 77, **derived}
    assert full["max_rounds"] == {"three-hand-gin": 38, "manipulation-rummy": 20}[name]
    assert variant.validate_options({"max_rounds": 9})["max_rounds"] == 9


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize(
    ("player", "message"),
    [
        ("ana", "player 1 must be an object with a name"),
        ({"name": ""}, "player 1 needs a name of 1..40 characters"),
        ({"name": "x" * (MAX_NAME + 1)}, "player 1 needs a name of 1..40 characters"),
        ({"name": 7}, "player 1 needs a name of 1..40 characters"),
        ({"name": "bo", "bot": 3}, "player 1: bot must be a bot name or null"),
    ],
)
def test_g1_1_m1_1_both_games_check_each_player_alike(name: str, player: Any, message: str) -> None:
    players: list[Any] = _players(_seats(name))
    players[1] = player
    with pytest.raises(InvalidOptions, match=f"^{message}$"):
        get_variant(name).create(players, {}, 1, "")


def test_g1_1_m1_1_the_count_names_the_rule_of_each_game() -> None:
    with pytest.raises(InvalidOptions, match=r"^three-hand-gin needs exactly 3 players, not 2"):
        gin.create(_players(2), {}, 1, "")
    with pytest.raises(InvalidOptions, match=r"^manipulation-rummy needs 2 to 5 players, not 6 "):
        manip.create(_players(6), {}, 1, "")
    with pytest.raises(InvalidOptions, match="players must be a list"):
        manip.create("ana", {}, 1, "")  # type: ignore[arg-type]


@pytest.mark.parametrize("name", GAMES)
def test_seed_and_secret_are_checked_alike_and_recorded(name: str) -> None:
    variant = get_variant(name)
    with pytest.raises(InvalidOptions, match="seed must be an integer or null, not True"):
        variant.create(_players(_seats(name)), {}, True, "")
    with pytest.raises(InvalidOptions, match="an unseeded match needs a secret deal key"):
        variant.create(_players(_seats(name)), {}, None, "")
    created = variant.create(_players(_seats(name)), {}, None, "ab" * 32)[0]
    assert created.data["deal_key"] == "ab" * 32
    assert (created.data["seeded"], created.data["seed"], created.data["variant"]) == (
        False,
        None,
        name,
    )
