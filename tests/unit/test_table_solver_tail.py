"""The table solver's slow tail (issue 13): full-size positions that once spent the work
budget are proven best, and the shortcuts `table.arrange` takes on the way keep the answer
exact (M2, M5, M6, M8.3)."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest

from domain.cards import JOKER, Card, parse_cards
from domain.manipulation.melds import best_move
from domain.manipulation.table import depth, dominance
from domain.manipulation.table.arrange import solve
from domain.manipulation.table.best_above import best_above
from domain.manipulation.table.breadth import best_final, search
from domain.manipulation.table.build import Arrangement
from domain.manipulation.table.dominance import LIFTS, better
from domain.manipulation.table.going_out import least_left
from domain.manipulation.table.meld import is_group, is_sequence, parse_table_text
from domain.manipulation.table.rules import validate_meld_move
from domain.manipulation.table.state import WIDTH, ZERO, Budget, Supply, code
from tests.unit.test_table_depth import going_out_supply

# bench/table.py --solver --positions 150, 60 table cards: seed 8 position 10 (two table
# jokers: freeing both, then one kept), seed 20150 position 92 (a hand joker), two
# that cannot go out with two free jokers but can with all but an ace (seed 20150
# position 105, seed 7 position 60), and seed 20150 position 27 (cannot go out, the
# window Q-K refutes it, and all but the QC goes out); and three that were the slowest
# before the walks raced up and down the ranks (`depth.first_fit`): seed 20150 position 14
# (one free joker, cannot go out, all but the AC goes out), seed 8 position 123 (one
# free joker, all but the JH) and seed 20150 position 108 (two jokers, going out); and
# three that spent the default budget before the program ran down the ranks
# (`best_above.normal_best`): seed 9 positions 52 and 136 and seed 10 position 57 (two free
# jokers, none goes out, nor all but one card of the least value, and no window refutes)
TAIL = (
    (
        "JK=6C 6S 6D | QC KC AC | JK=AH AS AC | 2H 2S 2D 2C | 8H 8S 8C | 9C TC JC QC | "
        "7S 7C 7H | 3H 4H 5H 6H 7H 8H 9H | 7C 8C 9C TC | 3D 3H 3S | 4D 4S 4H 4C | "
        "2C 2S 2H 2D | 7S 8S 9S TS JS | 6S 6C 6D 6H | 4D 4S 4C | 9H TH JH",
        "3C 5C 6C KC 3D 5D 5D 8D KD KD AH JH QH JS KS",
        96,
        True,  # once over the default budget: the window J-Q-K refutes going out (`window_proof`)
    ),
    (
        "9H 9C 9D 9S | TC TH TS | JH QH KH AH | 9H TH JH QH | 6C 7C 8C 9C TC | 5S 5C 5D 5H | "
        "AD AH AS | 8C 8D 8S | AS 2S 3S 4S 5S 6S | 2H 2C 2S | 8S 8D 8H | 6H 6C 6S | "
        "3H 4H 5H | 7H 7C 7D | 4H 4C 4D | 2D 3D 4D 5D 6D 7D",
        "JC JC QC 2D 6D TD TD KD 2H 3H 8H 4S 7S 9S JK",
        116,
        True,
    ),
    (
        "8C 8D JK=8S 8H | JK=JD QD KD AD | 7C 8C 9C TC JC QC KC | 3C 4C 5C 6C | "
        "8D 9D TD JD QD | 2D 2H 2S | 5D 5S 5C 5H | 6D 6S 6H | 5H 6H 7H 8H | 9S 9D 9H 9C | "
        "8S 9S TS | 3S 4S 5S 6S 7S | TH TS TC TD | TH JH QH | KS KH KC",
        "2C 2C 4C 7C AD 5D 6D 7D 3H 3H 4H JH AS 8S QS",
        72,
        True,
    ),
    (
        "JK=QC QH QS | 8S JK=8C 8H 8D | JD JS JH JC | 4S 5S 6S 7S 8S 9S TS | "
        "2H 3H 4H 5H 6H 7H 8H | 9S 9H 9C | 9C 9H 9D | KC KS KD KH | 5C 5H 5D | 3C 4C 5C 6C | "
        "AC 2C 3C | AS 2S 3S 4S | QH QS QD QC | KS KH KD | 7D 8D 9D TD",
        "AC 4C 7C 8C TC QC 3D 3D TD JD 2H 6H TH 5S 7S",
        95,
        True,
    ),
    (
        "AS AD AC | 8H 8C JK=8D | 6D 7D 8D 9D TD JD QD | JK=AS AD AH | 6C 7C 8C 9C TC | "
        "5C 6C 7C | 5S 6S 7S 8S 9S TS | 4H 5H 6H | 2C 3C 4C | AS 2S 3S 4S 5S 6S | "
        "4D 4H 4C | 5H 6H 7H 8H 9H TH | 9C 9D 9H | 4D 5D 6D | TD JD QD",
        "2C TC QC 2D 5D 8D AH JH KH KH 3S 4S 8S TS KS",
        93,
        True,
    ),
    (
        "5D 6D 7D JK=8D | 6D 6H 6S 6C | 7D 8D 9D TD JD | 4S 4C 4D | 6S 7S 8S | 3C 4C 5C | "
        "2H 3H 4H 5H 6H 7H 8H | KC KH KS | 3S 4S 5S | KD KS KC | 7C 8C 9C TC | TD TH TC | "
        "8H 9H TH | 7S 8S 9S TS JS | AC AH AD | 2C 2D 2H 2S",
        "AC 3C 8C 2D 3D 9D 4H 5H QH QH KH 2S 3S 5S TS",
        84,
        True,
    ),
    (
        "4D 4S 4C | 5C 5S 5D | 4S 4H JK=4D | TS TC TD | 5D 5H 5S 5C | 3D 3H JK=3S | 2H 3H 4H | "
        "2D 2C 2S 2H | AH AD AC | 6D 6S 6H 6C | 9D TD JD QD | 7D 8D 9D | QC QS QD | 2C 2D 2S | "
        "7C 8C 9C TC | 8H 8S 8C | AC AH AS AD | 7S 8S 9S",
        "3C 4C 9C JC 6D 7D JD 5H 6H JH KH 9S JS KS KS",
        109,
        True,
    ),
    (
        "JC JD JS | 4C 5C 6C 7C | 7H JK=8H 9H TH | 7H 7S 7C | 7D 8D 9D TD | 6C 6H 6D 6S | "
        "5S 5H 5C | 8H 8C 8S 8D | TH TS TC | 3H 4H 5H | 8C 9C TC JC QC | AD 2D 3D 4D 5D 6D 7D | "
        "3C 3D 3H | 2C 2S 2D | 5S 6S 7S 8S | QC QH QD",
        "AC 3C 4C 9C KC 9D JD KD KD AH 2H 2S 4S TS JK",
        110,
        True,
    ),
    (
        "QD QH QS | 2D JK=2H 2S 2C | JK=5H 6H 7H | AH 2H 3H 4H 5H 6H 7H | 2C 3C 4C 5C 6C 7C 8C | "
        "3C 3S 3H 3D | 4C 4H 4D 4S | 9D 9C 9H | JC JS JH | KH KC KD | 6D 7D 8D 9D | "
        "4D 5D 6D 7D | AH AS AD AC | 5S 5C 5D 5H | 2H 2S 2D",
        "6C JC AD 3D TD TD 9H TH 3S 4S 5S 7S 8S TS QS",
        88,  # all but the JC and the 8S
        True,
    ),
    (
        "AC AD AH | TC TD JK=TH | 4H 5H 6H 7H JK=8H 9H TH | 5D 6D 7D 8D 9D TD JD | KD KH KC | "
        "4C 5C 6C 7C | 6H 7H 8H 9H TH JH | 6C 7C 8C 9C | 2C 3C 4C 5C | 8H 8S 8C | AC AH AS | "
        "3H 3C 3S | 2D 3D 4D 5D 6D 7D 8D | 3H 3D 3S",
        "2C QC 4D 9D KD QH QH 2S 2S 4S 6S 7S 8S TS JS",
        94,  # all but the JS
        True,
    ),
    (
        "TC JC JK=QC | AD 2D 3D 4D 5D | JC QC KC | TH JH QH KH | 3C 3H 3D 3S | TD TH TC | "
        "AC 2C 3C | 5S 6S 7S | AH AC AD | 3S 4S 5S 6S 7S 8S 9S | 9D TD JD | KS KD KC | "
        "QH QC QD QS | 6C 7C 8C | 4C 5C 6C | 2S 2C 2H | 4D 5D 6D",
        "4C 7C 7D 9D KD 2H 3H 5H 5H 6H 8H 4S TS QS JK",
        106,  # all but the 9D
        True,
    ),
)


@pytest.mark.parametrize(("before", "held", "points", "within"), TAIL)
def test_tail_positions_are_proven_best_m6(
    before: str, held: str, points: int, within: bool
) -> None:
    """M6: the best move of each position, proven without a budget (its points pinned:
    the most any legal move sheds here), and the same within the default one when
    `within`, else a legal move not proven best."""
    table, hand = parse_table_text(before), parse_cards(held.split())
    unbounded = best_move(table, hand, budget=None)
    assert unbounded is not None and unbounded.proven
    assert unbounded.points == points
    outcome = validate_meld_move(table, hand, unbounded.table)
    assert outcome.points == points
    found = best_move(table, hand)
    assert found is not None and found.proven == within
    assert found.points == points if within else found.points <= points


@pytest.mark.parametrize("batch", range(4))
def test_a_fixed_joker_goes_out_only_if_a_free_one_does_m5_m8_3(batch: int) -> None:
    """M5, M8.3 (`going_out.cannot_go_out`): whatever arranges with a table joker kept as
    its card X (fixed) arranges with that joker free instead, so a supply that cannot go
    out with it free cannot with it fixed (every card mandatory, as when going out)."""
    rng = random.Random(4_001 * batch + 11)
    checked = 0
    while checked < 12:
        supply, _ = going_out_supply(rng)
        x = rng.randrange(52)
        fixed = tuple(int(i == x) for i in range(52))
        with_fixed = Supply(supply.table_real, fixed, ZERO, ZERO, None, 0, supply.jokers)
        with_free = Supply(supply.table_real, ZERO, ZERO, ZERO, None, 0, supply.jokers + 1)
        if solve(with_fixed) is not None:
            assert solve(with_free) is not None
        checked += 1


# `dominance.SUITS` as it was before a long sequence ending in a real card counted as at
# least as good as one ending in a free joker
_WITHOUT_THE_TAIL_RULE = tuple(
    (WIDTH * suit, tuple(LIFTS[suit][index & 511] for index in range(1024))) for suit in range(4)
)


def test_a_run_ending_in_a_real_card_covers_one_ending_in_a_joker_m2_m5() -> None:
    """M2, M5 (`dominance.better`): a state with a long sequence ending in a free joker (which
    must go on) is covered by the one with that sequence ending in a real card."""
    tail = code(0, 0, 1, 0, 1)  # one long run ending in a real card, one in a joker
    assert code(0, 0, 2, 0, 0) in better(tail)
    assert code(0, 0, 1, 0, 0) not in better(tail)  # the joker's run must go on
    full = code(0, 0, 7, 0, 1)  # no room for one more long run in the count
    assert all(other >> 12 & 7 == 1 for other in better(full))


def window_counts(
    rng: random.Random,
    *,
    least_suits: int,
    widths: tuple[int, int],
    table: tuple[int, int],
    hand: tuple[int, int],
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Table and hand counts (52 each) from both copies of a few suits (`least_suits` to 4)
    in a window of ranks (its width in `widths`, the ace after the king as well as before
    the two): the first cards of the shuffled pack on the table (a count in `table`), then,
    from `table[1]` on, the hand (a count in `hand`)."""
    suits = rng.sample(range(4), rng.randint(least_suits, 4))
    start, width = rng.randint(1, 13), rng.randint(*widths)
    ranks = {(r - 1) % 13 + 1 for r in range(start, start + width)}
    pack = [Card.of(r, s).index for r in ranks for s in suits] * 2
    rng.shuffle(pack)
    on_table, held = [0] * 52, [0] * 52
    for i in pack[: rng.randint(*table)]:
        on_table[i] += 1
    for i in pack[table[1] : table[1] + rng.randint(*hand)]:
        held[i] += 1
    return tuple(on_table), tuple(held)


