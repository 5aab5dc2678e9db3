"""What a three-handed gin bot can work out from one seat's view, on 52-bit card masks.

Everything here reads only the view (api.md: the seat's hand, the discard top, the stock and
pile sizes, the options, the legal moves) and works on masks with the exact deadwood tables of
domain.gin.melds.core (G3, G6.2) and the exact lay-off search of domain.gin.melds.layoffs
(G6.6-G6.7).

- `SeatView.of(view)`: the parsed view. The *unseen* cards are the 52 minus the seat's hand
  and the discard top (and, if a view carries them, the whole discard pile and the cards the
  opponent is known to hold: its `picked` cards, taken from the pile and still held). The
  opponent's hand, the stock and the buried discards are all
  among them.
- `potential(hand, pool)`: the expected deadwood saved by one draw from `pool` (the hand's
  "outs"), `value(hand, pool)` = deadwood - ALPHA * potential: lower is better.
- `OpponentModel`: sampled opponent hands: 10 unseen cards, improved by as many greedy
  stock draws as the opponent has had turns, so late in a hand they hold what a player
  who has been drawing would hold. Used for the danger of a discard (how much it would help
  the opponent) and the value of a knock (undercut risk against lay-offs).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from domain.bots.common import Legal, Move, ViewJSON, json_view, sample_split
from domain.cards import Card
from domain.gin.melds.core import (
    CARD_VALUES,
    arrangements_of,
    best_arrangement,
    best_discard,
    deadwood_saved,
    least_deadwoods_plus,
)
from domain.gin.melds.core import (
    clear_caches as clear_meld_caches,
)
from domain.gin.melds.core import least_deadwood as _least_deadwood
from domain.gin.melds.layoffs import best_layoffs
from domain.shapes import JSON, json_int, json_list, json_object

DECK = (1 << 52) - 1

least_deadwood = lru_cache(maxsize=1 << 18)(_least_deadwood)
"""domain.gin.melds.core.least_deadwood, memoised: a bot's searches meet the same hands often
(adding x then y is adding y then x; the next turn's hand is this turn's plus one card)."""
STOCK_AT_DEAL = 31  # G4.3: 52 - 2 * 10 - 1
SUIT = 13


def _neighbours(index: int, reach: int) -> int:
    """Cards of the same rank, and of the same suit within `reach` ranks (not the card)."""
    rank, suit = index % SUIT, index // SUIT
    mask = sum(1 << (s * SUIT + rank) for s in range(4))
    for step in range(1, reach + 1):
        for r in (rank - step, rank + step):
            if 0 <= r < SUIT:
                mask |= 1 << (suit * SUIT + r)
    return mask & ~(1 << index)


MELD_NEIGHBOURS = tuple(_neighbours(i, 1) for i in range(52))
"""Only these cards can share a meld with card i next to it (G3.1 sets, G3.2 runs)."""


_BYTE_BITS = tuple(tuple(i for i in range(8) if b >> i & 1) for b in range(256))


def bits(mask: int) -> list[int]:
    """The card indices of a mask, lowest first (a byte at a time)."""
    out: list[int] = []
    base = 0
    while mask:
        byte = mask & 255
        if byte:
            out.extend(base + i for i in _BYTE_BITS[byte])
        mask >>= 8
        base += 8
    return out


_INDEX = {str(Card(i)): i for i in range(52)}


def mask_of(codes: Sequence[str] | None) -> int:
    """The mask of card codes (None entries skipped); a bad code is refused by Card.parse."""
    mask = 0
    for code in codes or ():
        if code is not None:
            index = _INDEX.get(code)
            mask |= 1 << (Card.parse(code).index if index is None else index)
    return mask


def code(index: int) -> str:
    return str(Card(index))


def deadwood(mask: int) -> int:
    """G3.4: least deadwood of a hand of at most 10 cards, nothing set aside."""
    return least_deadwood(mask, False)


def deadwood_after_best_discard(mask: int) -> int:
    """G6.2: least deadwood when one card of `mask` is set aside."""
    return least_deadwood(mask, True)


_NOT_ACE = DECK & ~sum(1 << (suit * SUIT) for suit in range(4))
_NOT_KING = DECK & ~sum(1 << (suit * SUIT + 12) for suit in range(4))
_RANK_SPREAD = 1 | 1 << 13 | 1 << 26 | 1 << 39


def related(hand: int) -> int:
    """Cards outside `hand` that could share a meld with a card of it (the union of their
    MELD_NEIGHBOURS: the same rank in any suit, the next rank up or down in the same suit)."""
    ranks = (hand | hand >> 13 | hand >> 26 | hand >> 39) & 8191
    up = hand << 1 & _NOT_ACE  # a king does not reach the next suit's ace
    down = hand >> 1 & _NOT_KING
    return (ranks * _RANK_SPREAD | up | down) & ~hand


def improvement(hand: int, card: int, base: int, base_drop: int, near: int) -> int:
    """Deadwood saved by adding card index `card` to a 10-card `hand` and discarding the best.

    `base` = deadwood(hand), `base_drop` = deadwood_after_best_discard(hand), `near` =
    related(hand): a card that can meld with nothing only replaces the worst deadwood card.
    """
    if near >> card & 1:
        return max(0, base - least_deadwood(hand | 1 << card, True))
    return max(0, base - base_drop - CARD_VALUES[card])


VALUE_MASKS = tuple(sum(1 << i for i in range(52) if CARD_VALUES[i] == v) for v in range(11))
"""The cards worth v points (G2.3), for v = 0..10 (none is worth 0)."""


def potential(hand: int, pool: int) -> float:
    """Expected deadwood saved by one card drawn uniformly from `pool` (0 for an empty pool).

    The sum of `improvement` over the pool: a card that melds with nothing saves
    `slack - value` when positive, counted by value; the others need the deadwood table.
    """
    pool &= ~hand
    count = pool.bit_count()
    if not count:
        return 0.0
    base = deadwood(hand)
    slack = base - deadwood_after_best_discard(hand)
    near = related(hand)
    far = pool & ~near
    total = sum((slack - v) * (far & VALUE_MASKS[v]).bit_count() for v in range(1, min(slack, 11)))
    total += deadwood_saved(hand, pool & near)
    return total / count


ALPHA = 1.5
"""Weight of a hand's potential against its deadwood (tuned with the arena)."""


