"""Manipulation Rummy moves: who acts (M4), `decide` (M4-M9) and `legal_moves`, as pure functions.

`decide` validates a move and returns its events, raising a RulesError that names the rule;
`legal_moves` lists draw, knock, end_turn and pass exactly and a representative set of meld
moves (domain/manipulation/melds.py); any table passing I1-I6 is accepted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import compress
from operator import is_not

from domain.cards import codes
from domain.errors import ForbiddenMove, IllegalMove, MalformedMove, NotYourTurn
from domain.events import SYSTEM, Event
from domain.lobby import refuse_move
from domain.manipulation.melds import Listings, check_meld, meld_candidates
from domain.manipulation.scoring import hand_points, score_round
from domain.manipulation.shapes import ManipulationMove
from domain.manipulation.state import (
    Phase,
    State,
    Table,
    evolve,
    parse_table,
    shown_meld,
    shown_table,
    table_codes,
)

PLAYER_MOVES = ("draw", "meld", "knock", "end_turn", "pass")
SYSTEM_MOVES = ("score_round",)
MAX_TABLE_CARDS = 106

Move = ManipulationMove
"""A move in its JSON shape (shapes.py); `decide` checks it, since a client sent it."""


# ---------------------------------------------------------------- who moves


def is_finished(state: State) -> bool:
    return state.phase is Phase.FINISHED


def to_act(state: State) -> int | None:
    if state.phase in (Phase.SETUP, Phase.SCORING, Phase.FINISHED):
        return None
    return state.turn


def pending(state: State) -> ManipulationMove | None:
    """The SYSTEM move due: score the round once it has ended and is not yet scored."""
    if state.phase is Phase.SCORING and (
        not state.results or state.results[-1].round < state.round
    ):
        return {"type": "score_round"}
    return None


def decks(state: State) -> int:
    """M1.2: one pack for two players, two packs for three to five."""
    return 1 if state.n == 2 else 2


def may_knock(state: State, seat: int) -> bool:
    """M8.1 / A-M7 / M9.2: the hand counts knock_limit or less at a moment a knock is allowed."""
    opts = state.options
    if state.phase is Phase.KNOCK_OR_END:
        allowed = not state.lap or opts.last_lap_knock
    elif state.phase is Phase.MELD_OR_DRAW:
        allowed = opts.knock_timing == "after_any_draw"
    else:
        allowed = False
    return allowed and hand_points(state.hands[seat]) <= opts.knock_limit


# ---------------------------------------------------------------- decide


def decide(state: State, seat: int, move: Move) -> tuple[Event, ...]:
    """Validate `move` by `seat` and return its events; raise a RulesError naming the rule."""
    kind = _move_type(move)
    if seat == SYSTEM:
        return _decide_system(state, kind)
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state.n:
        raise ForbiddenMove(f"seat {seat!r} does not play in this match")
    if kind in SYSTEM_MOVES:
        raise ForbiddenMove(f"{kind!r} is made by the service, not by a player")
    _check_shape(kind, move)
    if state.lobby is not None and state.lobby.status != "started":
        refuse_move(state.lobby)  # waiting for players, or cancelled (domain/lobby.py)
    if state.phase is Phase.FINISHED:
        raise IllegalMove("the match is finished (M11)")
    if state.phase in (Phase.SCORING, Phase.SETUP):
        raise IllegalMove("the round is over and waits to be scored (M10)")
    if state.turn != seat:
        raise NotYourTurn(f"it is seat {state.turn}'s turn, not seat {seat}'s")
    return _PLAYER_HANDLERS[kind](state, seat, move)


def _move_type(move: Move) -> str:
    if not isinstance(move, Mapping) or not isinstance(move.get("type"), str):
        raise MalformedMove("a move must be an object with a string 'type'")
    kind = str(move["type"])
    if kind not in PLAYER_MOVES and kind not in SYSTEM_MOVES:
        raise MalformedMove(
            f"move type {kind!r} is unknown: expected one of {', '.join(PLAYER_MOVES)}"
        )
    return kind


def _check_shape(kind: str, move: Move) -> None:
    allowed = {"type", "table"} if kind == "meld" else {"type"}
    extra = sorted(set(move) - allowed)
    if extra:
        raise MalformedMove(f"a {kind} move has no field {extra[0]!r}")
    if kind != "meld":
        return
    table = move.get("table")
    if not isinstance(table, list) or not all(isinstance(m, list) for m in table):
        raise MalformedMove("a meld move needs 'table': a list of melds, each a list of cards")
    if sum(len(m) for m in table) > MAX_TABLE_CARDS:
        raise MalformedMove(f"a table holds at most {MAX_TABLE_CARDS} cards")


def _decide_system(state: State, kind: str) -> tuple[Event, ...]:
    if kind not in SYSTEM_MOVES:
        raise ForbiddenMove(f"the service does not make player moves such as {kind!r}")
    if pending(state) is None:
        raise IllegalMove("there is no round to score now")
    return score_round(state)


def _apply(state: State, events: Sequence[Event]) -> State:
    for event in events:
        state = evolve(state, event)
    return state


def _turn_over(state: State, seat: int, events: tuple[Event, ...]) -> tuple[Event, ...]:
    """M4 step 4: after `events` the turn is over; add TurnEnded unless a knock is open."""
    after = _apply(state, events)
    if after.phase is Phase.SCORING or may_knock(after, seat):
        return events
    return (*events, Event("TurnEnded", {"seat": seat}))


def _draw(state: State, seat: int, move: Move) -> tuple[Event, ...]:
    """M4 D1-D3: the draws are compulsory until a meld (A-M4); M9.4 never from an empty stock."""
    if state.phase not in (Phase.DRAW, Phase.MELD_OR_DRAW):
        raise IllegalMove(_no_draw_reason(state))
    if not state.stock:
        raise IllegalMove(
            "the stock is empty: the draw you owe is skipped; meld or pass (M9.1, M9.4)"
        )
    draw = state.draws + 1
    events: tuple[Event, ...] = (
        Event("CardDrawn", {"seat": seat, "card": str(state.stock[0]), "draw": draw}),
    )
    if len(state.stock) == 1:
        events += (Event("StockExhausted", {"seat": seat}),)
    if draw == 3:  # M4 D3: no meld after the third card
        return _turn_over(state, seat, events)
    return events


def _no_draw_reason(state: State) -> str:
    if state.phase is Phase.FINAL_TURNS:
        return "there is no draw in the last lap: meld or pass (M9.2)"
    return "your drawing is over this turn: knock or end the turn (M4)"


def _meld(state: State, seat: int, move: Move) -> tuple[Event, ...]:
    """M6: the submitted table must satisfy I1-I6; a refusal leaves the state unchanged (I5)."""
    if state.phase not in (Phase.MELD_OR_DRAW, Phase.FINAL_TURNS):
        if state.phase is Phase.DRAW:
            raise IllegalMove("draw your first card before melding (M4 D1)")
        if state.draws >= 3:
            raise IllegalMove("no meld after the third draw of a turn (M4 D3)")
        raise IllegalMove("you have made your meld action this turn (M4, A-M5)")
    submitted = parse_table(move["table"])
    played, table = check_meld(
        state.table, state.hands[seat], submitted, state.options, state.opened[seat], decks(state)
    )
    event = Event(
        "TableMelded", {"seat": seat, "table": table_codes(table), "played": codes(played)}
    )
    return _turn_over(state, seat, (event,))


def _knock(state: State, seat: int, move: Move) -> tuple[Event, ...]:
    """M8.1: knock with knock_limit points or less, at the end of the turn (A-M7)."""
    points = hand_points(state.hands[seat])
    if not may_knock(state, seat):
        limit = state.options.knock_limit
        if points > limit:
            raise IllegalMove(
                f"cannot knock: your hand counts {points}, the limit is {limit} (M8.1)"
            )
        if state.lap:
            raise IllegalMove("no knock in the last lap (M9.2)")
        raise IllegalMove("you may knock only at the end of your turn (M8.1, A-M7)")
    return (Event("Knocked", {"seat": seat, "points": points}),)


def _end_turn(state: State, seat: int, move: Move) -> tuple[Event, ...]:
    if state.phase is not Phase.KNOCK_OR_END:
        raise IllegalMove("your turn is not over: draw or meld first (M4)")
    return (Event("TurnEnded", {"seat": seat}),)


def _pass(state: State, seat: int, move: Move) -> tuple[Event, ...]:
    """M9.2 a last-lap turn without a meld; M9.1 declining to meld once the stock is gone."""
    stock_gone = state.phase is Phase.MELD_OR_DRAW and not state.stock
    if state.phase is not Phase.FINAL_TURNS and not stock_gone:
        raise IllegalMove("pass is only for a turn without a draw, after the stock ran out (M9)")
    return _turn_over(state, seat, (Event("Passed", {"seat": seat}),))


_PLAYER_HANDLERS = {
    "draw": _draw,
    "meld": _meld,
    "knock": _knock,
    "end_turn": _end_turn,
    "pass": _pass,
}


def autoplay_system(state: State) -> tuple[State, tuple[Event, ...]]:
    """Apply pending SYSTEM moves until none is due (tests, the arena)."""
    events: list[Event] = []
    while (move := pending(state)) is not None:
        new = decide(state, SYSTEM, move)
        state = _apply(state, new)
        events.extend(new)
    return state, tuple(events)


# ---------------------------------------------------------------- legal moves


def legal_moves(
    state: State, seat: int, listings: Listings | None = None
) -> list[ManipulationMove]:
    """Every legal move of `seat` now; for `meld` a representative set, not every table
    (`seat_moves`), remembered in `listings` when one is handed in."""
    return seat_moves(state, seat, None, listings)


def seat_moves(
    state: State, seat: int, shown: list[list[str]] | None, listings: Listings | None = None
) -> list[ManipulationMove]:
    """`legal_moves`, given the state's `shown_table` when the caller has it (a view).

    draw, knock, end_turn and pass are listed exactly. The meld space is huge (any table that
    passes I1-I6 is accepted), so the list holds meld moves from cheap rules, with no search:
    every new meld made from the hand alone, every one-card extension of a table meld and
    every joker swap (domain/manipulation/melds.py); each listed meld is accepted by `decide`
    (valid by construction, its changed melds checked, or validated whole where options
    bite). The solver's best move is what the hint and the bots use.
    """
    phase = state.phase
    if to_act(state) != seat:
        return []
    if phase is Phase.DRAW:
        return [{"type": "draw"}] if state.stock else []
    if phase is Phase.KNOCK_OR_END:
        if may_knock(state, seat):
            return [{"type": "knock"}, {"type": "end_turn"}]
        return [{"type": "end_turn"}]
    # MELD_OR_DRAW or FINAL_TURNS: draw while the stock lasts, else pass (M9.1, M9.2)
    moves: list[ManipulationMove] = [
        {"type": "draw"} if phase is Phase.MELD_OR_DRAW and state.stock else {"type": "pass"}
    ]
    if (
        phase is Phase.MELD_OR_DRAW
        and state.options.knock_timing == "after_any_draw"  # else no knock yet (A-M7)
        and may_knock(state, seat)
    ):
        moves.append({"type": "knock"})
    before = state.table
    tables = meld_candidates(
        before,
        state.hands[seat],
        state.options,
        state.opened[seat],
        decks(state),
        listings,
    )
    if tables:
        if shown is None:
            shown = shown_table(before)
        moves += [{"type": "meld", "table": _codes(t, before, shown)} for t in tables]
    return moves


def _codes(table: Table, before: Table, shown: list[list[str]]) -> list[list[str]]:
    """`shown_table(table)` for a listed table, the melds it shares with `before` (the very
    same objects: a listed move changes one or two melds and may add one) taken from
    `before`'s `shown` lists, so only the changed melds are looked up."""
    n = len(before)
    if len(table) < n:
        return [shown_meld(meld) for meld in table]
    out = list(shown)
    for k in compress(range(n), map(is_not, table, before)):
        out[k] = shown_meld(table[k])
    if len(table) > n:
        out += map(shown_meld, table[n:])
    return out
