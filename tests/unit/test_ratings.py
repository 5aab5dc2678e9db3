"""The rating model's predicted chance of an order (store/ratings.py `win_probability`)."""

from __future__ import annotations

import math
from itertools import permutations

from store.ratings import MODEL, Skill, win_probability


def _plackett_luce(skills: list[Skill], a: int, b: int) -> float:
    """The chance that seat `a` ranks above seat `b`, summed over every full ranking of the
    seats by Plackett-Luce's likelihood with weights exp(mu / c), c over all the seats."""
    c = math.sqrt(sum(s.sigma**2 + MODEL.beta**2 for s in skills))
    weight = [math.exp(s.mu / c) for s in skills]
    total = 0.0
    for order in permutations(range(len(skills))):
        chance, left = 1.0, sum(weight)
        for seat in order:
            chance *= weight[seat] / left
            left -= weight[seat]
        if order.index(a) < order.index(b):
            total += chance
    return total


def test_the_chance_of_an_order_in_a_three_seat_match_is_plackett_luces() -> None:
    expert, basic, random = Skill(31.1, 2.6), Skill(28.1, 2.6), Skill(16.2, 3.0)
    seats = [expert, basic, random]
    assert math.isclose(win_probability(expert, basic, [random]), _plackett_luce(seats, 0, 1))
    assert math.isclose(win_probability(basic, random, [expert]), _plackett_luce(seats, 1, 2))


def test_two_seats_need_no_others_and_the_chances_of_both_orders_add_up() -> None:
    a, b = Skill(30.0, 1.5), Skill(27.0, 2.0)
    assert math.isclose(win_probability(a, b), _plackett_luce([a, b], 0, 1))
    assert math.isclose(win_probability(a, b) + win_probability(b, a), 1.0)
    assert win_probability(a, a) == 0.5


def test_a_third_seat_widens_c_and_draws_the_chance_towards_even() -> None:
    a, b = Skill(30.0, 1.5), Skill(27.0, 2.0)
    assert 0.5 < win_probability(a, b, [Skill(20.0, 3.0)]) < win_probability(a, b)
