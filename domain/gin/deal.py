"""Three-handed Gin chance and seating: the role draw (G1.2), the deal (G4), the rotation (G1.5).

Chance is data: each function here returns an Event that records every card it drew, from
`DealRng(deal_key, purpose)`; the fold only reads those events.

- Role draw: one deck shuffled with purpose "roles" is drawn from the top, one card per player
  in seat order; tied players draw again from the same deck (only they redraw). Should that
  deck ever run out, the next deck is shuffled with purpose "roles:2", "roles:3", ...
  With `role_draw_tiebreak` = `suit_order`, a tie of ranks is broken by suit, spades high:
  S > H > D > C (bridge order), so nobody redraws.
- Deal of round r: the deck shuffled with purpose f"deal:{r}"; cards 0..19 go one at a time to
  CAPTAIN, BOX, CAPTAIN, ... (G4.2), card 20 is the upcard and 21..51 the stock, top first
  (G4.3). The salt is `DealRng(salt key, f"salt:{r}").token()`, the salt key being the deal
  key, or a seeded match's secret `salt_key` (shuffle.salt_key).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from domain.cards import FULL_DECK, Card, codes
from domain.events import Event
from domain.gin.shapes import GinRoundDealtData, RoleDraw, RolesDrawnData
from domain.gin.state import GinState, Roles
from domain.shapes import JSON, as_json, json_int, json_list, json_str
from domain.shuffle import DealRng, commitment


class _DrawDeck:
    """The role-draw deck: cards from the top of seeded shuffles, a fresh deck when empty."""

    def __init__(self, key: str) -> None:
        self._key = key
        self._decks = 0
        self._cards: Iterator[Card] = iter(())

    def next(self) -> Card:
        for card in self._cards:
            return card
        self._decks += 1
        purpose = "roles" if self._decks == 1 else f"roles:{self._decks}"
        deck = list(FULL_DECK)
        DealRng(self._key, purpose).shuffle(deck)
        self._cards = iter(deck)
        return next(self._cards)


def _strength(card: Card, tiebreak: str) -> tuple[int, ...]:
    """G1.2: K high, A low; under `suit_order` the suit breaks ties (S > H > D > C)."""
    return (card.rank, card.suit) if tiebreak == "suit_order" else (card.rank,)


def draw_roles(deal_key: str, tiebreak: str, seats: int = 3) -> Event:
    """G1.2: the highest card is BOX, the middle CAPTAIN, the lowest ADVISOR."""
    deck = _DrawDeck(deal_key)
    draws: list[list[RoleDraw]] = []
    order = _rank_seats(list(range(seats)), deck, tiebreak, draws)
    data: RolesDrawnData = {
        "draws": draws,
        "tiebreak": tiebreak,
        "box": order[0],
        "captain": order[1],
        "advisor": order[2],
    }
    return Event("RolesDrawn", as_json(data))


def _rank_seats(
    seats: list[int], deck: _DrawDeck, tiebreak: str, draws: list[list[RoleDraw]]
) -> list[int]:
    """Seats from the highest card down; a group tied on its card redraws (only it)."""
    drawn = {seat: deck.next() for seat in seats}
    draws.append([{"seat": seat, "card": str(card)} for seat, card in drawn.items()])
    levels = sorted({_strength(c, tiebreak) for c in drawn.values()}, reverse=True)
    order: list[int] = []
    for level in levels:
        group = [s for s in seats if _strength(drawn[s], tiebreak) == level]
        order += group if len(group) == 1 else _rank_seats(group, deck, tiebreak, draws)
    return order


def next_roles(state: GinState) -> Roles:
    """G1.5: the roles of the next hand, from the last round result (or the role draw)."""
    assert state.roles is not None
    roles = state.roles
    if not state.rounds:
        return roles
    last = state.rounds[-1]
    if last["outcome"] == "draw":
        return roles
    if list(last["winners"]) == [roles.box]:
        return Roles(box=roles.box, captain=roles.advisor, advisor=roles.captain)
    return Roles(box=roles.captain, captain=roles.advisor, advisor=roles.box)


def deal_round(
    deal_key: str, round_no: int, roles: Roles, seats: int = 3, salts: str | None = None
) -> Event:
    """G4: 10 cards each to CAPTAIN and BOX (CAPTAIN first), the upcard, 31 stock cards; the
    commitment salt from `salts` (shuffle.salt_key; the deal key when None)."""
    deck = list(FULL_DECK)
    DealRng(deal_key, f"deal:{round_no}").shuffle(deck)
    salt = DealRng(salts or deal_key, f"salt:{round_no}").token()
    dealt = codes(deck)  # the deck's codes once; the hands, upcard and stock are slices
    hands: list[list[str] | None] = [None] * seats
    hands[roles.captain] = dealt[0:20:2]
    hands[roles.box] = dealt[1:20:2]
    data: GinRoundDealtData = {
        "round": round_no,
        "box": roles.box,
        "captain": roles.captain,
        "advisor": roles.advisor,
        "hands": hands,
        "upcard": dealt[20],
        "stock": dealt[21:],
        "salt": salt,
        "commitment": commitment(dealt, salt),
    }
    return Event("RoundDealt", as_json(data))


def dealt_deck(data: Mapping[str, JSON]) -> list[str]:
    """The full deck order a RoundDealt event records (for checking its commitment): its
    recorded JSON, read at the edge (a client checks a log it downloaded)."""
    hands = json_list(data["hands"])
    captain = map(json_str, json_list(hands[json_int(data["captain"])]))
    box = map(json_str, json_list(hands[json_int(data["box"])]))
    interleaved = [code for pair in zip(captain, box, strict=True) for code in pair]
    return [*interleaved, json_str(data["upcard"]), *map(json_str, json_list(data["stock"]))]
