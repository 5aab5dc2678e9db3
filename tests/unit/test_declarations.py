"""The domain declares each game's moves and views once (domain/*/shapes.py); the OpenAPI
components (api/contract_views.py, api/contract_moves.py) and the Python client's types
(deadwood_client/types.py) must agree with them field by field, and the views the games
build must have exactly the declared keys (issue 29)."""

from __future__ import annotations

import random
import types
from typing import Any, Literal, NotRequired, Required, Union, get_args, get_origin

import pytest
from typing_extensions import get_type_hints, is_typeddict

from api import contract, contract_clock, contract_moves, contract_views
from deadwood_client import types as client
from domain import clock_shapes, gin, lobby_shapes, manipulation
from domain.events import SYSTEM
from domain.gin import shapes as gin_shapes
from domain.gin.state import Phase as GinPhase
from domain.manipulation import shapes as manip_shapes
from domain.manipulation.state import Phase as ManipulationPhase

COMPONENTS = {
    **contract_clock.components(),
    **contract_views.view_components(),
    **contract_views.options_components(),
    **contract_moves.components(),
}

DECLARED = {
    "GinView": gin_shapes.GinView,
    "GinYou": gin_shapes.GinYou,
    "GinSeat": gin_shapes.GinSeat,
    "Roles": gin_shapes.Roles,
    "Knock": gin_shapes.KnockView,
    "GinRoundResult": gin_shapes.GinRoundResult,
    "ManipulationView": manip_shapes.ManipulationView,
    "ManipulationYou": manip_shapes.ManipulationYou,
    "ManipulationSeat": manip_shapes.ManipulationSeat,
    "ManipulationRoundResult": manip_shapes.ManipulationRoundResult,
    "LobbyView": lobby_shapes.LobbyView,
    "LobbySeat": lobby_shapes.LobbySeat,
    "LobbyEntry": lobby_shapes.LobbyEntry,
    "Clock": clock_shapes.ClockView,
    "SeatClock": clock_shapes.SeatClockView,
    "ClockOptionsFull": clock_shapes.ClockJSON,
}
"""Each OpenAPI component and the declaration it describes."""

BY_REF = {
    **{name: decl.__name__ for name, decl in DECLARED.items()},
    "GinMove": "GinMove",
    "AdvisedMove": "AdvisedMove",
    "ManipulationMove": "ManipulationMove",
    "GinOptions": "object",
    "OptionsView": "object",
    "ManipulationOptions": "object",
}
"""What a `$ref` in a view stands for, in the declarations' names."""

PHASES = {"GinView": GinPhase, "ManipulationView": ManipulationPhase}

API_OPTIONAL = {"clock"}
"""Members the API adds to some views only (`clock`: a clocked match's)."""

API_ONLY = {"GinView": {"id", "clock"}, "ManipulationView": {"id", "clock"}}
"""Members the API adds to the domain's view (`id`: the match, null in a replay; `clock`: a
clocked match's clocks, rendered now, issue 31)."""


def _hints(decl: Any) -> dict[str, Any]:
    return get_type_hints(decl)


def _required(decl: Any) -> set[str]:
    """The keys a TypedDict requires, read from its annotations (with `from __future__ import
    annotations`, Python 3.11's `__required_keys__` does not see a NotRequired string)."""
    hints = get_type_hints(decl, include_extras=True)
    # mypy sees NotRequired as a special form that no origin can be; at run time it is one
    return {
        key
        for key, hint in hints.items()
        if get_origin(hint) is not NotRequired  # type: ignore[comparison-overlap]
    }


def _optional(decl: Any) -> set[str]:
    return set(_hints(decl)) - _required(decl)


def _python(hint: Any) -> str:
    """A declared type, written as its JSON schema reads (`ref:` a declaration)."""
    origin, args = get_origin(hint), get_args(hint)
    if origin in (Required, NotRequired):
        return _python(args[0])
    if origin in (Union, types.UnionType):
        return "|".join(sorted(_python(a) for a in args))
    if origin is Literal:
        return "enum" + repr(sorted(args)) if len(args) > 1 else _python(type(args[0]))
    if origin is list:
        return f"array<{_python(args[0])}>"
    if origin is dict or hint is dict:
        return "object"
    if is_typeddict(hint):
        return "ref:" + str(hint.__name__)
    names = {int: "integer", str: "string", bool: "boolean", float: "number", type(None): "null"}
    return names[hint]


