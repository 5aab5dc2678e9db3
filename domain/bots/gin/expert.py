"""`expert` three-handed gin: hand potential, a sampled opponent, and a timed knock.

From the seat's view only (domain.bots.gin.eval):

- A 10-card hand is worth `value` = deadwood - ALPHA * potential, the potential being the
  deadwood one stock draw is expected to save over the unseen cards (its live outs).
- Upcard offer and draw (G5.1, G5.2): take the discard top when the best hand it makes is
  worth more than the expected hand after a stock draw (the mean over the unseen cards of
  the best 10 of 11). A card that fits nothing of the hand is never worth taking.
- The opponent is sampled: hands of unseen cards, improved by as many greedy draws as the
  opponent has had turns. The *danger* of a discard is the deadwood it would save those
  hands, weighed against our own value (`beta`), more as the hand goes on.
- Knock (G6, G7): gin at once. Otherwise the expected points of the knock against the
  sampled hands after their best lay-offs (G6.7), undercuts (G7.3) included, with the
  card worth most.
- Play on (G6.2, G7.3, `play_on`): against the worth of playing on one more turn, keeping
  the knock in hand. Each sampled hand plays its next turn as a knock-at-once player: it
  takes our discard if that lowers its count, else draws an unseen card, and knocks when
  it can (into our undercut, or not); otherwise our draw may make gin, and a miss keeps
  `hunt` times the knock's worth. The larger wins, so a losing knock is still made when
  waiting loses more (`knock_worse`); a knock worth `knock_margin` or less with the stock
  too low to wait is not made. `lookahead` off: the older gin hunt (play on only for gin).
- Weak opponent (`weak_at`, domain/bots/gin/reading.py): when the opponent shows no sign
  of coming near a knock (its earlier hands of the match all lost with `weak_at` or more
  deadwood; with none to read, a low card thrown away or a picked card that melds with
  nothing), it will not knock first and a drawn hand (G5.6) is dealt again, so a knock
  short of gin is not made (until the stock is down to `last_turn`, 0: never), and the
  discard keeps the most gin outs: gin scores its whole count and the bonus (G7.1).
- Discard: the card leaving the best `value`, plus `beta` times its danger, plus our
  deadwood times `exposure` times `knock_risk`, the share of the sampled hands' next
  draws that let them knock: when a knock is near, deadwood costs more than potential.
- Optional knobs, off: a won hand counts `win_weight` beyond its points (G1.5: the winner
  plays the next hand); points that end the match count `finish` more (G8.1).
- ADVISOR (G1.3, G1.4): advises the captain, in words, with the move this bot would make
  from the captain's hand when the view shows it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from domain.bots.common import Legal, Move, ViewJSON, choose_of, json_view, require_moves
from domain.bots.gin.eval import (
    ALPHA,
    MELD_NEIGHBOURS,
    SAMPLES,
    VALUE_MASKS,
    OpponentModel,
    SeatView,
    bits,
    code,
    deadwood,
    deadwood_after_best_discard,
    find_move,
    knock_value,
    least_deadwood,
    legal_cards,
    mask_of,
    match_worth,
    opponent_has_played,
    related,
    value,
)
from domain.bots.gin.reading import WEAK_AT, plays_weak
from domain.gin.melds.core import CARD_VALUES, best_discard, least_deadwoods_plus
from domain.shapes import json_int, json_list, json_object, json_str


@dataclass(frozen=True, slots=True)
class Params:
    """The expert's knobs (tuned with the arena)."""

    alpha: float = ALPHA  # weight of a hand's potential against its deadwood
    beta: float = 0.3  # weight of a discard's danger (deadwood it saves the opponent)
    knock_margin: float = 0.0  # knock when the expected points of the knock exceed this
    infer_declined: bool = True  # sampled opponent hands would not have kept its last discard
    infer_no_knock: bool = False  # ... nor could have knocked (G6.2); arena: no gain, slower
    win_weight: float = 0.0  # worth of winning a hand beyond its points (G1.5: winner plays on)
    threat: float = 0.0  # weight of a discard letting the opponent knock at once
    hunt: float = 0.8  # share of a knock's worth still there next turn when playing for gin
    lookahead: bool = True  # play on priced by the opponent's next turn (else `gin_hunt`)
    consistent: bool = False  # ... by the sampled hands that could not have knocked (G6.2)
    knock_worse: bool = True  # knock when playing on is worth less, even at a loss
    finish: float = 0.0  # worth of points that end the match (G8.1), for or against us
    exposure: float = 1.0  # extra weight of our deadwood, times the opponent's knock chance
    samples: int = SAMPLES  # sampled opponent hands per decision after drawing
    risk_samples: int = 6  # of which `knock_risk` reads the first
    draw_candidates: int = 5  # discards valued after taking the discard top (least deadwood)
    weak_at: int = WEAK_AT  # against a weak opponent (reading.py), knock only gin (0: off)
    last_turn: int = 0  # ... or when the stock is down to this (0: never; G5.6 deals again)


