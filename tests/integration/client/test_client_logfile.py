"""`deadwood verify` and `deadwood replay` on logs made by the engines themselves (pure, no
server): the deck order read back from each variant's RoundDealt is the committed one."""

from __future__ import annotations

from typing import Any

import pytest

from deadwood_client.logfile import LogError, dealt_deck, parse_log, verify
from domain.shuffle import commitment
from domain.variants import get_variant


def _opening(variant: str, n: int, seed: int) -> list[dict[str, Any]]:
    players = [{"name": f"p{i}", "bot": None} for i in range(n)]
    made = get_variant(variant).create(players, {}, seed, "0" * 64)
    return [{"seq": i + 1, **e.to_json()} for i, e in enumerate(made)]


@pytest.mark.parametrize(
    ("variant", "n"),
    [("three-hand-gin", 3), ("manipulation-rummy", 2), ("manipulation-rummy", 5)],
)
def test_the_revealed_deck_order_gives_the_dealt_commitment(variant: str, n: int) -> None:
    """Fair deals: commitment(deck, salt) of the read-back deck equals the event's (G4, M1.2)."""
    for seed in range(5):
        events = _opening(variant, n, seed)
        deals = verify(events)
        assert len(deals) == 1 and deals[0].ok, deals
        data = next(e["data"] for e in events if e["type"] == "RoundDealt")
        deck = dealt_deck(data)
        hands = [h for h in data["hands"] if h is not None]
        assert len(deck) == sum(map(len, hands)) + len(data["stock"]) + ("upcard" in data)
        assert commitment(deck, data["salt"]) == data["commitment"]


def test_one_moved_card_breaks_the_commitment() -> None:
    events = _opening("manipulation-rummy", 3, 1)
    data = next(e["data"] for e in events if e["type"] == "RoundDealt")
    data["hands"][0][0], data["hands"][1][0] = data["hands"][1][0], data["hands"][0][0]
    (deal,) = verify(events)
    assert not deal.ok and deal.recomputed != deal.commitment


def test_a_log_that_does_not_count_one_two_three_is_refused() -> None:
    with pytest.raises(LogError, match="seq 3"):
        parse_log('{"seq":1,"type":"A","data":{}}\n{"seq":3,"type":"B","data":{}}\n')
