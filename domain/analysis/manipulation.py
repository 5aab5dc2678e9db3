"""Manipulation Rummy: every decision of a finished match's log, judged from the seat's view.

- Meld or draw (M4 D1-D3, M9.2): the points the played move sheds (0 for a draw or a
  pass) against the most any legal meld move sheds, by the exact solver
  (domain.manipulation.table.solver.best_move) on the seat's hand and the table of its
  view. When the best move goes out (M8.3) and the played one does not, the going-out bonus
  is added (`missed_going_out`, always a blunder). A draw with a meld available is
  `declined_meld` after the first card and `third_draw_over_meld` after the second (no
  meld may follow the third card, M4 D3). The solver runs with `budget` program states;
  a judgment whose best was not proven says so (`details.proven`).
- Knock or end the turn (M8.1): the expert's expected points of the knock over sampled
  deals of the unseen cards (domain.bots.manipulation.expert.knock_value), against 0 for
  playing on: `missed_knock` or `losing_knock`. The generator is seeded with the seq.
- Hindsight: a knock that lost the round (M10.1; the other hands were hidden).

Whether a seat has melded this round (I6 with `initial_meld_per_player`) is read from the
state: it is public, every meld is on the table in view of all.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from domain.analysis.judgment import MANIPULATION_THRESHOLDS, Decision, Hindsight, judged
from domain.bots.common import ViewJSON, json_view
from domain.bots.manipulation.eval import SeatView, card_value
from domain.bots.manipulation.expert import knock_value
from domain.events import Event
from domain.manipulation.melds import best_move
from domain.manipulation.moves import may_knock
from domain.manipulation.options import options_of
from domain.manipulation.state import Phase, State, evolve
from domain.manipulation.table.solver import BUDGET, BestMove
from domain.manipulation.views import view
from domain.shapes import JSON, json_int, json_list, json_str

KNOCK_SAMPLES = 200


def judge_meld(
    view: ViewJSON,
    played: Mapping[str, JSON],
    seq: int,
    opened: bool = False,
    budget: int | None = BUDGET,
) -> Decision | None:
    """A meld, draw or pass from `view` (phase meld_or_draw or final_turns); `played` is the
    move with, for a meld, `played`: the hand cards it put on the table. None when no meld
    was possible (a draw or pass was the only move)."""
    seat = SeatView.of(view)
    found = _solved(seat, opened, budget)
    most = 0 if found is None else found.points
    shed = sum(card_value(json_str(c)) for c in json_list(played.get("played")))
    if most == 0 and shed == 0:
        return None
    chosen = str(played.get("type"))
    tags = _meld_tags(seat, chosen, most, shed, found is not None and most == seat.points)
    bonus = seat.going_out_bonus if "missed_going_out" in tags else 0
    costs = {"best": -float(most), chosen: bonus - float(shed)}
    _, cost, judgment = judged(MANIPULATION_THRESHOLDS, costs, chosen, tags)
    shown = {k: v for k, v in played.items() if k != "played"}
    best = {"type": "meld", "table": _codes(found.table)} if found and most > shed else shown
    details = {"shed": shed, "most": most, "proven": found is None or found.proven}
    note = _meld_note(chosen, shed, most, tags)
    round_no = json_int(json_view(view).get("round") or 0)
    return Decision(
        seq, seat.seat, round_no, "meld", shown, best, cost, judgment, note, tags, details
    )


def _solved(seat: SeatView, opened: bool, budget: int | None) -> BestMove | None:
    """The exact solver's best meld move for the seat's hand and the table it sees."""
    return best_move(
        seat.table_objects(),
        seat.hand_objects(),
        options_of(seat.options),
        has_opened=opened,
        decks=seat.decks,
        budget=budget,
    )


def _meld_tags(seat: SeatView, chosen: str, most: int, shed: int, out: bool) -> tuple[str, ...]:
    tags: list[str] = []
    if out and shed < most:
        tags.append("missed_going_out")
    if chosen == "draw" and most > 0:
        tags.append("third_draw_over_meld" if seat.draws >= 2 else "declined_meld")
    return tuple(tags)


def _meld_note(chosen: str, shed: int, most: int, tags: tuple[str, ...]) -> str:
    did = f"melded {shed} points" if chosen == "meld" else chosen
    if most <= shed:
        return f"{did}: the most any meld sheds"
    said = f"{did}; the best meld sheds {most}"
    if "missed_going_out" in tags:
        said += " and goes out"
    return said


def _codes(table: Sequence[Sequence[object]]) -> list[list[str]]:
    return [[str(c) for c in meld] for meld in table]


def judge_knock(view: ViewJSON, played: Mapping[str, JSON], seq: int) -> Decision:
    """Knock or end the turn with the hand at the knock limit or under (M8.1)."""
    seat = SeatView.of(view)
    rng = random.Random(seq)  # noqa: S311 - seeded by the public seq, for the sample
    ev, win = knock_value(seat, rng, KNOCK_SAMPLES)
    chosen = str(played.get("type"))
    costs = {"knock": max(0.0, -ev), "end_turn": max(0.0, ev)}
    tag = "missed_knock" if chosen == "end_turn" else "losing_knock"
    best, cost, judgment = judged(MANIPULATION_THRESHOLDS, costs, chosen)
    tags = (tag,) if cost >= MANIPULATION_THRESHOLDS.inaccuracy else ()
    return Decision(
        seq=seq,
        seat=seat.seat,
        round=json_int(json_view(view).get("round") or 0),
        kind="knock",
        played={"type": chosen},
        best={"type": best},
        cost=cost,
        judgment=judgment,
        note=f"{chosen} with {seat.points} points: the knock wins {100 * win:.0f}% of "
        f"sampled deals, about {ev:+.1f} points",
        tags=tags,
        details={"knock_points": round(ev, 2), "win_share": round(win, 3)},
    )


def walk(
    events: Sequence[Event], budget: int | None = BUDGET
) -> tuple[list[Decision], list[Hindsight]]:
    """Every judged decision of the log and its hindsight facts, in log order."""
    decisions: list[Decision] = []
    facts: list[Hindsight] = []
    state = State()
    for index, event in enumerate(events):
        found = judge_event(state, event, index + 1, budget)
        if found is not None:
            decisions.append(found)
        if event.type == "RoundScored":
            facts += lost_knock(events, index, state)
        state = evolve(state, event)
    return decisions, facts


def judge_event(state: State, event: Event, seq: int, budget: int | None) -> Decision | None:
    """The decision `event` records, judged from its seat's view of `state` (the state
    before it), or None when the event is no decision."""
    data = event.data
    kind = event.type
    if kind not in ("CardDrawn", "TableMelded", "Passed", "TurnEnded", "Knocked"):
        return None
    seat = json_int(data["seat"])
    phase = state.phase
    if phase is Phase.KNOCK_OR_END:
        if kind not in ("Knocked", "TurnEnded") or not may_knock(state, seat):
            return None
        return judge_knock(view(state, seat), {"type": _knock_move(kind)}, seq)
    if phase not in (Phase.MELD_OR_DRAW, Phase.FINAL_TURNS) or kind == "TurnEnded":
        return None
    played = _played(kind, data)
    opened = bool(state.opened[seat]) if state.opened else False
    return judge_meld(view(state, seat), played, seq, opened, budget)


def _knock_move(kind: str) -> str:
    return "knock" if kind == "Knocked" else "end_turn"


def _played(kind: str, data: Mapping[str, JSON]) -> dict[str, JSON]:
    if kind == "TableMelded":
        return {"type": "meld", "table": data["table"], "played": data["played"]}
    return {"type": "draw" if kind == "CardDrawn" else "pass"}


def lost_knock(events: Sequence[Event], index: int, state: State) -> list[Hindsight]:
    """A knock another hand undercut (M10.1): known only once the hands are shown."""
    data = events[index].data
    knocker = data.get("knocker")
    winners = [json_int(w) for w in json_list(data.get("winners"))]
    if data.get("outcome") != "knock" or knocker is None or json_int(knocker) in winners:
        return []
    seq = next(
        (b + 1 for b in range(index, -1, -1) if events[b].type == "Knocked"),
        index + 1,
    )
    points = sum(json_int(p) for p in json_list(data.get("points")))
    low = min((json_int(h) for h in json_list(data.get("hand_points"))), default=0)
    note = f"undercut: a hidden hand held {low}; the winners scored {points}"
    return [Hindsight(seq, json_int(knocker), state.round, "undercut", -points, note)]