PARAMS = Params()


@dataclass
class _Memo:
    """Values of hands already computed during one decision."""

    pool: int
    alpha: float
    seen: dict[int, float]

    def __call__(self, hand: int) -> float:
        found = self.seen.get(hand)
        if found is None:
            found = value(hand, self.pool, self.alpha)
            self.seen[hand] = found
        return found


def explain(view: ViewJSON, legal_moves: Legal, rng: random.Random) -> tuple[Move, str]:
    """The expert move and a one-line reason."""
    return decide(view, legal_moves, rng, PARAMS)


choose = choose_of(explain)


def decide(
    view: ViewJSON,
    legal_moves: Legal,
    rng: random.Random,
    params: Params,
) -> tuple[Move, str]:
    """The expert move with these knobs, and why."""
    require_moves(legal_moves, "expert gin")
    seat = SeatView.of(view)
    if not params.infer_declined:
        seat = replace(seat, declined=0)
    kinds = {m.get("type") for m in legal_moves}
    if kinds == {"advise"}:
        return _advise(view, seat, rng, params)
    if "take_upcard" in kinds:
        take, reason = draw_choice(seat, params)
        kind = "take_upcard" if take else "pass_upcard"
        return find_move(legal_moves, kind) or {"type": kind}, reason
    if "draw" in kinds:
        can_take = find_move(legal_moves, "draw", **{"from": "discard"}) is not None
        take, reason = draw_choice(seat, params) if can_take else (False, "draw from the stock")
        source = "discard" if take else "stock"
        return find_move(legal_moves, "draw", **{"from": source}) or dict(legal_moves[0]), reason
    discards, knocks = legal_cards(legal_moves, "discard"), legal_cards(legal_moves, "knock")
    if knocks and _hunts_gin(view, seat, params):
        gins = [c for c in knocks if deadwood(seat.hand & ~(1 << c)) == 0]
        if not gins:
            return _gin_discard(seat, discards, params)
        knocks = gins
    return play_choice(seat, discards, knocks, rng, params)


def gin_outs(seat: SeatView, kept: int) -> int:
    """The unseen cards that make `kept` (10 cards) gin when drawn (G6.4)."""
    pool = seat.unseen & related(kept)
    return sum(1 for c in bits(pool) if least_deadwood(kept | 1 << c, True) == 0)


def _gin_discard(seat: SeatView, discards: list[int], params: Params) -> tuple[Move, str]:
    """Playing on for gin (G6.4): the discard leaving the most gin outs, then the best value."""
    memo = _Memo(seat.unseen, params.alpha, {})
    best = min(
        discards,
        key=lambda c: (-gin_outs(seat, seat.hand & ~(1 << c)), memo(seat.hand & ~(1 << c)), -c),
    )
    outs = gin_outs(seat, seat.hand & ~(1 << best))
    return {"type": "discard", "card": code(best)}, (
        f"play on for gin, discarding {code(best)} ({outs} unseen cards make gin): the "
        "opponent shows no sign of coming near a knock"
    )


def _hunts_gin(view: ViewJSON, seat: SeatView, params: Params) -> bool:
    """Play on for gin with a knock in hand (G6.4): the opponent is weak (domain/bots/gin/
    reading.py) and the stock is above `last_turn` (G5.6)."""
    if seat.opponent is None or seat.stock_size <= params.last_turn:
        return False
    return plays_weak(view, seat, params.weak_at)


# --- drawing ----------------------------------------------------------------------------------


