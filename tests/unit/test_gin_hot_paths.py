"""The hot paths of random play through views (issue 14) against the plain paths they stand
for, on every state of seeded random matches: a fast path may differ in cost, never in answer.

- `legal_moves` serves the seat to act directly; `_other_moves` is the full walk of the rules
  (SYSTEM, ADVISOR, the seat to act, the others) and must give the same list for every seat.
- `DealRng.shuffle` (its blocks drawn by `_blocks`, which binds the copy methods once): a plain
  Fisher-Yates over `randbelow` of a generator with the same key and purpose must give the
  same order (deals are replayed).
- `accepted_play` returns events made once per seat and card: equal to the full path's and
  read-only.
- `freeze` takes exact lists, tuples and dicts before the ABC checks: same values, same types.
- `discardable` and the fold drop a card through `state.drop`, which slices off a last card and
  cuts the hand around any other: both equal the plain filter.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from domain import gin
from domain.events import SYSTEM
from domain.frozen import FrozenDict, FrozenList, freeze
from domain.gin.fast_play import accepted_play
from domain.gin.knock import discardable
from domain.gin.moves import _other_moves, decide_in_full, legal_moves
from domain.gin.state import drop
from domain.shuffle import DealRng
from tests.unit.test_gin_support import random_match


@pytest.mark.parametrize(
    ("seed", "options"),
    [
        (21, {"target_score": 100}),
        (22, {"target_score": 60, "no_discard_of_taken_card": True}),
        (23, {"target_score": 60, "advice_window": "after_knock_only"}),
    ],
)
def test_legal_moves_of_every_seat_equal_the_full_walk(seed: int, options: dict[str, Any]) -> None:
    """G1.3-G6.2: every seat (and SYSTEM, and a seat out of range) in every state."""
    _, states = random_match(seed, options)
    listed = 0
    for state in states:
        for seat in (0, 1, 2, 3, SYSTEM):
            fast = legal_moves(state, seat)
            assert fast == _other_moves(state, seat), (state.version, seat)
            listed += len(fast)
    assert listed > 500


def _plain_shuffle(rng: DealRng, items: list[int]) -> None:
    for i in range(len(items) - 1, 0, -1):
        j = rng.randbelow(i + 1)
        items[i], items[j] = items[j], items[i]


def test_shuffle_equals_a_plain_fisher_yates_over_randbelow() -> None:
    """G4: the same deck order for many keys, purposes and sizes (2..80 items), and the
    generator left at the same block (the next token agrees)."""
    rng = random.Random(14)
    for _ in range(300):
        key = f"{rng.getrandbits(256):064x}"
        purpose = f"deal:{rng.randrange(1, 40)}"
        size = rng.randrange(2, 81)
        fast, plain = DealRng(key, purpose), DealRng(key, purpose)
        a, b = list(range(size)), list(range(size))
        fast.shuffle(a)
        _plain_shuffle(plain, b)
        assert a == b
        assert fast.token() == plain.token()


def _thawed_types(value: object) -> object:
    if isinstance(value, dict):
        return (type(value), {k: _thawed_types(v) for k, v in value.items()})
    if isinstance(value, list):
        return (type(value), [_thawed_types(v) for v in value])
    return (type(value), value)


def test_freeze_of_round_results_is_read_only_all_the_way_down() -> None:
    """Every recorded round result and knock: FrozenDicts and FrozenLists of equal values."""
    events, _ = random_match(24, {"target_score": 100})
    data = [e.data for e in events if e.type in ("RoundScored", "Knocked", "RoundDealt")]
    assert len(data) > 10
    for value in [*data, (1, [2, (3,)]), {"a": ("b", {"c": None})}]:
        frozen = freeze(value)
        assert frozen == _plain_freeze(value)
        assert _thawed_types(frozen) == _thawed_types(_plain_freeze(value))


def _plain_freeze(value: object) -> object:
    if isinstance(value, dict):
        return FrozenDict({k: _plain_freeze(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return FrozenList([_plain_freeze(v) for v in value])
    return value


def test_accepted_common_moves_are_shared_read_only_events_equal_to_the_full_ones() -> None:
    """G5.1-G5.3: the fast path's events (made once per seat and card) equal decide_in_full's,
    refuse changes, and serialise and redact as ordinary events (views get their own copy)."""
    _, states = random_match(25, {"target_score": 60})
    served = 0
    for state in states:
        seat = gin.to_act(state)
        if seat is None:
            continue
        for move in gin.legal_moves(state, seat):
            fast = accepted_play(state, seat, move)
            if fast is None:
                continue
            served += 1
            assert fast == decide_in_full(state, seat, move)
            (event,) = fast
            assert (
                json.loads(json.dumps(event.to_json()))
                == decide_in_full(state, seat, move)[0].to_json()
            )
            with pytest.raises(TypeError):
                event.data["seat"] = 2  # type: ignore[index]
            shown = gin.event_view(state, event, None)["data"]
            assert type(shown) is dict
            shown["seat"] = 9
            assert event.data["seat"] == seat
    assert served > 500


@pytest.mark.parametrize("seed", [24, 25])
def test_discardable_and_drop_equal_the_plain_filter(seed: int) -> None:
    """G5.3: every card but the one taken from the pile this turn, wherever it sits in the
    hand (a reordered hand too); G5.2: a card leaves the hand and the others keep their order."""
    _, states = random_match(seed, {"target_score": 60, "no_discard_of_taken_card": True})
    rng = random.Random(seed)
    barred = 0
    for state in states:
        for hand in state.hands:
            shuffled = tuple(rng.sample(hand, len(hand)))
            for cards in (hand, shuffled):
                taken = state.taken
                plain = tuple(c for c in cards if taken is None or c.index != taken.index)
                assert tuple(discardable(state, cards)) == plain
                barred += len(plain) < len(cards)
                for card in cards:
                    assert drop(cards, card.index) == tuple(c for c in cards if c != card)
    assert barred > 10  # states with a card taken from the pile were seen, in both orders
