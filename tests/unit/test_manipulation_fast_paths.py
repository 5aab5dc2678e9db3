"""The hand-written fast paths of issue 13 agree with what they replace: card equality,
hashing and order by index (domain/cards.py), State's slot-copying replace, and the
identity memo in front of the meld caches (domain/memo.py)."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest

from domain.cards import FULL_DECK, JOKER, Card, TableCard
from domain.manipulation import state as st
from domain.memo import by_identity
from tests.support.views import you_of

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
    changes: dict[str, Any] = {"version": 4, "phase": st.Phase.DRAW, "turn": 1}
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


def test_views_share_read_only_parts_equal_to_a_plain_render_m6() -> None:
    """A view's table, options and past rounds, and each listed meld move's table, are read-only
    lists shared between views (domain/manipulation/views.py, moves.py); they equal what a plain
    render gives (`table_codes`, the options, `RoundResult.to_json`), at every decision of
    random matches, and refuse changes. The hand's melds, cached per rank and per suit, are
    the ones the listing is built from (the listing test checks those against validation)."""
    import json

    from domain import manipulation as m
    from domain.manipulation.state import parse_table, table_codes
    from tests.support.manipulation_helpers import random_match

    checked = rounds = melds = 0

    def check(state: st.State, seat: int, move: object, events: object, after: st.State) -> None:
        nonlocal checked, rounds, melds
        if seat < 0:
            return
        view = m.view(state, seat)
        assert view["table"] == table_codes(state.table)
        assert view["options"] == dict(state.options_dict)
        assert view["rounds"] == [r.to_json() for r in state.results]
        assert json.loads(json.dumps(view))["rounds"] == view["rounds"]
        for listed in you_of(view)["legal_moves"]:
            if listed["type"] == "meld" and state.table:
                melds += 1
                table = listed["table"]
                assert table == table_codes(parse_table(table))
                with pytest.raises(TypeError):
                    table[0].append("2C")
        value: Any  # each part's members are frozen: clear() raises whatever they are
        for part in (view["table"][:1], [view["options"]], view["rounds"]):
            for value in part:
                with pytest.raises(TypeError):
                    value.clear()
        checked += 1
        rounds += bool(state.results)

    for seed in (5, 6):
        random_match(seed, 3, {"target_score": 150}, check=check)
    assert checked > 50 and rounds > 0 and melds > 0


def test_a_suit_without_three_ranks_in_a_row_makes_no_sequence_m2_4() -> None:
    """The hand-meld listing skips a suit with no three consecutive ranks (ace low, or high
    after a king, no wrap) when the hand has no joker: for every set of ranks of one suit,
    that test agrees with the sequences `runs` finds."""
    from domain.manipulation.table import local_melds as melds

    for suit in range(4):
        for ranks in range(1 << 13):
            indices = [suit * 13 + r for r in range(13) if ranks >> r & 1]
            cards = [FULL_DECK[i] for i in indices]
            assert melds.has_run(ranks) == any(melds.runs(cards)), (suit, bin(ranks))


def _hand_melds_by_lists(hand: list[Card]) -> list[tuple[object, ...]]:
    """The hand's melds found the plain way, card by card: its distinct cards grouped by rank
    (ranks in order of their first card) and by suit, each group with enough cards (3, or 2
    with the joker) asked for its melds; a suit without a joker only with three ranks in a
    row (M2.4)."""
    from domain.manipulation.table import local_melds as melds

    indices = sorted({c.index for c in hand})
    has_joker = bool(indices) and indices[-1] == JOKER.index
    by_rank: dict[int, list[int]] = {}
    by_suit: dict[int, list[int]] = {}
    for index in indices[:-1] if has_joker else indices:
        by_rank.setdefault(index % 13, []).append(index)
        by_suit.setdefault(index // 13, []).append(index)
    least = 2 if has_joker else 3
    out: list[tuple[object, ...]] = []
    for group in by_rank.values():
        if len(group) >= least:
            out.extend(melds.rank_melds(tuple(group), has_joker))
    for group in by_suit.values():
        cards = [FULL_DECK[i] for i in group]
        if len(group) >= least and (has_joker or any(melds.runs(cards))):
            out.extend(melds.suit_melds(tuple(group), has_joker))
    return out


def test_hand_melds_from_the_hand_mask_are_those_found_card_by_card_m2() -> None:
    """`hand_melds` reads ranks and suits off the hand's bit mask; on random hands of one and
    two packs, with and without the joker, it lists the same melds in the same order as the
    card-by-card grouping."""
    from domain.manipulation.table import local_melds as melds

    rng = random.Random(13)
    pack = [*FULL_DECK, JOKER] * 2
    for _ in range(4000):
        hand = rng.sample(pack, rng.randint(0, 24))
        assert list(melds.hand_melds(hand)) == _hand_melds_by_lists(hand), hand


def test_a_suit_parts_listing_is_its_melds_normalised_m2() -> None:
    """The listing's entries for a suit's cards (built from entries remembered per sequence
    and per pair with the joker) are the suit's hand melds, normalised, in the same order,
    for every set of ranks of two suits, with and without the joker."""
    from domain.manipulation import meld_parts
    from domain.manipulation.table.local_melds import part

    for suit in (0, 3):
        for ranks in range(1, 1 << 13):
            for joker in (0, 1):
                key = ranks | suit << 13 | joker << 15
                expected = tuple(
                    found for found in map(meld_parts.new_meld, part(key)) if found is not None
                )
                assert meld_parts.listing_part(key) == expected, (suit, bin(ranks), joker)


def test_views_with_the_games_cache_render_as_views_without_one() -> None:
    """The game's cache (`manipulation.VIEWS`: round templates and meld listings remembered
    between views) stands for rendering every view afresh (`views.view(state, seat)` with no
    cache): every view of every seat and of a spectator, json text included (key order), is
    the same, along two random matches viewed in turn."""
    import json

    from domain import manipulation as m
    from domain.manipulation import views
    from tests.support.manipulation_helpers import random_match

    states: list[list[st.State]] = [[], []]
    for seen, seed in zip(states, (7, 8), strict=True):
        random_match(seed, 3, {"target_score": 100}, check=lambda s, *_, to=seen: to.append(s))
    interleaved = [s for pair in zip(*states, strict=False) for s in pair]
    for state in interleaved:
        for seat in (0, 1, 2, None):
            cached = json.dumps(m.view(state, seat))
            assert cached == json.dumps(views.view(state, seat)), (state.version, seat)
    assert len(interleaved) > 100