def _best_discard(hand11: int, memo: _Memo, exclude: int = 0, candidates: int = 11) -> float:
    """The value of the best 10 of 11 cards (never discarding `exclude`)."""
    cards = bits(hand11 & ~exclude)
    if candidates < len(cards):
        cards.sort(key=lambda c: (least_deadwood(hand11 & ~(1 << c), False), -CARD_VALUES[c]))
        cards = cards[:candidates]
    return min(memo(hand11 & ~(1 << c)) for c in cards)


def stock_value(hand: int, memo: _Memo) -> float:
    """The expected value of the hand after one stock draw and the best discard.

    Only a draw that lowers the deadwood (an out) is worth re-valuing, with the discard
    that leaves the least deadwood (G6.2); any other draw is assumed thrown back.
    """
    pool = memo.pool & ~hand
    count = pool.bit_count()
    keep = memo(hand)
    if not count:
        return keep
    now = deadwood(hand)
    total = keep * count
    for card, left in least_deadwoods_plus(hand, pool & related(hand)).items():
        if left < now:
            grown = hand | 1 << card
            total += min(keep, memo(grown & ~best_discard(grown))) - keep
    return total / count


def _two_away(index: int) -> int:
    rank, suit = index % 13, index // 13
    out = 0
    for r in (rank - 2, rank + 2):
        if 0 <= r < 13:
            out |= 1 << (suit * 13 + r)
    return out


def draw_choice(seat: SeatView, params: Params = PARAMS) -> tuple[bool, str]:
    """Take the discard top (True) or draw from the stock, and why (G5.1, G5.2)."""
    if seat.top is None:
        return False, "draw from the stock: the discard pile is empty"
    top = seat.top
    hand = seat.hand
    memo = _Memo(seat.unseen, params.alpha, {})
    fits = MELD_NEIGHBOURS[top] | _two_away(top)
    if not fits & hand and CARD_VALUES[top] >= 4:
        return False, f"draw from the stock: {code(top)} fits nothing in the hand"
    taken = _best_discard(hand | 1 << top, memo, 1 << top, params.draw_candidates)
    stock = stock_value(hand, memo)
    now = deadwood(hand)
    after = min(least_deadwood((hand | 1 << top) & ~(1 << c), False) for c in bits(hand))
    if taken < stock:
        return True, (
            f"take {code(top)}: worth {taken:.1f} against {stock:.1f} expected from the stock "
            f"(deadwood {now} -> {after})"
        )
    return False, (f"draw from the stock: {stock:.1f} expected beats {taken:.1f} with {code(top)}")


# --- discarding and knocking ------------------------------------------------------------------


def play_choice(
    seat: SeatView,
    discards: list[int],
    knocks: list[int],
    rng: random.Random,
    params: Params = PARAMS,
) -> tuple[Move, str]:
    """After drawing: gin, a knock worth making, or the best discard (G5.2, G6)."""
    hand = seat.hand
    for card in knocks:
        if deadwood(hand & ~(1 << card)) == 0:
            return {"type": "knock", "card": code(card)}, f"gin: discard {code(card)} face down"
    model = OpponentModel.sample(seat, rng, samples=params.samples, no_knock=params.infer_no_knock)
    if knocks:
        chosen = knock_choice(seat, discards, knocks, model, params)
        if chosen is not None:
            return chosen
    return _discard(seat, discards, model, params)


def knock_choice(
    seat: SeatView,
    discards: list[int],
    knocks: list[int],
    model: OpponentModel,
    params: Params = PARAMS,
) -> tuple[Move, str] | None:
    """With a knock in hand (G6.2): knock with the card worth most against the sampled
    hands, or play on keeping it when the opponent's next turn makes that worth more
    (`play_on`; else the gin hunt); None to discard as usual (a knock worth too little)."""
    hand = seat.hand

    def worth(card: int) -> float:
        return knock_value(seat, hand & ~(1 << card), model, params.win_weight, params.finish)[0]

    best = max(knocks, key=lambda c: (worth(c), -c))
    kept = hand & ~(1 << best)
    ev, undercut = knock_value(seat, kept, model, params.win_weight, params.finish)
    if params.lookahead and best in discards:
        waiting = play_on(seat, kept, best, model, ev, params)
        if waiting is not None and waiting[1] > ev:
            return _wait(best, ev, *waiting)
        if waiting is not None and params.knock_worse:
            return _knock(hand, best, ev, undercut)
    hunt = None if params.lookahead else gin_hunt(seat, kept, model, ev, params)
    if hunt is not None:
        chance, playing_on = hunt
        move, _ = _discard(seat, discards, model, params)
        return move, (
            f"play on for gin: {100 * chance:.0f}% to draw it next turn, worth about "
            f"{playing_on:+.1f} points against {ev:+.1f} for knocking now; "
            f"{move['card']} goes"
        )
    return _knock(hand, best, ev, undercut) if ev > params.knock_margin else None


