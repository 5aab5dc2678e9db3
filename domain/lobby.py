"""Open seats and the lobby (issue 30): a match that waits for its players, pure.

A match created with open seats records them in MatchCreated (`{"name": "", "bot": null,
"open": true}`; a rematch's seats keep their previous player's name, reserved for them) and
a `lobby` member (lobby_shapes.LobbyCreated). Nothing is dealt and no role is drawn while it
waits: each game folds MatchCreated into a state where no SYSTEM move is due, and the fold
steps here (`step`) keep `Lobby` and the seats' players up to date. The decisions:

    open_match(game, players, options, secret, lobby)   MatchCreated of a waiting match
    join(game, state, seat, name, claim, joiner)         SeatJoined, and when it fills the
                                                         last seat MatchStarted and the
                                                         game's own opening (role or dealer
                                                         draw, first deal) from the deal key
    leave(state, seat)                                   SeatLeft
    cancel(state, reason)                                MatchCancelled
    is_due(state, now_ms)                                past its deadline, still waiting

Accounts (issue 32): a join with an account key is a `Joiner` (the handle, its kind, whether
the key may play rated): the seat is the account's (SeatJoined records `account` and
`account_bot`; domain/rated.py reads them) and its name is the handle. An account sits at
most once in a match (AlreadySeated). A rated match may wait for players too: its open seats
are joined only by a Joiner that may play rated (RatedSeatNeedsKey). An open seat may be
reserved for an account (`{"open": true, "account": h}` recorded in MatchCreated, e.g. by
pairing): only that account joins it (SeatReserved); a join without a seat takes the seat
reserved for the joiner first, else the first unreserved open seat.

The clock is the caller's: `now_ms` comes from the store. Each decision raises a RulesError
subclass with its own code (the API maps each to one status). `Lobby.view` is rendered once
per lobby event and shared by every view of that state (views are hot paths).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from domain.errors import InvalidOptions, RulesError
from domain.events import Event
from domain.lobby_shapes import CancelReason, LobbyCreated, LobbyView
from domain.players import MAX_NAME, Player
from domain.shapes import JSON, MatchCreatedData, json_int, json_str

if TYPE_CHECKING:
    from domain.clock import ClockOptions
    from domain.variants import State, Variant

WAITING, STARTED, CANCELLED = "waiting", "started", "cancelled"
LOBBY_EVENTS = frozenset({"SeatJoined", "SeatLeft", "MatchStarted", "MatchCancelled"})
MAX_TTL_S = 86_400
DEFAULT_TTL_S = 600
OPEN_SEAT: dict[str, JSON] = {"name": "", "bot": None, "open": True}


class SeatTaken(RulesError):
    """The seat asked for is held by someone (a concurrent join won it)."""

    code = "seat_taken"


class MatchFull(RulesError):
    """No seat of the match is open."""

    code = "match_full"


class AlreadyStarted(RulesError):
    """The match has started (or never waited for players): seats are fixed."""

    code = "match_started"


class LobbyClosed(RulesError):
    """The match was cancelled (expired or by its creator) before it started."""

    code = "lobby_closed"


class SeatReserved(RulesError):
    """A rematch's seat is kept for its previous player (POST .../rematch takes it)."""

    code = "seat_reserved"


class AlreadySeated(RulesError):
    """The joining account holds a seat of this match already (one seat per account)."""

    code = "already_seated"


class RatedSeatNeedsKey(RulesError):
    """A rated match's open seat is joined only with an account key that may play rated."""

    code = "rated_seat_needs_key"


@dataclass(frozen=True, slots=True)
class Joiner:
    """Who joins with an account key: the handle, its kind, and whether the key has the
    `play_rated` scope (issue 32)."""

    handle: str
    bot: bool = False
    rated: bool = False


class NotStarted(RulesError):
    """A move in a match still waiting for players."""

    code = "match_not_started"


class SeededOpenSeat(RulesError):
    """A seeded match with an open seat: the seed alone would give every hand away."""

    code = "seeded_open_seat"


