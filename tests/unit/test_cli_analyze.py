"""`deadwood analyze LOG` runs the server's analyser offline on an exported log (issue 33)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli.up import main
from domain.analysis import analyse
from domain.events import Event

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
GIN = FIXTURES / "gin_default_seed1.ndjson"


def test_analyze_prints_the_summary_per_seat(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", str(GIN)]) == 0
    out = capsys.readouterr().out
    assert "three-hand-gin: 252 events, costs in deadwood" in out
    for name in ("ana", "ben", "cy"):
        assert name in out
    assert "costliest decisions:" in out


def test_analyze_json_is_the_servers_analysis(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", str(GIN), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    events = [Event.from_json(json.loads(line)) for line in GIN.read_text().splitlines()]
    assert printed == analyse(events).as_json()


def test_analyze_refuses_a_match_in_play(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = GIN.read_text().splitlines()
    assert '"CardDiscarded"' in lines[5]  # the first turn of the first hand is over
    part = tmp_path / "part.ndjson"
    part.write_text("\n".join(lines[:6]) + "\n")
    assert main(["analyze", str(part)]) == 1
    assert "no analysis during play" in capsys.readouterr().err
