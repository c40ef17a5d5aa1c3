"""The Plackett-Luce rating update the results writer applies to every game
(tourney/stats/weng_lin.py): the values worked by hand for one game, and bit-identical results
to openskill's implementation of the same model on random games."""

import math

from hypothesis import given
from hypothesis import strategies as st
from openskill.models import PlackettLuce

from tourney.stats import weng_lin


def test_two_new_players_one_game_matches_the_hand_computation():
    # Weng & Lin, Algorithm 4, worked by hand for two new players (mu 25, sigma 25/3):
    # sigma^2 + tau^2 = 625/9 + 1/144 = 69.45139; c^2 = 2 (69.45139 + (25/6)^2) = 173.625;
    # equal strengths, so the winner's p = 1/2 at q = 0: omega = 1/2 * 69.45139 / c = 2.63539,
    # delta = 1/4 * 69.45139 / c^2 * gamma with gamma = sqrt(69.45139) / c = 0.632456
    var = 625 / 9 + (25 / 300) ** 2
    c = math.sqrt(2 * (var + (25 / 6) ** 2))
    omega = 0.5 * var / c
    delta = 0.25 * var / c**2 * math.sqrt(var) / c
    sigma = math.sqrt(var) * math.sqrt(1 - delta)
    (mu_w, sigma_w), (mu_l, sigma_l) = weng_lin.rate([(25.0, 25 / 3), (25.0, 25 / 3)], [1, 2])
    assert math.isclose(mu_w, 25 + omega, rel_tol=1e-12) and round(mu_w, 4) == 27.6354
    assert math.isclose(mu_l, 25 - omega, rel_tol=1e-12)
    assert math.isclose(sigma_w, sigma, rel_tol=1e-12) and math.isclose(sigma_l, sigma, rel_tol=1e-12)
    assert round(sigma_w, 4) == 8.0659


def test_a_tie_moves_nobody_between_equals():
    (m1, s1), (m2, s2) = weng_lin.rate([(25.0, 25 / 3), (25.0, 25 / 3)], [1, 1])
    assert m1 == m2 and math.isclose(m1, 25.0, abs_tol=1e-12)
    assert s1 == s2 < 25 / 3 + 0.01


players = st.tuples(st.floats(-20, 80), st.floats(0.05, 10))


@given(st.lists(st.tuples(players, st.integers(-3, 9)), min_size=2, max_size=8))
def test_bit_identical_to_openskill(seats):
    model = PlackettLuce(mu=25.0, sigma=25 / 3)
    before = [p for p, _ in seats]
    ranks = [float(r) for _, r in seats]
    expected = model.rate([[model.rating(mu=mu, sigma=sigma)] for mu, sigma in before], ranks=ranks)
    assert weng_lin.rate(before, ranks) == [(t[0].mu, t[0].sigma) for t in expected]