@dataclass(frozen=True, slots=True)
class Lobby:
    """How a match waits for its players, as the fold keeps it."""

    status: str
    listed: bool
    expires_ms: int
    expires_at: str
    seats: tuple[Player, ...]  # each seat as created: an open seat is restored on a leave
    creator_seats: tuple[int, ...]
    rematch_of: str | None
    options: Mapping[str, JSON]  # the recorded options (a start deals with them)
    reason: str | None
    view: LobbyView  # rendered once for this lobby, shared read-only by every view

    @property
    def waiting(self) -> bool:
        return self.status == WAITING


def _view(lobby: Lobby, players: Sequence[Player]) -> LobbyView:
    return {
        "status": cast("LobbyView", {"status": lobby.status})["status"],
        "listed": lobby.listed,
        "expires_at": lobby.expires_at,
        "open_seats": [s for s, p in enumerate(players) if p.open],
        "rematch_of": lobby.rematch_of,
        "cancelled": cast("CancelReason | None", lobby.reason),
    }


def _with(lobby: Lobby, players: Sequence[Player], **changes: object) -> Lobby:
    fields = {name: getattr(lobby, name) for name in Lobby.__slots__}
    fields.update(changes)
    new = Lobby(**fields)
    return Lobby(**{**fields, "view": _view(new, players)})


# --- the fold -------------------------------------------------------------------------------


def created(data: MatchCreatedData, players: tuple[Player, ...]) -> Lobby | None:
    """The lobby a MatchCreated opens (None: a match without open seats)."""
    lobby = data.get("lobby")
    if lobby is None:
        return None
    start = Lobby(
        WAITING,
        bool(lobby["listed"]),
        lobby["expires_ms"],
        lobby["expires_at"],
        players,
        tuple(lobby["creator_seats"]),
        lobby["rematch_of"],
        data["options"],
        None,
        cast("LobbyView", {}),
    )
    return _with(start, players)


def step(
    lobby: Lobby | None, players: tuple[Player, ...], event: Event
) -> tuple[Lobby | None, tuple[Player, ...]]:
    """Fold one lobby event (LOBBY_EVENTS): the new lobby and players. Trusts history."""
    if lobby is None:
        return lobby, players
    data, kind = event.data, event.type
    if kind == "SeatJoined":
        seat = json_int(data["seat"])
        account = data.get("account")
        joined = Player(
            json_str(data["name"]),
            None,
            account=account if isinstance(account, str) else None,
            account_bot=data.get("account_bot") is True,
        )
        players = _replace(players, seat, joined)
        return _with(lobby, players), players
    if kind == "SeatLeft":
        seat = json_int(data["seat"])
        players = _replace(players, seat, lobby.seats[seat])
        return _with(lobby, players), players
    if kind == "MatchStarted":
        return _with(lobby, players, status=STARTED), players
    if kind == "MatchCancelled":
        return _with(lobby, players, status=CANCELLED, reason=str(data.get("reason"))), players
    return lobby, players


def _replace(players: tuple[Player, ...], seat: int, player: Player) -> tuple[Player, ...]:
    return (*players[:seat], player, *players[seat + 1 :])


# --- the decisions --------------------------------------------------------------------------


def open_match(
    game: Variant,
    players: Sequence[Mapping[str, JSON]],
    options: Mapping[str, JSON],
    secret: str,
    lobby: LobbyCreated,
    clock: ClockOptions | None = None,
) -> Event:
    """MatchCreated of a match that waits for its open seats (`{"open": true}`; a rematch's
    reserved seat keeps its name), its clock pinned (it starts at MatchStarted). InvalidOptions
    when no seat is open or the roster is bad."""
    if not any(p.get("open") for p in players):
        raise InvalidOptions('a lobby needs at least one open seat ({"open": true})')
    rated = options.get("rated") is True
    stand_ins = [_stand_in(s, p, rated) if p.get("open") else p for s, p in enumerate(players)]
    opening = game.create(stand_ins, options, None, secret, clock)[0]
    made = cast("Sequence[Mapping[str, JSON]]", opening.data["players"])
    recorded: list[JSON] = [
        _open_seat(p) if p.get("open") else made[s] for s, p in enumerate(players)
    ]
    data = {**opening.data, "players": recorded, "lobby": cast("JSON", dict(lobby))}
    return Event("MatchCreated", data, opening.v)


