"""Valid melds (M2): a group (M2.2) or a sequence (M2.3, M2.4), jokers counting as the
card they are declared as (M5.1); why a meld is not one, naming the rule; a valid meld in
display order; a card's points (M1.4); melds and tables from text (for tests and tools).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Literal

from domain.cards import Card, TableCard

Meld = tuple[TableCard, ...]


Table = tuple[Meld, ...]


MeldKind = Literal["group", "sequence"]


MAX_SEQUENCE = 13  # M2.4: an ace at one end only, so at most A..K or 2..A


def card_points(cards: Iterable[Card]) -> int:
    """M1.4: joker 25, J Q K 10, pips their value, ace 1."""
    return sum(card.value for card in cards)


def _acting(cards: Sequence[Card | TableCard]) -> list[Card]:
    return [c.acts_as if isinstance(c, TableCard) else c for c in cards]


def is_group(cards: Sequence[Card | TableCard]) -> bool:
    """M2.2, A-M3: 3 or 4 cards of one rank, all suits different (jokers as declared)."""
    acting = _acting(cards)
    if not 3 <= len(acting) <= 4 or any(c.is_joker for c in acting):
        return False
    rank = acting[0].rank
    return all(c.rank == rank for c in acting) and len({c.suit for c in acting}) == len(acting)


def is_sequence(cards: Sequence[Card | TableCard]) -> bool:
    """M2.3, M2.4: 3..13 cards of one suit in consecutive ranks, ace low or high, no wrap."""
    acting = _acting(cards)
    if not 3 <= len(acting) <= MAX_SEQUENCE or any(c.is_joker for c in acting):
        return False
    suit = acting[0].suit
    if any(c.suit != suit for c in acting):
        return False
    return _run_order(sorted(c.rank for c in acting)) is not None


def _run_order(ranks: list[int]) -> list[int] | None:
    """The ranks in sequence order (14 for a high ace), or None if they are not a run."""
    n = len(ranks)
    if len(set(ranks)) != n:
        return None
    if ranks[-1] - ranks[0] == n - 1:
        return ranks
    if ranks[0] == 1:
        high = [*ranks[1:], 14]
        if high[-1] - high[0] == n - 1:
            return high
    return None


def meld_kind(meld: Sequence[TableCard]) -> MeldKind | None:
    """ "group", "sequence" or None (not a valid meld); jokers count as declared (M2.5)."""
    if any(tc.card.is_joker and tc.declared is None for tc in meld):
        return None
    if is_group(meld):
        return "group"
    if is_sequence(meld):
        return "sequence"
    return None


def meld_problem(meld: Sequence[TableCard]) -> str | None:
    """Why `meld` is not a valid meld, naming the rule; None when it is valid."""
    for tc in meld:
        if tc.card.is_joker and tc.declared is None:
            return "a joker on the table must declare its card (I4, M5.1)"
    if meld_kind(meld) is not None:
        return None
    acting = _acting(meld)
    if len(acting) < 3:
        return "a meld needs at least 3 cards (M2.1)"
    ranks = [c.rank for c in acting]
    suits = [c.suit for c in acting]
    if len(set(ranks)) == 1:
        if len(acting) > 4:
            return "a group has at most 4 cards (M2.2)"
        twice = _first_repeat(acting)
        return f"a group may not hold two identical cards, {twice} appears twice (M2.2, A-M3)"
    if len(set(suits)) == 1:
        if len(set(ranks)) != len(ranks):
            return f"a sequence may not repeat a rank, {_first_repeat(acting)} appears twice (M2.3)"
        if len(acting) > MAX_SEQUENCE:
            return "a sequence has at most 13 cards, an ace at one end only (M2.4)"
        if 1 in ranks and 13 in ranks and 2 in ranks:
            return "a sequence may not turn the corner: K-A-2 is not a sequence (M2.4)"
        return "a sequence must be consecutive ranks (M2.3)"
    if len(set(ranks)) == len(ranks):
        return "a sequence must be one suit (M2.3)"
    return "neither a group (one rank, M2.2) nor a sequence (one suit, M2.3)"


def _first_repeat(cards: Sequence[Card]) -> Card:
    seen: set[Card] = set()
    for card in cards:
        if card in seen:
            return card
        seen.add(card)
    return cards[0]


def normalise_meld(meld: Sequence[TableCard]) -> Meld:
    """A valid meld in display order: a group by suit, a sequence by rank (high ace last)."""
    if is_group(meld):
        return tuple(sorted(meld, key=lambda tc: tc.acts_as.suit))
    ranks = sorted(tc.acts_as.rank for tc in meld)
    order = _run_order(ranks)
    high = order is not None and order[-1] == 14
    return tuple(sorted(meld, key=lambda tc: _run_key(tc.acts_as.rank, high)))


normalised = lru_cache(maxsize=8192)(normalise_meld)
"""`normalise_meld`, memoised: the same melds are normalised move after move."""


def _run_key(rank: int, ace_high: bool) -> int:
    return 14 if ace_high and rank == 1 else rank


def meld_text(meld: Sequence[TableCard]) -> str:
    return "[" + " ".join(str(tc) for tc in meld) + "]"


def parse_meld(text: str) -> Meld:
    """`parse_meld("7H 8H JK=9H")`: a meld from codes (for tests and tools)."""
    return tuple(TableCard.parse(code) for code in text.split())


def parse_table_text(text: str) -> Table:
    """`parse_table_text("7H 8H 9H | QS QD JK=QC")`: melds separated by `|`."""
    return tuple(parse_meld(part) for part in text.split("|") if part.strip())
