"""Manipulation Rummy (Carousel), rules M1-M11 of rules.md section 2, as pure functions.

The surface is the one of domain/variants.py; `VARIANT` at the bottom. The state and its fold
live in domain/manip_state.py, the scoring in domain/manip_scoring.py, the options in
domain/manip_options.py, and the link to the table maths (domain/table.py, table_solver.py)
in domain/manip_table.py.

Events (past tense, JSON-ready data):

    MatchCreated   {variant, players, options, seeded, seed, deal_key}
    DealerChosen   {round, dealer}                  chance: DealRng(deal_key, "dealer") (M3.1)
    RoundDealt     {round, dealer, hands, stock, salt, commitment}             (M3)
    CardDrawn      {seat, card, draw}               draw is 1, 2 or 3 (M4)
    StockExhausted {seat}                           right after the draw of the last card (M9.1)
    TableMelded    {seat, table, played}            the whole table after, and the hand cards
    Passed         {seat}                           no meld: last lap, or stock gone (M9)
    TurnEnded      {seat}                           play passes on (M4 step 4)
    Knocked        {seat, points}                   the round ends at once (M8.2)
    RoundScored    {round, outcome, hands, points, winners, knocker, hand_points}  (M10)
    MatchFinished  {scores, winners, round_scores, bonuses}                         (M11)

Choices where rules.md leaves the engine free:

- When a turn is over (after a meld, the third draw, or a pass) and the mover may not knock,
  `decide` returns TurnEnded together with the event that ended the turn; when he may knock
  the phase is `knock_or_end` and he chooses `knock` or `end_turn`. Going out (an empty hand
  after TableMelded) ends the round with no further event; the phase becomes `scoring`.
- A player who drew the last stock card with D1 or D2 declines to meld with `pass` (M9.1: the
  draw he would owe is skipped); `pass` is otherwise the no-meld move of the last lap.
- DealerChosen is the chance event of the first dealer only; a later dealer (M3.3, also with
  `next_dealer = random`) is recorded in its RoundDealt.
- Phase `setup` is the state before the first RoundDealt (create returns all three opening
  events at once, so only a view of an early log prefix shows it).
- `legal_moves` lists draw, knock, end_turn and pass exactly and a representative set of meld
  moves (domain/manip_table.py); any table passing I1-I6 is accepted.
- Identical cards of two packs (M1.3) are separate physical cards counted as a multiset of
  codes; no per-copy id is kept, because the rules and the API never tell two copies apart.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from domain.cards import codes
from domain.errors import (
    ForbiddenMove,
    IllegalMove,
    InvalidOptions,
    MalformedMove,
    NotYourTurn,
)
from domain.events import SYSTEM, Event
from domain.manip_options import validate_options as _validate_options
from domain.manip_scoring import game_end, hand_points, round_points, round_winners
from domain.manip_state import (
    Phase,
    RoundEnd,
    State,
    evolve,
    pack,
    parse_table,
    table_codes,
)
from domain.manip_table import check_meld, meld_candidates
from domain.shuffle import DealRng, commitment, seed_key
from domain.variants import Variant

NAME = "manipulation-rummy"
MIN_PLAYERS, MAX_PLAYERS = 2, 5
HAND_SIZE = 10
PLAYER_MOVES = ("draw", "meld", "knock", "end_turn", "pass")
SYSTEM_MOVES = ("score_round",)
MAX_TABLE_CARDS = 106

Move = Mapping[str, Any]


# ---------------------------------------------------------------- creation and the deal (M3)


def validate_options(options: Mapping[str, Any] | None) -> dict[str, Any]:
    """Every option of section 5 with its default; unknown keys are refused by name."""
    return _validate_options(options)


def _validate_players(players: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """M1.1: 2 to 5 players, each {"name": str, "bot": str | None}."""
    if not isinstance(players, Sequence) or not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        count = len(players) if isinstance(players, Sequence) else players
        raise InvalidOptions(f"manipulation-rummy needs 2 to 5 players, not {count!r} (M1.1)")
    out = []
    for i, p in enumerate(players):
        if not isinstance(p, Mapping) or not isinstance(p.get("name"), str):
            raise InvalidOptions(f"player {i} must be an object with a string 'name'")
        bot = p.get("bot")
        if bot is not None and not isinstance(bot, str):
            raise InvalidOptions(f"player {i}: 'bot' must be a string or null")
        out.append({"name": p["name"], "bot": bot})
    return out


def create(
    players: Sequence[Mapping[str, Any]],
    options: Mapping[str, Any] | None,
    seed: int | None,
    secret: str,
) -> tuple[Event, ...]:
    """MatchCreated, the chance draw of the first dealer (M3.1) and the first deal."""
    roster = _validate_players(players)
    full = validate_options(options)
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise InvalidOptions(f"seed must be an integer or null, not {seed!r}")
    if seed is None and (not isinstance(secret, str) or not secret):
        raise InvalidOptions("an unseeded match needs a secret deal key")
    deal_key = seed_key(seed) if seed is not None else secret
    n = len(roster)
    dealer = DealRng(deal_key, "dealer").randbelow(n)
    created = Event(
        "MatchCreated",
        {
            "variant": NAME,
            "players": roster,
            "options": full,
            "seeded": seed is not None,
            "seed": seed,
            "deal_key": deal_key,
        },
    )
    chosen = Event("DealerChosen", {"round": 1, "dealer": dealer})
    return created, chosen, deal_event(deal_key, 1, n, dealer)


def deal_event(deal_key: str, round_no: int, n: int, dealer: int) -> Event:
    """RoundDealt: shuffle the pack (M1.2), deal 10 each one at a time from the dealer's left."""
    deck = [str(c) for c in pack(n)]
    DealRng(deal_key, f"deal:{round_no}").shuffle(deck)
    salt = DealRng(deal_key, f"salt:{round_no}").token()
    hands: list[list[str]] = [[] for _ in range(n)]
    for i in range(HAND_SIZE * n):
        hands[(dealer + 1 + i) % n].append(deck[i])
    return Event(
        "RoundDealt",
        {
            "round": round_no,
            "dealer": dealer,
            "hands": hands,
            "stock": deck[HAND_SIZE * n :],
            "salt": salt,
            "commitment": commitment(deck, salt),
        },
    )


