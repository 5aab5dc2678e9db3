"""POST /v1/replays: an exported log replays to the same final view; tampered logs are refused
with 422 invalid_log naming the first event that does not follow the rules (api.md).

Also checks the fair-deal commitment byte layout documented in openapi.yaml against the
revealed decks of a finished match.
"""

from __future__ import annotations

import copy
import hashlib
import json
import random
from typing import Any

import pytest

from tests.support.api_helpers import create, play, problem
from tests.support.views import you_of

_LOGS: dict[str, tuple[list[dict[str, Any]], dict[str, Any]]] = {}


def _finished(
    client: Any, service: Any, variant: str
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A finished match's log and final spectator view (played once per test session)."""
    if variant not in _LOGS:
        if variant == "three-hand-gin":
            match_id, tokens = create(client, seed=101, options={"target_score": 30})
        else:
            match_id, tokens = create(client, variant, 3, seed=102, options={"target_score": 40})
        final = play(client, service, match_id, tokens, random.Random(7))
        text = client.get(f"/v1/matches/{match_id}/log").get_data(as_text=True)
        _LOGS[variant] = ([json.loads(line) for line in text.splitlines()], final)
    log, final = _LOGS[variant]
    return copy.deepcopy(log), final


def _post(client: Any, log: list[dict[str, Any]], as_array: bool = False) -> Any:
    if as_array:
        return client.post("/v1/replays", json=log)
    body = "".join(json.dumps(e) + "\n" for e in log)
    return client.post("/v1/replays", data=body, headers={"Content-Type": "application/x-ndjson"})


def _rejected_at(client: Any, log: list[dict[str, Any]], seq: int) -> str:
    found = problem(_post(client, log), 422, "invalid_log")
    assert found["event"] == seq, found
    return str(found["detail"])


def _first(log: list[dict[str, Any]], kind: str, start: int = 0) -> int:
    return next(i for i, e in enumerate(log) if e["type"] == kind and i >= start)


@pytest.mark.parametrize("variant", ["three-hand-gin", "manipulation-rummy"])
def test_exported_log_replays_to_the_same_final_view(
    client: Any, service: Any, variant: str
) -> None:
    log, final = _finished(client, service, variant)
    for as_array in (False, True):
        answer = _post(client, log, as_array)
        assert answer.status_code == 200, answer.get_data(as_text=True)
        body = answer.get_json()
        assert {**body["match"], "id": final["id"]} == final
        assert body["rounds"] == final["rounds"] and body["version"] == len(log)
        assert len(body["hands"]) == len(final["seats"])
    # without seq and at (both optional), and a prefix of the log (a match in progress)
    bare = [{k: v for k, v in e.items() if k not in ("seq", "at")} for e in log]
    assert _post(client, bare).status_code == 200
    prefix = _post(client, log[: len(log) // 2])
    assert prefix.status_code == 200 and prefix.get_json()["match"]["status"] == "active"


def test_a_changed_dealt_card_is_refused(client: Any, service: Any) -> None:
    """The first deal is re-made from the deal key; swapping a hand card with a stock card
    breaks it (G4, fair deals)."""
    log, _ = _finished(client, service, "three-hand-gin")
    at = _first(log, "RoundDealt")
    data = log[at]["data"]
    seat = data["captain"]
    data["hands"][seat][0], data["stock"][0] = data["stock"][0], data["hands"][seat][0]
    assert "deal key" in _rejected_at(client, log, at + 1)


def test_a_changed_later_deal_is_refused(client: Any, service: Any) -> None:
    log, _ = _finished(client, service, "three-hand-gin")
    at = _first(log, "RoundDealt", _first(log, "RoundScored"))
    log[at]["data"]["stock"].reverse()
    _rejected_at(client, log, at + 1)


def test_a_changed_discard_is_refused(client: Any, service: Any) -> None:
    """G5.2: the recorded discard must be a card the seat holds, as decide would record it."""
    log, _ = _finished(client, service, "three-hand-gin")
    at = _first(log, "CardDiscarded")
    held = log[at]["data"]["card"]
    log[at]["data"]["card"] = "KS" if held != "KS" else "KH"
    _rejected_at(client, log, at + 1)


def test_a_changed_drawn_card_is_refused(client: Any, service: Any) -> None:
    log, _ = _finished(client, service, "manipulation-rummy")
    at = _first(log, "CardDrawn")
    log[at]["data"]["card"] = "AS" if log[at]["data"]["card"] != "AS" else "2S"
    _rejected_at(client, log, at + 1)


def test_reordered_events_are_refused(client: Any, service: Any) -> None:
    log, _ = _finished(client, service, "three-hand-gin")
    at = _first(log, "CardDrawn")
    log[at], log[at + 1] = log[at + 1], log[at]
    for k, event in enumerate(log):
        event["seq"] = k + 1
    _rejected_at(client, log, at + 1)


def test_a_dropped_event_is_refused(client: Any, service: Any) -> None:
    log, _ = _finished(client, service, "manipulation-rummy")
    at = _first(log, "TurnEnded")
    dropped = log[:at] + log[at + 1 :]
    found = problem(_post(client, dropped), 422, "invalid_log")
    assert found["event"] == at + 1 and "seq" in found["detail"]
    bare = [{k: v for k, v in e.items() if k != "seq"} for e in dropped]
    _rejected_at_any = problem(_post(client, bare), 422, "invalid_log")
    assert _rejected_at_any["event"] == at + 1


def test_changed_scores_are_refused(client: Any, service: Any) -> None:
    """G7 / M10: a round result that is not the rules' result is refused."""
    for variant in ("three-hand-gin", "manipulation-rummy"):
        log, _ = _finished(client, service, variant)
        at = _first(log, "RoundScored")
        log[at]["data"]["points"] = [p + 1 for p in log[at]["data"]["points"]]
        _rejected_at(client, log, at + 1)


def test_changed_deal_key_seed_or_options_are_refused(client: Any, service: Any) -> None:
    """The role draw and deals come from the seed (G1.2, G4); a target the final score does
    not reach cannot end the match (G8.1)."""
    log, _ = _finished(client, service, "three-hand-gin")
    for change in ({"deal_key": "ab" * 32}, {"seed": 999}):
        tampered = copy.deepcopy(log)
        tampered[0]["data"].update(change)
        assert "deal key" in _rejected_at(client, tampered, 1)
    tampered = copy.deepcopy(log)
    tampered[0]["data"]["options"]["target_score"] = 1000
    detail = _rejected_at(client, tampered, len(log))
    assert "MatchFinished" in detail


def test_events_after_the_end_are_refused(client: Any, service: Any) -> None:
    log, _ = _finished(client, service, "manipulation-rummy")
    extra = {**log[-2], "seq": len(log) + 1}
    _rejected_at(client, [*log, extra], len(log) + 1)


def test_a_redacted_or_headless_log_is_refused(client: Any) -> None:
    match_id, _ = create(client, seed=9)
    page = client.get(f"/v1/matches/{match_id}/events").get_json()["events"]
    assert "deal_key" in _rejected_at(client, page, 1)
    _rejected_at(client, page[1:], 1)
    problem(_post(client, []), 422, "invalid_log")


def test_malformed_replay_bodies_are_validation_errors(client: Any) -> None:
    problem(client.post("/v1/replays", json={"events": []}), 422, "validation_error")
    problem(client.post("/v1/replays", json=[{"type": "MatchCreated"}]), 422, "validation_error")
    problem(
        client.post("/v1/replays", json=[{"type": "X", "data": {}, "evil": 1}]),
        422,
        "validation_error",
    )
    ndjson = {"Content-Type": "application/x-ndjson"}
    bad_line = b'not json\n{"type": "MatchCreated", "data": {}}\n'
    found = problem(client.post("/v1/replays", data=bad_line, headers=ndjson), 400, "bad_request")
    assert "line 1" in found["detail"]
    # issue 11 item 2: refused at line 1, which cannot open a match, before line 2 is read
    bad_later = b'{"type": "MatchCreated", "data": {}}\nnot json\n'
    found = problem(client.post("/v1/replays", data=bad_later, headers=ndjson), 422, "invalid_log")
    assert found["event"] == 1
    problem(
        client.post("/v1/replays", data=b"x", content_type="text/csv"),
        415,
        "unsupported_media_type",
    )


@pytest.mark.parametrize("variant", ["three-hand-gin", "manipulation-rummy"])
def test_commitments_follow_the_documented_byte_layout(
    client: Any, service: Any, variant: str
) -> None:
    """openapi.yaml Fair deals: sha256(salt + ":" + " ".join(deck)), deck in dealing order."""
    log, _ = _finished(client, service, variant)
    n = len(log[0]["data"]["players"])
    for event in (e for e in log if e["type"] == "RoundDealt"):
        data = event["data"]
        if variant == "three-hand-gin":
            captain, box = data["hands"][data["captain"]], data["hands"][data["box"]]
            deck = [c for pair in zip(captain, box, strict=True) for c in pair]
            deck += [data["upcard"], *data["stock"]]
        else:
            hands = [list(h) for h in data["hands"]]
            dealt = [hands[(data["dealer"] + 1 + i) % n].pop(0) for i in range(10 * n)]
            deck = dealt + data["stock"]
        message = f"{data['salt']}:{' '.join(deck)}".encode()
        assert hashlib.sha256(message).hexdigest() == data["commitment"]
        assert len(data["salt"]) == 64


def test_an_unseeded_match_replays_from_its_secret_deal_key(client: Any, service: Any) -> None:
    """Without a seed the deal key is a secret drawn by the server; the finished log reveals
    it and the replay re-makes every deal from it."""
    match_id, tokens = create(
        client, "manipulation-rummy", 2, seed=None, options={"target_score": 30}
    )
    final = play(client, service, match_id, tokens, random.Random(8))
    text = client.get(f"/v1/matches/{match_id}/log").get_data(as_text=True)
    log = [json.loads(line) for line in text.splitlines()]
    assert log[0]["data"]["seeded"] is False and log[0]["data"]["seed"] is None
    assert len(log[0]["data"]["deal_key"]) == 64
    answer = _post(client, log)
    assert answer.status_code == 200, answer.get_data(as_text=True)
    assert {**answer.get_json()["match"], "id": match_id} == final
    log[2]["data"]["stock"][0], log[2]["data"]["stock"][1] = (
        log[2]["data"]["stock"][1],
        log[2]["data"]["stock"][0],
    )
    if log[2]["data"]["stock"][0] != log[2]["data"]["stock"][1]:
        _rejected_at(client, log, 3)


def test_a_log_over_its_cpu_budget_is_422_replay_too_costly(client: Any, service: Any) -> None:
    """Issue 11 item 2: the check of a log has a CPU budget proportional to its events; with
    a budget of nothing even a valid log is refused, clearly, at the event where it ran out."""
    from api import create_app

    log, _ = _finished(client, service, "three-hand-gin")
    poor = create_app(
        {"SERVICE": service, "REPLAY_CPU_SECONDS": 0, "REPLAY_CPU_SECONDS_PER_EVENT": 0}
    )
    body = "".join(json.dumps(e) + "\n" for e in log)
    answer = poor.test_client().post(
        "/v1/replays", data=body, headers={"Content-Type": "application/x-ndjson"}
    )
    found = problem(answer, 422, "replay_too_costly")
    assert found["event"] == 1 and "budget" in found["detail"]
    assert _post(client, log).status_code == 200  # the default budget is ample


def test_junk_after_a_valid_opening_is_refused_at_its_first_line(client: Any, service: Any) -> None:
    """Issue 11 item 2: the first line that cannot continue the match is named, whatever
    follows it (here 8 MiB of `{}` lines after the first four events)."""
    log, _ = _finished(client, service, "three-hand-gin")
    head = "".join(json.dumps(e) + "\n" for e in log[:4])
    body = head + "{}\n" * (8 * 1024 * 1024 // 3 - len(head))
    answer = client.post("/v1/replays", data=body, headers={"Content-Type": "application/x-ndjson"})
    found = problem(answer, 422, "validation_error")
    assert found["detail"].startswith("event 5 is not an event object"), found
    wrong_seq = [*log[:4], {**log[4], "seq": 9}, *log[5:]]
    assert _rejected_at(client, wrong_seq, 5).startswith("event 5 has seq 9")


@pytest.mark.parametrize("variant", ["three-hand-gin", "manipulation-rummy"])
def test_steps_give_the_match_after_every_event_as_the_log_rebuilds_it(
    client: Any, service: Any, variant: str
) -> None:
    """`?steps=true` (the replay page): one step per event, each the spectator view of the
    log's first k events with every seat's hand; the last is the final answer."""
    from domain.events import Event
    from domain.variants import get_variant

    log, _ = _finished(client, service, variant)
    answer = client.post(
        "/v1/replays?steps=true",
        data="".join(json.dumps(e) + "\n" for e in log),
        headers={"Content-Type": "application/x-ndjson"},
    ).get_json()
    steps = answer["steps"]
    assert [s["seq"] for s in steps] == list(range(1, len(log) + 1))
    assert [s["type"] for s in steps] == [e["type"] for e in log]
    assert steps[-1]["match"] == answer["match"] and steps[-1]["hands"] == answer["hands"]
    rules = get_variant(variant)
    state = rules.initial_state()
    checked = {len(log) // 3, len(log) // 2, len(log) - 1}
    for k, e in enumerate(log, start=1):
        state = rules.evolve(state, Event(e["type"], e["data"], e["v"]))
        if k not in checked:
            continue
        assert steps[k - 1]["match"] == {"id": None, **rules.view(state, None)}
        for seat, hand in enumerate(steps[k - 1]["hands"]):
            assert sorted(hand or []) == sorted(you_of(rules.view(state, seat))["hand"])


def test_without_steps_the_answer_has_none(client: Any, service: Any) -> None:
    log, _ = _finished(client, service, "three-hand-gin")
    assert "steps" not in _post(client, log).get_json()


@pytest.mark.parametrize("variant", ["three-hand-gin", "manipulation-rummy"])
def test_ndjson_steps_carry_only_what_each_event_added(
    client: Any, service: Any, variant: str
) -> None:
    """Issue 28 item 2: `?steps=true&format=ndjson` streams the answer, then one line a step
    whose view has no `rounds`, only the results its event added; adding them up gives the
    steps of `?steps=true` exactly."""
    log, _ = _finished(client, service, variant)
    body = "".join(json.dumps(e) + "\n" for e in log)
    headers = {"Content-Type": "application/x-ndjson"}
    whole = client.post("/v1/replays?steps=true", data=body, headers=headers).get_json()
    answer = client.post("/v1/replays?steps=true&format=ndjson", data=body, headers=headers)
    assert answer.status_code == 200 and answer.mimetype == "application/x-ndjson"
    first, *steps = [json.loads(line) for line in answer.get_data(as_text=True).splitlines()]
    assert first == {k: v for k, v in whole.items() if k != "steps"}
    assert len(steps) == len(whole["steps"]) == len(log)
    rounds: list[Any] = []
    for step, full in zip(steps, whole["steps"], strict=True):
        assert "rounds" not in step["match"]
        rounds += step["rounds_added"]
        assert {**step["match"], "rounds": rounds} == full["match"]
        assert (step["seq"], step["type"], step["hands"]) == (
            full["seq"],
            full["type"],
            full["hands"],
        )
    assert rounds == whole["rounds"] and rounds
    alone = client.post("/v1/replays?format=ndjson", data=body, headers=headers)
    assert [json.loads(line) for line in alone.get_data(as_text=True).splitlines()] == [first]


def test_json_steps_past_their_byte_limit_are_413_replay_too_large(
    client: Any, service: Any
) -> None:
    """Issue 28 item 2: the JSON steps repeat every past round, so they are refused once
    their encoding passes REPLAY_STEPS_MAX_BYTES, naming the event and the NDJSON form."""
    from api import create_app

    log, _ = _finished(client, service, "three-hand-gin")
    small = create_app({"SERVICE": service, "REPLAY_STEPS_MAX_BYTES": 100_000})
    body = "".join(json.dumps(e) + "\n" for e in log)
    answer = small.test_client().post(
        "/v1/replays?steps=true", data=body, headers={"Content-Type": "application/x-ndjson"}
    )
    found = problem(answer, 413, "replay_too_large")
    assert 1 < found["event"] < len(log) and "format=ndjson" in found["detail"]


def test_a_bad_format_is_a_validation_error(client: Any, service: Any) -> None:
    log, _ = _finished(client, service, "three-hand-gin")
    body = "".join(json.dumps(e) + "\n" for e in log)
    answer = client.post(
        "/v1/replays?format=xml", data=body, headers={"Content-Type": "application/x-ndjson"}
    )
    assert "format" in json.dumps(problem(answer, 422, "validation_error")["errors"])


def test_ndjson_steps_past_the_estimate_are_422_and_past_the_budget_end_in_a_problem_line(
    client: Any, service: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 28 item 2: the steps' CPU is estimated before the stream starts (422
    replay_too_costly then); should the budget run out while streaming, the last line is the
    problem instead of the remaining steps."""
    from api import replays

    log, _ = _finished(client, service, "three-hand-gin")
    body = "".join(json.dumps(e) + "\n" for e in log)
    headers = {"Content-Type": "application/x-ndjson"}
    url = "/v1/replays?steps=true&format=ndjson"
    monkeypatch.setattr(replays, "STEP_CPU_SECONDS", 3600.0)
    found = problem(client.post(url, data=body, headers=headers), 422, "replay_too_costly")
    assert "streaming the steps" in found["detail"] and found["event"] == len(log)
    monkeypatch.setattr(replays, "STEP_CPU_SECONDS", 0.0)
    spend = replays.CpuBudget.spend

    def poor(self: Any, work: Any, events: int, doing: str = "checking this log") -> Any:
        if doing == "streaming step 5":
            raise self.refusal(events, doing)
        return spend(self, work, events, doing)

    monkeypatch.setattr(replays.CpuBudget, "spend", poor)
    answer = client.post(url, data=body, headers=headers)
    lines = [json.loads(line) for line in answer.get_data(as_text=True).splitlines()]
    assert answer.status_code == 200 and [line.get("seq") for line in lines[1:5]] == [1, 2, 3, 4]
    assert len(lines) == 6 and lines[-1]["problem"]["code"] == "replay_too_costly"
    assert "streaming step 5" in lines[-1]["problem"]["detail"]
