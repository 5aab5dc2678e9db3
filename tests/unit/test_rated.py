"""Rated matches in the domain (issue 32): the create rules, and a finished match's placings."""

from __future__ import annotations

from typing import Any

import pytest

from domain.accounts import InvalidHandle, bot_account, check_new_handle, check_scopes
from domain.errors import InvalidOptions
from domain.events import Event
from domain.gin import VARIANT as GIN
from domain.manipulation import VARIANT as MANIP
from domain.rated import (
    Placing,
    RatedMatchSeeded,
    RatedSeatNotAccount,
    ranks,
    result_of,
)

KEY = "k" * 64
BOTS = [
    {"name": "e", "bot": "expert"},
    {"name": "b", "bot": "basic"},
    {"name": "r", "bot": "random"},
]


def _created(players: list[dict[str, Any]], rated: bool = True) -> Event:
    options = GIN.validate_options({"rated": rated})
    return GIN.create(players, options, None, KEY)[0]


def test_rated_is_an_option_of_both_games_and_off_by_default() -> None:
    assert GIN.validate_options({})["rated"] is False
    assert MANIP.validate_options({"rated": True})["rated"] is True
    with pytest.raises(InvalidOptions, match="rated"):
        GIN.validate_options({"rated": "yes"})


def test_a_rated_match_refuses_a_seed() -> None:
    options = MANIP.validate_options({"rated": True})
    with pytest.raises(RatedMatchSeeded) as refused:
        MANIP.create(BOTS[:2], options, 7, KEY)
    assert refused.value.code == "rated_match_seeded"


def test_a_rated_match_seats_only_accounts_and_builtin_bots() -> None:
    with pytest.raises(RatedSeatNotAccount):
        _created([*BOTS[:2], {"name": "anon"}])
    with pytest.raises(RatedSeatNotAccount, match="twice"):
        _created([*BOTS[:1], {"name": "x", "account": "ana"}, {"name": "y", "account": "ana"}])
    created = _created([*BOTS[:2], {"name": "ana", "account": "ana"}])
    recorded: Any = created.data
    assert recorded["players"][2] == {"name": "ana", "bot": None, "account": "ana"}


def test_an_unrated_match_keeps_its_players_as_before() -> None:
    created = _created([{"name": "a"}, {"name": "b"}, {"name": "c"}], rated=False)
    recorded: Any = created.data
    assert recorded["players"][0] == {"name": "a", "bot": None}


def test_a_bot_seat_cannot_name_another_account() -> None:
    with pytest.raises(InvalidOptions, match="bot's own account"):
        _created([{"name": "e", "bot": "expert", "account": "ana"}, *BOTS[1:]])


def test_handles_and_scopes_are_checked() -> None:
    assert check_new_handle("ana_99") == "ana_99"
    for bad in ("AN", "Ana", "a b", "x" * 25, "-ana", 7):
        with pytest.raises(InvalidHandle):
            check_new_handle(bad)
    with pytest.raises(InvalidHandle, match="built-in"):
        check_new_handle(bot_account("expert"))
    assert check_scopes(["play_rated", "create_matches"]) == ("create_matches", "play_rated")
    with pytest.raises(InvalidOptions, match="unknown"):
        check_scopes(["admin"])


def _finished(scores: list[int], **extra: Any) -> Event:
    return Event("MatchFinished", {"scores": scores, "winners": [0], **extra})


def test_a_finished_rated_match_is_a_free_for_all_ranked_by_final_score() -> None:
    created = _created([*BOTS[:2], {"name": "ana", "account": "ana"}])
    result = result_of("m_1", created, _finished([104, 40, 104]))
    assert result is not None
    assert result.accounts() == ("deadwood-expert", "deadwood-basic", "ana")
    assert result.ranks() == (1, 2, 1)


def test_abandoners_rank_last_whatever_their_score() -> None:
    created = _created(BOTS)
    result = result_of("m_1", created, _finished([110, 40, 30], abandoned=[0]))
    assert result is not None and result.ranks() == (3, 1, 2)
    assert ranks([Placing(0, "a", 5, True), Placing(1, "b", 1, True), Placing(2, "c", 0)]) == (
        2,
        2,
        1,
    )


def test_unrated_unfinished_and_aborted_matches_are_not_rated() -> None:
    rated, unrated = _created(BOTS), _created(BOTS, rated=False)
    assert result_of("m", unrated, _finished([1, 2, 3])) is None
    assert result_of("m", rated, Event("MatchAborted", {})) is None
    assert result_of("m", rated, Event("CardDrawn", {"seat": 0})) is None


def test_a_joined_seat_is_its_joiners_account() -> None:
    """The lobby's hook: a join event ties a seat to an account."""
    created = _created([*BOTS[:2], {"name": "ana", "account": "ana"}])
    join = Event("SeatJoined", {"seat": 2, "account": "ben"})
    result = result_of("m", created, _finished([1, 2, 3]), joins=[join])
    assert result is not None and result.accounts()[2] == "ben"