def initial_state() -> State:
    return State()


# ---------------------------------------------------------------- who moves


def is_finished(state: State) -> bool:
    return state.phase is Phase.FINISHED


def to_act(state: State) -> int | None:
    if state.phase in (Phase.SETUP, Phase.SCORING, Phase.FINISHED):
        return None
    return state.turn


def pending(state: State) -> dict[str, Any] | None:
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
    if hand_points(state.hands[seat]) > opts.knock_limit:
        return False
    if state.phase is Phase.KNOCK_OR_END:
        return not state.lap or opts.last_lap_knock
    if state.phase is Phase.MELD_OR_DRAW:
        return opts.knock_timing == "after_any_draw"
    return False


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


# ---------------------------------------------------------------- scoring (M10, M11)


def score_round(state: State) -> tuple[Event, ...]:
    """RoundScored, then the next RoundDealt or MatchFinished (M10, M11)."""
    assert state.ending is not None
    ending = state.ending
    counts = tuple(hand_points(h) for h in state.hands)
    winners = round_winners(ending.outcome, counts, ending.ender)
    knocker = ending.ender if ending.outcome == "knock" else None
    points = round_points(ending.outcome, counts, winners, knocker, state.options)
    scored = Event(
        "RoundScored",
        {
            "round": state.round,
            "outcome": ending.outcome,
            "hands": [codes(h) for h in state.hands],
            "points": list(points),
            "winners": list(winners),
            "knocker": knocker,
            "hand_points": list(counts),
        },
    )
    after = evolve(state, scored)
    end = game_end(after.scores, after.rounds_won, state.options)
    if end is not None:
        finished = Event(
            "MatchFinished",
            {
                "scores": list(end.scores),
                "winners": list(end.winners),
                "round_scores": list(after.scores),
                "bonuses": list(end.bonuses),
            },
        )
        return scored, finished
    assert state.deal_key is not None and state.dealer is not None
    dealer = next_dealer(state, winners)
    return scored, deal_event(state.deal_key, state.round + 1, state.n, dealer)


def next_dealer(state: State, winners: Sequence[int]) -> int:
    """M3.3 / A-M13: rotate left (default), the round's winner, or a chance draw.

    `round_winner` with several winners: the first of them clockwise from the old dealer's
    left. `random` draws from DealRng(deal_key, "dealer:{round}") for the next round.
    """
    assert state.dealer is not None and state.deal_key is not None
    rule = state.options.next_dealer
    if rule == "round_winner" and winners:
        order = [(state.dealer + 1 + i) % state.n for i in range(state.n)]
        return next(seat for seat in order if seat in winners)
    if rule == "random":
        return DealRng(state.deal_key, f"dealer:{state.round + 1}").randbelow(state.n)
    return state.next_seat(state.dealer)