def _schema(schema: dict[str, Any]) -> str:
    """A schema, written the way `_python` writes a type."""
    if "$ref" in schema:
        target = BY_REF[schema["$ref"].rsplit("/", 1)[1]]
        return target if target == "object" else "ref:" + target
    if "oneOf" in schema:
        return "|".join(sorted(_schema(s) for s in schema["oneOf"]))
    if "enum" in schema:
        return "enum" + repr(sorted(schema["enum"]))
    if schema.get("type") == "array":
        return f"array<{_schema(schema['items'])}>" if schema["items"] else "array<*>"
    return str(schema["type"])


def _same(declared: str, documented: str) -> bool:
    """`array<*>`: the document leaves the items open (a round result's per-seat lists)."""
    if documented.endswith("array<*>"):
        return declared.startswith(documented[: -len("*>")])
    return declared == documented


@pytest.mark.parametrize("name", sorted(DECLARED))
def test_each_view_component_is_its_declaration_field_by_field(name: str) -> None:
    decl, component = DECLARED[name], COMPONENTS[name]
    hints = _hints(decl)
    added = API_ONLY.get(name, set())
    documented = {k: v for k, v in component["properties"].items() if k not in added}
    assert set(documented) == set(hints), name
    required = set(component.get("required", ())) - added
    assert required == _required(decl), name
    phases = PHASES.get(name)
    if phases is not None:  # a view's `phase` is the value of the game's Phase
        assert documented.pop("phase")["enum"] == [p.value for p in phases]
        assert hints.pop("phase") is str
    wrong = {
        key: (_python(hints[key]), _schema(schema))
        for key, schema in documented.items()
        if not _same(_python(hints[key]), _schema(schema))
    }
    assert not wrong, f"{name}: declared vs documented {wrong}"


