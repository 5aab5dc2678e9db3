"""The roster of a new match, checked once for every game (G1.1, M1.1).

A player is `{"name": str, "bot": str | None}`, and may name the `account` it plays for
(issue 32: recorded only when given, so an anonymous match's log is as before); each game
says how many it seats and under which rule. The API's create schema takes its name length
from `MAX_NAME`, so the document and the domain agree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from domain.accounts import check_handle
from domain.errors import InvalidOptions
from domain.shapes import JSON, PlayerData, Seat

MAX_NAME = 40
"""The longest player name (characters); a bot's name is a player name too."""


@dataclass(frozen=True, slots=True)
class Player:
    """A seat's player as a state holds it: a name, and the bot that plays it (or None);
    `open` while the seat waits for a person to join (domain/lobby.py); `account`: the
    account it plays for (a seat joined with a key, or an open seat reserved for that
    account), and `account_bot` that account's kind (issue 32)."""

    name: str
    bot: str | None
    open: bool = False
    account: str | None = None
    account_bot: bool = False

    @classmethod
    def of(cls, recorded: PlayerData) -> Player:
        """The player of a recorded MatchCreated entry."""
        account = recorded.get("account")
        return cls(
            recorded["name"],
            recorded.get("bot"),
            bool(recorded.get("open", False)),
            account if isinstance(account, str) else None,
            bool(recorded.get("account_bot", False)),
        )

    def seat_view(self, seat: int, hand_size: int) -> Seat:
        """Who sits at `seat`, as every game's view shows it (a game may add members)."""
        return {
            "seat": seat,
            "name": self.name,
            "bot": self.bot,
            "hand_size": hand_size,
            "open": self.open,
            "account": self.account,
            "account_bot": self.account_bot,
        }


def bot_seats(players: Sequence[Player]) -> tuple[str | None, ...]:
    """Per seat, the bot that plays it, or None for a person's seat."""
    return tuple(player.bot or None for player in players)


def roster(
    players: Sequence[Mapping[str, JSON]], variant: str, seats: tuple[int, int], rule: str
) -> list[dict[str, JSON]]:
    """The players as recorded in MatchCreated; InvalidOptions names the first bad one.

    `seats` is the (fewest, most) players `variant` seats under `rule` (e.g. "G1.1")."""
    if isinstance(players, str | bytes) or not isinstance(players, Sequence):
        raise InvalidOptions("players must be a list of {name, bot} objects")
    _check_count(len(players), variant, seats, rule)
    return [_player(seat, player) for seat, player in enumerate(players)]


def _check_count(count: int, variant: str, seats: tuple[int, int], rule: str) -> None:
    low, high = seats
    if not low <= count <= high:
        allowed = f"exactly {low}" if low == high else f"{low} to {high}"
        raise InvalidOptions(f"{variant} needs {allowed} players, not {count} ({rule})")


def _player(seat: int, player: object) -> dict[str, JSON]:
    if not isinstance(player, Mapping):
        raise InvalidOptions(f"player {seat} must be an object with a name")
    name, bot = player.get("name"), player.get("bot")
    if not isinstance(name, str) or not 0 < len(name) <= MAX_NAME:
        raise InvalidOptions(f"player {seat} needs a name of 1..{MAX_NAME} characters")
    if bot is not None and not isinstance(bot, str):
        raise InvalidOptions(f"player {seat}: bot must be a bot name or null")
    account = player.get("account")
    if account is None:
        return {"name": name, "bot": bot}
    if bot is not None:
        raise InvalidOptions(f"player {seat}: a bot seat plays for its bot's own account")
    return {"name": name, "bot": None, "account": check_handle(account)}