def _knock(hand: int, card: int, ev: float, undercut: float) -> tuple[Move, str]:
    left = deadwood(hand & ~(1 << card))
    return {"type": "knock", "card": code(card)}, (
        f"knock with {left} deadwood discarding {code(card)}: about {ev:+.1f} points, "
        f"{100 * undercut:.0f}% undercut risk"
    )


def _wait(card: int, ev: float, knocks_first: float, worth: float) -> tuple[Move, str]:
    return {"type": "discard", "card": code(card)}, (
        f"play on, discarding {code(card)}: worth about {worth:+.1f} points against "
        f"{ev:+.1f} for knocking now; the opponent knocks first in "
        f"{100 * knocks_first:.0f}% of its sampled hands"
    )


def gin_hunt(
    seat: SeatView, kept: int, model: OpponentModel, ev: float, params: Params = PARAMS
) -> tuple[float, float] | None:
    """(gin chance, worth of playing on) when playing on for gin beats knocking (G6.4, G7.1).

    Next turn's draw makes gin with the share of unseen cards that complete the kept hand;
    gin scores the bonus and the opponent's whole count (no lay-offs, no undercut). A miss
    keeps the knock for later, worth `hunt` times the knock's worth now (the opponent may
    knock first or the hand may be drawn). Only with cards left in the stock to draw.
    """
    if params.hunt <= 0 or seat.stock_size <= 3 or not model.hands:
        return None
    pool = seat.unseen & related(kept)
    if not pool:
        return None
    outs = sum(1 for c in bits(pool) if least_deadwood(kept | 1 << c, True) == 0)
    chance = outs / max(1, seat.unseen.bit_count())
    gin = seat.gin_bonus + sum(deadwood(h) for h in model.hands) / len(model.hands)
    gin += params.win_weight
    worth = chance * gin + (1 - chance) * params.hunt * ev
    return (chance, worth) if worth > ev else None


def play_on(
    seat: SeatView, kept: int, dropped: int, model: OpponentModel, ev: float, params: Params
) -> tuple[float, float] | None:
    """(share of the opponent's next turns that knock, worth of playing on) discarding
    `dropped` and keeping `kept`; None when the stock is too low for another turn (G5.6).

    Each sampled opponent hand plays its next turn as a player that knocks at once (G6.2):
    it takes `dropped` if that lowers its count, else draws any unseen card. If it can knock
    it does, and we score as the defender without lay-offs (a lower bound): the undercut
    (G7.3) when our count is not above its count, else we lose the difference (gin, G7.1:
    the bonus and our count). If it cannot, our next draw makes gin with the share of unseen
    cards that complete `kept`, and otherwise we keep `hunt` times the knock's worth.
    """
    if seat.stock_size <= 3 or not model.hands:
        return None
    ours = deadwood(kept)
    pool = seat.unseen
    outs = sum(1 for c in bits(pool & related(kept)) if least_deadwood(kept | 1 << c, True) == 0)
    gin_chance = outs / max(1, pool.bit_count())
    hands = model.hands
    if params.consistent and opponent_has_played(seat):
        hands = tuple(h for h in hands if deadwood(h) > seat.knock_limit) or hands
    total = knocking = 0.0
    for hand in hands:
        later = (1 - gin_chance) * params.hunt * ev
        gin = match_worth(seat, seat.gin_bonus + deadwood(hand), params.finish)
        later += gin_chance * (gin + params.win_weight)
        now = deadwood(hand)
        taken = least_deadwood(hand | 1 << dropped, True)
        counts = {dropped: taken} if taken < now else least_deadwoods_plus(hand, pool & ~hand)
        for count in counts.values():
            if count <= seat.knock_limit:
                knocking += 1 / len(counts)
                points = _defend(seat, count, ours)
                won = params.win_weight if points > 0 else -params.win_weight
                total += (match_worth(seat, points, params.finish) + won) / len(counts)
            else:
                total += later / len(counts)
    samples = len(hands)
    return knocking / samples, total / samples