def _members(names: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    members: dict[str, dict[str, Any]] = {}
    for name in names:
        members.update(COMPONENTS[name]["properties"])
    return members


@pytest.mark.parametrize(
    ("decl", "names"),
    [
        (gin_shapes.GinMove, contract_moves.GIN),
        (gin_shapes.AdvisedMove, contract_moves.ADVISED),
    ],
)
def test_gin_moves_are_their_declaration_field_by_field(decl: Any, names: tuple[str, ...]) -> None:
    """The members of the game's move schemas are the declared move's keys, same types."""
    members, hints = _members(names), _hints(decl)
    assert set(members) == set(hints)
    assert {k for k in hints if k != "type"} == _optional(decl)
    for key, schema in members.items():
        if key not in ("type", "move"):
            assert _python(hints[key]) == _schema(schema), key


def test_manipulation_moves_are_their_declaration_field_by_field() -> None:
    """`draw` and `knock` list the members of both games; the others are this game's own."""
    hints = _hints(manip_shapes.ManipulationMove)
    own = _members(("MeldMove", "EndTurnMove", "PassMove"))
    assert set(own) == set(hints)
    assert set(hints) <= set(_members(contract_moves.MANIPULATION))
    assert _python(hints["table"]) == _schema(own["table"])


# --------------------------------------------------------------------- the client's types


def _keys(decl: Any) -> tuple[set[str], set[str]]:
    return _required(decl), _optional(decl)


@pytest.mark.parametrize(
    ("mine", "gin_decl", "manip_decl", "extra"),
    [
        (client.View, gin_shapes.GinView, manip_shapes.ManipulationView, {"id", "clock"}),
        (client.You, gin_shapes.GinYou, manip_shapes.ManipulationYou, set()),
        (client.Seat, gin_shapes.GinSeat, manip_shapes.ManipulationSeat, set()),
        (client.Move, gin_shapes.GinMove, manip_shapes.ManipulationMove, set()),
    ],
)
def test_client_types_are_both_games_declarations(
    mine: Any, gin_decl: Any, manip_decl: Any, extra: set[str]
) -> None:
    """A client type serves both games: a key of both is required as the games require it,
    a key of one game only is NotRequired."""
    required, optional = _keys(mine)
    gin_required, gin_optional = _keys(gin_decl)
    manip_required, manip_optional = _keys(manip_decl)
    both = (gin_required & manip_required) | (extra - API_OPTIONAL)
    everything = gin_required | gin_optional | manip_required | manip_optional | extra
    assert required | optional == everything, sorted((required | optional) ^ everything)
    assert required == both, sorted(required ^ both)


@pytest.mark.parametrize(
    ("mine", "decl"),
    [
        (client.ClockView, clock_shapes.ClockView),
        (client.SeatClock, clock_shapes.SeatClockView),
        (client.ClockOptions, clock_shapes.ClockJSON),
    ],
)
def test_client_clock_types_are_the_declarations(mine: Any, decl: Any) -> None:
    """The client stands alone (no `domain`), so it repeats the clock's shapes: the same."""
    assert _keys(mine) == _keys(decl)
    plain = {k: str(v) for k, v in _hints(decl).items() if "Clock" not in str(v)}
    assert {k: str(_hints(mine)[k]) for k in plain} == plain


def test_client_round_result_is_both_games_declarations() -> None:
    required, optional = _keys(client.RoundResult)
    gin_r = gin_shapes.GinRoundResult
    manip_r = manip_shapes.ManipulationRoundResult
    everything = set(_hints(gin_r)) | set(_hints(manip_r))
    assert required | optional == everything
    assert required == _required(gin_r) & _required(manip_r)


@pytest.mark.parametrize(
    ("mine", "component"),
    [
        (client.Hint, "Hint"),
        (client.Knock, "Knock"),
        (client.Roles, "Roles"),
        (client.LobbyView, "LobbyView"),
        (client.LobbyEntry, "LobbyEntry"),
        (client.LobbyPage, "LobbyPage"),
        (client.Joined, "Joined"),
        (client.SeatsChanged, "SeatsChanged"),
    ],
)
def test_client_types_match_the_document(mine: Any, component: str) -> None:
    schema = contract.components()[component]
    assert _required(mine) == set(schema["required"])
    assert set(_hints(mine)) == set(schema["properties"])


# ------------------------------------------------------------------ the views as built


def _play(game: Any, players: int, seed: int, steps: int) -> list[Any]:
    rng = random.Random(seed)
    roster = [{"name": f"p{i}"} for i in range(players)]
    state = game.initial_state()
    for event in game.create(roster, {}, seed, ""):
        state = game.evolve(state, event)
    states = [state]
    while not game.is_finished(state) and len(states) < steps:
        seat = game.to_act(state)
        move = game.pending(state) if seat is None else rng.choice(game.legal_moves(state, seat))
        for event in game.decide(state, SYSTEM if seat is None else seat, move):
            state = game.evolve(state, event)
        states.append(state)
    return states


@pytest.mark.parametrize(
    ("game", "players", "view", "you"),
    [
        (gin, 3, gin_shapes.GinView, gin_shapes.GinYou),
        (manipulation, 3, manip_shapes.ManipulationView, manip_shapes.ManipulationYou),
    ],
)
def test_built_views_have_exactly_the_declared_keys(
    game: Any, players: int, view: Any, you: Any
) -> None:
    for state in _play(game, players, 7, 300):
        for seat in (None, *range(players)):
            shown = game.view(state, seat)
            assert _required(view) <= set(shown) <= set(_hints(view))
            if shown["you"] is not None:
                assert _required(you) <= set(shown["you"]) <= set(_hints(you))


def test_the_gin_fold_draft_declares_every_state_field() -> None:
    """`Changes` (domain/gin/state.py) is how mypy sees the fold's draft: GinState's fields."""
    from dataclasses import fields

    from domain.gin.state import Changes, GinState

    assert list(Changes.__annotations__) == [f.name for f in fields(GinState)]


def test_the_move_body_schema_takes_exactly_the_declared_members() -> None:
    """api/schemas.py validates a move body before the game does: the members it takes are
    those of both games' declared moves (`move`, the advised move, takes the same but `move`
    and `text`)."""
    from api.schemas import MoveSchema, NestedMoveSchema

    declared = set(_hints(gin_shapes.GinMove)) | set(_hints(manip_shapes.ManipulationMove))
    members = {f.data_key or name for name, f in MoveSchema().fields.items()}
    assert members == declared
    nested = {f.data_key or name for name, f in NestedMoveSchema().fields.items()}
    assert nested == declared - {"move"}
