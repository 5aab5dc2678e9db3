"""Match logs on disk: read them, check them with the rules, verify their fair deals.

A log is the NDJSON of `GET /v1/matches/{id}/log` (what `deadwood export` writes): one event
`{"seq", "type", "v", "at", "data"}` per line (a JSON array of events is read too).

- `check(events)` replays the log locally with the very check `POST /v1/replays` runs
  (`domain.log_check.replay_log`: the opening re-made from the deal key, every later event
  re-derived by the variant's `decide`), so the verdict is the server's: the same first bad
  event, the same words.
- `verify(events)` recomputes every round's fair-deal commitment from the deck order and
  salt the RoundDealt event reveals: `domain.shuffle.commitment(deck, salt)`.

These need the domain (this repository's `domain` package); the HTTP client does not.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Progress = Callable[[Iterable[Any]], Iterable[Any]]


class LogError(Exception):
    """The log cannot be read, or breaks the rules at event `seq` (1-based)."""

    def __init__(self, seq: int | None, detail: str) -> None:
        super().__init__(f"event {seq}: {detail}" if seq is not None else detail)
        self.seq = seq
        self.detail = detail


def read_log(path: str | Path) -> list[dict[str, Any]]:
    """The events of a log file (`-` is standard input)."""
    if str(path) == "-":
        import sys

        text = sys.stdin.read()
    else:
        text = Path(path).read_text(encoding="utf-8")
    return parse_log(text)


def parse_log(text: str) -> list[dict[str, Any]]:
    stripped = text.strip()
    if stripped.startswith("["):
        try:
            found = json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise LogError(None, f"not a JSON array of events: {exc}") from None
        return [_event_object(item, i + 1) for i, item in enumerate(found)]
    events: list[dict[str, Any]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            events.append(_event_object(json.loads(line), len(events) + 1))
        except json.JSONDecodeError as exc:
            raise LogError(None, f"line {number} is not JSON: {exc.msg}") from None
    if not events:
        raise LogError(None, "the log is empty: it must start with MatchCreated")
    return events


def _event_object(item: Any, index: int) -> dict[str, Any]:
    if not isinstance(item, Mapping) or not isinstance(item.get("type"), str):
        raise LogError(index, "is not an event object with a type")
    if not isinstance(item.get("data"), Mapping):
        raise LogError(index, f"({item['type']}) has no data object")
    if item.get("seq", index) != index:
        raise LogError(index, f"has seq {item.get('seq')}: a log counts 1, 2, 3, ...")
    return dict(item)


@dataclass(frozen=True)
class Checked:
    """A log that follows the rules: the final spectator view (api.md) it folds to."""

    view: dict[str, Any]
    events: int


def check(events: Sequence[Mapping[str, Any]], progress: Progress | None = None) -> Checked:
    """Replay `events` with the rules; LogError names the first event that breaks them."""
    from domain.events import Event
    from domain.log_check import LogRejected, replay_log

    domain_events: list[Event] = []
    steps: Iterable[Mapping[str, Any]] = progress(events) if progress else events
    for item in steps:
        event = Event(str(item["type"]), dict(item["data"]), int(item.get("v", 1)))
        domain_events.append(_upcast(event, domain_events))
    try:
        replayed = replay_log(domain_events)
    except LogRejected as rejected:
        raise LogError(rejected.seq, rejected.detail) from None
    view = {"id": None, **replayed.variant.view(replayed.state, None)}
    return Checked(view, replayed.events)


def _upcast(event: Any, before: Sequence[Any]) -> Any:
    """Old event shapes read as current ones (as the store and POST /v1/replays do)."""
    from domain.upcast import upcast

    variant = before[0].data.get("variant") if before else event.data.get("variant")
    return upcast(event, variant)


@dataclass(frozen=True)
class Deal:
    """One round's deal as the log reveals it, and whether its commitment holds."""

    seq: int
    round: int
    commitment: str
    recomputed: str | None
    problem: str | None = None

    @property
    def ok(self) -> bool:
        return self.problem is None and self.recomputed == self.commitment


def verify(events: Sequence[Mapping[str, Any]], progress: Progress | None = None) -> list[Deal]:
    """Every RoundDealt's commitment recomputed from its revealed deck order and salt."""
    from domain.shuffle import commitment

    deals: list[Deal] = []
    steps: Iterable[Mapping[str, Any]] = progress(events) if progress else events
    for event in steps:
        if event.get("type") != "RoundDealt":
            continue
        data = event["data"]
        seq, round_no = int(event.get("seq") or 0), int(data.get("round") or 0)
        committed = str(data.get("commitment") or "")
        try:
            deck, salt = dealt_deck(data), data.get("salt")
            if not isinstance(salt, str) or any(not isinstance(c, str) for c in deck):
                raise ValueError("the deck order or the salt is hidden")
        except (ValueError, TypeError, KeyError, IndexError) as exc:
            problem = f"{exc} (a redacted log? export the log of a finished match)"
            deals.append(Deal(seq, round_no, committed, None, problem))
            continue
        deals.append(Deal(seq, round_no, committed, commitment(deck, salt)))
    return deals


def dealt_deck(data: Mapping[str, Any]) -> list[str]:
    """The full deck order of a RoundDealt event, as it was shuffled (the committed order).

    three-hand-gin (domain.gin.deal.dealt_deck): captain and box alternately from the top,
    captain first, 10 each; then the upcard; then the stock, top first.
    manipulation-rummy (domain.manipulation.deal_event): one card at a time to each seat from
    the dealer's left, 10 each; then the stock, top first."""
    hands = data["hands"]
    if any(hand is None for i, hand in enumerate(hands) if i != data.get("advisor")):
        raise ValueError("the dealt hands are hidden")
    if "upcard" in data:
        from domain.gin.deal import dealt_deck as gin_deck

        return list(gin_deck(data))
    n, dealer = len(hands), int(data["dealer"])
    size = len(hands[0])
    if any(len(hand) != size for hand in hands):
        raise ValueError("the dealt hands differ in size")
    dealt = [hands[(dealer + 1 + i) % n][i // n] for i in range(size * n)]
    return [*dealt, *data["stock"]]
