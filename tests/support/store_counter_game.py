"""A tiny game with the Variant surface, for store tests that need a move any seat may make
at any time: each move adds 1-3 to a shared total, and the match ends at the target.

Not a real game and not registered in domain.variants: the `counter` fixture of the store tests
patches the service's variant lookup to find it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, cast

from domain.clock import ClockOptions, with_clock
from domain.errors import IllegalMove, InvalidOptions, MalformedMove
from domain.events import Event
from domain.shapes import EventView, json_int, json_list, json_object, json_str
from domain.variants import Game, Variant

NAME = "counter"


@dataclass(frozen=True)
class CounterState:
    version: int = 0
    players: tuple[str, ...] = ()
    target: int = 0
    total: int = 0
    moves: tuple[tuple[int, int], ...] = ()  # (seat, n) in order

    @property
    def finished(self) -> bool:
        return self.target > 0 and self.total >= self.target


def counter_state(state: object) -> CounterState:
    """A state the service loaded for a counter match, as the counter's own type."""
    assert isinstance(state, CounterState), type(state)
    return state


def validate_options(options: Mapping[str, Any] | None) -> dict[str, Any]:
    target = dict(options or {}).get("target", 10)
    if not isinstance(target, int) or target < 1:
        raise InvalidOptions(f"target {target!r} must be a positive integer")
    return {"target": target}


def create(
    players: Sequence[Mapping[str, Any]],
    options: Mapping[str, Any] | None,
    seed: int | None,
    secret: str,
    clock: ClockOptions | None = None,
) -> tuple[Event, ...]:
    options = options or {}
    created = Event(
        "MatchCreated",
        {
            "variant": NAME,
            "players": [{"name": p["name"], "bot": p.get("bot")} for p in players],
            "options": dict(options),
            "seeded": seed is not None,
            "seed": seed,
            "deal_key": secret,
        },
    )
    return (with_clock(created, clock),)


def evolve(state: CounterState, event: Event) -> CounterState:
    data = event.data
    if event.type == "MatchCreated":
        players = tuple(json_str(json_object(p)["name"]) for p in json_list(data["players"]))
        target = json_int(json_object(data["options"])["target"])
        state = replace(state, players=players, target=target)
    elif event.type == "Added":
        n = json_int(data["n"])
        seat = json_int(data["seat"])
        state = replace(state, total=state.total + n, moves=(*state.moves, (seat, n)))
    return replace(state, version=state.version + 1)


def decide(state: CounterState, seat: int, move: Mapping[str, Any]) -> tuple[Event, ...]:
    if move.get("type") != "add" or move.get("n") not in (1, 2, 3):
        raise MalformedMove(f"move {dict(move)!r}: expected {{'type': 'add', 'n': 1..3}}")
    if state.finished:
        raise IllegalMove("the match is over")
    return (Event("Added", {"seat": seat, "n": move["n"]}),)


def view(state: CounterState, seat: int | None) -> dict[str, Any]:
    return {
        "variant": NAME,
        "version": state.version,
        "status": "finished" if state.finished else "active",
        "round": 1,
        "seats": [{"seat": i, "name": n, "bot": None} for i, n in enumerate(state.players)],
        "total": state.total,
    }


def event_view(before: CounterState, event: Event, seat: int | None) -> EventView:
    return {"type": event.type, "v": event.v, "data": dict(event.data)}


GAME = Game[CounterState, Mapping[str, Any], dict[str, Any]](
    name=NAME,
    min_players=1,
    max_players=8,
    validate_options=validate_options,
    create=create,
    initial_state=CounterState,
    evolve=evolve,
    decide=decide,
    pending=lambda state: None,
    to_act=lambda state: None,
    legal_moves=lambda state, seat: [{"type": "add", "n": n} for n in (1, 2, 3)],
    view=view,
    event_view=event_view,
    is_finished=lambda state: state.finished,
    round_number=lambda state: 1,
    bot_seats=lambda state: (None,) * len(state.players),
    public_seats=lambda state: view(state, None)["seats"],
)
"""The counter's own surface, typed with its state and moves."""

VARIANT = cast(Variant, GAME)
"""The same surface as the service sees a game: `Variant` names the two real games' states
and moves, so a test-only game enters it through a cast (the store only passes it back the
states it made)."""
