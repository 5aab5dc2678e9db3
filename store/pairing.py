"""The pairing (issue 32): open seeks made into matches, each seek in at most one.

A run over one variant (`Pairing.run`, the job workers/pairing.py):

1. retries every pending pairing (claimed, its match perhaps not open yet: a run that died
   between the claim and the create), so no seeker is lost;
2. reads the open seeks (store/seeks.py) and their accounts' conservative ratings, and the
   built-in bots' (their own ladder accounts, domain/accounts.py `bot_account`), and groups
   them (domain/pairing.py: the same terms, rating neighbours, bots for a seek that waited
   past the bot-fill delay);
3. for each group, one atomic claim (store/seeks.py CLAIM) marks its seeks paired, each with
   the match and its seat, and records the match as pending; a claim that finds any of its
   seeks no longer open (a cancel won, another run paired it) changes nothing;
4. opens the claimed match and drops it from pending. The match's id is made from the
   pairing's id (`paired_match_id`, unguessable without the pepper), so opening it twice (a
   retry, two runs) opens one match: the second append finds the stream there.

A paired match is the lobby's (store/lobby.py): unlisted, rated when the seeks are, with the
seeks' clock and options; each seeker's seat is an open seat reserved for its account (only
its key joins it: domain/lobby.py), each filler bot seated at the create. It waits
DEADWOOD_PAIRED_JOIN_S for the seekers' joins and is then cancelled (never rated).
"""

from __future__ import annotations

import base64
import hmac
import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from domain import bots, pairing
from domain.accounts import bot_account
from domain.pairing import Group, Waiting
from store.clock import checked_clock
from store.event_store import Conflict
from store.ledger import Ledger
from store.lobby import lobby_service
from store.seeks import Seek, SeekService

log = logging.getLogger(__name__)


def paired_match_id(pepper: bytes, pairing_id: str) -> str:
    """The match of a pairing: the same for every run, unguessable without the pepper."""
    digest = hmac.digest(pepper, f"pairing\0{pairing_id}".encode(), "sha256")
    return "m_" + base64.urlsafe_b64encode(digest).decode()[:22]


@dataclass(frozen=True)
class Report:
    """What a run did: the pairings it made, the pending ones it opened, the seeks left."""

    made: tuple[str, ...]
    retried: int
    left: int


class Pairing:
    """Pairing runs on the seeks of one service."""

    def __init__(self, seeks: SeekService) -> None:
        self.seeks = seeks
        self.service = seeks.service

    def run(self, variant: str) -> Report:
        retried = self.retry_pending()
        waiting = {seek.id: seek for seek in self.seeks.open_seeks(variant)}
        made = tuple(
            group.pairing_id
            for group in self.groups(variant, list(waiting.values()))
            if self.pair(variant, group, waiting)
        )
        return Report(made, retried, len(self.seeks.open_seeks(variant)))

    def groups(self, variant: str, waiting: list[Seek]) -> list[Group]:
        """The groups to pair now (domain/pairing.py) from the open seeks of `variant`."""
        names = sorted(bots.BOTS.get(variant, {}))
        handles = [str(s.record["account"]) for s in waiting]
        skills = Ledger(self.service.redis).skills(
            variant, list(dict.fromkeys([*handles, *map(bot_account, names)])), {}
        )
        entries = [
            Waiting(
                seek.id,
                handle,
                pairing.terms_key(
                    variant,
                    bool(seek.record["rated"]),
                    seek.record["clock"],
                    int(seek.record["seats"]),
                    seek.record["options"],
                ),
                int(seek.record["seats"]),
                int(seek.record["created_ms"]),
                skills[handle].conservative,
            )
            for seek, handle in zip(waiting, handles, strict=True)
        ]
        fillers = {name: skills[bot_account(name)].conservative for name in names}
        delay_ms = int(self.seeks.settings.bot_delay_s * 1000)
        return pairing.group(entries, self.seeks.now_ms(), delay_ms, fillers)

    def pair(self, variant: str, group: Group, waiting: Mapping[str, Seek]) -> bool:
        """Claim the group's seeks and open its match; False when the claim lost."""
        pairing_id = group.pairing_id
        first = waiting[group.seeks[0].seek_id].record
        players: list[dict[str, Any]] = []
        seats: dict[str, int] = {}
        for seat, entry in enumerate(group.seeks):
            record = waiting[entry.seek_id].record
            players.append(
                {"open": True, "account": record["account"], "account_bot": record["bot"]}
            )
            seats[entry.seek_id] = seat
        players += [{"name": name, "bot": name} for name in group.bots]
        pending = {
            "match_id": paired_match_id(self.service.pepper, pairing_id),
            "variant": variant,
            "players": players,
            "options": {**first["options"], "rated": first["rated"]},
            "clock": first["clock"],
            "ttl_s": self.seeks.settings.join_s,
        }
        if not self.seeks.claim(pairing_id, pending, seats):
            return False
        self.open(pairing_id, pending)
        return True

    def open(self, pairing_id: str, pending: Mapping[str, Any]) -> None:
        """Open the claimed pairing's match (once: a second open finds it there)."""
        match_id, variant = str(pending["match_id"]), str(pending["variant"])
        players = [dict(p) for p in pending["players"]]
        clock = checked_clock(variant, len(players), pending["clock"])
        lobby = lobby_service(self.service)
        try:
            lobby._open(
                match_id, variant, players, dict(pending["options"]), False,
                int(pending["ttl_s"]), [], None, None, "", clock,
            )  # fmt: skip
        except Conflict:  # opened before: by a run that died after it, or another run
            self.service.states.forget(match_id)
        self.seeks.opened(pairing_id)

    def retry_pending(self) -> int:
        """Open the match of every pending pairing (a run that died between its claim and its
        create left it): how many were opened now or found open."""
        done = 0
        for pairing_id, pending in self.seeks.pending().items():
            try:
                self.open(pairing_id, pending)
                done += 1
            except Exception as error:  # the next run tries again
                log.warning("could not open pairing %s: %r", pairing_id, error)
        return done


def describe(report: Report) -> str:
    return json.dumps({"made": list(report.made), "retried": report.retried, "left": report.left})
