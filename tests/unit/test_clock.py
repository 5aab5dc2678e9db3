"""Clock arithmetic, exact in milliseconds (domain/clock.py, store/clock.py), and the events of
time and conduct as both games fold them (domain/conduct.py)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from domain import conduct
from domain.clock import (
    ClockOptions,
    after_move_ms,
    after_timeout_ms,
    allowance_ms,
    clock_of,
    initial_bank_ms,
    validate_clock,
    with_clock,
)
from domain.errors import InvalidOptions
from domain.events import Event
from domain.replay import fold
from domain.variants import get_variant
from store.clock import Turn, advance, opening, time_out

PER_MOVE = ClockOptions(mode="per_move", move_s=30)
FISCHER = ClockOptions(mode="fischer", initial_s=60, increment_s=5)


def test_per_move_gives_every_move_the_same_time() -> None:
    assert initial_bank_ms(PER_MOVE) == 30_000
    assert after_move_ms(PER_MOVE, 30_000, 29_999) == 30_000
    assert after_move_ms(PER_MOVE, 30_000, 1) == 30_000


def test_fischer_spends_the_move_and_adds_the_increment() -> None:
    assert initial_bank_ms(FISCHER) == 60_000
    assert after_move_ms(FISCHER, 40_000, 12_345) == 32_655


def test_fischer_bank_is_capped_at_its_initial_time() -> None:
    assert after_move_ms(FISCHER, 60_000, 1_000) == 60_000
    assert after_move_ms(FISCHER, 58_000, 1_000) == 60_000
    assert after_move_ms(FISCHER, 57_000, 1_000) == 60_000
    assert after_move_ms(FISCHER, 54_000, 1_000) == 58_000


def test_fischer_bank_never_goes_below_the_increment() -> None:
    assert after_move_ms(FISCHER, 1_000, 9_000) == 5_000
    assert after_timeout_ms(FISCHER) == 5_000
    assert after_timeout_ms(PER_MOVE) == 30_000


def test_first_move_window_replaces_the_allowance_of_a_first_move() -> None:
    window = ClockOptions(mode="per_move", move_s=30, first_move_s=15)
    assert allowance_ms(window, 30_000, first_move=True) == 15_000
    assert allowance_ms(window, 30_000, first_move=False) == 30_000
    assert allowance_ms(PER_MOVE, 30_000, first_move=True) == 30_000


def test_a_turn_runs_for_the_seat_to_act_only() -> None:
    turn = advance(FISCHER, opening(FISCHER, 2), None, 1, now_ms=1_000)
    assert (turn.seat, turn.started_ms, turn.deadline_ms) == (1, 1_000, 61_000)
    assert turn.left_ms(1, 11_000) == 50_000 and turn.left_ms(0, 11_000) == 60_000
    after = advance(FISCHER, turn, 1, 0, now_ms=21_000)  # seat 1 took 20 s
    assert after.banks == (60_000, 45_000) and after.moved == (False, True)
    assert (after.seat, after.deadline_ms) == (0, 81_000)


def test_advice_and_system_moves_leave_the_running_turn_alone() -> None:
    turn = advance(PER_MOVE, opening(PER_MOVE, 3), None, 2, now_ms=0)
    assert advance(PER_MOVE, turn, 0, 2, now_ms=5_000) == turn  # the advisor spoke
    assert advance(PER_MOVE, turn, -1, 2, now_ms=5_000) == turn  # a SYSTEM move


def test_the_same_seat_moving_again_starts_a_new_move() -> None:
    turn = advance(PER_MOVE, opening(PER_MOVE, 2), None, 0, now_ms=0)
    again = advance(PER_MOVE, turn, 0, 0, now_ms=4_000)
    assert (again.seat, again.started_ms, again.deadline_ms) == (0, 4_000, 34_000)


def test_a_timeout_counts_and_starts_the_next_turn() -> None:
    turn = advance(PER_MOVE, opening(PER_MOVE, 2), None, 0, now_ms=0)
    after = time_out(PER_MOVE, turn, 1, now_ms=30_000)
    assert after.timeouts == (1, 0) and after.moved == (True, False)
    assert (after.seat, after.deadline_ms) == (1, 60_000)
    assert Turn.decode(after.encode()) == after


def test_nobody_to_act_stops_every_clock() -> None:
    turn = advance(PER_MOVE, opening(PER_MOVE, 2), None, 0, now_ms=0)
    stopped = advance(PER_MOVE, turn, 0, None, now_ms=1_000)
    assert stopped.seat is None and stopped.deadline_ms is None
    assert not stopped.overdue(10**12)


@pytest.mark.parametrize(
    ("raw", "names"),
    [
        ({"mode": "blitz"}, "mode"),
        ({"move_s": 0}, "move_s"),
        ({"move_s": True}, "move_s"),
        ({"initial_s": 100_000}, "initial_s"),
        ({"on_timeout": "sulk"}, "on_timeout"),
        ({"speed": 1}, "speed"),
        ({"autoplay_bot": 3}, "autoplay_bot"),
    ],
)
def test_a_bad_clock_is_refused_naming_it(raw: dict[str, object], names: str) -> None:
    with pytest.raises(InvalidOptions, match=names):
        validate_clock(raw, 2)  # type: ignore[arg-type]


def test_the_clock_is_pinned_in_match_created_and_read_back() -> None:
    created = Event("MatchCreated", {"variant": "x"}, 2)
    pinned = with_clock(created, FISCHER)
    assert clock_of(pinned.data) == FISCHER
    assert with_clock(created, None) is created
    assert clock_of(created.data) is None


@pytest.mark.parametrize("variant", ["three-hand-gin", "manipulation-rummy"])
def test_conduct_events_fold_alike_in_both_games(variant: str) -> None:
    game = get_variant(variant)
    seats = 3
    roster = [{"name": f"p{s}"} for s in range(seats)]
    state = fold(game, game.create(roster, {}, 5, ""))
    seat = game.to_act(state)
    assert seat is not None
    timed = game.evolve(state, conduct.turn_timed_out(seat, 1, seats, False))
    assert game.to_act(timed) == seat and not game.is_finished(timed)
    replaced = game.evolve(timed, conduct.seat_replaced(seat, "random", "timeouts"))
    assert game.bot_seats(replaced)[seat] == "random"
    aborted = game.evolve(state, conduct.match_aborted(None))
    assert game.is_finished(aborted) and aborted.winners == ()
    claimed = fold(game, conduct.claimed((seat + 1) % seats, seat, seats, "basic"), state)
    assert not game.is_finished(claimed) and game.bot_seats(claimed)[seat] == "basic"


def test_two_seat_resignation_and_forfeit_end_the_match() -> None:
    game = get_variant("manipulation-rummy")
    state = fold(game, game.create([{"name": "a"}, {"name": "b"}], {}, 5, ""))
    resigned = fold(game, conduct.resigned(0, 2, "basic"), state)
    assert game.is_finished(resigned) and resigned.winners == (1,)
    forfeit = game.evolve(state, conduct.turn_timed_out(1, 1, 2, True))
    assert game.is_finished(forfeit) and forfeit.winners == (0,)


def test_check_refuses_a_timeout_of_a_seat_not_to_act() -> None:
    assert conduct.check(conduct.turn_timed_out(1, 1, 2, False), 2, to_act=0) is not None
    assert conduct.check(conduct.turn_timed_out(0, 1, 2, False), 2, to_act=0) is None
    assert conduct.check(conduct.seat_replaced(7, "basic", "timeouts"), 2, to_act=0)


# --- speed tricks (bench/README.md): the direct clock encoding and `advance`'s shortcut ---


def _turns() -> st.SearchStrategy[Turn]:
    def build(seats: int) -> st.SearchStrategy[Turn]:
        ints = st.integers(0, 10**13)
        return st.builds(
            Turn,
            st.tuples(*[ints] * seats),
            st.tuples(*[st.integers(0, 99)] * seats),
            st.tuples(*[st.booleans()] * seats),
            st.one_of(st.none(), st.integers(0, seats - 1)),
            ints,
            st.one_of(st.none(), ints),
            st.one_of(st.none(), st.integers(0, 10**6)),
            st.one_of(st.none(), ints),
        )

    return st.integers(2, 5).flatmap(build)


@given(_turns())
def test_the_direct_clock_encoding_is_the_plain_json(turn: Turn) -> None:
    assert turn.encode() == turn.encode_plain()
    assert Turn.decode(turn.encode()) == turn


def _advance_plain(
    clock: ClockOptions, turn: Turn, mover: int | None, to_act: int | None, now_ms: int
) -> Turn:
    """`advance` before its shortcut: the mover's turn ended, then `_start`."""
    if mover is not None and mover == turn.seat:
        spent = now_ms - turn.started_ms
        banks = list(turn.banks)
        banks[mover] = after_move_ms(clock, turn.banks[mover], spent)
        moved = list(turn.moved)
        moved[mover] = True
        turn = replace(turn, banks=tuple(banks), moved=tuple(moved), seat=None)
    if to_act is None or to_act < 0:
        return replace(turn, seat=None, deadline_ms=None)
    if to_act == turn.seat:
        return turn
    allowed = allowance_ms(clock, turn.banks[to_act], not turn.moved[to_act])
    return replace(turn, seat=to_act, started_ms=now_ms, deadline_ms=now_ms + allowed)