def autoplay_system(state: State) -> tuple[State, tuple[Event, ...]]:
    """Apply pending SYSTEM moves until none is due (tests, the arena)."""
    events: list[Event] = []
    while (move := pending(state)) is not None:
        new = decide(state, SYSTEM, move)
        state = _apply(state, new)
        events.extend(new)
    return state, tuple(events)


# ---------------------------------------------------------------- legal moves


def legal_moves(state: State, seat: int) -> list[dict[str, Any]]:
    """Every legal move of `seat` now; for `meld` a representative set, not every table.

    draw, knock, end_turn and pass are listed exactly. The meld space is huge (any table that
    passes I1-I6 is accepted), so the list holds meld moves from cheap rules, with no search:
    every new meld made from the hand alone, every one-card extension of a table meld and
    every joker swap (domain/manip_table.py); each listed meld has been checked by the same
    validation as `decide`. The solver's best move is what the hint and the bots use.
    """
    if to_act(state) != seat:
        return []
    phase = state.phase
    moves: list[dict[str, Any]] = []
    if phase in (Phase.DRAW, Phase.MELD_OR_DRAW) and state.stock:
        moves.append({"type": "draw"})
    if phase is Phase.FINAL_TURNS or (phase is Phase.MELD_OR_DRAW and not state.stock):
        moves.append({"type": "pass"})
    if may_knock(state, seat):
        moves.append({"type": "knock"})
    if phase is Phase.KNOCK_OR_END:
        moves.append({"type": "end_turn"})
    if phase in (Phase.MELD_OR_DRAW, Phase.FINAL_TURNS):
        tables = meld_candidates(
            state.table, state.hands[seat], state.options, state.opened[seat], decks(state)
        )
        moves.extend({"type": "meld", "table": table_codes(t)} for t in tables)
    return moves


# ---------------------------------------------------------------- views


def view(state: State, seat: int | None) -> dict[str, Any]:
    """The api.md view minus id; `you` only for a seat of this match."""
    you = None
    if seat is not None and 0 <= seat < state.n and state.hands:
        you = {
            "seat": seat,
            "hand": codes(state.hands[seat]),
            "legal_moves": legal_moves(state, seat),
        }
    elif seat is not None and 0 <= seat < state.n:
        you = {"seat": seat, "hand": [], "legal_moves": []}
    return {
        "variant": NAME,
        "version": state.version,
        "seeded": state.seeded,
        "status": "finished" if is_finished(state) else "active",
        "options": dict(state.options_dict),
        "round": state.round,
        "phase": str(state.phase),
        "turn": to_act(state),
        "seats": [
            {
                "seat": i,
                "name": p.name,
                "bot": p.bot,
                "hand_size": len(state.hands[i]) if state.hands else 0,
            }
            for i, p in enumerate(state.players)
        ],
        "scores": list(state.scores),
        "winners": list(state.winners),
        "stock_size": len(state.stock),
        "rounds": [r.to_json() for r in state.results],
        "deal_commitment": state.commitment,
        "you": you,
        "dealer": state.dealer,
        "table": table_codes(state.table),
        "draws_this_turn": state.draws,
        "rounds_won": list(state.rounds_won),
        "final_turns_left": len(state.lap),
    }


def event_view(before: State, event: Event, seat: int | None) -> dict[str, Any]:
    """The event as `seat` may see it: other hands, drawn cards, stock order, salt, seed hidden."""
    data = dict(event.data)
    if is_finished(before):
        return {"type": event.type, "v": event.v, "data": data}
    if event.type == "MatchCreated":
        data["seed"] = None
        data["deal_key"] = None
    elif event.type == "RoundDealt":
        data["hands"] = [
            list(h) if s == seat else [None] * len(h) for s, h in enumerate(data["hands"])
        ]
        data["stock"] = [None] * len(data["stock"])
        data["salt"] = None
    elif event.type == "CardDrawn" and data.get("seat") != seat:
        data["card"] = None
    return {"type": event.type, "v": event.v, "data": data}


VARIANT = Variant(
    name=NAME,
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    validate_options=validate_options,
    create=create,
    initial_state=initial_state,
    evolve=evolve,
    decide=decide,
    pending=pending,
    to_act=to_act,
    legal_moves=legal_moves,
    view=view,
    event_view=event_view,
    is_finished=is_finished,
)

__all__ = [
    "NAME",
    "VARIANT",
    "Phase",
    "RoundEnd",
    "State",
    "autoplay_system",
    "create",
    "deal_event",
    "decide",
    "event_view",
    "evolve",
    "initial_state",
    "is_finished",
    "legal_moves",
    "pack",
    "pending",
    "score_round",
    "to_act",
    "validate_options",
    "view",
]
