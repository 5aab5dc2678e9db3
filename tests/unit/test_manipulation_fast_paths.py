"""The hand-written fast paths of issue 13 agree with what they replace: card equality,
hashing and order by index (domain/cards.py), State's slot-copying replace, and the
identity memo in front of the meld caches (domain/memo.py)."""

from __future__ import annotations

import dataclasses

import pytest

from domain.cards import FULL_DECK, JOKER, Card, TableCard
from domain.manipulation import state as st
from domain.memo import by_identity

ALL = (*FULL_DECK, JOKER)


def test_cards_compare_hash_and_sort_as_their_index() -> None:
    for a in ALL:
        twin = Card(a.index)
        assert a == twin and (a != twin) is False and hash(a) == hash(twin)
        for b in ALL:
            assert (a == b) == (a.index == b.index)
            assert (a < b) == (a.index < b.index) and (a >= b) == (a.index >= b.index)
    assert sorted(reversed(ALL)) == list(ALL)
    assert Card(3) != 3 and Card(3) != "4C"
    with pytest.raises(TypeError):
        _ = Card(3) < 3  # type: ignore[operator]


def test_table_cards_equal_exactly_when_card_and_declared_card_are() -> None:
    cards = [TableCard(c) for c in FULL_DECK] + [TableCard(JOKER, c) for c in FULL_DECK]
    assert len(set(cards)) == len(cards) == 104
    for tc in cards:
        twin = TableCard(tc.card, tc.declared)
        assert tc == twin and hash(tc) == hash(twin) and (tc != twin) is False
    assert TableCard(JOKER, Card(0)) != TableCard(Card(0))
    assert TableCard(Card(0)) != Card(0)


def test_state_replace_matches_dataclasses_replace() -> None:
    base = st.State(version=3, round=2, scores=(1, 2), stock=(Card(5),))
    changes = {"version": 4, "phase": st.Phase.DRAW, "turn": 1}
    assert st._with(base, **changes) == dataclasses.replace(base, **changes)
    assert st._with(base) == base
    with pytest.raises(TypeError):
        st._with(base, nonsense=1)


def test_identity_memo_answers_each_object_by_its_own_value() -> None:
    calls: list[tuple[int, ...]] = []

    @by_identity(2)
    def total(xs: tuple[int, ...]) -> int:
        calls.append(xs)
        return sum(xs)

    one, other = (1, 2), (3, 4)
    assert [total(one), total(one), total(other), total((5,)), total(one)] == [3, 3, 7, 5, 3]
    assert calls == [one, other, (5,), one]  # the second call hit; the third filled it
