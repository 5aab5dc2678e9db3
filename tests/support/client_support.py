"""Support for the client tests: short retry pauses, and scripted bots (`choose(view) ->
move`, from the seat's view only) with a helper that runs one `play` loop per seat."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any

from deadwood_client import Client, Retry, play
from domain.cards import parse_cards
from domain.gin.melds import deadwood

FAST = Retry(attempts=8, backoff=0.02, max_backoff=0.2)
"""Retries for tests: the same logic as the default policy, with short pauses."""


def greedy_gin(view: Mapping[str, Any]) -> dict[str, Any]:
    """Knock when allowed, else discard to the least deadwood, else draw from the stock."""
    moves = view["you"]["legal_moves"]
    knocks = [m for m in moves if m["type"] == "knock"]
    if knocks:
        return dict(knocks[0])
    discards = [m for m in moves if m["type"] == "discard"]
    if discards:
        hand = view["you"]["hand"]
        return dict(min(discards, key=lambda m: _left(hand, m["card"])))
    for kind in ("draw", "pass_upcard"):
        found = [m for m in moves if m["type"] == kind and m.get("from", "stock") == "stock"]
        if found:
            return dict(found[0])
    return dict(moves[0])


def _left(hand: list[str], card: str) -> int:
    return deadwood(parse_cards([c for c in hand if c != card]))


def play_all(
    match_id: str, seats: list[Client], choose: Callable[[Any], Any] = greedy_gin
) -> list[Any]:
    """Each seat's `play` loop in its own thread; the final views, seat by seat."""
    finals: list[Any] = [None] * len(seats)
    failures: list[BaseException] = []

    def run(seat: int) -> None:
        try:
            finals[seat] = play(seats[seat], match_id, choose)
        except BaseException as exc:  # reported by the test, not lost in the thread
            failures.append(exc)

    threads = [threading.Thread(target=run, args=(s,)) for s in range(len(seats))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    if failures:
        raise failures[0]
    assert not any(t.is_alive() for t in threads), "a bot loop did not finish"
    return finals
