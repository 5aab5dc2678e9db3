"""Manipulation Rummy scoring: a round (M10) and the end of the game (M11), as pure functions.

`score_round` turns them into events: RoundScored, then the next deal or MatchFinished.

Counts are the values of the hands as they stand (M1.4, M5.8: a joker in hand counts 25).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from domain.cards import Card, codes
from domain.events import Event
from domain.manipulation.deal import deal_event
from domain.manipulation.options import ManipOptions
from domain.manipulation.shapes import ManipulationMatchFinishedData
from domain.manipulation.state import State, evolve
from domain.shapes import as_json, json_int, json_list
from domain.shuffle import DealRng, salt_key

KNOCK = "knock"
OUT = "out"
EXHAUSTED = "exhausted"


def hand_points(hand: Iterable[Card]) -> int:
    """The count of a hand (M1.4): joker 25, J Q K 10, pips face value, ace 1."""
    return sum(card.value for card in hand)


def round_winners(outcome: str, counts: Sequence[int], ender: int | None) -> tuple[int, ...]:
    """W of M10.1-M10.3; `ender` is the knocker (knock) or the player who went out (out)."""
    low = min(counts)
    if outcome == OUT:
        assert ender is not None
        return (ender,)  # M10.2
    if outcome == KNOCK:
        assert ender is not None
        others = [p for p in range(len(counts)) if p != ender]
        if all(counts[ender] < counts[p] for p in others):
            return (ender,)  # M10.1 case 1
        best = min(counts[p] for p in others)
        return tuple(p for p in others if counts[p] == best)  # M10.1 cases 2-6
    return tuple(p for p, c in enumerate(counts) if c == low)  # M10.3


def round_points(
    outcome: str,
    counts: Sequence[int],
    winners: Sequence[int],
    knocker: int | None,
    options: ManipOptions,
) -> tuple[int, ...]:
    """Points per seat (M10.4); non-winners score 0.

    Each winner gets the sum over every other player of the difference of counts, plus the
    undercut bonus (a non-knocking winner of a knocked round) or the going-out bonus. With
    `tie_handling = split_equally` (an option no source supports, A-M10) the winners share
    what one winner would get: each receives it divided by the number of winners, rounded down.
    """
    points = [0] * len(counts)
    for w in winners:
        gain = _winner_gain(outcome, counts, w, knocker, options)
        if options.tie_handling == "split_equally":
            gain //= len(winners)
        points[w] = gain
    return tuple(points)


def _winner_gain(
    outcome: str, counts: Sequence[int], w: int, knocker: int | None, options: ManipOptions
) -> int:
    """M10.4: what winner `w` gets from every other hand, plus the undercut or going-out bonus."""
    gain = sum(counts[p] - counts[w] for p in range(len(counts)) if p != w)
    if outcome == KNOCK and w != knocker:
        gain += options.undercut_bonus
    if outcome == OUT:
        gain += options.going_out_bonus
    return gain


@dataclass(frozen=True, slots=True)
class GameEnd:
    """The end of the game (M11): totals after bonuses, the bonuses, and the winners."""

    scores: tuple[int, ...]
    bonuses: tuple[int, ...]
    winners: tuple[int, ...]


def game_end(
    scores: Sequence[int], rounds_won: Sequence[int], options: ManipOptions, rounds: int = 0
) -> GameEnd | None:
    """None while nobody has reached the target with round scores alone (M11.1, A-M16) and
    fewer than `max_rounds` rounds (`rounds`) are played (M11.5: then the game ends all the
    same, nobody gets the M11.2 bonus, the M11.3 bonuses are paid and the totals decide)."""
    reached = [s >= options.target_score for s in scores]
    if not any(reached) and not rounds_exhausted(rounds, options):
        return None
    bonuses = []
    for seat, won in enumerate(rounds_won):
        bonus = options.game_bonus if reached[seat] else 0  # M11.2
        if not reached[seat] or options.round_bonus_recipients == "all_players":
            bonus += options.round_win_bonus * won  # M11.3
        bonuses.append(bonus)
    totals = tuple(s + b for s, b in zip(scores, bonuses, strict=True))
    return GameEnd(totals, tuple(bonuses), final_winners(totals, rounds_won, options))


def rounds_exhausted(rounds: int, options: ManipOptions) -> bool:
    """M11.5: `max_rounds` rounds played (never for a match recorded before the option: None)."""
    return options.max_rounds is not None and rounds >= options.max_rounds


def final_winners(
    totals: Sequence[int], rounds_won: Sequence[int], options: ManipOptions
) -> tuple[int, ...]:
    """The highest total wins; a tie is shared, or broken by rounds won (M11.4, A-M15)."""
    top = max(totals)
    tied = [p for p, t in enumerate(totals) if t == top]
    if options.final_tie == "most_rounds_won" and len(tied) > 1:
        most = max(rounds_won[p] for p in tied)
        tied = [p for p in tied if rounds_won[p] == most]
    return tuple(tied)


# ---------------------------------------------------------------- the round's events (M10, M11)


def score_round(state: State) -> tuple[Event, ...]:
    """RoundScored, then the next RoundDealt or MatchFinished (M10, M11)."""
    scored = _round_scored(state)
    after = evolve(state, scored)
    end = game_end(after.scores, after.rounds_won, state.options, len(after.results))
    if end is not None:
        return scored, _match_finished(end, after)
    assert state.deal_key is not None and state.dealer is not None
    dealer = next_dealer(state, list(map(json_int, json_list(scored.data["winners"]))))
    salts = salt_key(state.deal_key, state.salt_key)
    return scored, deal_event(state.deal_key, state.round + 1, state.n, dealer, salts)


def _round_scored(state: State) -> Event:
    """M10: every hand's points, the round's winners and what each seat scores."""
    assert state.ending is not None
    ending = state.ending
    counts = tuple(hand_points(h) for h in state.hands)
    winners = round_winners(ending.outcome, counts, ending.ender)
    knocker = ending.ender if ending.outcome == "knock" else None
    points = round_points(ending.outcome, counts, winners, knocker, state.options)
    return Event(
        "RoundScored",
        {
            "round": state.round,
            "outcome": ending.outcome,
            "hands": [codes(h) for h in state.hands],
            "points": list(points),
            "winners": list(winners),
            "knocker": knocker,
            "hand_points": list(counts),
        },
    )


def _match_finished(end: GameEnd, after: State) -> Event:
    """M11: the final scores with their bonuses, after the round that reached the target
    (or, M11.5, the last of `max_rounds`: then `ended_by: max_rounds`)."""
    data: ManipulationMatchFinishedData = {
        "scores": list(end.scores),
        "winners": list(end.winners),
        "round_scores": list(after.scores),
        "bonuses": list(end.bonuses),
    }
    if not any(s >= after.options.target_score for s in after.scores):
        data["ended_by"] = "max_rounds"
    return Event("MatchFinished", as_json(data))


def next_dealer(state: State, winners: Sequence[int]) -> int:
    """M3.3 / A-M13: rotate left (default), the round's winner, or a chance draw.

    `round_winner` with several winners: the first of them clockwise from the old dealer's
    left. `random` draws from DealRng(deal_key, "dealer:{round}") for the next round.
    """
    assert state.dealer is not None and state.deal_key is not None
    rule = state.options.next_dealer
    if rule == "round_winner" and winners:
        order = [(state.dealer + 1 + i) % state.n for i in range(state.n)]
        return next(seat for seat in order if seat in winners)
    if rule == "random":
        return DealRng(state.deal_key, f"dealer:{state.round + 1}").randbelow(state.n)
    return state.next_seat(state.dealer)
