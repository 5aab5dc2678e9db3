"""The client against the real API on a real Redis (issue 7): a whole match played by three
scripted client bots, every endpoint's shape, and refusals as typed exceptions."""

from __future__ import annotations

from typing import Any

import pytest

from deadwood_client import (
    DeadwoodError,
    Forbidden,
    IdempotencyKeyReused,
    IllegalMove,
    InvalidCard,
    MatchInProgress,
    NotYourTurn,
    Unauthorized,
    UnknownMatch,
    ValidationError,
    VersionConflict,
)
from tests.support.client_support import play_all
from tests.support.waiting import wait_until

PLAYERS = ["ana", "ben", "cy"]


def test_three_client_bots_play_three_hand_gin_to_the_end(live: Any) -> None:
    """G1-G8 through the client: each seat plays with its own token and view, via the
    stream, until the match is finished; the log then replays on the server to the end."""
    match_id, seats = live.create(PLAYERS, options={"target_score": 20})
    finals = play_all(match_id, seats)
    for seat, final in enumerate(finals):
        assert final["status"] == "finished" and final["turn"] is None
        assert final["you"]["seat"] == seat, "each token plays its own seat"
    assert len({f["version"] for f in finals}) == 1
    assert all(f["scores"] == finals[0]["scores"] for f in finals)
    assert max(finals[0]["scores"]) >= 20 and finals[0]["winners"], "G8.1: target reached"
    spectator = live.client()
    log = spectator.log(match_id)
    assert [e["seq"] for e in log] == list(range(1, finals[0]["version"] + 1))
    checked = spectator.replay(log)
    assert checked["version"] == finals[0]["version"]
    assert checked["match"]["scores"] == finals[0]["scores"]
    assert checked["rounds"] == finals[0]["rounds"]


def test_every_endpoint_answers_with_its_shape(live: Any) -> None:
    """api.md endpoints: create, view (now and ?at=), legal moves, move, page, hint, bots,
    health; the client keeps the newest version it saw."""
    spectator = live.client()
    assert spectator.health() == {"status": "ok"}
    assert {(b["variant"], b["name"]) for b in spectator.bots()} >= {("three-hand-gin", "random")}
    match_id, seats = live.create(PLAYERS)
    view = spectator.match(match_id)
    assert view["you"] is None and view["id"] == match_id and view["variant"] == "three-hand-gin"
    mover = seats[view["turn"]]
    legal = mover.legal_moves(match_id)
    assert legal["seat"] == view["turn"] and legal["moves"]
    hint = mover.hint(match_id)
    assert hint["move"] in legal["moves"] and hint["reason"]
    result = mover.move(match_id, legal["moves"][0])
    assert result["version"] == view["version"] + len(result["events"]) > view["version"]
    assert result["match"]["version"] == result["version"]
    assert mover.known_version(match_id) == result["version"]
    assert spectator.match(match_id, at=view["version"]) == view, "?at= shows the past"
    page = spectator.event_page(match_id, after=0, limit=2)
    assert [e["seq"] for e in page["events"]] == [1, 2] and page["version"] == result["version"]
    assert [e["seq"] for e in spectator.history(match_id)] == list(range(1, result["version"] + 1))


def _refusal(excinfo: pytest.ExceptionInfo[DeadwoodError], status: int, code: str) -> None:
    error = excinfo.value
    assert (error.status, error.code) == (status, code), str(error)
    assert error.detail and error.problem["code"] == code


def test_refusals_become_typed_exceptions_with_code_detail_and_status(live: Any) -> None:
    """api.md Errors: each problem code is its own exception class; nothing is appended."""
    match_id, seats = live.create(PLAYERS)
    spectator = live.client()
    view = spectator.match(match_id)
    roles = view["roles"]
    mover = seats[view["turn"]]
    waiting = seats[next(s for s in (roles["box"], roles["captain"]) if s != view["turn"])]
    first = mover.legal_moves(match_id)["moves"][0]
    with pytest.raises(Forbidden) as forbidden:
        spectator.move(match_id, first)
    _refusal(forbidden, 403, "forbidden")
    with pytest.raises(NotYourTurn) as not_yours:
        waiting.move(match_id, {"type": "draw", "from": "stock"}, if_match=None)
    _refusal(not_yours, 409, "not_your_turn")
    with pytest.raises(VersionConflict) as stale:
        mover.move(match_id, first, if_match=view["version"] - 1)
    _refusal(stale, 412, "version_conflict")
    with pytest.raises(IllegalMove) as illegal:
        mover.move(match_id, {"type": "discard", "card": view_card(mover, match_id)})
    _refusal(illegal, 422, "illegal_move")
    with pytest.raises(InvalidCard) as bad_card:
        mover.move(match_id, {"type": "discard", "card": "ZZ"})
    _refusal(bad_card, 422, "invalid_card")
    assert "ZZ" in bad_card.value.detail
    with pytest.raises(ValidationError) as malformed:
        mover.move(match_id, {"type": "juggle"})
    _refusal(malformed, 422, "validation_error")
    with pytest.raises(IdempotencyKeyReused) as reused:
        mover.move(match_id, first, idempotency_key="k-1")
        mover.move(match_id, {"type": "draw", "from": "stock"}, idempotency_key="k-1")
    _refusal(reused, 422, "idempotency_key_reused")
    with pytest.raises(UnknownMatch) as unknown:
        spectator.match("m_nosuchmatch")
    _refusal(unknown, 404, "unknown_match")
    _, other_seats = live.create(PLAYERS)
    with pytest.raises(Unauthorized) as stranger:
        other_seats[0].match(match_id)
    _refusal(stranger, 401, "unauthorized")
    with pytest.raises(MatchInProgress) as early:
        spectator.log(match_id)
    _refusal(early, 403, "match_in_progress")
    assert spectator.match(match_id)["version"] == view["version"] + 1, "only the keyed move"


def view_card(seat_client: Any, match_id: str) -> str:
    """A card of the seat's hand (discarding it before drawing is illegal: G5.2)."""
    return str(seat_client.match(match_id)["you"]["hand"][0])


def test_the_analysis_of_a_finished_match_through_the_client(live: Any) -> None:
    """Issue 33: refused (404 match_not_finished) during play, then served once finished
    (None while the job runs)."""
    match_id, seats = live.create(PLAYERS, options={"target_score": 20})
    spectator = live.client()
    with pytest.raises(DeadwoodError) as excinfo:
        spectator.analysis(match_id)
    _refusal(excinfo, 404, "match_not_finished")
    play_all(match_id, seats)
    found = wait_until(lambda: spectator.analysis(match_id), 60, "the analysis job", every=0.2)
    assert found["id"] == match_id and found["variant"] == "three-hand-gin"
    assert [s["name"] for s in found["seats"]] == PLAYERS
