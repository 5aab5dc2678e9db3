"""The Manipulation Rummy deal (M3): the shuffled pack dealt 10 each from the dealer's left."""

from __future__ import annotations

from domain.events import Event
from domain.manipulation.state import pack
from domain.shuffle import DealRng, commitment

HAND_SIZE = 10


def deal_event(
    deal_key: str, round_no: int, n: int, dealer: int, salts: str | None = None
) -> Event:
    """RoundDealt: shuffle the pack (M1.2), deal 10 each one at a time from the dealer's left;
    the commitment salt from `salts` (shuffle.salt_key; the deal key when None)."""
    deck = [str(c) for c in pack(n)]
    DealRng(deal_key, f"deal:{round_no}").shuffle(deck)
    salt = DealRng(salts or deal_key, f"salt:{round_no}").token()
    hands: list[list[str]] = [[] for _ in range(n)]
    for i in range(HAND_SIZE * n):
        hands[(dealer + 1 + i) % n].append(deck[i])
    return Event(
        "RoundDealt",
        {
            "round": round_no,
            "dealer": dealer,
            "hands": hands,
            "stock": deck[HAND_SIZE * n :],
            "salt": salt,
            "commitment": commitment(deck, salt),
        },
    )
