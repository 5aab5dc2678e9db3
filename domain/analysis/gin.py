"""Three-hand gin: every decision of a finished match's log, and the facts of hindsight.

The log is folded event by event; before each move event of BOX or CAPTAIN the seat's view
(domain.gin.views.view, exactly what that seat's client saw) is judged by `gin_judge.judge`.
The ADVISOR's suggested move (AdviceGiven, G1.4) is held for CAPTAIN's next decision (advice
given during BOX's turn waits for it; a hand's end drops it) and priced with it.

Hindsight (hidden cards, known only once shown): a knock that was undercut (G7.3), a discard
the opponent took from the pile and what it saved it, and what a missed gin would have
scored with the opponent's count at that moment.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from domain.analysis.gin_judge import judge
from domain.analysis.judgment import Decision, Hindsight
from domain.cards import Card
from domain.events import Event
from domain.gin.melds.core import least_deadwood
from domain.gin.state import GinState, evolve, initial_state
from domain.gin.views import ViewCache, view
from domain.shapes import JSON, json_int, json_list, json_object

MOVES = {
    "UpcardPassed": "pass_upcard",
    "UpcardTaken": "take_upcard",
    "CardDrawn": "draw",
    "CardDiscarded": "discard",
    "Knocked": "knock",
}


def played_move(event: Event) -> dict[str, JSON]:
    """The move a move event records (api.md's move shape)."""
    kind = MOVES[event.type]
    if kind == "draw":
        return {"type": kind, "from": event.data["from"]}
    if kind in ("discard", "knock"):
        return {"type": kind, "card": event.data["card"]}
    return {"type": kind}


def walk(events: Sequence[Event]) -> tuple[list[Decision], list[Hindsight]]:
    """Every judged decision of the log and its hindsight facts, in log order."""
    decisions: list[Decision] = []
    facts: list[Hindsight] = []
    state = initial_state()
    views = ViewCache()  # this walk's own: one match, viewed state after state
    advice: Mapping[str, JSON] | None = None
    for index, event in enumerate(events):
        seq = index + 1
        if event.type == "AdviceGiven":
            advice = json_object(event.data.get("move")) or None
        elif event.type in MOVES:
            seat = json_int(event.data["seat"])
            captain = state.roles is not None and seat == state.roles.captain
            found = judge(
                view(state, seat, views), played_move(event), seq, advice if captain else None
            )
            if found is not None:
                decisions.append(found)
                facts += _missed_gin(state, found)
            advice = None if captain else advice  # advice is for CAPTAIN's next move
            facts += _taken(events, index, state)
        elif event.type == "RoundScored":
            advice = None
            facts += _undercut(events, index, state)
        state = evolve(state, event)
    return decisions, facts


def _hand_mask(cards: Sequence[Card]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card.index
    return mask


def _opponent(state: GinState, seat: int) -> int | None:
    roles = state.roles
    if roles is None or seat not in (roles.box, roles.captain):
        return None
    return roles.captain if seat == roles.box else roles.box


def _missed_gin(state: GinState, decision: Decision) -> list[Hindsight]:
    if "missed_gin" not in decision.tags:
        return []
    other = _opponent(state, decision.seat)
    if other is None:
        return []
    count = least_deadwood(_hand_mask(state.hands[other]), False)
    points = state.options.gin_bonus + (count if state.options.gin_scores_opponent_deadwood else 0)
    return [
        Hindsight(
            decision.seq,
            decision.seat,
            decision.round,
            "missed_gin",
            points,
            f"gin would have scored {points}: the opponent held {count} deadwood",
        )
    ]


def _taken(events: Sequence[Event], index: int, state: GinState) -> list[Hindsight]:
    """A discard the opponent took from the pile next, and the deadwood it saved it."""
    event = events[index]
    if event.type != "CardDiscarded" or index + 1 >= len(events):
        return []
    after = events[index + 1]
    card = str(event.data["card"])
    if after.type != "CardDrawn" or after.data.get("from") != "discard":
        return []
    taker = json_int(after.data["seat"])
    hand = _hand_mask(state.hands[taker])
    saved = least_deadwood(hand, False) - least_deadwood(hand | 1 << Card.parse(card).index, True)
    seat = json_int(event.data["seat"])
    note = f"the opponent took {card} from the pile, saving it {max(0, saved)} deadwood"
    return [Hindsight(index + 1, seat, state.round, "discard_taken", max(0, saved), note)]


def _undercut(events: Sequence[Event], index: int, state: GinState) -> list[Hindsight]:
    """A knock undercut by the defender's hidden cards and lay-offs (G6.6, G7.3)."""
    data = events[index].data
    if data.get("outcome") != "undercut" or state.knock is None:
        return []
    knocker = state.knock.seat
    seq = _last_knock(events, index)
    points = sum(json_int(p) for p in json_list(data.get("points")))
    laid = len(json_list(data.get("layoffs")))
    note = f"undercut: the defender scored {points} ({laid} card(s) laid off)"
    return [Hindsight(seq, knocker, state.round, "undercut", -points, note)]


def _last_knock(events: Sequence[Event], index: int) -> int:
    for back in range(index, -1, -1):
        if events[back].type == "Knocked":
            return back + 1
    return index + 1