@pytest.mark.parametrize("batch", range(4))
def test_the_tail_rule_keeps_the_best_points_m2_m5_m6(
    batch: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """M2, M5, M6: the program's best points are the same with and without the tail rule
    of `dominance.better` (`dominance.SUITS`, asked by the program and the walk), on small
    windows of ranks and suits (table cards mandatory, hand cards optional, 0-2 hand and
    0-2 freed jokers)."""
    rng = random.Random(2_029 * batch + 5)
    for _ in range(40):
        table, held = window_counts(rng, least_suits=1, widths=(4, 9), table=(0, 8), hand=(2, 10))
        jokers = (rng.choice((0, 1, 2)), rng.choice((0, 1, 2)))
        supply = Supply(table, ZERO, held, ZERO, None, *jokers)
        found = solve(replace(supply, budget=Budget(10**9)))
        with monkeypatch.context() as patch:
            patch.setattr(dominance, "SUITS", _WITHOUT_THE_TAIL_RULE)
            patch.setattr(depth, "SUITS", _WITHOUT_THE_TAIL_RULE)
            before = solve(replace(supply, budget=Budget(10**9)))
        assert (found is None) == (before is None)
        if found is not None and before is not None:
            assert found.points == before.points


@pytest.mark.parametrize("batch", range(4))
def test_the_program_down_the_ranks_finds_the_same_best_points_m2_m6(batch: int) -> None:
    """M2, M6 (`best_above.normal_best`): the full program run on the mirror (`depth.mirrored`,
    the ranks 2..K turned end to end, each hand card scoring as the card it mirrors) ends
    with the same best points as up the ranks, and so does the normal form run down the
    ranks with the jokers it left out laid back on (`best_above.best_above`, as `solve` asks it),
    on windows of ranks (table cards mandatory, hand cards optional, 0-2 hand and 0-2
    freed jokers); and the mirror of the mirror is the supply."""
    rng = random.Random(6_007 * batch + 13)
    for _ in range(30):
        table, held = window_counts(rng, least_suits=1, widths=(3, 9), table=(0, 9), hand=(2, 10))
        jokers = (rng.choice((0, 1, 2)), rng.choice((0, 1, 2)))
        supply = Supply(table, ZERO, held, ZERO, None, *jokers)
        turned = depth.mirrored(supply)
        assert turned.turned and depth.mirrored(turned) == supply
        up = best_final(supply, search(supply))
        down = best_final(turned, search(turned))
        assert (up is None) == (down is None)
        found = best_above(supply, -1)
        assert (found is None) == (up is None)
        if up is not None and down is not None and found is not None:
            assert up[1] == down[1] == found.points
            _assert_arranges(supply, found)


def _assert_arranges(supply: Supply, found: Arrangement) -> None:
    """The melds are valid (M2) and hold exactly the table cards, the freed jokers and the
    cards played, which score the points."""
    melds = found.melds
    assert all(is_group(meld) or is_sequence(meld) for meld in melds)
    laid = Counter(tc.card for meld in melds for tc in meld)
    table = Counter({Card(i): n for i, n in enumerate(supply.table_real) if n})
    played = Counter(found.played)
    assert laid == table + played + Counter({JOKER: supply.jokers_freed})
    assert found.points == sum(card.value for card in found.played)


def test_a_mirrored_hand_card_scores_as_the_card_it_mirrors_m1_4() -> None:
    """M1.4: in the mirror the KS stands where the 2S stood, and still scores 10."""
    king = Card.parse("KS").index
    held = tuple(int(i == king) for i in range(52))
    turned = depth.mirrored(Supply(ZERO, ZERO, held, ZERO, None, 0, 0))
    [where] = [i for i, n in enumerate(turned.hand_real) if n]
    assert Card(where) == Card.parse("2S") and turned.values[where] == 10


def test_the_least_left_in_hand_counts_only_cards_it_need_not_play_m5_6_m6() -> None:
    """M5.6, M6 (`going_out.least_left`): a hand card that must be played to free a joker
    (`hand_min`) cannot be the one left in the hand; a hand joker can (25 points)."""
    ace, three = Card.parse("AH").index, Card.parse("3C").index
    held = tuple(int(i in (ace, three)) for i in range(52))
    must = tuple(int(i == ace) for i in range(52))
    assert least_left(Supply(ZERO, ZERO, held, ZERO, None, 0, 1)) == 1
    assert least_left(Supply(ZERO, ZERO, held, must, None, 0, 1)) == 3
    assert least_left(Supply(ZERO, ZERO, held, held, None, 1, 0)) == 25
    assert least_left(Supply(ZERO, ZERO, held, held, None, 0, 2)) is None
