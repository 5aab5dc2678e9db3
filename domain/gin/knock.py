"""Three-handed Gin: knocking (G6.1-G6.4), lay-offs (G6.5-G6.7) and scoring a hand (G7, G8).

The meld maths is domain.gin.melds; this module turns it into the Knocked event, the round result
(api.md) and the end of the match.

Rulings where rules.md is silent (see the report in the commit history):
- G5.3 covers the knock discard too: under `no_discard_of_taken_card` the card taken from the
  discard pile this turn may not be the face-down knock card either.
- `undercut_on_tie` = false: a tie K = O is then a won knock worth O - K = 0 points; the
  knocker is the hand's winner (outcome `knock`), so G1.5 rotates as for any knocker win.
- `knocker_arrangement` = `auto_canonical`: the engine shows `best_melds` of the 10 cards, and
  a knock that names melds is refused.
- G8.2 bonuses are added when the match ends: `game_bonus` to the winner, doubled under
  `shutout_rule` = `double_game_bonus` when no other seat scored; `box_bonus_per_hand` to
  every seat for each hand it won; `double_score` doubles the winner's final score on a
  shutout. The winner is the seat that reached `target_score` (G8.1), or, once `max_rounds`
  hands are played without it (G8.3, issue 28 item 3), the highest score (a tie is shared).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, TypedDict, TypeVar

from domain.cards import Card
from domain.errors import IllegalMove
from domain.events import Event
from domain.gin import melds
from domain.gin.melds.core import least_deadwood
from domain.gin.shapes import GinRoundResult
from domain.gin.state import GinState, Knock, codes, drop
from domain.shapes import Code

Melds = tuple[tuple[Card, ...], ...]


def _sorted(cards: Sequence[Card]) -> tuple[Card, ...]:
    return tuple(sorted(cards))


def discardable(state: GinState, hand: tuple[Card, ...]) -> tuple[Card, ...]:
    """G5.3: every card of the hand except the one taken from the discard pile this turn (the
    hand itself when none is barred)."""
    taken = state.taken
    if taken is not None and state.options.no_discard_of_taken_card:
        return drop(hand, taken.index)
    return hand


def knock_among(state: GinState, full: int, free: Sequence[Card]) -> tuple[Card, ...]:
    """G6.2: the discards among `free` (the hand's `discardable` cards) that leave at most
    `knock_limit` deadwood in the other 10 cards, given the hand's mask `full`
    (`state.hand_mask`).

    The 11-card count (G6.2) is the least over every discard, so when even it is over the
    limit no discard qualifies: one search instead of eleven for most hands."""
    limit = state.options.knock_limit
    size = full.bit_count()
    if size == melds.MAX_HAND and least_deadwood(full, True) > limit:
        return ()
    eleven = size - 1 == melds.MAX_HAND  # what is left after the discard
    return tuple([c for c in free if least_deadwood(full & ~(1 << c.index), eleven) <= limit])


def check_knock(state: GinState, seat: int, card: Card) -> tuple[Card, ...]:
    """G6.2 / G5.5: refuse a knock over the limit (no penalty); the 10 cards kept."""
    keep = drop(state.hands[seat], card.index)
    count = melds.deadwood(keep)
    limit = state.options.knock_limit
    if count > limit:
        raise IllegalMove(
            f"cannot knock: {count} deadwood after discarding {card}, the limit is {limit} "
            "(G6.2, G5.5)"
        )
    return keep


def named_arrangement(keep: tuple[Card, ...], named: Melds) -> melds.Arrangement:
    """G6.3: melds the knocker names must be valid, disjoint, his own, and reach the least
    deadwood his 10 cards allow (G6.4: so a hand that can be gin is always shown as gin)."""
    used: set[Card] = set()
    for meld in named:
        _check_named_meld(keep, meld, used)
    rest = tuple(c for c in keep if c not in used)
    count = sum(c.value for c in rest)
    least = melds.deadwood(keep)
    if count != least:
        raise IllegalMove(
            f"cannot knock with these melds: they leave {count} deadwood but your cards "
            f"allow {least}; a knocker shows an arrangement of least deadwood (G6.3)"
        )
    return melds.Arrangement(tuple(_sorted(m) for m in named), rest, count, None)


def _check_named_meld(keep: tuple[Card, ...], meld: tuple[Card, ...], used: set[Card]) -> None:
    """G3.1-G3.3: a set or run of the knocker's own cards, none in an earlier meld (`used`,
    to which its cards are added)."""
    shown = " ".join(str(c) for c in meld)
    if not melds.is_meld(meld):
        raise IllegalMove(f"cannot knock: [{shown}] is not a set (G3.1) or a run (G3.2)")
    for c in meld:
        if c not in keep:
            raise IllegalMove(f"cannot knock: {c} of [{shown}] is not among your 10 cards")
        if c in used:
            raise IllegalMove(f"cannot knock: {c} is in two of your melds (G3.3)")
        used.add(c)


def knock_event(state: GinState, seat: int, card: Card, named: Melds | None) -> Event:
    """G6.3: the face-down discard and the knocker's spread (melds public, G3.5)."""
    keep = check_knock(state, seat, card)
    shown = _knocker_spread(state, seat, keep, named)
    return Event(
        "Knocked",
        {
            "seat": seat,
            "card": str(card),
            "melds": [codes(m) for m in shown.melds],
            "deadwood_cards": codes(_sorted(shown.deadwood)),
            "count": shown.count,
            "gin": shown.count == 0,
        },
    )


