"""Checking an uploaded log: every event must be what the rules would have recorded.

A log passes only if the service itself could have written it, event for event:

1. The first event is MatchCreated with its `deal_key` (the unredacted log of GET .../log).
   The opening events are made again with the variant's `create(players, options, seed,
   secret)` (the secret: the deal key of an unseeded match, the `salt_key` of a seeded one,
   which the log reveals once the match is over) and must equal the uploaded ones: this
   checks the role or dealer draw and the first deal, so a changed card in a dealt hand, the
   stock or the salt is caught here.
2. Every later event is re-derived from the state before it. The candidates are the SYSTEM
   move due (`pending`: scoring, the next deal, the end), the move that the event records
   (read back from its data: `CardDiscarded {card}` -> `{"type": "discard", "card"}`), and
   as a last resort every legal move of the seat to act. The first candidate whose
   `decide(state, seat, move)` returns exactly the next events of the log (type, version and
   data) is taken, and those events are folded. `decide` checks the seat (NotYourTurn,
   ForbiddenMove) and the rules, so a move by the wrong seat, a card the mover does not hold,
   a reordered or dropped event, or a deal that is not the deal key's all fail here.
3. The first event that no candidate produces is named by its seq, with the rule the
   recorded move broke when the move could be read back.

Events of time and conduct (TurnTimedOut, SeatReplacedByBot, MatchAborted, SeatResigned,
VictoryClaimed: domain/conduct.py) are checked for what the state allows and folded; the auto
move after a TurnTimedOut is an ordinary move of the seat to act. A clock pinned in
MatchCreated (`clock`) must be a valid one.

The `at` times are not checked (they are for people). `seq`, when given, must count 1, 2, ...

`LogCheck` runs these steps while the log is still being read (issue 11 item 2): event 1 is
checked as soon as it arrives, each opening event as it arrives, and each later step once
`LAG` events past it are in (or the log has ended), so a log is refused at its first event
that cannot start or continue a match, whatever follows it. A step whose closest candidate
agrees with every event read so far but needs more waits for them, so the verdict is the same
as that of the whole log at once (`replay_log`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import cast

from domain import conduct
from domain.clock import validate_clock
from domain.errors import RulesError
from domain.events import SYSTEM, Event
from domain.lobby import LOBBY_EVENTS, open_match, recorded_decision
from domain.lobby_shapes import LobbyCreated
from domain.replay import fold
from domain.shapes import JSON
from domain.variants import Move, State, Variant, get_variant, move_from_json

LAG = 16
"""Events read past the step being checked; more than any one move or due deal records."""

NO_SECRET = ""
"""Passed to create() for a seeded match recorded before seeded matches had a secret
`salt_key` (its salts came from the seed's deal key)."""


class LogRejected(Exception):
    """The uploaded log breaks the rules at event `seq` (1-based)."""

    def __init__(self, seq: int, detail: str) -> None:
        super().__init__(detail)
        self.seq = seq
        self.detail = detail


@dataclass(frozen=True)
class Replayed:
    variant: Variant
    state: State
    events: int


Moves = Callable[[Mapping[str, JSON]], list[dict[str, JSON]]]
"""The moves a recorded event may have been made by, from its recorded data (a log read at
the edge: a client's upload)."""


def _knock(data: Mapping[str, JSON]) -> list[dict[str, JSON]]:
    bare: dict[str, JSON] = {"type": "knock", "card": data.get("card")}
    return [{**bare, "melds": data.get("melds")}, bare]


def _advise(data: Mapping[str, JSON]) -> list[dict[str, JSON]]:
    move: dict[str, JSON] = {"type": "advise"}
    for key in ("text", "move"):
        if data.get(key) is not None:
            move[key] = data[key]
    return [move]


GIN_MOVES: dict[str, Moves] = {
    "UpcardTaken": lambda d: [{"type": "take_upcard"}],
    "UpcardPassed": lambda d: [{"type": "pass_upcard"}],
    "CardDrawn": lambda d: [{"type": "draw", "from": d.get("from")}],
    "CardDiscarded": lambda d: [{"type": "discard", "card": d.get("card")}],
    "Knocked": _knock,
    "AdviceGiven": _advise,
}

MANIP_MOVES: dict[str, Moves] = {
    "CardDrawn": lambda d: [{"type": "draw"}],
    "TableMelded": lambda d: [{"type": "meld", "table": d.get("table")}],
    "Passed": lambda d: [{"type": "pass"}],
    "TurnEnded": lambda d: [{"type": "end_turn"}],
    "Knocked": lambda d: [{"type": "knock"}],
}

RECORDED_MOVES = {"three-hand-gin": GIN_MOVES, "manipulation-rummy": MANIP_MOVES}


def canonical(event: Event) -> str:
    return json.dumps([event.type, event.v, event.data], sort_keys=True, separators=(",", ":"))


def _matching(made: Sequence[Event], log: Sequence[Event], at: int) -> int:
    """How many of `made` equal the log's events from `at` on, in order."""
    count = 0
    for k, event in enumerate(made):
        if at + k >= len(log) or canonical(event) != canonical(log[at + k]):
            break
        count += 1
    return count


def _name(event: Event, seq: int) -> str:
    return f"event {seq} ({event.type})"


def opening_of(first: Event) -> tuple[Variant, list[Event]]:
    """Step 1: the variant and the opening events that event 1 (MatchCreated) makes."""
    if first.type != "MatchCreated":
        raise LogRejected(1, f"event 1 is {first.type}, but a match log starts with MatchCreated")
    data = first.data
    try:
        variant = get_variant(str(data.get("variant")))
    except RulesError as exc:
        raise LogRejected(1, f"event 1 (MatchCreated): {exc}") from None
    seed, deal_key = data.get("seed"), data.get("deal_key")
    secret = _secret(seed, deal_key, data.get("salt_key", NO_SECRET))
    try:
        # the log's own values, as a client would send them: `create` checks each
        players = cast("Sequence[Mapping[str, JSON]]", data.get("players") or [])
        options = cast("Mapping[str, JSON]", data.get("options") or {})
        recorded_clock = cast("Mapping[str, JSON] | None", data.get("clock"))
        clock = validate_clock(recorded_clock, len(players))
        if data.get("lobby") is not None:  # a match that waited for players: it alone
            lobby_data = cast("LobbyCreated", data["lobby"])
            return variant, [open_match(variant, players, options, secret, lobby_data, clock)]
        opening = list(variant.create(players, options, cast("int | None", seed), secret, clock))
    except (RulesError, TypeError, ValueError, KeyError) as exc:
        raise LogRejected(1, f"event 1 (MatchCreated) cannot open a match: {exc}") from None
    return variant, opening


def _secret(seed: JSON, deal_key: JSON, salt_key: JSON) -> str:
    """The secret create() needs: an unseeded match's deal key, a seeded match's salt key."""
    secret = deal_key if seed is None else salt_key
    if not isinstance(secret, str):
        name = "deal_key" if seed is None else "salt_key"
        raise LogRejected(
            1,
            f"event 1 (MatchCreated) has no {name}: replay needs the unredacted log of a "
            "finished match (GET /v1/matches/{id}/log)",
        )
    return secret


def _candidates(variant: Variant, state: State, event: Event) -> list[tuple[int, Move]]:
    out: list[tuple[int, Move]] = []
    due = variant.pending(state)
    if due is not None:
        out.append((SYSTEM, move_from_json(dict(due))))
    seat = event.data.get("seat")
    to_act = variant.to_act(state)
    recorded = RECORDED_MOVES.get(variant.name, {}).get(event.type)
    seats = [s for s in (seat, to_act) if isinstance(s, int) and not isinstance(s, bool)]
    if recorded is not None:
        for mover in dict.fromkeys(seats):
            out.extend((mover, move_from_json(move)) for move in recorded(event.data))
    return out


def _fallback(variant: Variant, state: State) -> list[tuple[int, Move]]:
    seat = variant.to_act(state)
    if seat is None:
        return []
    return [(seat, move) for move in variant.legal_moves(state, seat)]


class _NeedMore(Exception):
    """The step's first fitting candidate records more events than have been read."""


@dataclass
class _Search:
    """What the tries at one position found so far: the moves tried, the first refusal of a
    recorded move, and the closest miss (how many events it matched, what it expected)."""

    tried: set[str] = field(default_factory=set)
    refusal: str | None = None
    matched: int = 0
    expected: str = ""

    def try_move(
        self, variant: Variant, state: State, seat: int, move: Move, recorded: bool
    ) -> tuple[Event, ...] | None:
        """The events `move` makes now; None when tried before or refused."""
        key = json.dumps([seat, move], sort_keys=True, default=str)
        if key in self.tried:
            return None
        self.tried.add(key)
        try:
            return variant.decide(state, seat, move)
        except RulesError as exc:
            if self.refusal is None and recorded:
                self.refusal = str(exc)
        except (TypeError, ValueError, KeyError, AttributeError):
            pass
        return None

    def note_miss(self, made: Sequence[Event], matched: int) -> None:
        if matched > self.matched:
            self.matched, self.expected = matched, made[matched].type


def _step(
    variant: Variant, state: State, log: Sequence[Event], at: int, final: bool = True
) -> tuple[State, int]:
    """Re-derive the events at `at`; the state after them and how many there were.

    When no candidate gives the log's events, the first event that differs from the closest
    candidate (the one that matches the longest run of events) is named. Before the end of
    the log (`final` False), a candidate that agrees with every event read so far but needs
    more raises _NeedMore: the events still to come decide.
    """
    if log[at].type in conduct.TYPES:
        return _conduct_step(variant, state, log[at], at)
    search = _Search()
    if log[at].type in LOBBY_EVENTS:  # a seat taken or given up, a start, a cancel
        return _lobby_step(variant, state, log, at)
    for recorded in (True, False):
        pairs = _candidates(variant, state, log[at]) if recorded else _fallback(variant, state)
        for seat, move in pairs:
            made = search.try_move(variant, state, seat, move, recorded)
            if made is None:
                continue
            matched = _matching(made, log, at)
            if made and matched == len(made):
                return fold(variant, made, state), len(made)
            if not final and made and at + matched == len(log):
                raise _NeedMore()
            search.note_miss(made, matched)
    raise _rejection(log, at, search)


def _lobby_step(variant: Variant, state: State, log: Sequence[Event], at: int) -> tuple[State, int]:
    """A lobby event re-derived by domain/lobby.py's own decision (a join that fills the last
    seat records the start and the game's opening too)."""
    try:
        made = recorded_decision(variant, state, log[at])
    except (RulesError, TypeError, ValueError, KeyError) as exc:
        raise LogRejected(at + 1, f"{_name(log[at], at + 1)}: {exc}") from None
    matched = _matching(made, log, at)
    if matched == len(made):
        return fold(variant, made, state), len(made)
    bad = at + matched
    name = _name(log[bad], bad + 1) if bad < len(log) else "the end of the log"
    return_error = f"{name} is not what the rules record here (expected {made[matched].type})"
    raise LogRejected(bad + 1, return_error)


def _conduct_step(variant: Variant, state: State, event: Event, at: int) -> tuple[State, int]:
    """A timeout, abort, resignation, claim or replaced seat: written by the store when the
    clock or a seat said so, it is checked for what the state allows (domain/conduct.py)."""
    seats = len(variant.bot_seats(state))
    why = conduct.check(event, seats, variant.to_act(state))
    if why is not None:
        raise LogRejected(at + 1, f"{_name(event, at + 1)}: {why}")
    return variant.evolve(state, event), 1


def _rejection(log: Sequence[Event], at: int, search: _Search) -> LogRejected:
    """Why no candidate gave the log's events at `at` (the closest miss, else the refusal)."""
    if search.matched:
        bad = at + search.matched
        name = _name(log[bad], bad + 1) if bad < len(log) else "the end of the log"
        return LogRejected(
            bad + 1, f"{name} is not what the rules record here (expected {search.expected})"
        )
    name = _name(log[at], at + 1)
    if search.refusal is not None:
        return LogRejected(at + 1, f"{name} records a move the rules refuse: {search.refusal}")
    return LogRejected(at + 1, f"{name} is not what any legal move or due deal produces here")


class LogCheck:
    """The check of a log fed one event at a time; `finish` gives the state it folds to."""

    def __init__(self) -> None:
        self.log: list[Event] = []
        self.opening: list[Event] = []
        self.variant: Variant | None = None
        self.state: State | None = None  # the variant's State once event 1 is read
        self.at = 0  # events checked and folded

    def feed(self, event: Event) -> None:
        """Take the next event; LogRejected as soon as the log cannot be a match's."""
        self.log.append(event)
        if self.variant is None:
            self.variant, self.opening = opening_of(event)
            self.state = self.variant.initial_state()
        if self.at < len(self.opening):
            self._open(event)
        elif len(self.log) - self.at > LAG:
            self._advance(final=False)

    def finish(self) -> Replayed:
        """The end of the log: check what is left (LogRejected), and the final state."""
        if self.variant is None:
            raise LogRejected(1, "the log is empty: it must start with MatchCreated")
        if self.at < len(self.opening):
            missing = self.opening[self.at].type
            raise LogRejected(self.at + 1, f"the log ends before the opening event {missing}")
        self._advance(final=True)
        assert self.state is not None  # set with the variant
        return Replayed(self.variant, self.state, len(self.log))

    def _open(self, event: Event) -> None:
        k = self.at
        made = self.opening[k]
        if canonical(made) != canonical(event):
            raise LogRejected(
                k + 1,
                f"{_name(event, k + 1)} is not what the match's seed or deal key gives "
                f"(expected {made.type} with other data: a changed deal, draw or option)",
            )
        assert self.variant is not None and self.state is not None
        self.state = self.variant.evolve(self.state, event)
        self.at += 1

    def _advance(self, final: bool) -> None:
        assert self.variant is not None
        while self.at < len(self.log) and (final or len(self.log) - self.at > LAG):
            assert self.state is not None  # set with the variant
            if self.variant.is_finished(self.state):
                at = self.at
                raise LogRejected(
                    at + 1, f"{_name(self.log[at], at + 1)} comes after the match finished"
                )
            try:
                self.state, used = _step(self.variant, self.state, self.log, self.at, final)
            except _NeedMore:
                return
            self.at += used


def replay_log(log: Sequence[Event]) -> Replayed:
    """Check `log` (steps 1-3 above) and return the state it folds to."""
    check = LogCheck()
    for event in log:
        check.feed(event)
    return check.finish()
