"""Three-handed Gin: what each seat may see (G1.4, api.md views and redacted events).

- A seat sees its own hand. ADVISOR also sees CAPTAIN's hand when `advisor_sees_captain_hand`
  (G1.4), including the cards CAPTAIN draws from the stock and his face-down knock card.
  Nobody sees BOX's hand, the stock order, the deal salt, the seed or the deal key.
- Public: the upcard and every discard (`discard_pile`, bottom to top), draws from the
  discard pile (`picked`: per seat, the cards it took from the pile this hand and still
  holds), the knocker's spread (G3.5, G6.3) and, once a hand is scored, both hands (the
  round result).
- The face-down knock card (G6.3.1) stays hidden from the other seats for the rest of the
  match: it appears only in the Knocked event, which is public in full once the match is
  finished.
- AdviceGiven text and suggested move are seen by ADVISOR and CAPTAIN only (G1.4).
- Spectators (seat None) see only the public part.
- Once the match is finished nothing is hidden (api.md): `event_view` with a finished
  `before` returns the event as recorded. A store serving the log of a finished match should
  serve the raw events, because `before` of an earlier event is never finished.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.events import Event
from domain.gin.moves import legal_moves, to_act
from domain.gin.options import GinOptions
from domain.gin.state import CODE, FINISHED, GinState, Knock, Roles, codes

VARIANT_NAME = "three-hand-gin"


_NESTED = (dict, list)


def json_copy(value: Any) -> Any:
    """A deep copy of JSON-ready data (dicts and lists copied, leaves shared)."""
    if isinstance(value, Mapping):
        return {k: json_copy(v) if type(v) in _NESTED else v for k, v in value.items()}
    if isinstance(value, list):
        return [json_copy(v) if type(v) in _NESTED else v for v in value]
    return value


def sees_hand(options: GinOptions, roles: Roles | None, viewer: int | None, owner: int) -> bool:
    """G1.4: a seat sees its own cards; ADVISOR sees CAPTAIN's if the option allows."""
    if viewer is None or roles is None:
        return False
    if viewer == owner:
        return True
    return options.advisor_sees_captain_hand and viewer == roles.advisor and owner == roles.captain


def view(state: GinState, seat: int | None) -> dict[str, Any]:
    """The api.md view of the match for `seat` (None: a spectator), without `id`.

    Built in one pass over the state's fields: every list and dict is the view's own, except
    the recorded round results (read-only and shared, domain/frozen.py)."""
    roles = state.roles
    discard = state.discard
    phase = state.phase
    count = len(state.players)
    return {
        "variant": VARIANT_NAME,
        "version": state.version,
        "seeded": state.seeded,
        "status": "finished" if phase == FINISHED else "active",
        "options": state.options.as_dict(),
        "round": state.round,
        "phase": phase.value,
        "turn": to_act(state),
        "seats": _seats(state, roles),
        "scores": list(state.scores),
        "winners": list(state.winners),
        "stock_size": len(state.stock),
        "rounds": list(state.rounds),  # read-only results, shared, not copied (frozen.py)
        "deal_commitment": state.commitment,
        "roles": None
        if roles is None
        else {"box": roles.box, "captain": roles.captain, "advisor": roles.advisor},
        "discard_top": CODE[discard[-1].index] if discard else None,
        "discard_size": len(discard),
        "discard_pile": [CODE[c.index] for c in discard],
        "picked": [[CODE[c.index] for c in p] if p else [] for p in state.picked],
        "knock": None if state.knock is None else _public_knock(state.knock),
        "you": _you(state, seat) if seat is not None and 0 <= seat < count else None,
    }


def _role_names(roles: Roles | None, count: int) -> list[str | None]:
    """Each seat's role this hand (G1.1), None before the role draw."""
    names: list[str | None] = [None] * count
    if roles is not None:
        names[roles.advisor] = "advisor"
        names[roles.captain] = "captain"
        names[roles.box] = "box"
    return names


def _seats(state: GinState, roles: Roles | None) -> list[dict[str, Any]]:
    hands = state.hands
    names = _role_names(roles, len(state.players))
    return [
        {
            "seat": seat,
            "name": player.name,
            "bot": player.bot,
            "hand_size": len(hands[seat]),
            "role": names[seat],
        }
        for seat, player in enumerate(state.players)
    ]


def _public_knock(knock: Knock) -> dict[str, Any]:
    """G6.3: the knocker's spread is face up; his knock card is not shown here."""
    return {
        "seat": knock.seat,
        "melds": [codes(m) for m in knock.melds],
        "deadwood_cards": codes(knock.deadwood_cards),
        "count": knock.count,
        "gin": knock.gin,
    }


def _you(state: GinState, seat: int) -> dict[str, Any]:
    roles = state.roles
    you: dict[str, Any] = {
        "seat": seat,
        "role": roles.of(seat) if roles is not None else None,
        "hand": [CODE[c.index] for c in state.hands[seat]],
        "legal_moves": legal_moves(state, seat),
    }
    if roles is not None and seat == roles.advisor:
        shown = sees_hand(state.options, roles, seat, roles.captain)
        you["team_hand"] = codes(state.hands[roles.captain]) if shown else None
    return you


def event_view(before: GinState, event: Event, seat: int | None) -> dict[str, Any]:
    """`{"type", "v", "data"}` with every card `seat` may not see as None (G1.4)."""
    data = json_copy(event.data)
    if before.phase != FINISHED:
        redact = _REDACT.get(event.type)
        if redact is not None:
            redact(before, data, seat)
    return {"type": event.type, "v": event.v, "data": data}


def _redact_created(before: GinState, data: dict[str, Any], seat: int | None) -> None:
    data["seed"] = None
    data["deal_key"] = None
    if "salt_key" in data:
        data["salt_key"] = None


def _redact_dealt(before: GinState, data: dict[str, Any], seat: int | None) -> None:
    roles = Roles(int(data["box"]), int(data["captain"]), int(data["advisor"]))
    hands = data["hands"]
    for owner, hand in enumerate(hands):
        if hand is not None and not sees_hand(before.options, roles, seat, owner):
            hands[owner] = [None] * len(hand)
    data["stock"] = [None] * len(data["stock"])
    data["salt"] = None


def _redact_drawn(before: GinState, data: dict[str, Any], seat: int | None) -> None:
    if data["from"] == "stock" and not sees_hand(before.options, before.roles, seat, data["seat"]):
        data["card"] = None


def _redact_knocked(before: GinState, data: dict[str, Any], seat: int | None) -> None:
    if not sees_hand(before.options, before.roles, seat, data["seat"]):
        data["card"] = None


def _redact_advice(before: GinState, data: dict[str, Any], seat: int | None) -> None:
    if seat is None or seat not in (data["seat"], data["captain"]):
        data["text"] = None
        data["move"] = None


_REDACT: Mapping[str, Any] = {
    "MatchCreated": _redact_created,
    "RoundDealt": _redact_dealt,
    "CardDrawn": _redact_drawn,
    "Knocked": _redact_knocked,
    "AdviceGiven": _redact_advice,
}