def _knocker_spread(
    state: GinState, seat: int, keep: tuple[Card, ...], named: Melds | None
) -> melds.Arrangement:
    """G6.3: the melds he named, the canonical ones, or the least-deadwood spread that leaves
    the defender the fewest lay-offs (`knocker_arrangement`)."""
    assert state.roles is not None
    opts = state.options
    if named is not None:
        if opts.knocker_arrangement == "auto_canonical":
            raise IllegalMove(
                "cannot name melds: this match arranges the knocker's hand itself "
                "(knocker_arrangement auto_canonical, G6.3)"
            )
        return named_arrangement(keep, named)
    if opts.knocker_arrangement == "auto_canonical":
        return melds.best_melds(keep)
    defender = state.hands[state.roles.other(seat)]
    return melds.choose_knock_arrangement(keep, defender, chain=opts.layoff_chain)


T = TypeVar("T")


def _per_seat(state: GinState, values: dict[int, T]) -> list[T | None]:
    return [values.get(seat) for seat in range(len(state.players))]


def round_result(state: GinState) -> GinRoundResult:
    """G7: the api.md round result of the hand that just ended (knock, gin, undercut, draw)."""
    assert state.roles is not None
    roles = state.roles
    hands = {s: codes(state.hands[s]) for s in (roles.box, roles.captain)}
    outcome = _drawn_hand(state) if state.knock is None else _knock_outcome(state, state.knock)
    return {
        "round": state.round,
        "hands": _per_seat(state, hands),
        "box": roles.box,
        "captain": roles.captain,
        "advisor": roles.advisor,
        **outcome,
    }


class _Outcome(TypedDict):
    """The part of a round result that says how the hand ended (`round_result`)."""

    outcome: Literal["draw", "knock", "gin", "undercut"]
    points: list[int]
    winners: list[int]
    knocker: int | None
    melds: list[list[list[Code]] | None]
    layoffs: list[Code]
    deadwood: list[int | None]
    scores: list[int]


def _drawn_hand(state: GinState) -> _Outcome:
    """G5.6: nobody scores, nothing is spread."""
    seats = len(state.players)
    return {
        "outcome": "draw",
        "points": [0] * seats,
        "winners": [],
        "knocker": None,
        "melds": [None] * seats,
        "layoffs": [],
        "deadwood": [None] * seats,
        "scores": list(state.scores),
    }


def _knock_outcome(state: GinState, knock: Knock) -> _Outcome:
    """G6.5-G6.7 then G7.1-G7.4: the defender's spread and who scores what."""
    assert state.roles is not None
    defender = state.roles.other(knock.seat)
    o, own_melds, laid = _defender_spread(state, knock, defender)
    outcome, winner, points = _hand_score(state, knock, defender, o)
    gained = [p or 0 for p in _per_seat(state, {winner: points})]
    spreads = {
        knock.seat: [codes(m) for m in knock.melds],
        defender: [codes(m) for m in own_melds],
    }
    return {
        "outcome": outcome,
        "points": gained,
        "winners": [winner],
        "knocker": knock.seat,
        "melds": _per_seat(state, spreads),
        "layoffs": codes(_sorted(laid)),
        "deadwood": _per_seat(state, {knock.seat: knock.count, defender: o}),
        "scores": [s + g for s, g in zip(state.scores, gained, strict=True)],
    }


