"""Three-hand gin: one decision judged from the seat's view alone (G5, G6, G7).

Every option of the decision gets a cost against the best option; the played move's cost
is its own. The evaluation is the expert bot's (domain.bots.gin.eval, .expert):

- Upcard offer and draw (G5.1, G5.2): taking the discard top is worth the best `value`
  (deadwood minus ALPHA times potential over the unseen cards) of the ten cards kept,
  never discarding the taken card (G5.3); the stock is worth the expected `value` after
  one unseen card and the least-deadwood discard (the expert's `stock_value`). Passing the
  upcard is priced as a stock draw.
- After the draw, with gin in hand (G6.4): every other option costs at least the gin
  bonus, exactly: gin can never be undercut (G7.1) and a knock of d deadwood scores d
  fewer points than gin against the same opponent, besides the bonus. `missed_gin`.
- With a knock in hand (G6.2): each knock's expected points against the expert's sampled
  opponent hands after their best lay-offs (`knock_value`), against the worth of playing
  on one more turn (`play_on`; 0 when the stock is too low to wait). `missed_knock` when
  the knock was worth more, `early_knock` when waiting was.
- A discard: the `value` of the ten cards kept, plus what the discard `feeds` the
  opponent: the deadwood of the opponent's known cards (those it took from the pile and
  holds, public under G1.4) that the discard would meld. `feeds_meld` when it does.

The opponent sample is drawn from a generator seeded with the event's seq (public), so a
judgment is the same on every run and depends on nothing hidden.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

from domain.analysis.judgment import GIN_THRESHOLDS, Decision, judged
from domain.bots.common import MoveJSON, ViewJSON, json_view
from domain.bots.gin.eval import (
    SAMPLES,
    OpponentModel,
    SeatView,
    bits,
    code,
    deadwood,
    knock_value,
    least_deadwood,
    legal_cards,
    value,
)
from domain.bots.gin.expert import PARAMS, _Memo, play_on
from domain.bots.gin.expert import stock_value as expert_stock_value
from domain.gin.melds.core import (
    best_arrangement,
    mask_value,
)
from domain.shapes import JSON, json_int, json_list, json_object

Move = dict[str, JSON]


def move_key(move: MoveJSON) -> str:
    """`take_upcard`, `draw:stock`, `discard:9H`, `knock:9H`: one option of a decision."""
    kind = str(move.get("type"))
    if kind == "draw":
        return f"draw:{move.get('from')}"
    if kind in ("discard", "knock"):
        return f"{kind}:{move.get('card')}"
    return kind


def key_move(key: str) -> Move:
    kind, _, arg = key.partition(":")
    if kind == "draw":
        return {"type": "draw", "from": arg}
    return {"type": kind, "card": arg} if arg else {"type": kind}


def judge(
    view: ViewJSON,
    played: Mapping[str, JSON],
    seq: int,
    advice: Mapping[str, JSON] | None = None,
) -> Decision | None:
    """The decision `played` made from `view` (the seat's own), or None when it had no
    choice; `advice` is the ADVISOR's suggested move for it, if any (G1.4)."""
    seat = SeatView.of(view)
    listed = json_list(json_object(json_view(view).get("you")).get("legal_moves"))
    legal: list[MoveJSON] = [json_object(m) for m in listed]
    if seat.phase in ("upcard_offer", "draw"):
        costs, tags, details = draw_costs(seat, legal)
        kind = "upcard" if seat.phase == "upcard_offer" else "draw"
    elif seat.phase == "discard":
        costs, tags, details = play_costs(seat, legal, seq)
        kind = "discard"
    else:
        return None
    key = move_key(played)
    if len(costs) < 2 or key not in costs:
        return None
    return _decision(view, seat, seq, kind, key, costs, (tags, details), advice)


def _decision(
    view: ViewJSON,
    seat: SeatView,
    seq: int,
    kind: str,
    key: str,
    costs: dict[str, float],
    extra: tuple[dict[str, tuple[str, ...]], dict[str, JSON]],
    advice: Mapping[str, JSON] | None,
) -> Decision:
    option_tags, details = extra
    tags = option_tags.get(key, ())
    best, cost, judgment = judged(GIN_THRESHOLDS, costs, key, tags)
    if cost < GIN_THRESHOLDS.exact:
        tags = tuple(t for t in tags if t == "feeds_meld")
    told = _advice(advice, key, costs)
    if told is not None:
        details = {**details, "advice": told}
        tags = tags if told["followed"] else (*tags, "advice_ignored")
    note = _note(key, best, cost, tags)
    played, better = key_move(key), key_move(best)
    round_no = json_int(json_view(view).get("round") or 0)
    return Decision(
        seq, seat.seat, round_no, kind, played, better, cost, judgment, note, tags, details
    )


def _advice(
    advice: Mapping[str, JSON] | None, key: str, costs: dict[str, float]
) -> dict[str, JSON] | None:
    """The ADVISOR's suggestion priced as an option (G1.4): its cost, and what following it
    would have saved against the move played (negative: it would have cost more)."""
    if advice is None or move_key(advice) not in costs:
        return None
    told = move_key(advice)
    least = min(costs.values())
    return {
        "move": key_move(told),
        "cost": round(max(0.0, costs[told] - least), 2),
        "followed": told == key,
        "would_save": round(costs[key] - costs[told], 2),
    }


def _note(key: str, best: str, cost: float, tags: tuple[str, ...]) -> str:
    played = key.replace(":", " ")
    if key == best:
        return f"{played}: the best option"
    said = f"{played}; better {best.replace(':', ' ')} (cost {cost:.1f})"
    if "missed_gin" in tags:
        said += ": gin was in hand"
    elif "missed_knock" in tags:
        said += ": the knock was worth more than playing on"
    elif "early_knock" in tags:
        said += ": playing on was worth more than this knock"
    return said


# --- drawing ----------------------------------------------------------------------------------


def draw_costs(
    seat: SeatView, legal: list[MoveJSON]
) -> tuple[dict[str, float], dict[str, tuple[str, ...]], dict[str, JSON]]:
    """Each draw option's `value` after it (G5.1, G5.2): lower is better."""
    keys = [move_key(m) for m in legal]
    if seat.top is None or ("draw:discard" not in keys and "take_upcard" not in keys):
        return {}, {}, {}
    pool = seat.unseen
    taken = take_value(seat.hand, seat.top, pool)
    stock = stock_value(seat.hand, pool)
    take_key = "take_upcard" if "take_upcard" in keys else "draw:discard"
    stock_key = "pass_upcard" if "pass_upcard" in keys else "draw:stock"
    details: dict[str, JSON] = {"take_value": round(taken, 2), "stock_value": round(stock, 2)}
    return {take_key: taken, stock_key: stock}, {}, details


def take_value(hand: int, top: int, pool: int) -> float:
    """The best `value` of ten of the hand and `top`, `top` kept (G5.3)."""
    grown = hand | 1 << top
    return min(value(grown & ~(1 << c), pool) for c in bits(hand))


def stock_value(hand: int, pool: int) -> float:
    """The expected `value` after one card of `pool` and the least-deadwood discard: the
    expert's own `stock_value` (a card that lowers no deadwood is thrown back), on the
    expert's weight of a hand's potential."""
    return expert_stock_value(hand, _Memo(pool & ~hand, PARAMS.alpha, {}))


# --- after the draw ---------------------------------------------------------------------------


def feeds(seat: SeatView, card: int) -> int:
    """Deadwood of the opponent's known cards that `card` would meld (0: it melds none)."""
    known = seat.opponent_known
    if not known:
        return 0
    melds, _ = best_arrangement(known | 1 << card, False)
    melded = 0
    for meld in melds:
        melded |= meld
    if not melded >> card & 1:
        return 0
    return deadwood(known) - mask_value(known & ~melded)


def discard_costs(seat: SeatView, discards: list[int]) -> tuple[dict[int, float], dict[int, int]]:
    """Each discard's `value` of the ten kept plus what it feeds the opponent."""
    pool = seat.unseen
    fed = {c: feeds(seat, c) for c in discards}
    scores = {c: value(seat.hand & ~(1 << c), pool) + fed[c] for c in discards}
    least = min(scores.values())
    return {c: s - least for c, s in scores.items()}, fed


def play_costs(
    seat: SeatView, legal: list[MoveJSON], seq: int
) -> tuple[dict[str, float], dict[str, tuple[str, ...]], dict[str, JSON]]:
    """Each discard and knock option's cost (G5.2, G6)."""
    discards, knocks = legal_cards(legal, "discard"), legal_cards(legal, "knock")
    if not discards and not knocks:
        return {}, {}, {}
    card_cost, fed = discard_costs(seat, discards) if discards else ({}, {})
    tags: dict[str, tuple[str, ...]] = {
        f"discard:{code(c)}": ("feeds_meld",) for c, n in fed.items() if n > 0
    }
    details: dict[str, JSON] = {"deadwood": deadwood_after(seat.hand)}
    if any(fed.values()):
        details["feeds"] = {code(c): n for c, n in fed.items() if n > 0}
    gins = [c for c in knocks if deadwood(seat.hand & ~(1 << c)) == 0]
    if gins:
        return _gin_costs(seat, card_cost, knocks, gins, tags), tags, details
    if knocks:
        costs = _knock_costs(seat, card_cost, discards, knocks, seq, tags, details)
        return costs, tags, details
    return {f"discard:{code(c)}": v for c, v in card_cost.items()}, tags, details


def deadwood_after(hand11: int) -> int:
    return least_deadwood(hand11, True)


def _gin_costs(
    seat: SeatView,
    card_cost: dict[int, float],
    knocks: list[int],
    gins: list[int],
    tags: dict[str, tuple[str, ...]],
) -> dict[str, float]:
    bonus = float(seat.gin_bonus)
    costs = {f"discard:{code(c)}": bonus + v for c, v in card_cost.items()}
    for c in knocks:
        costs[f"knock:{code(c)}"] = 0.0 if c in gins else bonus + deadwood(seat.hand & ~(1 << c))
    for key, cost in costs.items():
        if cost > 0:
            tags[key] = (*tags.get(key, ()), "missed_gin")
    return costs


def _knock_costs(
    seat: SeatView,
    card_cost: dict[int, float],
    discards: list[int],
    knocks: list[int],
    seq: int,
    tags: dict[str, tuple[str, ...]],
    details: dict[str, JSON],
) -> dict[str, float]:
    rng = random.Random(seq)  # noqa: S311 - seeded by the public seq, for the sample
    model = OpponentModel.sample(seat, rng, samples=SAMPLES, no_knock=False)
    ev = {c: knock_value(seat, seat.hand & ~(1 << c), model)[0] for c in knocks}
    best = max(knocks, key=lambda c: (ev[c], -c))
    waiting = None
    if best in discards:
        waiting = play_on(seat, seat.hand & ~(1 << best), best, model, ev[best], PARAMS)
    wait = 0.0 if waiting is None else waiting[1]
    top = max(ev[best], wait)
    details.update(knock_points=round(ev[best], 2), play_on_points=round(wait, 2))
    costs = {f"knock:{code(c)}": top - ev[c] for c in knocks}
    for c, v in card_cost.items():
        costs[f"discard:{code(c)}"] = top - wait + v
    label = "missed_knock" if ev[best] > wait else "early_knock"
    for key in costs:
        if key.startswith("discard" if label == "missed_knock" else "knock"):
            tags[key] = (*tags.get(key, ()), label)
    return costs
