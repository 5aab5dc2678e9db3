"""The `deadwood` subcommands (issue 7): play, tail, export, replay, verify, and the example
bot of examples/, against the real API. Commands run in-process through
`cli.client.main`, the same parser `deadwood` registers."""

from __future__ import annotations

import importlib.util
import json
import re
import threading
from pathlib import Path
from typing import Any

import pytest

from cli.client import main
from deadwood_client import InvalidLog

ROOT = Path(__file__).resolve().parents[3]
BASIC = [{"name": n, "bot": "basic"} for n in ("ana", "ben", "cy")]


def _finished_match(live: Any, target: int = 15) -> str:
    """A match of three server bots, followed to its end."""
    created = live.client().create_match(
        "three-hand-gin", BASIC, seed=9, options={"target_score": target}
    )
    for _ in live.client().events(created["id"]):
        pass
    return str(created["id"])


def _export(live: Any, match_id: str, path: Path) -> list[dict[str, Any]]:
    assert main(["export", "--base-url", live.base_url, "--match", match_id, "-o", str(path)]) == 0
    return [json.loads(line) for line in path.read_text().splitlines()]


def _write(path: Path, events: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return path


def test_export_then_replay_prints_every_round_and_the_servers_scores(
    live: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    match_id = _finished_match(live)
    events = _export(live, match_id, tmp_path / "m.ndjson")
    final = live.client().match(match_id)
    assert [e["seq"] for e in events] == list(range(1, final["version"] + 1))
    assert events == live.client().log(match_id), "the file is the log, event for event"
    capsys.readouterr()
    assert main(["replay", str(tmp_path / "m.ndjson")]) == 0
    out = capsys.readouterr().out.splitlines()
    rounds = [line for line in out if line.startswith("round ")]
    assert len(rounds) == len(final["rounds"]) >= 1
    scores = ", ".join(
        f"{s['name']} {v}" for s, v in zip(final["seats"], final["scores"], strict=True)
    )
    assert out[-1].endswith(f"scores {scores}") and "finished" in out[-1]


def test_replay_gives_the_verdict_of_post_replays_on_a_tampered_log(
    live: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same first bad event and the same words as POST /v1/replays, for a log whose
    discard was changed (G5.3: a discard must be a card of the hand)."""
    events = _export(live, _finished_match(live), tmp_path / "m.ndjson")
    at = next(i for i, e in enumerate(events) if e["type"] == "CardDiscarded")
    held = events[at]["data"]["card"]
    events[at]["data"]["card"] = "KS" if held != "KS" else "KH"
    path = _write(tmp_path / "bad.ndjson", events)
    with pytest.raises(InvalidLog) as server:
        live.client().replay(path.read_text())
    capsys.readouterr()
    assert main(["replay", str(path)]) == 1
    err = capsys.readouterr().err
    bad = server.value.event
    assert bad is not None and bad >= at + 1, "nothing before the changed event is refused"
    assert f"rejected at event {bad}: {server.value.detail}" in err


def test_verify_passes_every_deal_and_names_the_round_of_a_tampered_deck(
    live: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Fair deals (api.md): each RoundDealt's commitment is recomputed from its revealed deck
    order and salt; two stock cards swapped in one round fail that round, by name."""
    events = _export(live, _finished_match(live, target=30), tmp_path / "m.ndjson")
    deals = [e for e in events if e["type"] == "RoundDealt"]
    capsys.readouterr()
    assert main(["verify", str(tmp_path / "m.ndjson")]) == 0
    assert f"all {len(deals)} deals match" in capsys.readouterr().out
    tampered = deals[-1]["data"]
    tampered["stock"][0], tampered["stock"][5] = tampered["stock"][5], tampered["stock"][0]
    assert main(["verify", str(_write(tmp_path / "bad.ndjson", events))]) == 1
    err = capsys.readouterr().err
    assert f"round {tampered['round']}: MISMATCH" in err
    assert err.count("MISMATCH") == 1, "only the tampered round fails"


def test_verify_refuses_a_redacted_log(live: Any, tmp_path: Path) -> None:
    """A seat's page of a running match hides the stock: nothing to verify, exit 1."""
    match_id, _ = live.create(["ana", "ben", "cy"])
    page = live.client().history(match_id)
    assert main(["verify", str(_write(tmp_path / "redacted.ndjson", page))]) == 1


def test_tail_prints_one_readable_line_per_event(
    live: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    match_id = _finished_match(live)
    version = live.client().match(match_id)["version"]
    capsys.readouterr()
    assert main(["tail", "--base-url", live.base_url, "--match", match_id]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [int(line.split()[0][1:]) for line in lines] == list(range(1, version + 1))
    assert lines[0].startswith("#1 match created: three-hand-gin for ana (bot basic)")
    assert any(
        re.fullmatch(r"#\d+ (ana|ben|cy) drew \w\w from (stock|the discard pile)", x) for x in lines
    )
    knock = r"#\d+ (ana|ben|cy) (knocked with \d+|went gin): (\w\w ?)+( \| (deadwood )?(\w\w ?)+)*"
    assert any(re.match(knock, line) for line in lines), lines
    assert lines[-1].startswith(f"#{version} match finished: ")


def test_play_runs_a_seat_with_a_built_in_bot_or_a_module_function(
    live: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--bot basic` (domain.bots) for seat 0, `--bot tests.support.client_support:greedy_gin`
    for seat 1."""
    players = [{"name": "ana"}, {"name": "ben"}, {"name": "cy", "bot": "basic"}]
    created = live.client().create_match("three-hand-gin", players, options={"target_score": 15})
    tokens = [s["token"] for s in created["seats"]]
    base = ["play", "--base-url", live.base_url, "--match", created["id"], "--seed", "1"]
    codes: list[int] = []
    other = threading.Thread(
        target=lambda: codes.append(main([*base, "--token", tokens[0], "--bot", "basic"]))
    )
    other.start()
    codes.append(
        main([*base, "--token", tokens[1], "--bot", "tests.support.client_support:greedy_gin"])
    )
    other.join(timeout=60)
    assert codes == [0, 0]
    out = capsys.readouterr().out
    assert "playing" in out and out.count("finished: ") == 2
    final = live.client().match(created["id"])
    assert final["status"] == "finished"
    assert f"scores ana {final['scores'][0]}, ben {final['scores'][1]}" in out


@pytest.mark.parametrize("command", ["play", "tail", "export", "replay", "verify", "seek"])
def test_every_command_has_help_with_examples(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as done:
        main([command, "--help"])
    assert done.value.code == 0
    assert f"examples:\n  deadwood {command}" in capsys.readouterr().out


def test_the_example_bot_plays_a_match_to_the_end(
    live: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """examples/simple_bot.py, as a new user runs it (here with a low target score)."""
    spec = importlib.util.spec_from_file_location("simple_bot", ROOT / "examples" / "simple_bot.py")
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    # three modes (a new match, a given seat, --seek), still a short read
    assert len((ROOT / "examples" / "simple_bot.py").read_text().splitlines()) < 55
    final = example.main(["--base-url", live.base_url, "--target-score", "15"])
    assert final["status"] == "finished" and final["you"]["seat"] == 0
    assert f"finished: scores {final['scores']}" in capsys.readouterr().out
    log = live.client().log(final["id"])
    playing = [
        e
        for e in log
        if e["type"] == "RoundDealt" and 0 in (e["data"]["box"], e["data"]["captain"])
    ]
    moved = [e for e in log if e["data"].get("seat") == 0 and e["type"] != "AdviceGiven"]
    assert bool(moved) == bool(playing), "seat 0 moved in the rounds it played (G1.3)"
    assert live.client().replay(log)["match"]["scores"] == final["scores"]


def test_the_deadwood_command_runs_the_client_subcommands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """cli/up.py registers them: `deadwood verify FILE` on the opening of a seeded match."""
    from cli.up import main as deadwood
    from domain.variants import get_variant

    players = [{"name": n, "bot": None} for n in ("ana", "ben", "cy")]
    opening = get_variant("three-hand-gin").create(players, {}, 4, "0" * 64)
    path = _write(
        tmp_path / "o.ndjson", [{"seq": i + 1, **e.to_json()} for i, e in enumerate(opening)]
    )
    assert deadwood(["verify", str(path)]) == 0
    assert "all 1 deals match" in capsys.readouterr().out


def test_new_creates_a_match_and_prints_its_id_tokens_and_watch_url(
    live: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """The quickstart of the README: `deadwood new --variant three-hand-gin --players ana,ben
    --bot expert` (issue 15)."""
    argv = ["new", "--base-url", live.base_url, "--variant", "three-hand-gin"]
    assert main([*argv, "--players", "ana,ben", "--bot", "expert", "--seed", "4"]) == 0
    out = capsys.readouterr().out
    match_id = re.search(r"^match (m_\S+) \(three-hand-gin", out, re.M).group(1)  # type: ignore[union-attr]
    assert f"watch: {live.base_url}/watch/{match_id}\n" in out
    tokens = dict(re.findall(r"^seat \d+ (\w+): token (\S+)$", out, re.M))
    assert set(tokens) == {"ana", "ben"}
    assert f"deadwood play --match {match_id} --token {tokens['ana']} --bot expert" in out
    assert re.search(r"^seat 2 expert: bot expert, played by the server$", out, re.M)
    for seat, name in enumerate(("ana", "ben")):
        view = live.client(tokens[name]).match(match_id)
        assert view["you"]["seat"] == seat and view["seeded"]
    page = live.client().http.get(f"{live.base_url}/watch/{match_id}")
    assert page.status_code == 200 and match_id in page.text


def test_new_names_bot_seats_apart_and_passes_options(
    live: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["new", "--base-url", live.base_url, "--variant", "manipulation-rummy", "--json"]
    argv += ["--bot", "expert", "--bot", "expert", "--bot", "basic", "--option", "target_score=40"]
    assert main(argv) == 0
    created = json.loads(capsys.readouterr().out)
    assert [s["name"] for s in created["seats"]] == ["expert", "expert2", "basic"]
    assert [s["token"] for s in created["seats"]] == [None, None, None]
    assert created["options"]["target_score"] == 40


def test_new_refused_by_the_server_says_why(live: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """three-hand-gin needs exactly three players: a validation_error, exit status 1."""
    argv = ["new", "--base-url", live.base_url, "--variant", "three-hand-gin", "--players", "ana"]
    assert main(argv) == 1
    assert "deadwood new:" in capsys.readouterr().err
