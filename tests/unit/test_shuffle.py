"""Deals are a pure function of the deal key, unbiased, and committed to (api.md "Fair deals")."""

from __future__ import annotations

from domain.shuffle import DealRng, commitment, seed_key


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
