"""The audit after a run: each match's log read straight from Redis, checked against what the
clients were told.

For every match:
- the stream's entry ids are 0-1, 0-2, ... 0-n (versions contiguous, no gap, none twice);
- every acknowledged move is in the log: its response's events are the log's events at those
  seqs (same type, and every value the caller was shown equals the logged one);
- every event is accounted for exactly once: walking the log from the opening, each run of
  events is either one acknowledged move's (claimed by no other ack) or exactly what the
  SYSTEM move due then (`pending`: scoring, the next deal, the end) makes;
- the log passes the replay check of POST /v1/replays (domain.log_check.replay_log: the
  opening re-made from the deal key, every later event re-decided by the rules), and it folds
  to the state the service loads.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import redis

from domain.events import SYSTEM
from domain.log_check import canonical, replay_log
from domain.replay import fold
from domain.variants import get_variant
from store.codec import StoredEvent
from store.event_store import events_key
from store.service import MatchService


@dataclass(frozen=True)
class Audited:
    match_id: str
    events: int
    acked: int
    system_runs: int
    finished: bool


def shown_matches(shown: Any, logged: Any) -> bool:
    """Every value the caller was shown equals the logged one (None = hidden from it)."""
    if shown is None:
        return True
    if isinstance(shown, dict):
        return isinstance(logged, dict) and all(
            shown_matches(v, logged.get(k)) for k, v in shown.items()
        )
    if isinstance(shown, list):
        return (
            isinstance(logged, list)
            and len(shown) == len(logged)
            and all(shown_matches(a, b) for a, b in zip(shown, logged, strict=True))
        )
    return bool(shown == logged)


def read_log(service: MatchService, match_id: str) -> list[StoredEvent]:
    raw: Any = service.redis
    ids = [entry_id for entry_id, _ in raw.xrange(events_key(match_id), "-", "+")]
    seqs = [int(bytes(i).decode().split("-")[1]) for i in ids]
    firsts = [int(bytes(i).decode().split("-")[0]) for i in ids]
    assert firsts == [0] * len(ids), f"{match_id}: entry ids not of the form 0-<seq>"
    assert seqs == list(range(1, len(seqs) + 1)), f"{match_id}: versions not contiguous: {seqs}"
    stored = service.store.read(match_id)
    assert [s.seq for s in stored] == seqs
    return stored


def audit_match(service: MatchService, match_id: str, acks: Iterable[Any]) -> Audited:
    stored = read_log(service, match_id)
    log = [s.event for s in stored]
    by_first: dict[int, Any] = {}
    for ack in acks:
        shown = ack.body["events"]
        assert shown, f"{match_id}: ack {ack.key} appended no event"
        seqs = [e["seq"] for e in shown]
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), f"ack {ack.key}: {seqs}"
        assert seqs[0] not in by_first, (
            f"{match_id}: events {seqs} acknowledged twice ({by_first.get(seqs[0])} and {ack.key})"
        )
        by_first[seqs[0]] = ack
        assert ack.body["version"] == seqs[-1]
        for e in shown:
            assert e["seq"] <= len(log), f"{match_id}: acknowledged event {e['seq']} is lost"
            logged = log[e["seq"] - 1].to_json()
            assert e["type"] == logged["type"], (match_id, e, logged["type"])
            assert shown_matches(e["data"], logged["data"]), (match_id, e, logged)
    variant = get_variant(str(log[0].data["variant"]))
    replayed = replay_log(log)  # raises LogRejected naming the first bad event
    state = fold(variant, log)
    _loaded = service.load(match_id)
    loaded, version = _loaded.state, _loaded.version
    assert version == len(log)
    assert variant.view(loaded, None) == variant.view(state, None)
    assert variant.view(replayed.state, None) == variant.view(state, None)
    system_runs = _account(variant, log, by_first, match_id)
    return Audited(match_id, len(log), len(by_first), system_runs, variant.is_finished(state))


def _account(variant: Any, log: list[Any], by_first: dict[int, Any], match_id: str) -> int:
    """Walk the log: each event is one ack's or the due SYSTEM move's, exactly once."""
    opening = variant.create(
        log[0].data["players"],
        log[0].data["options"],
        log[0].data.get("seed"),
        str(log[0].data.get("deal_key") or "0" * 64),
    )
    at = len(opening)
    state = fold(variant, log[:at])
    system_runs = 0
    while at < len(log):
        ack = by_first.pop(at + 1, None)
        if ack is not None:
            count = len(ack.body["events"])
            made = variant.decide(state, ack.seat, ack.move)
            assert [canonical(e) for e in made] == [canonical(e) for e in log[at : at + count]], (
                f"{match_id}: events {at + 1}.. are not ack {ack.key}'s move {ack.move}"
            )
        elif variant.pending(state) is not None:
            made = variant.decide(state, SYSTEM, variant.pending(state))
            count = len(made)
            assert [canonical(e) for e in made] == [canonical(e) for e in log[at : at + count]]
            system_runs += 1
        else:
            made = _bot_move(variant, state, log, at, match_id)
            count = len(made)
            assert [canonical(e) for e in made] == [canonical(e) for e in log[at : at + count]], (
                f"{match_id}: events {at + 1}.. are not the bot's move at version {at}"
            )
        state = fold(variant, log[at : at + count], state)
        at += count
    assert not by_first, f"{match_id}: acks claim events past the log: {sorted(by_first)}"
    return system_runs


def _bot_move(variant: Any, state: Any, log: list[Any], at: int, match_id: str) -> Any:
    """The events of the bot job for version `at` (bots choose deterministically from the
    seat's view and `random.Random(f"{match_id}:{version}")`, workers/bot_turn.py)."""
    from workers.bot_turn import choose_move

    seat = variant.to_act(state)
    players = log[0].data["players"]
    bot = players[seat].get("bot") if seat is not None else None
    assert bot, (
        f"{match_id}: event {at + 1} ({log[at].type}) belongs to no acknowledged move, no "
        "SYSTEM move was due and no bot is to act"
    )
    view = variant.view(state, seat)
    legal = view["you"]["legal_moves"] or variant.legal_moves(state, seat)
    move = choose_move(variant.name, bot, view, legal, f"{match_id}:{at}")
    return variant.decide(state, seat, move)


def audit_all(redis_url: str, acks: Iterable[Any], match_ids: Iterable[str]) -> list[Audited]:
    client = redis.Redis.from_url(redis_url)
    service = MatchService(client, pepper=b"audit")
    grouped: dict[str, list[Any]] = {m: [] for m in match_ids}
    for ack in acks:
        grouped.setdefault(ack.match_id, []).append(ack)
    try:
        return [audit_match(service, m, grouped[m]) for m in grouped]
    finally:
        client.close()


def wait_settled(redis_url: str, match_ids: Iterable[str], seconds: float) -> float:
    """Wait until no match has a SYSTEM move due (every ended round scored, the next dealt);
    the seconds it took. AssertionError naming the matches still waiting after `seconds`."""
    client = redis.Redis.from_url(redis_url)
    service = MatchService(client, pepper=b"audit")
    started = time.monotonic()
    waiting = list(match_ids)
    try:
        while waiting:
            waiting = [m for m in waiting if _due(service, m)]
            if not waiting:
                break
            assert time.monotonic() - started < seconds, (
                f"SYSTEM moves still due after {seconds} s in {waiting}"
            )
            time.sleep(0.1)
    finally:
        client.close()
    return time.monotonic() - started


def _due(service: MatchService, match_id: str) -> bool:
    _loaded = service.load(match_id)
    state, _ = _loaded.state, _loaded.version
    variant = service.variant(state)
    return variant.pending(state) is not None


def table(rows: dict[str, Any]) -> str:
    return json.dumps(rows, sort_keys=False)
