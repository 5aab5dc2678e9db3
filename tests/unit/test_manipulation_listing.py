"""The representative meld moves of `legal_moves` (issue 13): cheap rules, no whole-table
check where the construction already guarantees I1-I6, and the same list as validating
every candidate with `validate_meld_move` (what `decide` does, M6)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from domain import manipulation as m
from domain.cards import FULL_DECK, JOKER, Card, TableCard
from domain.errors import IllegalMove
from domain.manipulation.melds import check_meld, extensions, meld_candidates
from domain.manipulation.moves import decks
from domain.manipulation.state import State
from domain.manipulation.swaps import joker_swaps
from domain.manipulation.table.local_melds import growth, hand_melds
from domain.manipulation.table.meld import meld_kind
from domain.manipulation.table.rules import validate_meld_move
from tests.support.manipulation_helpers import random_match

Meld = tuple[TableCard, ...]
Table = tuple[Meld, ...]


def _validated_every_candidate(state: State, seat: int) -> set[tuple[tuple[str, ...], ...]]:
    """The listing as it was before issue 13: every raw candidate through the validation."""
    table, hand = state.table, state.hands[seat]
    raw: list[Table] = [(*table, meld) for meld in hand_melds(hand)]
    for i, meld in enumerate(table):
        raw += [(*table[:i], grown, *table[i + 1 :]) for grown in extensions(meld, hand)]
    raw += list(joker_swaps(table, hand))
    found = set()
    for candidate in raw:
        try:
            _, normal = check_meld(
                table, hand, candidate, state.options, state.opened[seat], decks(state)
            )
        except IllegalMove:
            continue
        found.add(tuple(sorted(tuple(str(tc) for tc in meld) for meld in normal)))
    return found


def _key(table: Table) -> tuple[tuple[str, ...], ...]:
    return tuple(sorted(tuple(str(tc) for tc in meld) for meld in table))


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"initial_meld_per_player": True, "initial_meld_min_points": 30},
        {"initial_meld_min_points": 25, "initial_meld_from_hand_only": True},
        {"joker_identity_respects_copy_count": True},
        {"freed_joker_placement": "new_meld_from_hand", "joker_replacement_source": "hand_only"},
    ],
)
def test_listed_melds_are_the_validated_candidates_m6_i1_i6(options: dict[str, Any]) -> None:
    """At every meld decision of random matches, the listed tables are exactly the
    candidates the whole-table validation accepts (none missing, none extra, no repeats),
    and each listed table passes `validate_meld_move` (I1-I6)."""
    checked = 0

    def check(state: State, seat: int, move: Any, events: Any, after: State) -> None:
        nonlocal checked
        if seat < 0 or state.phase not in (m.Phase.MELD_OR_DRAW, m.Phase.FINAL_TURNS):
            return
        listed = meld_candidates(
            state.table, state.hands[seat], state.options, state.opened[seat], decks(state)
        )
        keys = [_key(t) for t in listed]
        assert len(keys) == len(set(keys))
        assert set(keys) == _validated_every_candidate(state, seat)
        for table in listed:
            validate_meld_move(
                state.table,
                state.hands[seat],
                table,
                state.options,
                has_opened=state.opened[seat],
                decks=decks(state),
            )
        checked += 1

    for seed in (3, 4):
        random_match(seed, 2 + seed % 2, options, check=check)
    assert checked > 20


def test_growth_is_every_card_that_keeps_the_meld_valid_m2() -> None:
    """The memoised extension cards of a meld are exactly the cards (or joker declarations)
    whose addition leaves a valid meld (M2.2-M2.5), over random valid melds."""
    rng = random.Random(13)
    melds: list[Meld] = []
    for _ in range(300):
        if rng.random() < 0.4:
            rank = rng.randint(1, 13)
            suits = rng.sample(range(4), rng.choice((3, 4)))
            shape = [Card.of(rank, s) for s in suits]
        else:
            size = rng.randint(3, 13)
            start = rng.randint(1, 15 - size)
            suit = rng.randrange(4)
            shape = [Card.of((r - 1) % 13 + 1, suit) for r in range(start, start + size)]
        meld = tuple(TableCard(JOKER, c) if rng.random() < 0.15 else TableCard(c) for c in shape)
        assert meld_kind(meld) is not None
        melds.append(meld)
    for meld in melds:
        plain, jokers = growth(meld)
        assert plain == {c for c in FULL_DECK if meld_kind((*meld, TableCard(c))) is not None}
        assert set(jokers) <= plain | {c for c in FULL_DECK if TableCard(c) in meld}
        for card in FULL_DECK:
            fits = meld_kind((*meld, TableCard(JOKER, card))) is not None
            assert (card in jokers) == (
                fits and (meld_kind(meld) == "sequence" or card == _first_missing(meld))
            )


def _first_missing(meld: Meld) -> Card | None:
    suits = {tc.acts_as.suit for tc in meld}
    rank = meld[0].acts_as.rank
    missing = [Card.of(rank, s) for s in range(4) if s not in suits]
    return missing[0] if missing else None


def test_growth_of_a_twelve_card_sequence_takes_the_ace_once_m2_4() -> None:
    """M2.4: 2..K takes the ace at either end, A..K or 2..A; a joker may be declared as it
    once in the list (no repeated listing), and A..K takes nothing more."""
    two_to_king = tuple(TableCard(Card.of(r, 0)) for r in range(2, 14))
    plain, jokers = growth(two_to_king)
    assert plain == {Card.of(1, 0)} and jokers == (Card.of(1, 0),)
    assert growth((TableCard(Card.of(1, 0)), *two_to_king)) == (frozenset(), ())
