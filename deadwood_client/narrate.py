"""One readable line per event, for `deadwood tail` and `deadwood replay`.

    #57 ben drew from stock
    #58 ben discarded 9H
    #61 cy knocked with 6: 7C 7D 7S | 2H 3H 4H | deadwood 2C 4D (9S face down)

Names come from the match's seats; a card the caller may not see is None in the event and
is simply left out of the line. Unknown event types are shown with their data as JSON.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

Line = Callable[[Mapping[str, Any], "Names"], str]


class Names:
    """Seat numbers to player names (from MatchCreated, or a view's seats)."""

    def __init__(self, names: Sequence[str] = ()) -> None:
        self.names = list(names)

    def __call__(self, seat: Any) -> str:
        if isinstance(seat, int) and 0 <= seat < len(self.names):
            return self.names[seat]
        return f"seat {seat}"

    def learn(self, event: Mapping[str, Any]) -> None:
        if event.get("type") == "MatchCreated":
            players = (event.get("data") or {}).get("players") or []
            self.names = [str(p.get("name", f"seat {i}")) for i, p in enumerate(players)]

    def per_seat(self, values: Sequence[Any]) -> str:
        return ", ".join(f"{self(seat)} {value}" for seat, value in enumerate(values))


def cards(codes: Sequence[Any] | None) -> str:
    return " ".join(str(c) for c in codes or () if c is not None)


def melds(groups: Sequence[Sequence[Any]] | None) -> str:
    return " | ".join(cards(group) for group in groups or ())


def _created(d: Mapping[str, Any], n: Names) -> str:
    players = []
    for p in d.get("players") or []:
        bot = f" (bot {p['bot']})" if p.get("bot") else ""
        players.append(f"{p.get('name')}{bot}")
    seeded = ", seeded" if d.get("seeded") else ""
    seed = f" {d['seed']}" if d.get("seed") is not None else ""
    return f"match created: {d.get('variant')} for {', '.join(players)}{seeded}{seed}"


def _roles(d: Mapping[str, Any], n: Names) -> str:
    return f"roles drawn: box {n(d.get('box'))}, captain {n(d.get('captain'))}, " + (
        f"advisor {n(d.get('advisor'))}"
    )


def _dealt(d: Mapping[str, Any], n: Names) -> str:
    who = ""
    if "captain" in d:
        who = f" (box {n(d.get('box'))}, captain {n(d.get('captain'))})"
    elif d.get("dealer") is not None:
        who = f" (dealer {n(d.get('dealer'))})"
    upcard = f", upcard {d['upcard']}" if d.get("upcard") else ""
    commitment = str(d.get("commitment") or "")[:16]
    return f"round {d.get('round')} dealt{who}{upcard}, commitment {commitment}..."


def _drawn(d: Mapping[str, Any], n: Names) -> str:
    card = f" {d['card']}" if d.get("card") else ""
    source = d.get("from") or "stock"
    pile = "the discard pile" if source == "discard" else "stock"
    nth = f" (draw {d['draw']})" if d.get("draw") else ""
    return f"{n(d.get('seat'))} drew{card} from {pile}{nth}"


def _knocked(d: Mapping[str, Any], n: Names) -> str:
    who = n(d.get("seat"))
    if "count" not in d:  # manipulation-rummy: the hand's points
        return f"{who} knocked with {d.get('points')} points"
    verb = "went gin" if d.get("gin") else f"knocked with {d.get('count')}"
    dead = f" | deadwood {cards(d.get('deadwood_cards'))}" if d.get("deadwood_cards") else ""
    down = f" ({d['card']} face down)" if d.get("card") else ""
    return f"{who} {verb}: {melds(d.get('melds'))}{dead}{down}"


def _advice(d: Mapping[str, Any], n: Names) -> str:
    move = d.get("move")
    suggested = f" (suggests {_move_text(move)})" if isinstance(move, Mapping) else ""
    text = f' "{d["text"]}"' if d.get("text") else ""
    return f"{n(d.get('seat'))} advised {n(d.get('captain'))}:{text}{suggested}"


def _melded(d: Mapping[str, Any], n: Names) -> str:
    return f"{n(d.get('seat'))} melded {cards(d.get('played'))}; table: {melds(d.get('table'))}"


def _scored(d: Mapping[str, Any], n: Names) -> str:
    outcome = str(d.get("outcome"))
    by = f" by {n(d['knocker'])}" if d.get("knocker") is not None else ""
    winners = ", ".join(n(s) for s in d.get("winners") or ()) or "nobody"
    points = n.per_seat(d.get("points") or ())
    return f"round {d.get('round')} scored: {outcome}{by}, won by {winners}; points {points}"


def _finished(d: Mapping[str, Any], n: Names) -> str:
    winners = ", ".join(n(s) for s in d.get("winners") or ()) or "nobody"
    return f"match finished: {winners} won; final scores {n.per_seat(d.get('scores') or ())}"


LINES: dict[str, Line] = {
    "MatchCreated": _created,
    "RolesDrawn": _roles,
    "DealerChosen": lambda d, n: f"dealer: {n(d.get('dealer'))}",
    "RoundDealt": _dealt,
    "UpcardTaken": lambda d, n: (
        f"{n(d.get('seat'))} took the upcard {d.get('card') or ''}".rstrip()
    ),
    "UpcardPassed": lambda d, n: (
        f"{n(d.get('seat'))} passed the upcard {d.get('card') or ''}".rstrip()
    ),
    "CardDrawn": _drawn,
    "CardDiscarded": lambda d, n: f"{n(d.get('seat'))} discarded {d.get('card')}",
    "Knocked": _knocked,
    "AdviceGiven": _advice,
    "TableMelded": _melded,
    "TurnEnded": lambda d, n: f"{n(d.get('seat'))} ended the turn",
    "Passed": lambda d, n: f"{n(d.get('seat'))} passed",
    "StockExhausted": lambda d, n: "the stock is exhausted",
    "RoundScored": _scored,
    "MatchFinished": _finished,
}


def describe(event: Mapping[str, Any], names: Names) -> str:
    """`#seq text` for one event (and learn the names from MatchCreated)."""
    names.learn(event)
    data = event.get("data") or {}
    line = LINES.get(str(event.get("type")))
    try:
        text = line(data, names) if line else None
    except (TypeError, KeyError, AttributeError, ValueError):
        text = None
    if text is None:
        text = f"{event.get('type')} {json.dumps(data, separators=(',', ':'))}"
    return f"#{event.get('seq', '?')} {text}"


def round_line(result: Mapping[str, Any], names: Names) -> str:
    """One round result (api.md "Views") as a line, for `deadwood replay`."""
    text = _scored(result, names)
    if result.get("deadwood") and any(v is not None for v in result["deadwood"]):
        dead = [v for v in result["deadwood"]]
        text += "; deadwood " + ", ".join(
            f"{names(s)} {v}" for s, v in enumerate(dead) if v is not None
        )
    if result.get("hand_points"):
        text += f"; hand points {names.per_seat(result['hand_points'])}"
    return text


def _move_text(move: Mapping[str, Any]) -> str:
    rest = " ".join(str(v) for k, v in move.items() if k != "type" and v is not None)
    return f"{move.get('type')} {rest}".strip()


def move_text(move: Mapping[str, Any]) -> str:
    """A move as a short phrase: `discard 7H`, `draw stock`."""
    return _move_text(move)
