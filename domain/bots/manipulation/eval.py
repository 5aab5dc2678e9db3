"""What a Manipulation Rummy bot can work out from one seat's view (M1.4, M6, M8, M10).

Only the view is read: the seat's hand, the table (public), every seat's hand size, the stock
size, the options and the legal moves. The *unseen* cards are the pack (M1.2) minus the
seat's hand and the table; every other hand and the stock are among them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from domain.bots.common import Legal, Move, MoveJSON, ViewJSON, json_view, table_of
from domain.cards import JOKER_CODE, Card, TableCard
from domain.errors import RulesError
from domain.manipulation.melds import best_move, extensions
from domain.manipulation.options import options_of
from domain.manipulation.table.local_melds import hand_melds
from domain.manipulation.table.rules import validate_meld_move
from domain.shapes import JSON, json_int, json_list, json_object, json_str


def physical(code: str) -> str:
    """The card that leaves a hand for a table code: `JK=8S` is a joker."""
    return JOKER_CODE if code.startswith(JOKER_CODE) else code


def card_value(code: str) -> int:
    """M1.4: joker 25, J Q K 10, pips their value, ace 1."""
    return Card.parse(physical(code)).value


def hand_points(codes: Sequence[str]) -> int:
    return sum(card_value(c) for c in codes)


def table_cards(table: Sequence[Sequence[str]]) -> Counter[str]:
    return Counter(physical(code) for meld in table for code in meld)


def played_cards(before: Sequence[Sequence[str]], move: MoveJSON) -> Counter[str]:
    """The hand cards a meld move puts on the table (I1): the table after minus before."""
    return table_cards(table_of(move)) - table_cards(before)


def shed_points(before: Sequence[Sequence[str]], move: MoveJSON) -> int:
    return sum(card_value(c) * n for c, n in played_cards(before, move).items())


@dataclass(frozen=True, slots=True)
class SeatView:
    """The parts of a Manipulation view a bot uses."""

    seat: int
    phase: str
    hand: tuple[str, ...]
    table: tuple[tuple[str, ...], ...]
    hand_sizes: tuple[int, ...]
    stock_size: int
    draws: int
    players: int
    knock_limit: int
    undercut_bonus: int
    going_out_bonus: int
    scores: tuple[int, ...]
    target: int
    options: Mapping[str, JSON]

    @classmethod
    def of(cls, view: ViewJSON) -> SeatView:
        v = json_view(view)
        you, options = json_object(v.get("you")), json_object(v.get("options"))
        seats = [json_object(s) for s in json_list(v.get("seats"))]
        return cls(
            seat=json_int(you.get("seat", -1)),
            phase=str(v.get("phase")),
            hand=tuple(map(json_str, json_list(you.get("hand")))),
            table=tuple(tuple(map(json_str, json_list(m))) for m in json_list(v.get("table"))),
            hand_sizes=tuple(json_int(s.get("hand_size", 0)) for s in seats),
            stock_size=json_int(v.get("stock_size") or 0),
            draws=json_int(v.get("draws_this_turn") or 0),
            players=len(seats),
            knock_limit=json_int(options.get("knock_limit", 5)),
            undercut_bonus=json_int(options.get("undercut_bonus", 10)),
            going_out_bonus=json_int(options.get("going_out_bonus", 25)),
            scores=tuple(map(json_int, json_list(v.get("scores")))),
            target=json_int(options.get("target_score", 150)),
            options=options,
        )

    @property
    def points(self) -> int:
        return hand_points(self.hand)

    @property
    def decks(self) -> int:
        """M1.2: one pack for two players, two for three to five."""
        return 1 if self.players == 2 else 2

    def unseen(self) -> list[str]:
        """The pack minus this hand and the table (M1.2): other hands and the stock."""
        pack: Counter[str] = Counter()
        for index in range(52):
            pack[str(Card(index))] += self.decks
        pack[JOKER_CODE] += self.decks
        pack -= Counter(self.hand)
        pack -= table_cards(self.table)
        return sorted(pack.elements())

    def table_objects(self) -> tuple[tuple[TableCard, ...], ...]:
        return tuple(tuple(TableCard.parse(c) for c in meld) for meld in self.table)

    def hand_objects(self) -> tuple[Card, ...]:
        return tuple(Card.parse(c) for c in self.hand)


def moves_of(legal_moves: Legal, kind: str) -> list[Move]:
    return [dict(m) for m in legal_moves if m.get("type") == kind]


def best_meld(before: Sequence[Sequence[str]], melds: Sequence[Move]) -> tuple[Move, int] | None:
    """The listed meld move that sheds the most points (more cards among equals)."""
    best: tuple[int, int, int] | None = None
    for i, move in enumerate(melds):
        played = played_cards(before, move)
        key = (shed_points(before, move), sum(played.values()), -i)
        if best is None or key > best:
            best = key
    if best is None:
        return None
    return dict(melds[-best[2]]), best[0]


# --- melds a beginner sees: new melds from the hand, single cards laid off (no rearranging) ---


def _codes(table: Sequence[Sequence[TableCard]]) -> list[list[str]]:
    return [[str(tc) for tc in meld] for meld in table]


def simple_table(seat: SeatView) -> list[list[TableCard]] | None:
    """The table after laying down every meld the hand holds (most points first) and laying
    off every card that extends a meld, without moving any table card; None if nothing."""
    hand = list(seat.hand_objects())
    table = [list(meld) for meld in seat.table_objects()]
    played = False
    while True:
        best: tuple[int, tuple[TableCard, ...]] | None = None
        for meld in hand_melds(hand):
            points = sum(tc.card.value for tc in meld)
            if best is None or points > best[0]:
                best = (points, meld)
        if best is None:
            break
        table.append(list(best[1]))
        for tc in best[1]:
            hand.remove(tc.card)
        played = True
    while _lay_off_one(hand, table):
        played = True
    return table if played else None


def _lay_off_one(hand: list[Card], table: list[list[TableCard]]) -> bool:
    """Lay the highest card that extends a table meld onto it; False if none does."""
    for card in sorted(set(hand), key=lambda c: (-c.value, c.index)):
        for i, meld in enumerate(table):
            for grown in extensions(tuple(meld), [card]):
                table[i] = list(grown)
                hand.remove(card)
                return True
    return False


def simple_meld(seat: SeatView) -> tuple[Move, int] | None:
    """`simple_table` as a meld move checked by the rules (I1-I6), with its points."""
    table = simple_table(seat)
    if table is None:
        return None
    try:
        outcome = validate_meld_move(
            seat.table_objects(), seat.hand_objects(), table, seat.options, decks=seat.decks
        )
    except RulesError:
        return None
    return {"type": "meld", "table": _codes(outcome.table)}, outcome.points


def keeps_table(before: Sequence[Sequence[str]], move: MoveJSON) -> bool:
    """A meld move that only adds: every old meld is still there, maybe with cards added."""
    after = table_of(move)
    if len(after) < len(before):
        return False
    return all(not (Counter(old) - Counter(new)) for old, new in zip(before, after, strict=False))


# --- holding a card back ------------------------------------------------------------------------


def _fits_table(card: Card, table: Sequence[Sequence[TableCard]]) -> bool:
    """Can `card` be laid off onto one meld of `table` as it stands?"""
    return any(next(extensions(tuple(meld), [card]), None) is not None for meld in table)


def _parsed(table: Sequence[Sequence[str]]) -> list[tuple[TableCard, ...]]:
    return [tuple(TableCard.parse(c) for c in meld) for meld in table]


def meld_chance(seat: SeatView, move: MoveJSON) -> float:
    """After `move`, the chance that one card drawn next turn gives a meld at once: it fits
    a table meld, or it makes a meld with the cards left in the hand (M4 D1)."""
    table = _parsed(table_of(move))
    left = Counter(seat.hand) - played_cards(seat.table, move)
    hand = [Card.parse(c) for c in left.elements()]
    unseen = Counter(seat.unseen()) - left
    total = sum(unseen.values())
    if not total:
        return 1.0
    good = 0
    for code, count in unseen.items():
        card = Card.parse(code)
        if card.is_joker or _fits_table(card, table) or next(hand_melds([*hand, card]), None):
            good += count
    return good / total


def mean_unseen_value(seat: SeatView) -> float:
    """M1.4: the expected value of one card drawn from the stock (a card of the unseen)."""
    unseen = seat.unseen()
    return sum(card_value(c) for c in unseen) / len(unseen) if unseen else 0.0


def draw_cost(chance: float, mean_value: float) -> float:
    """M4: the expected points a turn starting from a hand adds by forced draws.

    With `chance` the probability that one drawn card melds at once, D2 is drawn with
    probability 1 - chance and D3 (no meld after two cards, roughly both missing) with
    (1 - chance) ** 3; each extra card adds `mean_value` points to the hand.
    """
    miss = 1.0 - chance
    return mean_value * (miss + miss**3)


def hold_back(seat: SeatView, most: int) -> tuple[Move, str, bool] | None:
    """The solver's best meld without one low card, that card, and whether the meld is proven
    best (False when the solver's work budget ran out), when the card still fits the
    resulting table (so it is a sure meld next turn); the cheapest such card."""
    if seat.options.get("initial_meld_per_player") or not seat.table:
        return None
    hand = list(seat.hand_objects())
    table = seat.table_objects()
    # frozen: the solver's budget-spent fallback (meld_candidates) memoises on its options
    frozen = options_of(seat.options)
    for card in sorted({c for c in hand if not c.is_joker and c.value <= most}):
        rest = list(hand)
        rest.remove(card)
        found = best_move(table, rest, frozen, has_opened=True, decks=seat.decks)
        if found is None or not _fits_table(card, found.table):
            continue
        try:
            outcome = validate_meld_move(
                table, hand, found.table, seat.options, has_opened=True, decks=seat.decks
            )
        except RulesError:
            continue
        return {"type": "meld", "table": _codes(outcome.table)}, str(card), found.proven
    return None
