"""A client generated from openapi.yaml plays real matches (issue 17).

`openapi-python-client` (pinned in the test extra) generates a package from the committed
document into a temporary directory; the test imports it and, against the app as gunicorn
serves it (real HTTP on a free port, a real Redis, an rq worker that scores and deals),
plays a whole seeded three-hand-gin match and one manipulation-rummy round. Each seat reads
its view through the generated models: the view is the variant's model, `you.legal_moves`
a list of the generated move models, and the move sent is one of those models as generated.
Which listed move a seat picks is the `basic` bot's choice (a strategy that ends matches);
the bot sees exactly the generated model's dict.

Before issue 17 the generated `View.you` was an empty model (no `hand`, no `legal_moves`),
moves were one flat model, and this test could not be written.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from types import ModuleType
from typing import Any

import jsonschema_rs
import pytest
import yaml

from domain.bots import BOTS

OPENAPI = Path(__file__).resolve().parents[2] / "openapi.yaml"
PACKAGE = "generated_deadwood"
DOCUMENT = yaml.safe_load(OPENAPI.read_text())
VIEW = jsonschema_rs.validator_for(
    {"$ref": "#/components/schemas/View", "components": DOCUMENT["components"]}
)
"""Every view the seats see is also checked against the document itself (the generated
models read it leniently: they would not notice a member the document does not list)."""
WAIT_SECONDS = 60.0
"""How long a seat waits for the worker to score a hand or deal the next (not an assertion)."""


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """The generated package, imported from a temporary directory."""
    root = tmp_path_factory.mktemp("generated")
    config = root / "config.yaml"
    config.write_text(
        "post_hooks: []\ncontent_type_overrides:\n  application/x-ndjson: application/json\n"
    )
    tool = Path(sys.executable).with_name("openapi-python-client")
    done = subprocess.run(
        [
            *(str(tool), "generate", "--path", str(OPENAPI), "--meta", "none"),
            *("--output-path", str(root / PACKAGE), "--config", str(config)),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "WARNING" not in done.stdout, done.stdout  # every operation and schema generated
    spec = importlib.util.spec_from_file_location(
        PACKAGE, root / PACKAGE / "__init__.py", submodule_search_locations=[str(root / PACKAGE)]
    )
    assert spec is not None and spec.loader is not None
    sys.modules[PACKAGE] = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(sys.modules[PACKAGE])
        yield sys.modules[PACKAGE]
    finally:
        for name in [m for m in sys.modules if m.split(".")[0] == PACKAGE]:
            del sys.modules[name]


def _modules(generated: ModuleType) -> Any:
    name = generated.__name__
    return type(
        "G",
        (),
        {
            "models": importlib.import_module(f"{name}.models"),
            "create_match": importlib.import_module(f"{name}.api.matches.create_match"),
            "get_match": importlib.import_module(f"{name}.api.matches.get_match"),
            "make_move": importlib.import_module(f"{name}.api.moves.make_move"),
            "join_match": importlib.import_module(f"{name}.api.lobby.join_match"),
            "list_lobby": importlib.import_module(f"{name}.api.lobby.list_lobby"),
        },
    )


def test_generated_client_plays_a_whole_seeded_gin_match(stack: Any, generated: Any) -> None:
    """G1-G8 through the generated models: roles, upcard, draws, discards, knocks, scoring,
    until the match is finished."""
    stack.start_api(workers=2)
    stack.start_worker()
    g = _modules(generated)
    m = g.models
    body = m.CreateGinMatch(
        variant="three-hand-gin",
        players=[m.GinPlayer(name=n) for n in ("ana", "ben", "cy")],
        seed=17,
        options=m.GinOptionsInput(gin_bonus=25, target_score=100),
    )
    created = _create(g, stack.base_url, body, m.CreatedGinMatch)
    _advise(g, stack.base_url, created)
    final, moves, kinds = _play(g, stack.base_url, created, m.GinView, rounds=None)
    assert final.status.value == "finished"
    assert final.winners and max(final.scores) >= 100  # G8.1
    assert len(final.rounds) >= 2 and all(isinstance(r, m.GinRoundResult) for r in final.rounds)
    assert {"DrawMove", "DiscardMove", "KnockMove"} <= kinds, kinds
    assert kinds & {"TakeUpcardMove", "PassUpcardMove"}
    assert moves > 20


def test_generated_client_plays_a_manipulation_round(stack: Any, generated: Any) -> None:
    """M3-M10 through the generated models: draws, melds, the end of turns, until the first
    round is scored."""
    stack.start_api(workers=2)
    stack.start_worker()
    g = _modules(generated)
    m = g.models
    body = m.CreateManipulationMatch(
        variant="manipulation-rummy",
        players=[m.ManipulationPlayer(name=n) for n in ("dee", "eve", "fay")],
        seed=23,
    )
    created = _create(g, stack.base_url, body, m.CreatedManipulationMatch)
    final, moves, kinds = _play(g, stack.base_url, created, m.ManipulationView, rounds=1)
    assert len(final.rounds) == 1 and isinstance(final.rounds[0], m.ManipulationRoundResult)
    assert final.rounds[0].outcome
    assert {"DrawMove", "MeldMove"} <= kinds, kinds
    assert moves > 5


def test_generated_client_joins_an_open_seat_and_plays_a_round(stack: Any, generated: Any) -> None:
    """Issue 30 through the generated models: a match with open seats, listed; strangers
    find it in the lobby, join (each gets its own token), and the seats play a round."""
    stack.start_api(workers=2)
    stack.start_worker()
    g = _modules(generated)
    m = g.models
    package = importlib.import_module(m.__name__.rsplit(".", 1)[0])
    body = m.CreateManipulationMatch(
        variant="manipulation-rummy",
        players=[m.ManipulationPlayer(name="dee"), m.OpenSeat(open_=True), m.OpenSeat(True)],
        listed=True,
    )
    with package.Client(base_url=stack.base_url) as anonymous:
        created = g.create_match.sync(client=anonymous, body=body)
        assert isinstance(created, m.CreatedManipulationMatch), created
        assert created.lobby.status.value == "waiting" and created.seats[1].token is None
        page = g.list_lobby.sync(client=anonymous)
        assert isinstance(page, m.LobbyPage) and created.id in [e.id for e in page.matches]
        tokens = [created.seats[0].token]
        for name in ("eve", "fay"):
            joined = g.join_match.sync(created.id, client=anonymous, body=m.Join(name=name))
            assert isinstance(joined, m.Joined), joined
            assert isinstance(joined.match, m.ManipulationView)
            tokens.append(joined.token)
        refused = g.join_match.sync(created.id, client=anonymous, body=m.Join(name="gus"))
        assert isinstance(refused, m.Problem) and refused.code == "match_started"
    assert joined.match.lobby.status.value == "started" and len(set(tokens)) == 3
    with ExitStack() as opened:
        clients = [
            opened.enter_context(package.AuthenticatedClient(base_url=stack.base_url, token=t))
            for t in tokens
        ]
        final, moves, _ = _play_with(g, created, clients, m.ManipulationView, rounds=1)
    assert len(final.rounds) == 1 and moves > 3


def _advise(g: Any, base_url: str, created: Any) -> None:
    """G1.4: the advisor's only listed move is `advise`; it sends one with a suggested move
    built from the generated models, and the captain is told."""
    m = g.models
    package = importlib.import_module(m.__name__.rsplit(".", 1)[0])
    tokens = [s.token for s in created.seats]
    with package.Client(base_url=base_url) as spectator:
        roles = _settled(g, created.id, spectator, m.GinView).roles
    with package.AuthenticatedClient(base_url=base_url, token=tokens[roles.advisor]) as advisor:
        view = g.get_match.sync(created.id, client=advisor)
        assert [type(move) for move in view.you.legal_moves] == [m.AdviseMove]
        advice = m.AdviseMove(type_="advise", text="take it", move=m.TakeUpcardMove("take_upcard"))
        result = g.make_move.sync(created.id, client=advisor, body=advice)
    assert isinstance(result, m.MoveResult), result
    assert [e.type_ for e in result.events] == ["AdviceGiven"]
    assert result.events[0].data["move"] == {"type": "take_upcard"}


def _create(g: Any, base_url: str, body: Any, expected: type[Any]) -> Any:
    client = g.models.__name__.rsplit(".", 1)[0]
    with importlib.import_module(client).Client(base_url=base_url) as anonymous:
        created = g.create_match.sync(client=anonymous, body=body)
    assert isinstance(created, expected), created
    assert created.seeded and all(s.token for s in created.seats)
    return created


def _play(g: Any, base_url: str, created: Any, view_type: type[Any], rounds: int | None) -> Any:
    """Every seat plays the basic bot's pick among its generated legal moves until the match
    is finished (or `rounds` rounds are scored); returns the last view, the moves made and
    the names of the move models sent."""
    package = importlib.import_module(g.models.__name__.rsplit(".", 1)[0])
    with ExitStack() as opened:
        clients = [
            opened.enter_context(package.AuthenticatedClient(base_url=base_url, token=s.token))
            for s in created.seats
        ]
        return _play_with(g, created, clients, view_type, rounds)


def _play_with(
    g: Any, created: Any, clients: list[Any], view_type: type[Any], rounds: int | None
) -> Any:
    bot = BOTS[created.variant]["basic"]
    rng = random.Random(5)
    moves, kinds = 0, set[str]()
    while True:
        view = _settled(g, created.id, clients[0], view_type)
        if view.status.value == "finished" or (rounds is not None and len(view.rounds) >= rounds):
            return view, moves, kinds
        answer = g.get_match.sync_detailed(created.id, client=clients[view.turn])
        VIEW.validate(json.loads(answer.content))
        seat_view = answer.parsed
        assert isinstance(seat_view, view_type) and seat_view.you.seat == view.turn
        legal = seat_view.you.legal_moves
        assert legal, "the seat to act has a legal move"
        chosen = bot.choose(seat_view.to_dict(), [move.to_dict() for move in legal], rng)
        move = _as_model(legal, chosen)
        result = g.make_move.sync(created.id, client=clients[view.turn], body=move)
        assert isinstance(result, g.models.MoveResult), result
        assert isinstance(result.match, view_type)
        moves, kinds = moves + 1, kinds | {type(move).__name__}
        assert moves < 5000, "the match ends"


def _as_model(legal: list[Any], chosen: dict[str, Any]) -> Any:
    """The listed model of `chosen`, or (a meld the bot arranged itself) the generated model
    of its type built from it."""
    for move in legal:
        if move.to_dict() == chosen:
            return move
    kind = next(type(move) for move in legal if move.type_ == chosen["type"])
    return kind.from_dict(chosen)


def _settled(g: Any, match_id: str, client: Any, view_type: type[Any]) -> Any:
    """The view once a seat is to act (the worker scores and deals between hands)."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        view = g.get_match.sync(match_id, client=client)
        assert isinstance(view, view_type), view
        if view.turn is not None or view.status.value == "finished":
            return view
        assert time.monotonic() < deadline, f"no seat to act for {WAIT_SECONDS} s: {view}"
        time.sleep(0.05)