def _stand_in(seat: int, player: Mapping[str, JSON], rated: bool) -> Mapping[str, JSON]:
    """An open seat as the create checks it: named, and in a rated match an account (the
    one it is reserved for, else a stand-in no account can have: `deadwood-` handles are
    the built-in bots'), so the rated rules check the seats that are given."""
    stand_in: dict[str, JSON] = {"name": str(player.get("name") or f"seat {seat}"), "bot": None}
    account = player.get("account")
    if isinstance(account, str):
        stand_in["account"] = account
    elif rated:
        stand_in["account"] = f"deadwood-open-{seat}"
    return stand_in


def _open_seat(player: Mapping[str, JSON]) -> JSON:
    """An open seat as MatchCreated records it (reserved: its account, and its kind)."""
    seat: dict[str, JSON] = {"name": str(player.get("name") or ""), "bot": None, "open": True}
    account = player.get("account")
    if isinstance(account, str):
        seat["account"] = account
        seat["account_bot"] = player.get("account_bot") is True
    return seat


def _waiting(state: State) -> Lobby:
    lobby = state.lobby
    if lobby is None:
        raise AlreadyStarted("this match did not wait for players: its seats were all given")
    if lobby.status == CANCELLED:
        raise LobbyClosed(f"this match was cancelled before it started ({lobby.reason})")
    if lobby.status == STARTED:
        raise AlreadyStarted("this match has started: its seats are taken")
    return lobby


def join(
    game: Variant,
    state: State,
    seat: int | None,
    name: str,
    *,
    claim: bool = False,
    joiner: Joiner | None = None,
) -> tuple[int, tuple[Event, ...]]:
    """(the seat taken, the events): SeatJoined, then MatchStarted and the opening of the
    game when it was the last open seat. `claim`: a rematch's previous player takes back
    their reserved seat; `joiner`: the account that joins (its handle is the seat's name).
    SeatTaken, MatchFull, SeatReserved, AlreadyStarted, LobbyClosed, AlreadySeated,
    RatedSeatNeedsKey."""
    lobby = _waiting(state)
    if joiner is not None:
        name = joiner.handle
    if not isinstance(name, str) or not 0 < len(name.strip()) <= MAX_NAME:
        raise InvalidOptions(f"a player needs a name of 1..{MAX_NAME} characters")
    players = state.players
    _check_joiner(lobby, players, joiner)
    chosen = _free_seat(lobby, players, seat, claim, joiner)
    if lobby.rematch_of is not None and not claim:
        raise SeatReserved(f"seat {chosen} is kept for its previous player (POST .../rematch)")
    data: dict[str, JSON] = {"seat": chosen, "name": name}
    taken = Player(name, None)
    if joiner is not None:
        data.update(account=joiner.handle, account_bot=joiner.bot)
        taken = Player(name, None, account=joiner.handle, account_bot=joiner.bot)
    joined = Event("SeatJoined", data)
    filled = _replace(players, chosen, taken)
    if any(p.open for p in filled):
        return chosen, (joined,)
    return chosen, (joined, *start(game, state, filled))


def _check_joiner(lobby: Lobby, players: Sequence[Player], joiner: Joiner | None) -> None:
    """A rated match's seat needs an account that may play rated; an account sits once."""
    if lobby.options.get("rated") is True and (joiner is None or not joiner.rated):
        raise RatedSeatNeedsKey(
            "a seat of a rated match is joined with an account key (Deadwood-Key) that has "
            "the play_rated scope"
        )
    if joiner is None:
        return
    for index, player in enumerate(players):
        if not player.open and player.account == joiner.handle:
            raise AlreadySeated(f"account {joiner.handle!r} holds seat {index} of this match")


