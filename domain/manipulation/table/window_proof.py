"""A cheap proof that a supply cannot go out (M8.3): a window of ranks whose cards find no
melds even with the ranks around it made optional.

Take any arrangement of every card (going out) and keep only its melds that touch a window
W of ranks (a few ranks in a row, the ace after the king as well as before the two): its
groups at the ranks of W whole, and of each sequence the part within two ranks of W. A part
kept holds a card of W and reaches two ranks either side of it or the sequence's own end,
so it is a valid sequence (3 or more), and it uses no more free jokers than the whole. The
kept cards outside W lie within two ranks of it, and there are no more of them at a card
than the supply holds there. So if the cards of W (all mandatory), with the supply's cards
within two ranks of W optional and its free jokers optional too, make no arrangement, the
whole supply makes none: a necessary condition of going out, checked by the program
(`table.breadth.search`) on a supply mostly empty, which costs little.

It is only a proof of "cannot": when a window arranges, nothing follows, and the walk
(`table.depth`) answers as before.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from domain.manipulation.table.breadth import search
from domain.manipulation.table.state import USED, ZERO, Budget, BudgetSpent, Supply, near

# The windows tried (first rank, width), those around the king and the ace only: there
# sequences end (no K-A-2), so that is where going out most often fails (on the 60-card
# positions of `bench/table.py --solver`; windows elsewhere refuted too rarely for their
# cost). Each may take at most WINDOW_STATES program states before it is abandoned
# (abandoned proves nothing). A window that refutes refutes every wider one too.
WINDOWS = ((12, 2), (11, 3), (12, 3))
WINDOW_STATES = 3_000


Window = tuple[int, int]  # the first rank and the width


@lru_cache(maxsize=64)
def refuting_window(supply: Supply) -> Window | None:
    """A window of ranks proving that no arrangement places every card of `supply` (every
    card mandatory: its hand cards are counted as table cards, as `going_out.going_out`
    asks), or None, which says nothing (see the module doc)."""
    if supply.cap is not None or any(supply.hand_real) or supply.jokers_hand:
        return None  # asked only of the going-out question, free jokers all freed
    for window in WINDOWS:
        if refutes(supply, window):
            return window
    return None


def window_ranks(window: Window) -> set[int]:
    first, width = window
    return {(first + k - 1) % 13 + 1 for k in range(width)}


def refutes(supply: Supply, window: Window) -> bool:
    """Whether the cards of `supply` at the ranks of `window` make no arrangement with the
    cards within two ranks of it optional (abandoned after WINDOW_STATES: False)."""
    ranks = window_ranks(window)
    around = {i % 13 + 1 for rank in ranks for i in near(rank, 0)} - ranks
    table, fixed, hand = [0] * 52, [0] * 52, [0] * 52
    for i in range(52):
        rank = i % 13 + 1
        if rank in ranks:
            table[i], fixed[i] = supply.table_real[i], supply.fixed_jokers[i]
        elif rank in around:
            hand[i] = supply.table_real[i] + supply.fixed_jokers[i]
    if not any(table) and not any(fixed):
        return False
    relaxed = replace(
        supply,
        table_real=tuple(table),
        fixed_jokers=tuple(fixed),
        hand_real=tuple(hand),
        hand_min=ZERO,
        jokers_hand=supply.jokers,
        jokers_freed=0,
        budget=Budget(WINDOW_STATES),
    )
    try:
        run = search(relaxed, -1, normal=True)
    except BudgetSpent:
        return False
    return not any(key >> USED <= supply.jokers for key in run.final)
