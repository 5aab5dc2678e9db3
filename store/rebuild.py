"""`deadwood ladder rebuild` (issue 32): every rating computed again from the matches' logs.

The ledger's order (store/ledger.py) says which matches were rated and in which order; a
rebuild reads the events a rating reads of each one (from Redis, else from its archive,
store/archive.py, or from a directory of exported logs) and rates them again in that order,
from nothing. The model and its inputs are the same, so the skills come out equal to the
live ones bit for bit; `compute` returns them, `rebuild` compares them with the ledger and
(unless asked only to check) writes them in place of it. Matches named in `extra` (rated
matches the ledger does not list) are rated after the listed ones, in the order given;
`discover` finds them (the finished index and the archive, in the order they finished).

Only the events a rating reads are read (domain/rated.py): MatchCreated says who sat where
and that the match is rated; the last event whether it finished (MatchFinished, or a
resignation, claim or timeout forfeit that ends it) and with which scores and abandoners; and
between them only the SeatReplacedByBot events (`rated.BETWEEN`: seats a bot took over rank
last). In Redis one short script a match picks those entries out of the stream on the
server, so a rebuild reads a few entries a match, whatever its length.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from domain.events import Event
from domain.rated import BETWEEN, RatedResult, result_of
from domain.upcast import upcast
from store import codec
from store.event_store import events_key
from store.index import FINISHED_KEY
from store.ledger import LadderState, Ledger, history_entry
from store.ratings import Skill, initial, rate

BATCH = 500


_ENDS = """
local rows = redis.call('XRANGE', KEYS[1], '-', '+')
local n = #rows
if n == 0 then return {} end
local wanted = {}
for _, kind in ipairs(ARGV) do wanted[kind] = true end
local out = {rows[1]}
for i = 2, n - 1 do
  local fields = rows[i][2]
  for j = 1, #fields, 2 do
    if fields[j] == 'type' then
      if wanted[fields[j + 1]] then out[#out + 1] = rows[i] end
      break
    end
  end
end
out[#out + 1] = rows[n]
return out
"""
"""A match's entries that a rating reads: the first, those between of the types in ARGV, and
the last (the first twice for a stream of one entry); none for a stream that is not there."""


@dataclass(frozen=True)
class Ends:
    """A match's first and last events, when the last was stored, and the events between
    them that a rating reads (`rated.BETWEEN`)."""

    match_id: str
    created: Event
    last: Event
    finished_at: str
    between: tuple[Event, ...] = ()

    def result(self) -> RatedResult | None:
        return result_of(self.match_id, self.created, self.last, between=self.between)


class StoredLogs:
    """Ends of matches in Redis, or in the archive when retired from it."""

    def __init__(self, redis: Any, archive: Any = None) -> None:
        self.redis = redis
        self.archive = archive

    def ends(self, match_ids: Sequence[str]) -> Iterator[Ends | None]:
        for start in range(0, len(match_ids), BATCH):
            batch = match_ids[start : start + BATCH]
            pipe = self.redis.pipeline(transaction=False)
            for match_id in batch:
                pipe.eval(_ENDS, 1, events_key(match_id), *BETWEEN)
            replies = pipe.execute()
            for match_id, reply in zip(batch, replies, strict=True):
                if reply:
                    rows = [_row(raw) for raw in reply]
                    yield _ends(match_id, rows[0], rows[-1], rows[1:-1])
                else:
                    yield self._archived(match_id)

    def _archived(self, match_id: str) -> Ends | None:
        if self.archive is None or not self.archive.has(match_id):
            return None
        _, entries = self.archive.read(match_id)
        if not entries:
            return None
        between = [e for e in entries[1:-1] if e[1].get("type") in BETWEEN]
        return _ends(match_id, entries[0], entries[-1], between)


def _row(raw: Any) -> tuple[Any, dict[Any, Any]]:
    """A stream entry as a script returns it ([id, [field, value, ...]]) as XRANGE gives it."""
    entry_id, flat = raw
    return entry_id, dict(zip(flat[::2], flat[1::2], strict=True))


def _ends(match_id: str, first: Any, last: Any, between: Sequence[Any] = ()) -> Ends:
    created = codec.decode(first[0], first[1])
    variant = str(created.event.data.get("variant"))
    final = codec.decode(last[0], last[1], variant)
    middle = tuple(codec.decode(row[0], row[1], variant).event for row in between)
    return Ends(match_id, upcast(created.event, variant), final.event, final.at, middle)


class ExportedLogs:
    """Ends of matches from a directory of exported logs, `<match id>.ndjson` each (the
    NDJSON of GET /v1/matches/{id}/log, as `deadwood export` writes it)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def ends(self, match_ids: Sequence[str]) -> Iterator[Ends | None]:
        for match_id in match_ids:
            path = self.directory / f"{match_id}.ndjson"
            yield _exported(match_id, path) if path.is_file() else None

    def match_ids(self) -> list[str]:
        return sorted(p.name.removesuffix(".ndjson") for p in self.directory.glob("*.ndjson"))


def _exported(match_id: str, path: Path) -> Ends | None:
    lines = [line for line in path.read_text().splitlines() if line.strip()]
    if not lines:
        return None
    first, last = json.loads(lines[0]), json.loads(lines[-1])
    created = Event.from_json(first)
    variant = str(created.data.get("variant"))
    final = upcast(Event.from_json(last), variant)
    between = tuple(
        upcast(Event.from_json(json.loads(line)), variant)
        for line in lines[1:-1]
        if any(f'"{kind}"' in line for kind in BETWEEN)  # parse only the likely few
    )
    return Ends(
        match_id,
        upcast(created, variant),
        final,
        str(last.get("at", "")),
        tuple(e for e in between if e.type in BETWEEN),
    )


def discover(logs: StoredLogs, variant: str, known: Iterable[str]) -> list[str]:
    """Finished rated matches of `variant` that the ledger does not list (a rating job that
    never ran): every match of the finished index and of the archive, read by their ends,
    in the order they finished (then by id)."""
    skip = set(known)
    ids = [codec.text(m) for m in logs.redis.zrange(FINISHED_KEY, 0, -1)]
    if logs.archive is not None and logs.archive.directory.is_dir():
        ids += sorted(
            p.name.removesuffix(".ndjson.gz") for p in logs.archive.directory.glob("*.ndjson.gz")
        )
    ids = [m for m in dict.fromkeys(ids) if m not in skip]
    found = []
    for ends in logs.ends(ids):
        result = ends.result() if ends is not None else None
        if ends is not None and result is not None and result.variant == variant:
            found.append((ends.finished_at, ends.match_id))
    return [match_id for _, match_id in sorted(found)]


@dataclass(frozen=True)
class Report:
    """What a rebuild found: matches asked for, rated, missing, and whether the ledger's
    skills were already exactly these."""

    variant: str
    matches: int
    rated: int
    missing: list[str]
    equal: bool
    state: LadderState


def compute(
    variant: str,
    match_ids: Sequence[str],
    logs: Any,
    is_bot: Callable[[str], bool],
) -> tuple[LadderState, list[str]]:
    """The ledger of `variant` rebuilt from the ends of `match_ids`, rated in that order; and
    the ids that could not be read or are not finished rated matches of this variant."""
    skills: dict[str, Skill] = {}
    state = LadderState(skills, [], {})
    missing: list[str] = []
    for match_id, ends in zip(match_ids, logs.ends(match_ids), strict=True):
        result = ends.result() if ends is not None else None
        if ends is None or result is None or result.variant != variant:
            missing.append(match_id)
            continue
        _apply(state, result, ends.finished_at, is_bot)
    return state, missing


def _apply(state: LadderState, result: RatedResult, at: str, is_bot: Callable[[str], bool]) -> None:
    before = {a: state.skills.get(a) or initial(is_bot(a)) for a in result.accounts()}
    after = rate(result, before)
    state.skills.update(after)
    state.order.append(result.match_id)
    place = len(state.order)
    for placing, rank in zip(result.placings, result.ranks(), strict=True):
        entry = history_entry(result, placing.seat, rank, after[placing.account], place, at)
        state.histories.setdefault(placing.account, []).append(entry)


def rebuild(
    ledger: Ledger,
    variant: str,
    logs: Any,
    is_bot: Callable[[str], bool],
    *,
    extra: Iterable[str] = (),
    write: bool = True,
) -> Report:
    """Rebuild `variant`'s ledger from the logs, in the ledger's own order then `extra`."""
    listed = ledger.order(variant)
    ids = listed + [m for m in extra if m not in set(listed)]
    state, missing = compute(variant, ids, logs, is_bot)
    equal = state.skills == ledger.all_skills(variant) and state.order == listed
    if write:
        ledger.replace(variant, state)
    return Report(variant, len(ids), len(state.order), missing, equal, state)
