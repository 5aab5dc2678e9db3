"""Rated matches in the domain (issue 32): the create rules, and a finished match's placings."""

from __future__ import annotations

from typing import Any

import pytest

from domain import conduct
from domain.accounts import InvalidHandle, bot_account, check_new_handle, check_scopes
from domain.clock import ClockOptions
from domain.errors import InvalidOptions
from domain.events import Event
from domain.gin import VARIANT as GIN
from domain.manipulation import VARIANT as MANIP
from domain.rated import (
    BETWEEN,
    Placing,
    RatedMatchNeedsClock,
    RatedMatchSeeded,
    RatedSeatNotAccount,
    ranks,
    result_of,
)

KEY = "k" * 64
CLOCK = ClockOptions()
BOTS = [
    {"name": "e", "bot": "expert"},
    {"name": "b", "bot": "basic"},
    {"name": "r", "bot": "random"},
]


def _created(players: list[dict[str, Any]], rated: bool = True) -> Event:
    options = GIN.validate_options({"rated": rated})
    return GIN.create(players, options, None, KEY, CLOCK if rated else None)[0]


def test_rated_is_an_option_of_both_games_and_off_by_default() -> None:
    assert GIN.validate_options({})["rated"] is False
    assert MANIP.validate_options({"rated": True})["rated"] is True
    with pytest.raises(InvalidOptions, match="rated"):
        GIN.validate_options({"rated": "yes"})


def test_a_rated_match_refuses_a_seed() -> None:
    options = MANIP.validate_options({"rated": True})
    with pytest.raises(RatedMatchSeeded) as refused:
        MANIP.create(BOTS[:2], options, 7, KEY, CLOCK)
    assert refused.value.code == "rated_match_seeded"


def test_a_rated_match_needs_a_clock_and_pins_it() -> None:
    options = MANIP.validate_options({"rated": True})
    with pytest.raises(RatedMatchNeedsClock) as refused:
        MANIP.create(BOTS[:2], options, None, KEY)
    assert refused.value.code == "rated_match_needs_clock"
    assert "clock" in str(refused.value) and "rated" in str(refused.value)
    created = MANIP.create(BOTS[:2], options, None, KEY, CLOCK)[0]
    assert created.data["clock"] == dict(CLOCK.to_json())
    unrated = MANIP.validate_options({})
    assert "clock" not in MANIP.create(BOTS[:2], unrated, None, KEY)[0].data


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


def _two() -> Event:
    players = [{"name": "ana", "account": "ana"}, {"name": "ben", "account": "ben"}]
    return MANIP.create(players, MANIP.validate_options({"rated": True}), None, KEY, CLOCK)[0]


def test_a_match_ended_by_conduct_is_rated_with_the_seat_that_lost_by_it_last() -> None:
    """SeatResigned, VictoryClaimed and a TurnTimedOut forfeit end a two-seat match: rated,
    the resigner, the seat claimed against and the seat out of time rank last."""
    created = _two()
    for ending, last in (
        (conduct.resigned(0, 2, "basic")[0], 0),
        (conduct.claimed(1, 0, 2, "basic")[0], 0),
        (conduct.turn_timed_out(1, 1, 2, forfeit=True), 1),
    ):
        result = result_of("m", created, ending)
        assert result is not None, ending
        assert result.accounts() == ("ana", "ben")
        assert result.ranks()[last] == 2 and result.ranks()[1 - last] == 1
        assert [p.abandoned for p in result.placings] == [s == last for s in range(2)]


def test_conduct_that_does_not_end_the_match_and_aborts_are_not_rated() -> None:
    created = _two()
    assert result_of("m", created, conduct.match_aborted(0)) is None
    assert result_of("m", created, conduct.match_aborted(None)) is None
    assert result_of("m", created, conduct.turn_timed_out(0, 1, 2, forfeit=False)) is None
    three = _created(BOTS)
    assert result_of("m", three, conduct.resigned(0, 3, "basic")[0]) is None


def test_seats_replaced_by_a_bot_rank_last_when_the_match_plays_on_to_its_end() -> None:
    """A resignation or timeouts in a three-seat match put a bot in the seat; the match
    finishes by its scores, and the replaced seats rank last whatever they scored."""
    created = _created([*BOTS[:2], {"name": "ana", "account": "ana"}])
    between = [
        Event("CardDrawn", {"seat": 2}),
        *conduct.resigned(2, 3, "basic"),
        conduct.seat_replaced(0, "basic", "timeouts"),
    ]
    result = result_of("m", created, _finished([150, 20, 160]), between=between)
    assert result is not None
    assert result.accounts() == ("deadwood-expert", "deadwood-basic", "ana")
    assert result.ranks() == (2, 1, 2)
    assert result_of("m", created, _finished([150, 20, 160])) is not None
    assert BETWEEN == ("SeatReplacedByBot", "SeatJoined")  # joins: the lobby's seats
