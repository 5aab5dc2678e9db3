"""The rating job (issue 32): a finished rated match is rated once however often its job
runs; an unrated match is never rated; a rebuild from the logs (in Redis, in the archive)
gives the live ratings bit for bit. Real Redis, real RQ workers (burst)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from api import create_app
from store.accounts import Accounts
from store.archive import Archive, archive_match
from store.jobs import Queues, rating_job
from store.ledger import Ledger
from store.rebuild import ExportedLogs, StoredLogs, rebuild
from store.service import MatchService
from tests.support.ladder_play import (
    CLOCK,
    install_quick,
    ledger_dump,
    rated_match,
    uninstall_quick,
)
from tests.support.workers_play import GIN, MANIP, burst
from workers import rating
from workers.connection import set_service


@pytest.fixture(autouse=True)
def quick() -> Iterator[None]:
    install_quick()
    yield
    uninstall_quick()


@pytest.fixture
def pinned(service: MatchService) -> Any:
    set_service(service)
    yield service
    set_service(None)


def test_a_finished_rated_match_is_rated_once_however_often_its_job_runs(
    pinned: MatchService, redis_client: redis.Redis
) -> None:
    match_id = rated_match(pinned, GIN, ("hasty", "hasty2", "hasty3"))
    once = ledger_dump(pinned, GIN)
    assert once["order"] == [match_id]
    assert {s.games for s in once["skills"].values()} == {1}
    version = pinned.load(match_id).version
    queues = Queues(redis_client)
    for _ in range(3):
        queues.replace(rating_job(match_id, version))
        burst(redis_client)
    assert rating.rate_match(match_id, version).startswith("done already")
    assert ledger_dump(pinned, GIN) == once
    assert len(Ledger(redis_client).history(GIN, "deadwood-hasty")) == 1
    assert Accounts(redis_client, b"test-pepper").get("deadwood-hasty").kind == "bot"


def test_an_unrated_match_is_not_rated(pinned: MatchService, redis_client: redis.Redis) -> None:
    players = [{"name": n, "bot": n} for n in ("hasty", "hasty2", "hasty3")]
    created = pinned.create_match(GIN, players, {"target_score": 40}, 3)
    burst(redis_client)
    version = pinned.load(created.match_id).version
    assert rating.rate_match(created.match_id, version).startswith("skipped")
    assert ledger_dump(pinned, GIN)["order"] == []


def test_two_variants_keep_two_ledgers(pinned: MatchService) -> None:
    gin = rated_match(pinned, GIN, ("hasty", "hasty2", "hasty3"))
    manip = rated_match(pinned, MANIP, ("hasty2", "hasty4"), target=60)
    assert ledger_dump(pinned, GIN)["order"] == [gin]
    assert ledger_dump(pinned, MANIP)["order"] == [manip]
    assert set(ledger_dump(pinned, MANIP)["skills"]) == {"deadwood-hasty2", "deadwood-hasty4"}


def test_a_rebuild_from_redis_and_the_archive_equals_the_live_ratings(
    pinned: MatchService, redis_client: redis.Redis, tmp_path: Path
) -> None:
    lineups = [("hasty", "hasty2", "hasty3"), ("hasty4", "hasty", "hasty2")] * 3
    ids = [rated_match(pinned, GIN, lineup) for lineup in lineups]
    live = ledger_dump(pinned, GIN)
    archive = Archive(tmp_path)
    assert archive_match(pinned.store, archive, ids[2])
    assert not redis_client.exists(f"match:{{{ids[2]}}}:events")
    ledger = Ledger(redis_client)
    checked = rebuild(ledger, GIN, StoredLogs(redis_client, archive), _bot, write=False)
    assert checked.equal and checked.rated == len(ids) and not checked.missing
    redis_client.delete(*[k for k in redis_client.keys("ladder:*")])
    assert rebuild(ledger, GIN, StoredLogs(redis_client, archive), _bot, extra=ids).rated == 6
    assert ledger_dump(pinned, GIN) == live  # the same floats, bit for bit


def _bot(handle: str) -> bool:
    return handle.startswith("deadwood-")


def test_deadwood_ladder_rebuild_checks_and_rewrites(
    pinned: MatchService,
    redis_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    from cli.up import main

    rated_match(pinned, GIN, ("hasty", "hasty2", "hasty3"))
    live = ledger_dump(pinned, GIN)
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.setenv("DEADWOOD_ARCHIVE_DIR", str(tmp_path))
    assert main(["ladder", "rebuild", "--check", "--variant", GIN]) == 0
    assert "checked 1 of 1 matches" in capsys.readouterr().out
    Ledger(pinned.redis).redis.hset(
        f"ladder:{{{GIN}}}:skills",
        "deadwood-hasty",
        live["skills"]["deadwood-hasty"].dumps().replace('"games":1', '"games":7'),
    )
    assert main(["ladder", "rebuild", "--check", "--variant", GIN]) == 1
    assert main(["ladder", "rebuild", "--variant", GIN]) == 0
    assert ledger_dump(pinned, GIN) == live


def test_a_rebuild_with_scan_finds_rated_matches_the_ledger_lacks(
    pinned: MatchService,
    redis_client: redis.Redis,
    redis_url: str,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    from cli.up import main

    ids = [rated_match(pinned, GIN, ("hasty", "hasty2", "hasty3")) for _ in range(3)]
    live = ledger_dump(pinned, GIN)
    assert archive_match(pinned.store, Archive(tmp_path), ids[1])
    redis_client.delete(*redis_client.keys("ladder:*"))  # as if no rating job had run
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.setenv("DEADWOOD_ARCHIVE_DIR", str(tmp_path))
    assert main(["ladder", "rebuild", "--variant", GIN]) == 0
    assert ledger_dump(pinned, GIN)["order"] == []
    assert main(["ladder", "rebuild", "--scan", "--variant", GIN]) == 0
    assert ledger_dump(pinned, GIN) == live


def test_a_rated_match_ended_by_a_resignation_is_rated_once_with_the_resigner_last(
    pinned: MatchService, redis_client: redis.Redis, tmp_path: Path
) -> None:
    """Issue 32: a match that ends by conduct is rated (its rating job is enqueued by the
    append that ends it), the seat that resigned ranks last; an aborted match is not rated;
    a rebuild (Redis, the archive) equals the live ledger."""
    players = [{"name": "ana", "account": "ana"}, {"name": "ben", "account": "ben"}]
    options = {"rated": True}
    created = pinned.create_match(MANIP, players, options, None, clock_options=CLOCK)
    match_id = created.match_id
    pinned.resign(match_id, 0)
    loaded = pinned.load(match_id)
    assert loaded.variant.is_finished(loaded.state)
    assert Queues(redis_client).is_live(rating_job(match_id, loaded.version))
    burst(redis_client)
    once = ledger_dump(pinned, MANIP)
    assert once["order"] == [match_id]
    ledger = Ledger(redis_client)
    assert [e["rank"] for e in ledger.history(MANIP, "ana")] == [2]
    assert [e["rank"] for e in ledger.history(MANIP, "ben")] == [1]
    assert once["skills"]["ben"].mu > once["skills"]["ana"].mu
    for _ in range(2):
        Queues(redis_client).replace(rating_job(match_id, loaded.version))
        burst(redis_client)
    assert ledger_dump(pinned, MANIP) == once

    aborted = pinned.create_match(MANIP, players, options, None, clock_options=CLOCK)
    pinned.abort(aborted.match_id, 1)
    burst(redis_client)
    assert ledger_dump(pinned, MANIP) == once

    checked = rebuild(ledger, MANIP, StoredLogs(redis_client), _bot, write=False)
    assert checked.equal and checked.rated == 1 and not checked.missing
    archive = Archive(tmp_path)
    assert archive_match(pinned.store, archive, match_id)
    logs = StoredLogs(redis_client, archive)
    assert rebuild(ledger, MANIP, logs, _bot, write=False).equal


def test_a_seat_a_bot_took_over_ranks_last_when_the_match_plays_on(
    pinned: MatchService, redis_client: redis.Redis, tmp_path: Path
) -> None:
    """Three seats: a resignation puts the clock's bot in the seat and the match plays on to
    MatchFinished; the seat is still its account's, and ranks last whatever it scored."""
    players = [{"name": "h", "bot": "hasty"}, {"name": "h2", "bot": "hasty2"}]
    players.append({"name": "ana", "account": "ana"})
    clock = {**CLOCK, "autoplay_bot": "hasty3"}
    options = {"rated": True, "target_score": 40}
    created = pinned.create_match(GIN, players, options, None, clock_options=clock)
    burst(redis_client)
    pinned.resign(created.match_id, 2)
    burst(redis_client)
    loaded = pinned.load(created.match_id)
    assert loaded.variant.is_finished(loaded.state)
    assert ledger_dump(pinned, GIN)["order"] == [created.match_id]
    ledger = Ledger(redis_client)
    rank = {
        h: ledger.history(GIN, h)[0]["rank"] for h in ("ana", "deadwood-hasty", "deadwood-hasty2")
    }
    assert rank["ana"] > max(rank["deadwood-hasty"], rank["deadwood-hasty2"])
    assert "deadwood-hasty3" not in ledger_dump(pinned, GIN)["skills"]  # the bot is not rated
    ends = next(StoredLogs(redis_client).ends([created.match_id]))
    assert ends is not None and ends.last.type == "MatchFinished"
    assert [(e.type, e.data["seat"]) for e in ends.between] == [("SeatReplacedByBot", 2)]
    checked = rebuild(Ledger(redis_client), GIN, StoredLogs(redis_client), _bot, write=False)
    assert checked.equal and checked.rated == 1
    web = create_app({"TESTING": True, "SERVICE": pinned, "ACCESS_LOG": 0}).test_client()
    log = web.get(f"/v1/matches/{created.match_id}/log")
    assert log.status_code == 200
    (tmp_path / f"{created.match_id}.ndjson").write_bytes(log.get_data())
    read = next(ExportedLogs(tmp_path).ends([created.match_id]))
    assert read is not None and [e.type for e in read.between] == ["SeatReplacedByBot"]
    exported = rebuild(Ledger(redis_client), GIN, ExportedLogs(tmp_path), _bot, write=False)
    assert exported.equal and exported.rated == 1