@lru_cache(maxsize=1 << 16)
def value(hand: int, pool: int, alpha: float = ALPHA) -> float:
    """How good a 10-card hand is: deadwood minus `alpha` times its potential (lower is better)."""
    return deadwood(hand) - alpha * potential(hand, pool)


def clear_caches() -> None:
    """Forget the memoised deadwoods and values (a benchmark's cold start)."""
    least_deadwood.cache_clear()
    value.cache_clear()
    clear_meld_caches()


# --- the view ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SeatView:
    """The parts of a gin view a bot uses."""

    seat: int
    role: str | None
    phase: str
    hand: int
    top: int | None  # card index of the discard top
    stock_size: int
    discard_size: int
    pile: int  # every discard the view shows (the top at least)
    opponent_known: int  # cards the view says the opponent holds (none in api.md's view)
    declined: int  # the discard top, when the opponent chose not to hold it (see `_declined`)
    opponent: int | None
    knock_limit: int
    gin_bonus: int
    gin_scores_deadwood: bool
    undercut_bonus: int
    undercut_on_tie: bool
    layoff_chain: bool
    scores: tuple[int, ...]
    target: int

    @classmethod
    def of(cls, view: ViewJSON) -> SeatView:
        v = json_view(view)
        you, roles = json_object(v.get("you")), json_object(v.get("roles"))
        seat = json_int(you.get("seat", -1))
        role = you.get("role")
        role = role if isinstance(role, str) else None
        opponent = None
        if roles and role in ("box", "captain"):
            opponent = json_int(roles["captain"] if role == "box" else roles["box"])
        top = v.get("discard_top")
        top_index = None if top is None else Card.parse(top).index
        pile = mask_of(_codes(v.get("discard_pile"))) | (0 if top_index is None else 1 << top_index)
        known = _opponent_known(v, opponent)
        options = json_object(v.get("options"))
        return cls(
            seat=seat,
            role=role,
            phase=str(v.get("phase")),
            hand=mask_of(_codes(you.get("hand"))),
            top=top_index,
            stock_size=json_int(v.get("stock_size") or 0),
            discard_size=json_int(v.get("discard_size") or 0),
            pile=pile,
            opponent_known=known,
            declined=_declined(v, role, top_index),
            opponent=opponent,
            knock_limit=json_int(options.get("knock_limit", 10)),
            gin_bonus=json_int(options.get("gin_bonus", 25)),
            gin_scores_deadwood=bool(options.get("gin_scores_opponent_deadwood", True)),
            undercut_bonus=json_int(options.get("undercut_bonus", 10)),
            undercut_on_tie=bool(options.get("undercut_on_tie", True)),
            layoff_chain=bool(options.get("layoff_chain", True)),
            scores=tuple(map(json_int, json_list(v.get("scores")))),
            target=json_int(options.get("target_score", 100)),
        )

    @property
    def unseen(self) -> int:
        """Cards this seat has not seen: the opponent's hand, the stock, buried discards."""
        return DECK & ~self.hand & ~self.pile & ~self.opponent_known

    @property
    def draws_so_far(self) -> int:
        """Cards drawn from the stock this hand (a lower bound on the turns played)."""
        return max(0, STOCK_AT_DEAL - self.stock_size)


