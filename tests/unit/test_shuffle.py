"""Deals are a pure function of the deal key, unbiased, and committed to (api.md "Fair deals")."""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

import pytest

from domain.gin.deal import dealt_deck as gin_deck
from domain.shuffle import DealRng, commitment, seed_key
from domain.variants import get_variant


def test_same_key_same_shuffle_different_key_different_shuffle() -> None:
    def deal(key: str) -> list[int]:
        deck = list(range(52))
        DealRng(key, "round:1").shuffle(deck)
        return deck

    assert deal(seed_key(42)) == deal(seed_key(42))
    assert deal(seed_key(42)) != deal(seed_key(43))
    assert sorted(deal(seed_key(1))) == list(range(52))


def test_randbelow_stays_in_range() -> None:
    rng = DealRng(seed_key(7), "t")
    values = [rng.randbelow(3) for _ in range(300)]
    assert set(values) == {0, 1, 2}


def test_commitment_changes_with_deck_and_salt() -> None:
    deck = ["AS", "2S", "3S"]
    assert commitment(deck, "00" * 32) != commitment(deck[::-1], "00" * 32)
    assert commitment(deck, "00" * 32) != commitment(deck, "01" * 32)
    assert len(commitment(deck, "ab" * 32)) == 64


def _dealt(variant: str, seed: int | None, secret: str) -> Any:
    """The first RoundDealt of a fresh match (3 players)."""
    game = get_variant(variant)
    players = [{"name": n} for n in ("ana", "ben", "cy")]
    events = game.create(players, {}, seed, secret)
    return next(e.data for e in events if e.type == "RoundDealt")


@pytest.mark.parametrize("variant", ["three-hand-gin", "manipulation-rummy"])
def test_a_seeded_deal_depends_on_the_seed_and_its_salt_on_the_secret(variant: str) -> None:
    """G4 / M3 (issue 11): the same seed deals the same cards whatever the secret, but the
    commitment salt comes from the secret, so a guessed seed cannot be checked against the
    public commitment; the revealed salt still opens the commitment."""
    one, two = _dealt(variant, 31337, "aa" * 32), _dealt(variant, 31337, "bb" * 32)
    assert one["hands"] == two["hands"] and one["stock"] == two["stock"]
    assert one["salt"] != two["salt"] and one["commitment"] != two["commitment"]
    guessed = _dealt(variant, 31337, "")  # what the seed alone gives
    assert guessed["commitment"] not in (one["commitment"], two["commitment"])
    deck = gin_deck(one) if variant == "three-hand-gin" else manip_deck(one)
    assert commitment(deck, one["salt"]) == one["commitment"]


def test_the_salt_key_is_recorded_in_a_seeded_match_only_and_hidden_until_the_end() -> None:
    """Issue 11: MatchCreated records `salt_key` (the secret) in a seeded match, so the replay
    check can re-derive the salts once the log is public; views of events hide it before."""
    game = get_variant("three-hand-gin")
    players = [{"name": n} for n in ("ana", "ben", "cy")]
    seeded = game.create(players, {}, 5, "cd" * 32)[0]
    assert seeded.data["salt_key"] == "cd" * 32
    assert "salt_key" not in game.create(players, {}, None, "cd" * 32)[0].data
    assert "salt_key" not in game.create(players, {}, 5, "")[0].data  # golden logs, arena
    before = game.initial_state()
    for seat in (None, 0, 1, 2):
        assert game.event_view(before, seeded, seat)["data"]["salt_key"] is None


def manip_deck(data: dict[str, Any]) -> list[str]:
    """The dealt deck order of a manipulation RoundDealt (cards go one at a time)."""
    n, dealer = len(data["hands"]), data["dealer"]
    hands = [list(h) for h in data["hands"]]
    dealt = [hands[(dealer + 1 + i) % n].pop(0) for i in range(10 * n)]
    return [*dealt, *data["stock"]]


@pytest.mark.parametrize(
    ("key", "purpose"),
    [
        (seed_key(42), "deal:1"),  # a deal key: 32 bytes of hex
        ("ab" * 40, "salt:3"),  # 40 bytes
        ("cd" * 64, "roles"),  # 64 bytes: exactly one SHA-256 block
        ("ef" * 65, "roles:2"),  # longer than a block: RFC 2104 hashes it first
        ("not hex at all", "dealer"),  # a secret string, used as its UTF-8 bytes
        ("abc", "deal:2"),  # odd length: not hex either
    ],
)
def test_blocks_are_hmac_sha256_of_purpose_and_counter(key: str, purpose: str) -> None:
    """api.md "Fair deals": block i is HMAC-SHA256(key, f"{purpose}:" + i as 8 big-endian
    bytes); the generator's precomputed pads give exactly what `hmac.new` gives."""
    try:
        raw = bytes.fromhex(key)
    except ValueError:
        raw = key.encode()
    rng = DealRng(key, purpose)
    for i in range(1, 6):
        msg = purpose.encode() + b":" + i.to_bytes(8, "big")
        expected = int.from_bytes(hmac.new(raw, msg, hashlib.sha256).digest(), "big")
        assert rng._block() == expected
