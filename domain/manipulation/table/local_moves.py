"""Going out by local moves (M8.3): a quick certificate before the table program.

When every hand card (and hand joker) can join the table by cheap local moves (a card at a
sequence end or in a group of 3, a card that cuts a sequence holding its twin in two, new
melds from the hand, jokers laid at the ends), the move plays the whole hand, so no legal
move sheds more: it is the best, proven, whatever the program would have found. The
table is checked by `validate_meld_move` (I1-I6 and the options) before it is trusted;
when the local moves leave a card over, or the check refuses the table, the caller asks
the program as before.
"""

from __future__ import annotations

from collections.abc import Sequence

from domain.cards import JOKER, Card, TableCard
from domain.errors import IllegalMove
from domain.manipulation.table.local_melds import growth, hand_melds
from domain.manipulation.table.meld import Meld, meld_kind, normalise_meld
from domain.manipulation.table.rules import MeldOutcome, validate_meld_move


def going_out_by_local_moves(
    table: Sequence[Meld], hand: Sequence[Card], options: object, has_opened: bool, decks: int
) -> MeldOutcome | None:
    """The whole hand played by local moves onto `table`, validated; or None. First with
    the table's jokers kept, then with every one whose card the hand holds swapped for it
    (M5.2) and laid again."""
    for swap in (False, True):
        found = _attempt(table, hand, swap)
        if found is None:
            continue
        try:
            return validate_meld_move(
                table, hand, tuple(found), options, has_opened=has_opened, decks=decks
            )
        except IllegalMove:
            continue
    return None


def _attempt(table: Sequence[Meld], hand: Sequence[Card], swap: bool) -> list[Meld] | None:
    melds = [tuple(meld) for meld in table]
    left = sorted(card for card in hand if not card.is_joker)
    jokers = sum(card.is_joker for card in hand)
    if swap:
        jokers += _swap_jokers(melds, left)
    while left:
        progress = _place_each(melds, left)
        if not left:
            break
        meld = next(iter(hand_melds(left)), None)
        if meld is not None:
            melds.append(meld)
            for tc in meld:
                left.remove(tc.card)
        elif not progress and not _borrow(melds, left):
            return None
    for _ in range(jokers):
        if not _lay_joker(melds):
            return None
    return melds


def _swap_jokers(melds: list[Meld], left: list[Card]) -> int:
    """Each table joker whose declared card `left` holds takes that real card instead
    (M5.2); the jokers so freed (to be laid again, M5.4)."""
    freed = 0
    for k, meld in enumerate(melds):
        for p, tc in enumerate(meld):
            if tc.declared is not None and tc.declared in left:
                left.remove(tc.declared)
                meld = (*meld[:p], TableCard(tc.declared), *meld[p + 1 :])
                freed += 1
        melds[k] = meld
    return freed


def _place_each(melds: list[Meld], left: list[Card]) -> bool:
    """Place every card of `left` that fits one meld (removed from `left`); any placed?"""
    placed = False
    for card in list(left):
        if _extend(melds, card) or _cut(melds, card):
            left.remove(card)
            placed = True
    return placed


def _extend(melds: list[Meld], card: Card) -> bool:
    for k, meld in enumerate(melds):
        if card in growth(meld)[0]:
            melds[k] = (*meld, TableCard(card))
            return True
    return False


def _cut(melds: list[Meld], card: Card) -> bool:
    """A sequence holding `card` at its (p+1)-th place, p >= 2, with 3 or more cards from
    there on: it splits into the cards up to `card` and `card` (the twin) with the rest."""
    for k, meld in enumerate(melds):
        if len(meld) < 5 or all(tc.acts_as != card for tc in meld):
            continue
        if meld_kind(meld) != "sequence":
            continue
        ordered = normalise_meld(meld)
        for p, tc in enumerate(ordered):
            if tc.acts_as == card and p >= 2 and len(ordered) - p >= 3:
                melds[k] = ordered[: p + 1]
                melds.append((TableCard(card), *ordered[p + 1 :]))
                return True
    return False


def _lay_joker(melds: list[Meld]) -> bool:
    for k, meld in enumerate(melds):
        fits = growth(meld)[1]
        if fits:
            melds[k] = (*meld, TableCard(JOKER, fits[0]))
            return True
    return False


def _spare(melds: list[Meld]) -> list[tuple[int, TableCard]]:
    """Table cards a meld can give away and stay valid: an end of a sequence of 4 or more,
    any card of a group of 4 (each with its meld's index)."""
    out = []
    for k, meld in enumerate(melds):
        if len(meld) < 4:
            continue
        kind = meld_kind(meld)
        if kind == "group":
            out += [(k, tc) for tc in meld]
        elif kind == "sequence":
            ordered = normalise_meld(meld)
            out += [(k, ordered[0]), (k, ordered[-1])]
    return out


def _borrow(melds: list[Meld], left: list[Card]) -> bool:
    """A new meld of one hand card and two cards that are hand cards or spare table cards
    (taken from melds that stay valid); True when one was laid."""
    spare = _spare(melds)
    for card in left:
        others = [(None, TableCard(c)) for c in left if c is not card]
        pool = [(k, tc) for k, tc in (*others, *spare) if _near(card, tc.acts_as)]
        for a in range(len(pool)):
            for b in range(a + 1, len(pool)):
                trio = (TableCard(card), pool[a][1], pool[b][1])
                if meld_kind(trio) is None:
                    continue
                if _take(melds, left, card, (pool[a], pool[b])):
                    return True
    return False


def _near(card: Card, other: Card) -> bool:
    """Whether `other` can share a meld of 3 with `card`: the same rank, or the same suit
    within 2 ranks (the ace low or high). Only a filter before `meld_kind`."""
    if card.rank == other.rank:
        return True
    if card.suit != other.suit:
        return False
    a, b = card.rank, other.rank
    return abs(a - b) <= 2 or abs((a - 2) % 13 - (b - 2) % 13) <= 2


def _take(
    melds: list[Meld],
    left: list[Card],
    card: Card,
    taken: tuple[tuple[int | None, TableCard], ...],
) -> bool:
    """Lay `card` with the two `taken` cards if the melds they leave are still valid."""
    shrunk = {k: list(melds[k]) for k, _ in taken if k is not None}
    for k, tc in taken:
        if k is not None:
            shrunk[k].remove(tc)
    if any(meld_kind(tuple(rest)) is None for rest in shrunk.values()):
        return False
    for k, rest in shrunk.items():
        melds[k] = tuple(rest)
    melds.append((TableCard(card), *(tc for _, tc in taken)))
    left.remove(card)
    for k, tc in taken:
        if k is None:
            left.remove(tc.card)
    return True