def _free_seat(
    lobby: Lobby,
    players: Sequence[Player],
    seat: int | None,
    claim: bool,
    joiner: Joiner | None = None,
) -> int:
    handle = None if joiner is None else joiner.handle
    if seat is None:
        mine = [i for i, p in enumerate(players) if p.open and p.account == handle and handle]
        free = [i for i, p in enumerate(players) if p.open and p.account is None]
        if mine or free:
            return (mine or free)[0]
        if any(p.open for p in players):
            raise SeatReserved("every open seat of this match is reserved for another account")
        raise MatchFull("every seat of this match is taken")
    if not 0 <= seat < len(players):
        raise InvalidOptions(f"seat {seat} is not a seat of this match (0..{len(players) - 1})")
    if not players[seat].open:
        raise SeatTaken(f"seat {seat} is taken")
    reserved = players[seat].account
    if reserved is not None and reserved != handle:
        raise SeatReserved(f"seat {seat} is reserved for the account {reserved!r}")
    return seat


def start(game: Variant, state: State, players: Sequence[Player]) -> tuple[Event, ...]:
    """MatchStarted and the game's opening (the draw and the first deal, from the match's
    deal key, exactly as a create with these players would have made them)."""
    lobby = _waiting(state)
    roster: list[Mapping[str, JSON]] = [{"name": p.name, "bot": p.bot} for p in players]
    # the opening only: a rated match's own rules were checked at its create (MatchCreated)
    options = {**lobby.options, "rated": False} if "rated" in lobby.options else lobby.options
    opening = game.create(roster, options, None, str(state.deal_key))
    return (Event("MatchStarted", {"players": cast("JSON", roster)}), *opening[1:])


def leave(state: State, seat: int) -> tuple[Event, ...]:
    """SeatLeft of `seat` (its holder gives it up before the start)."""
    _waiting(state)
    player = state.players[seat]
    if player.open:
        raise SeatTaken(f"seat {seat} is not held by anyone")
    return (Event("SeatLeft", {"seat": seat, "name": player.name}),)


def cancel(state: State, reason: CancelReason) -> tuple[Event, ...]:
    """MatchCancelled: the match ends before it started."""
    _waiting(state)
    return (Event("MatchCancelled", {"reason": reason}),)


def is_due(state: State, now_ms: int) -> bool:
    """True when the match is still waiting past its deadline."""
    lobby = state.lobby
    return lobby is not None and lobby.status == WAITING and now_ms >= lobby.expires_ms


def refuse_move(lobby: Lobby | None) -> None:
    """NotStarted (or LobbyClosed) for a move in a match that is not under way."""
    if lobby is not None and lobby.status == WAITING:
        raise NotStarted("this match is waiting for players: nothing is dealt yet")
    if lobby is not None and lobby.status == CANCELLED:
        raise LobbyClosed("this match was cancelled before it started")


def lobby_view(state: State) -> LobbyView | None:
    """The view's `lobby` member (shared, read-only)."""
    lobby = state.lobby
    return None if lobby is None else lobby.view


def recorded_decision(game: Variant, state: State, event: Event) -> tuple[Event, ...]:
    """The events the decision a recorded lobby event stands for makes now (log_check.py):
    SeatJoined -> join, SeatLeft -> leave, MatchCancelled -> cancel. MatchStarted is made by
    the join of the last seat, never alone (InvalidOptions)."""
    data = event.data
    if event.type == "SeatJoined":
        lobby = _waiting(state)
        seat, name = json_int(data["seat"]), json_str(data["name"])
        account, claim = data.get("account"), lobby.rematch_of is not None
        joiner = None
        if isinstance(account, str):  # a rated seat was joined by a key that could
            joiner = Joiner(account, data.get("account_bot") is True, rated=True)
        return join(game, state, seat, name, claim=claim, joiner=joiner)[1]
    if event.type == "SeatLeft":
        return leave(state, json_int(data["seat"]))
    if event.type == "MatchCancelled":
        reason = json_str(data["reason"])
        if reason not in ("lobby_expired", "cancelled_by_creator"):
            raise InvalidOptions(f"a match is not cancelled for {reason!r}")
        return cancel(state, cast("CancelReason", reason))
    raise InvalidOptions(f"{event.type} is recorded only after the join of the last seat")
