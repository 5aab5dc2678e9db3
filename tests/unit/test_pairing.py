"""The pairing's grouping (issue 32, domain/pairing.py): only seeks of the very same terms
meet, rating neighbours together, and a seek that waited past the delay gets the bots
nearest its rating; the same group always has the same pairing id."""

from __future__ import annotations

from domain.pairing import Group, Waiting, group, nearest_bots, pairing_id, terms_key

GIN = terms_key("three-hand-gin", True, {"mode": "per_move", "move_s": 60}, 3, {"x": 1})
DUO = terms_key("manipulation-rummy", False, None, 2, {})
BOTS = {"random": -5.0, "basic": 5.0, "expert": 15.0}


def _seek(n: int, rating: float, terms: str = DUO, seats: int = 2, at: int = 0) -> Waiting:
    return Waiting(f"s{n}", f"a{n}", terms, seats, at, rating)


def _accounts(groups: list[Group]) -> list[tuple[str, ...]]:
    return [tuple(s.account for s in g.seeks) for g in groups]


def test_near_ratings_meet() -> None:
    seeks = [_seek(i, r) for i, r in enumerate([30.0, 10.0, 20.0, 29.0, 9.0, 19.0])]
    groups = group(seeks, 0, 1000, BOTS)
    assert _accounts(groups) == [("a0", "a3"), ("a2", "a5"), ("a1", "a4")]
    assert all(g.bots == () for g in groups)


def test_only_seeks_of_the_same_terms_meet() -> None:
    other_clock = terms_key("manipulation-rummy", False, {"mode": "per_move", "move_s": 30}, 2, {})
    rated = terms_key("manipulation-rummy", True, None, 2, {})
    seeks = [_seek(0, 1.0), _seek(1, 1.0, other_clock), _seek(2, 1.0, rated), _seek(3, 2.0)]
    assert _accounts(group(seeks, 0, 1000, BOTS)) == [("a3", "a0")]
    assert terms_key("v", True, {"b": 1, "a": 2}, 2, {"y": 1, "x": 2}) == terms_key(
        "v", True, {"a": 2, "b": 1}, 2, {"x": 2, "y": 1}
    )


def test_a_seek_waiting_past_the_delay_gets_the_bots_nearest_its_rating() -> None:
    lone = _seek(0, 14.0, GIN, 3, at=1000)
    assert group([lone], 1999, 1000, BOTS) == []  # not long enough
    filled = group([lone], 2000, 1000, BOTS)
    assert filled == [Group((lone,), ("expert", "basic"))]
    leftover = [_seek(1, 0.0, GIN, 3, at=0), _seek(2, -1.0, GIN, 3, at=1500)]
    made = group(leftover, 1000, 1000, BOTS)  # the oldest has waited long enough
    assert _accounts(made) == [("a1", "a2")] and made[0].bots == ("random",)
    assert nearest_bots([lone], 4, BOTS) is None  # too few bots: it waits on
    assert group([_seek(3, 1.0, DUO, 5)], 10**9, 1, BOTS) == []


def test_leftovers_wait_and_a_full_match_needs_no_bots() -> None:
    seeks = [_seek(i, float(i), GIN, 3) for i in range(4)]
    groups = group(seeks, 0, 1000, BOTS)
    assert _accounts(groups) == [("a3", "a2", "a1")] and groups[0].bots == ()


def test_a_group_is_named_by_its_seeks() -> None:
    a, b = _seek(0, 1.0), _seek(1, 2.0)
    assert Group((a, b)).pairing_id == Group((b, a)).pairing_id == pairing_id(["s1", "s0"])
    assert pairing_id(["s0"]) != pairing_id(["s0", "s1"])
