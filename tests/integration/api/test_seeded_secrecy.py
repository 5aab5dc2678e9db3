"""Seeded deals give reproducibility, not secrecy, and no brute force (issue 11, item 4).

Through the app on the real Redis: two matches with the same seed deal the same cards but
commit with different salts, which come from the server's secret source (the store), so a
guessed seed cannot be tested against a public commitment. The salt key stays hidden until
the match is over; then the log reveals it, and the replay check (`POST /v1/replays`,
`deadwood replay`) and the commitment check (`deadwood verify`) accept the log.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from domain.variants import get_variant
from tests.support.api_helpers import auth, create, run_jobs

SEED = 31337
BOTS = {0: "basic", 1: "basic", 2: "basic"}


def _opening(client: Any, match_id: str, token: str | None = None) -> list[dict[str, Any]]:
    page = client.get(f"/v1/matches/{match_id}/events?after=0", headers=auth(token))
    assert page.status_code == 200, page.get_data(as_text=True)
    return list(page.get_json()["events"])


def _dealt(events: list[dict[str, Any]]) -> dict[str, Any]:
    return next(e["data"] for e in events if e["type"] == "RoundDealt")


def test_same_seed_same_cards_but_a_secret_salt(client: Any) -> None:
    """The same seed gives the same hands to the same seats, but another commitment; the
    commitment is not the one the seed alone gives (seed 31337 of the issue's brute force)."""
    first, tokens_a = create(client, seed=SEED)
    second, tokens_b = create(client, seed=SEED)
    views = [client.get(f"/v1/matches/{m}").get_json() for m in (first, second)]
    assert views[0]["deal_commitment"] != views[1]["deal_commitment"]
    for seat in range(3):
        hands = [
            client.get(f"/v1/matches/{m}", headers=auth(t[seat])).get_json()["you"]["hand"]
            for m, t in ((first, tokens_a), (second, tokens_b))
        ]
        assert hands[0] == hands[1]
    players = [{"name": n} for n in ("ana", "ben", "cy")]
    guessed = get_variant("three-hand-gin").create(players, {}, SEED, "")
    guessed_commitment = next(e.data for e in guessed if e.type == "RoundDealt")["commitment"]
    assert guessed_commitment not in {v["deal_commitment"] for v in views}
    for token in (None, tokens_a[0]):
        created = _opening(client, first, token)[0]["data"]
        assert created["salt_key"] is None and created["deal_key"] is None
        assert _dealt(_opening(client, first, token))["salt"] is None


def test_a_finished_seeded_match_reveals_its_salt_key_and_replays(
    client: Any, service: Any, tmp_path: Path
) -> None:
    """After the end the log carries `salt_key` and every salt; POST /v1/replays, `deadwood
    replay` and `deadwood verify` accept it."""
    match_id, _ = create(client, seed=SEED, options={"target_score": 25}, bots=BOTS)
    assert client.get(f"/v1/matches/{match_id}/log").status_code == 403
    for _ in range(200):
        if client.get(f"/v1/matches/{match_id}").get_json()["status"] == "finished":
            break
        run_jobs(service)
    text = client.get(f"/v1/matches/{match_id}/log").get_data(as_text=True)
    log = [json.loads(line) for line in text.splitlines()]
    assert isinstance(log[0]["data"]["salt_key"], str) and len(log[0]["data"]["salt_key"]) == 64
    answer = client.post("/v1/replays", data=text, headers={"Content-Type": "application/x-ndjson"})
    assert answer.status_code == 200, answer.get_data(as_text=True)
    path = tmp_path / "match.ndjson"
    path.write_text(text)
    for command in ("replay", "verify"):
        done = subprocess.run(
            [sys.executable, "-m", "cli", command, str(path)],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=Path(__file__).resolve().parents[3],
        )
        assert done.returncode == 0, done.stdout + done.stderr
    salts = [e["data"]["salt"] for e in log if e["type"] == "RoundDealt"]
    assert len(set(salts)) == len(salts) >= 1