@given(
    _turns(),
    st.sampled_from(
        [
            ClockOptions(mode="per_move", move_s=30),
            ClockOptions(mode="fischer", initial_s=300, increment_s=5, first_move_s=20),
        ]
    ),
    st.integers(-1, 5),
    st.one_of(st.none(), st.integers(-1, 4)),
    st.integers(0, 10**13),
)
def test_advance_is_its_plain_code(
    turn: Turn, clock: ClockOptions, mover: int, to_act: int | None, now_ms: int
) -> None:
    seats = len(turn.banks)
    assume(mover < seats and (to_act is None or to_act < seats))
    assert advance(clock, turn, mover, to_act, now_ms) == _advance_plain(
        clock, turn, mover, to_act, now_ms
    )


def test_a_deadline_job_id_is_parsed_back() -> None:
    from store.clock import deadline_job_id, parse_deadline_job_id

    for match_id in ("m_x", "m_a-b_c-d", "m_-7"):
        assert parse_deadline_job_id(deadline_job_id(match_id, 12)) == (match_id, 12, False)
        assert parse_deadline_job_id(deadline_job_id(match_id, 3) + "-again") == (match_id, 3, True)
    assert parse_deadline_job_id("score-m_x-1") is None
    assert parse_deadline_job_id("deadline-m_x-v") is None