def _defender_spread(
    state: GinState, knock: Knock, defender: int
) -> tuple[int, Melds, tuple[Card, ...]]:
    """G6.5-G6.7: the defender's deadwood, his own melds and the cards he lays off (none
    after gin, G6.6)."""
    held = state.hands[defender]
    if knock.gin:
        own = melds.best_melds(held)
        return own.count, own.melds, ()
    found = melds.layoffs(held, knock.melds, chain=state.options.layoff_chain)
    return found.count, found.melds, found.laid_off


def _hand_score(
    state: GinState, knock: Knock, defender: int, o: int
) -> tuple[Literal["gin", "knock", "undercut"], int, int]:
    """G7.1-G7.3: the outcome (gin, knock, undercut), its winner and his points."""
    opts, k = state.options, knock.count
    if knock.gin:
        return "gin", knock.seat, opts.gin_bonus + (o if opts.gin_scores_opponent_deadwood else 0)
    if k < o or (k == o and not opts.undercut_on_tie):
        return "knock", knock.seat, o - k
    return "undercut", defender, k - o + opts.undercut_bonus


def target_reached(state: GinState) -> bool:
    """G8.1: a scored hand brought its scorer to `target_score`."""
    return any(s >= state.options.target_score for s in state.scores)


def rounds_exhausted(state: GinState) -> bool:
    """G8.3: `max_rounds` hands (draws too) have been played (never for a match recorded
    before the option existed: None)."""
    most = state.options.max_rounds
    return most is not None and len(state.rounds) >= most


def match_over(state: GinState) -> bool:
    """After a scored hand: the target is reached (G8.1) or the hands are used up (G8.3)."""
    return target_reached(state) or rounds_exhausted(state)


def finish_event(state: GinState) -> Event:
    """G8.1 the seat at or over the target wins; G8.2 bonuses (all 0 by default). G8.3 when
    the hands ran out first: the highest score wins, a tie is shared (each tied seat gets the
    game bonus, and there is no shutout), and the event says `ended_by: max_rounds`."""
    if not target_reached(state):
        return _rounds_out(state)
    target = state.options.target_score
    winner = max(
        range(len(state.scores)), key=lambda s: (state.scores[s] >= target, state.scores[s])
    )
    final, bonuses = _with_bonuses(state, winner)
    return Event(
        "MatchFinished",
        {"scores": final, "winners": [winner], "totals": list(state.scores), "bonuses": bonuses},
    )


def _rounds_out(state: GinState) -> Event:
    top = max(state.scores)
    winners = [seat for seat, score in enumerate(state.scores) if score == top]
    if len(winners) == 1:
        final, bonuses = _with_bonuses(state, winners[0])
    else:
        bonuses = [state.options.box_bonus_per_hand * n for n in _hands_won(state)]
        for seat in winners:
            bonuses[seat] += state.options.game_bonus
        final = [s + b for s, b in zip(state.scores, bonuses, strict=True)]
    data = {"scores": final, "winners": winners, "totals": list(state.scores), "bonuses": bonuses}
    return Event("MatchFinished", {**data, "ended_by": "max_rounds"})


def _hands_won(state: GinState) -> list[int]:
    won = [0] * len(state.scores)
    for result in state.rounds:
        for seat in result["winners"]:
            won[seat] += 1
    return won


def _with_bonuses(state: GinState, winner: int) -> tuple[list[int], list[int]]:
    """G8.2: the final scores and each seat's bonus (box bonus, game bonus, shutout)."""
    opts = state.options
    shutout = all(score == 0 for seat, score in enumerate(state.scores) if seat != winner)
    bonuses = [opts.box_bonus_per_hand * n for n in _hands_won(state)]
    bonuses[winner] += opts.game_bonus * (
        2 if shutout and opts.shutout_rule == "double_game_bonus" else 1
    )
    final = [s + b for s, b in zip(state.scores, bonuses, strict=True)]
    if shutout and opts.shutout_rule == "double_score":
        bonuses[winner] += final[winner]
        final[winner] *= 2
    return final, bonuses
