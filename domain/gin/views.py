"""Three-handed Gin: what each seat may see (G1.4, api.md views and redacted events).

- A seat sees its own hand. ADVISOR also sees CAPTAIN's hand when `advisor_sees_captain_hand`
  (G1.4), including the cards CAPTAIN draws from the stock and his face-down knock card.
  Nobody sees BOX's hand, the stock order, the deal salt, the seed or the deal key.
- Public: the upcard and every discard, draws from the discard pile, the knocker's spread
  (G3.5, G6.3) and, once a hand is scored, both hands (the round result).
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
from domain.gin.state import GinState, Phase, Roles, codes

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
    """The api.md view of the match for `seat` (None: a spectator), without `id`."""
    roles = state.roles
    top = state.discard[-1] if state.discard else None
    return {
        "variant": VARIANT_NAME,
        "version": state.version,
        "seeded": state.seeded,
        "status": "finished" if state.phase == Phase.FINISHED else "active",
        "options": state.options.as_dict(),
        "round": state.round,
        "phase": str(state.phase),
        "turn": to_act(state),
        "seats": [_seat(state, s) for s in range(len(state.players))],
        "scores": list(state.scores),
        "winners": list(state.winners),
        "stock_size": len(state.stock),
        "rounds": list(state.rounds),  # read-only results, shared, not copied (frozen.py)
        "deal_commitment": state.commitment,
        "roles": None
        if roles is None
        else {"box": roles.box, "captain": roles.captain, "advisor": roles.advisor},
        "discard_top": None if top is None else str(top),
        "discard_size": len(state.discard),
        "knock": _public_knock(state),
        "you": _you(state, seat),
    }


def _seat(state: GinState, seat: int) -> dict[str, Any]:
    player = state.players[seat]
    role = state.roles.of(seat) if state.roles is not None else None
    return {
        "seat": seat,
        "name": player.name,
        "bot": player.bot,
        "hand_size": len(state.hands[seat]),
        "role": role,
    }


def _public_knock(state: GinState) -> dict[str, Any] | None:
    """G6.3: the knocker's spread is face up; his knock card is not shown here."""
    knock = state.knock
    if knock is None:
        return None
    return {
        "seat": knock.seat,
        "melds": [codes(m) for m in knock.melds],
        "deadwood_cards": codes(knock.deadwood_cards),
        "count": knock.count,
        "gin": knock.gin,
    }


def _you(state: GinState, seat: int | None) -> dict[str, Any] | None:
    if seat is None or not 0 <= seat < len(state.players):
        return None
    roles = state.roles
    you: dict[str, Any] = {
        "seat": seat,
        "role": roles.of(seat) if roles is not None else None,
        "hand": codes(state.hands[seat]),
        "legal_moves": legal_moves(state, seat),
    }
    if roles is not None and seat == roles.advisor:
        shown = sees_hand(state.options, roles, seat, roles.captain)
        you["team_hand"] = codes(state.hands[roles.captain]) if shown else None
    return you


def event_view(before: GinState, event: Event, seat: int | None) -> dict[str, Any]:
    """`{"type", "v", "data"}` with every card `seat` may not see as None (G1.4)."""
    data = json_copy(event.data)
    if before.phase != Phase.FINISHED:
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