def knock_risk(seat: SeatView, model: OpponentModel, samples: int = SAMPLES) -> float:
    """The share of the first `samples` sampled hands' next stock draws that let them
    knock (G6.2).

    A hand already at the limit knocks whatever it draws; a drawn card that melds with
    nothing is deadwood unless discarded, so it lets the hand knock when its value fits
    under the limit beside the hand's best 9 (`deadwood_after_best_discard`).
    """
    if not model.hands:
        return 0.0
    limit = seat.knock_limit
    hands = model.hands[:samples]
    total = 0.0
    for hand in hands:
        pool = seat.unseen & ~hand
        if deadwood(hand) <= limit or not pool:
            total += 1.0 if pool else 0.0
            continue
        near = pool & related(hand)
        room = limit - deadwood_after_best_discard(hand)
        hits = sum((pool & ~near & VALUE_MASKS[v]).bit_count() for v in range(1, min(room, 10) + 1))
        hits += sum(c <= limit for c in least_deadwoods_plus(hand, near).values())
        total += hits / pool.bit_count()
    return total / len(hands)


def _defend(seat: SeatView, knocker: int, ours: int) -> float:
    """Our points when the opponent knocks with count `knocker` and we hold `ours` (G7)."""
    if knocker == 0:
        return -(seat.gin_bonus + (ours if seat.gin_scores_deadwood else 0))
    if ours < knocker or (ours == knocker and seat.undercut_on_tie):
        return knocker - ours + seat.undercut_bonus
    return -(ours - knocker)


def danger_weight(seat: SeatView, params: Params = PARAMS) -> float:
    """Feeding the opponent matters more as the hand goes on (and it holds better cards)."""
    return params.beta * min(1.0, 0.4 + seat.draws_so_far / 12)


def _discard(
    seat: SeatView, discards: list[int], model: OpponentModel, params: Params
) -> tuple[Move, str]:
    memo = _Memo(seat.unseen, params.alpha, {})
    weight = danger_weight(seat, params)
    exposed = 0.0
    if params.exposure:
        exposed = params.exposure * knock_risk(seat, model, params.risk_samples)
    scored = []
    dangers = model.dangers(sum(1 << card for card in discards))
    for card in discards:
        own = memo(seat.hand & ~(1 << card))
        if exposed:
            own += exposed * deadwood(seat.hand & ~(1 << card))
        risk = dangers[card]
        if params.threat:
            risk += params.threat * model.threat(card, seat.knock_limit)
        scored.append((own + weight * risk, -CARD_VALUES[card], card, own, risk))
    scored.sort()
    _, _, card, own, risk = scored[0]
    left = deadwood(seat.hand & ~(1 << card))
    why = (
        "the opponent is unlikely to want it" if risk < 1 else f"it saves the opponent ~{risk:.1f}"
    )
    return {"type": "discard", "card": code(card)}, (
        f"discard {code(card)}: keeps the best hand ({left} deadwood, value {own:.1f}); {why}"
    )


# --- the advisor ------------------------------------------------------------------------------


def _advise(view: ViewJSON, seat: SeatView, rng: random.Random, params: Params) -> tuple[Move, str]:
    """G1.4: advice to the captain, from the captain's hand when the advisor may see it."""
    shown = json_view(view)
    team = json_list(json_object(shown.get("you")).get("team_hand"))
    roles = json_object(shown.get("roles"))
    if not team or shown.get("turn") != roles.get("captain"):
        return {"type": "advise"}, "the advisor only advises (G1.3); nothing to suggest now"
    box = roles.get("box")
    hand = mask_of(list(map(json_str, team)))
    opponent = None if box is None else json_int(box)
    captain = replace(seat, hand=hand, role="captain", opponent=opponent)
    phase = seat.phase
    if phase in ("upcard_offer", "draw"):
        take, reason = draw_choice(captain, params)
        if phase == "upcard_offer":
            suggestion: Move = {"type": "take_upcard" if take else "pass_upcard"}
        else:
            suggestion = {"type": "draw", "from": "discard" if take else "stock"}
    else:
        cards = bits(captain.hand)
        knocks = [c for c in cards if deadwood(captain.hand & ~(1 << c)) <= captain.knock_limit]
        suggestion, reason = play_choice(captain, cards, knocks, rng, params)
    return {"type": "advise", "text": reason, "move": suggestion}, f"advise the captain: {reason}"
