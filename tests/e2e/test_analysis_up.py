"""The analysis of a finished match through `deadwood up` (issue 33): its own worker takes the
`analysis` queue, so a match of bots played to its end is analysed without anyone asking,
while the other worker plays."""

from __future__ import annotations

import time
from pathlib import Path

import httpx

from tests.support.reliability_procs import DeadwoodUp


def test_up_analyses_a_finished_match_on_its_own_worker(tmp_path: Path) -> None:
    served = DeadwoodUp(tmp_path)
    try:
        with httpx.Client(base_url=served.base_url, timeout=20) as http:
            bots = [{"name": f"bot{i}", "bot": "random"} for i in range(3)]
            body = {"variant": "three-hand-gin", "players": bots, "options": {"target_score": 25}}
            match_id = http.post("/v1/matches", json=body).json()["id"]
            deadline = time.monotonic() + 120
            answer = http.get(f"/v1/matches/{match_id}/analysis")
            while answer.status_code != 200 and time.monotonic() < deadline:
                assert answer.status_code in (202, 404), answer.text
                time.sleep(0.25)
                answer = http.get(f"/v1/matches/{match_id}/analysis")
            assert answer.status_code == 200, answer.text
            analysis = answer.json()
            assert analysis["id"] == match_id and len(analysis["seats"]) == 3
            assert analysis["decisions"], "a finished match has decisions to judge"
    finally:
        served.stop()
    assert "analysis worker stopped" in served.text(), "the launcher ran a worker of its own"