def _declined(view: Mapping[str, JSON], role: str | None, top: int | None) -> int:
    """The discard top as a card the opponent did not want, when it is one (G5.1, G5.2).

    On our turn the top is the opponent's last discard, or the card it left lying when it
    drew from the stock, or (BOX's upcard offer) the upcard CAPTAIN passed. Only CAPTAIN's
    own upcard offer shows a card nobody has judged yet.
    """
    if top is None or role not in ("box", "captain"):
        return 0
    if view.get("phase") == "upcard_offer" and role == "captain":
        return 0
    return 1 << top


def _opponent_known(view: Mapping[str, JSON], opponent: int | None) -> int:
    """Cards the view shows the opponent holding: its `picked` cards (G1.4, public)."""
    picked = view.get("picked")
    if opponent is None or not isinstance(picked, list) or opponent >= len(picked):
        return 0
    return mask_of(_codes(picked[opponent]))


def _codes(value: JSON) -> list[str]:
    """Recorded card codes (None entries, hidden cards, skipped by `mask_of`)."""
    return [code for code in json_list(value) if isinstance(code, str)]


# --- the opponent model -----------------------------------------------------------------------


SAMPLES = 12
MAX_SIM_TURNS = 6


@dataclass(frozen=True, slots=True)
class OpponentModel:
    """Sampled opponent hands (10-card masks) consistent with what the seat has seen."""

    hands: tuple[int, ...]

    @classmethod
    def sample(
        cls,
        seat: SeatView,
        rng: random.Random,
        exclude: int = 0,
        samples: int = SAMPLES,
        no_knock: bool = True,
    ) -> OpponentModel:
        """`samples` hands: the known cards plus unseen ones, improved by simulated draws.

        A sampled hand is redrawn (up to RETRIES times) when it contradicts what the
        opponent did: it would have kept the card it declined, or (`no_knock`, once the
        opponent has played a turn) it could have knocked (G6.2) but went on discarding.
        """
        pool = bits(seat.unseen & ~exclude)
        known = seat.opponent_known & ~exclude
        need = 10 - known.bit_count()
        turns = min(MAX_SIM_TURNS, (seat.draws_so_far + 1) // 2)
        limit = seat.knock_limit if no_knock and opponent_has_played(seat) else -1
        hands = []
        for _ in range(samples):
            if need <= 0 or len(pool) < need + turns:
                hands.append(known)
                continue
            for _ in range(RETRIES + 1):
                hand = _simulated(rng, pool, known, need, turns)
                if not _would_keep(hand, seat.declined) and deadwood(hand) > limit:
                    break
            hands.append(hand)
        return cls(tuple(hands))

    def threat(self, card: int, limit: int) -> float:
        """Share of the hands that taking `card` from the pile lets knock at once (G6.2)."""
        if not self.hands:
            return 0.0
        hits = 0
        for hand in self.hands:
            if not hand >> card & 1 and least_deadwood(hand | 1 << card, True) <= limit:
                hits += 1
        return hits / len(self.hands)

    def danger(self, card: int) -> float:
        """Mean deadwood the opponent saves by taking `card` from the discard pile (G5.2)."""
        return self.dangers(1 << card).get(card, 0.0)

    def dangers(self, cards: int) -> dict[int, float]:
        """`danger` of each card of the mask, one incremental search per sampled hand."""
        if not self.hands:
            return dict.fromkeys(bits(cards), 0.0)
        total = dict.fromkeys(bits(cards), 0)
        for hand in self.hands:
            now = deadwood(hand)
            for card, count in least_deadwoods_plus(hand, cards & ~hand).items():
                if count < now:
                    total[card] += now - count
        return {card: saved / len(self.hands) for card, saved in total.items()}


def opponent_has_played(seat: SeatView) -> bool:
    """Has the opponent finished a turn of this hand (so it chose not to knock)?

    CAPTAIN's upcard offer comes before any turn; BOX's offer follows only CAPTAIN's pass.
    Otherwise a discard beyond the upcard, or a stock draw, means a turn was played, and
    on our turn the last turn played was the opponent's.
    """
    if seat.phase == "upcard_offer":
        return False
    if seat.phase == "draw":
        return seat.discard_size > 1 or seat.draws_so_far > 0
    return seat.draws_so_far > 1  # after our own draw: one stock draw may be ours


RETRIES = 6
"""Redraws of a sampled hand that contradicts what the opponent did."""


def _simulated(rng: random.Random, pool: list[int], known: int, need: int, turns: int) -> int:
    """A dealt hand improved by `turns` greedy stock draws."""
    dealt, drawn = sample_split(rng, pool, (need, turns))
    hand = known
    for i in dealt:
        hand |= 1 << i
    for i in drawn:
        hand = _greedy_keep(hand | 1 << i, known)
    return hand


def _would_keep(hand: int, declined: int) -> bool:
    """Would a hand have kept (not discarded or passed) the declined card? It lowers its count."""
    if not declined or hand & declined:
        return False
    return least_deadwood(hand | declined, True) < deadwood(hand)


def _greedy_keep(hand11: int, known: int = 0) -> int:
    """The 10 cards an opponent keeps from 11: the least-deadwood discard (G6.2), never one
    of the `known` cards (taken from the pile in view of everyone, so kept to be melded)."""
    dropped = best_discard(hand11)
    if not dropped & known:
        return hand11 & ~dropped
    best = min(bits(hand11 & ~known), key=lambda c: least_deadwood(hand11 & ~(1 << c), False))
    return hand11 & ~(1 << best)


def knock_outcome(
    seat: SeatView, kept: int, defender: int, spreads: Sequence[tuple[int, ...]] | None = None
) -> int:
    """G7.1-G7.3: the knocker's points (negative: the defender's) for a knock keeping `kept`.

    `spreads` are the least-deadwood arrangements the knocker may show (G6.3); the server
    shows the one that lets the defender lay off least, so the best of them counts.
    """
    count = deadwood(kept)
    if count == 0:
        return seat.gin_bonus + (deadwood(defender) if seat.gin_scores_deadwood else 0)
    if spreads is None:
        spreads = knock_spreads(kept)
    other = max(best_layoffs(defender, melds, seat.layoff_chain).count for melds in spreads)
    if count < other or (count == other and not seat.undercut_on_tie):
        return other - count
    return -(count - other + seat.undercut_bonus)


MAX_SPREADS = 4


def knock_spreads(kept: int) -> tuple[tuple[int, ...], ...]:
    """A few of the least-deadwood arrangements of the 10 kept cards (G6.3), as meld masks."""
    found = []
    for melds in arrangements_of(kept):
        found.append(melds)
        if len(found) >= MAX_SPREADS:
            break
    return tuple(found) or (best_arrangement(kept, False)[0],)


def knock_value(
    seat: SeatView,
    kept: int,
    model: OpponentModel,
    win_weight: float = 0.0,
    finish: float = 0.0,
) -> tuple[float, float]:
    """(expected points of knocking keeping `kept`, probability of being undercut).

    `win_weight` is added to a won hand and taken from a lost one: the winner of a hand plays
    the next one (BOX stays or CAPTAIN becomes BOX) and the loser sits it out as ADVISOR
    (G1.5), so winning is worth more than its points. `finish` is added to points that win
    the match and taken from points that make the opponent win it (`match_worth`).
    """
    if not model.hands:
        return (0.0, 0.0)
    spreads = knock_spreads(kept)
    outcomes = [knock_outcome(seat, kept, h, spreads) for h in model.hands]
    undercut = sum(o < 0 for o in outcomes) / len(outcomes)
    total = sum(
        match_worth(seat, o, finish) + (win_weight if o > 0 else -win_weight) for o in outcomes
    )
    return total / len(outcomes), undercut


def match_worth(seat: SeatView, points: float, finish: float) -> float:
    """A hand's points for this seat (negative: the opponent's), plus `finish` when they take
    this seat to the target score and minus it when they take the opponent there (G8.1)."""
    if not finish or not seat.scores:
        return points
    if points > 0 and 0 <= seat.seat < len(seat.scores):
        return points + (finish if seat.scores[seat.seat] + points >= seat.target else 0.0)
    if points < 0 and seat.opponent is not None and seat.opponent < len(seat.scores):
        return points - (finish if seat.scores[seat.opponent] - points >= seat.target else 0.0)
    return points


def legal_cards(legal_moves: Legal, kind: str) -> list[int]:
    """Card indices of the legal moves of one type (discard or knock)."""
    return [Card.parse(m["card"]).index for m in legal_moves if m.get("type") == kind]


def find_move(legal_moves: Legal, kind: str, **fields: object) -> Move | None:
    """The legal move of type `kind` with these fields, if listed."""
    for move in legal_moves:
        if move.get("type") == kind and all(move.get(k) == v for k, v in fields.items()):
            return dict(move)
    return None
