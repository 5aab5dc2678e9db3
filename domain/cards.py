"""Card notation (api.md): rank `A23456789TJQK` + suit `CDHS`; `JK` a joker, `JK=8S` declared.

A card is a small frozen value with an integer `index`: `suit * 13 + rank - 1` for the 52 plain
cards (so the cards of one suit are consecutive bits and runs are contiguous bit ranges) and 52
for the joker. Hot paths work on integer bitmasks over these indices; the boundary converts.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from domain.errors import InvalidCard

RANKS = "A23456789TJQK"
SUITS = "CDHS"
JOKER_INDEX = 52
JOKER_CODE = "JK"


@dataclass(frozen=True, eq=False, slots=True)
class Card:
    """One card; `Card.parse("TS")`, `str(card) == "TS"`.

    Equality, hashing and ordering go by `index` alone (written out rather than generated:
    cards are hashed and compared on every hot path, and the generated methods build tuples).
    """

    index: int

    def __eq__(self, other: object) -> bool:
        if other.__class__ is Card:
            return self.index == other.index
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        if other.__class__ is Card:
            return self.index != other.index
        return NotImplemented

    def __hash__(self) -> int:
        return self.index

    def __lt__(self, other: Card) -> bool:
        if other.__class__ is Card:
            return self.index < other.index
        return NotImplemented

    def __le__(self, other: Card) -> bool:
        if other.__class__ is Card:
            return self.index <= other.index
        return NotImplemented

    def __gt__(self, other: Card) -> bool:
        if other.__class__ is Card:
            return self.index > other.index
        return NotImplemented

    def __ge__(self, other: Card) -> bool:
        if other.__class__ is Card:
            return self.index >= other.index
        return NotImplemented

    @classmethod
    def parse(cls, code: object) -> Card:
        """Parse a two-character code, refusing anything else with the bad code in the message."""
        if isinstance(code, Card):
            return code
        if not isinstance(code, str):
            raise InvalidCard(f"card {code!r} is not a card code: expected a string such as 'TS'")
        if code == JOKER_CODE:
            return JOKER
        if len(code) != 2 or code[0] not in RANKS or code[1] not in SUITS:
            raise InvalidCard(
                f"card {code!r} is not a card code: rank A23456789TJQK then suit CDHS, "
                "upper case, or JK for a joker"
            )
        return _PLAIN[SUITS.index(code[1]) * 13 + RANKS.index(code[0])]

    @classmethod
    def of(cls, rank: int, suit: int) -> Card:
        """The plain card of `rank` (1 = ace .. 13 = king) and `suit` (index into SUITS)."""
        return _PLAIN[suit * 13 + rank - 1]

    @property
    def is_joker(self) -> bool:
        return self.index == JOKER_INDEX

    @property
    def rank(self) -> int:
        """1 (ace) .. 13 (king); 0 for the joker."""
        return _RANK[self.index]

    @property
    def suit(self) -> int:
        """0..3 (C, D, H, S); -1 for the joker."""
        return _SUIT[self.index]

    @property
    def value(self) -> int:
        """Points when counted in a hand: ace 1, pips face value, J Q K 10, joker 25."""
        return _VALUE[self.index]

    @property
    def bit(self) -> int:
        return 1 << self.index

    def __str__(self) -> str:
        return _CODES[self.index]

    def __repr__(self) -> str:
        return f"Card({str(self)!r})"


_CODES = (*(RANKS[i % 13] + SUITS[i // 13] for i in range(52)), JOKER_CODE)
_JOKER_AS = tuple(f"{JOKER_CODE}={code}" for code in _CODES)
_RANK = (*(i % 13 + 1 for i in range(52)), 0)
_SUIT = (*(i // 13 for i in range(52)), -1)
_VALUE = (*(min(i % 13 + 1, 10) for i in range(52)), 25)
_PLAIN = tuple(Card(i) for i in range(52))
JOKER = Card(JOKER_INDEX)
FULL_DECK: tuple[Card, ...] = _PLAIN
"""The 52 plain cards in index order (clubs A..K, diamonds, hearts, spades)."""

CardLike = Card | str


def parse_cards(codes: Iterable[CardLike]) -> tuple[Card, ...]:
    """Parse many codes (or pass cards through); the first bad code is named in the error."""
    if isinstance(codes, str):
        codes = codes.split()
    return tuple(Card.parse(c) for c in codes)


def to_mask(cards: Iterable[CardLike]) -> int:
    """The bitmask of distinct plain cards; a repeated card is refused."""
    mask = 0
    for card in parse_cards(cards):
        if mask & card.bit:
            raise InvalidCard(f"card {card} appears twice")
        mask |= card.bit
    return mask


def from_mask(mask: int) -> tuple[Card, ...]:
    """The cards of a bitmask, in index order."""
    out = []
    while mask:
        low = mask & -mask
        out.append(_PLAIN[low.bit_length() - 1] if low.bit_length() <= 52 else JOKER)
        mask ^= low
    return tuple(out)


def codes(cards: Iterable[Card]) -> list[str]:
    """Card codes of cards, in the given order (the JSON form)."""
    return [_CODES[c.index] for c in cards]


@dataclass(frozen=True, eq=False, slots=True)
class TableCard:
    """A card on the Manipulation table: a plain card, or a joker with its declared card.

    Equal when card and declared card are; hashing and equality written out for speed."""

    card: Card
    declared: Card | None = None

    def __eq__(self, other: object) -> bool:
        if other.__class__ is TableCard:
            return self.card == other.card and self.declared == other.declared
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self) -> int:
        declared = self.declared
        return self.card.index * 64 + (63 if declared is None else declared.index)

    @classmethod
    def parse(cls, code: object) -> TableCard:
        """Parse `7H`, or `JK=8S` for a joker declared as 8S; a bare `JK` is refused here."""
        if isinstance(code, TableCard):
            return code
        if isinstance(code, str) and code.startswith(JOKER_CODE + "="):
            declared = Card.parse(code[3:])
            if declared.is_joker:
                raise InvalidCard(f"card {code!r}: a joker must be declared as a plain card")
            return cls(JOKER, declared)
        card = Card.parse(code)
        if card.is_joker:
            raise InvalidCard(
                f"card {code!r}: a joker on the table must declare its card, e.g. 'JK=8S'"
            )
        return cls(card)

    @property
    def acts_as(self) -> Card:
        """The card this one counts as in a meld."""
        return self.declared if self.declared is not None else self.card

    def __str__(self) -> str:
        declared = self.declared
        return _CODES[self.card.index] if declared is None else _JOKER_AS[declared.index]
