"""Verdicts at tables of many: the substitution sets' GSPRT checked against the worked example of
docs/evaluation.md ("Verdicts at tables of many"), whose figures were computed by hand from the
counts below, never by this code."""

from __future__ import annotations

import math

import pytest

from tourney.stats.elo import StatsError, score_from_elo
from tourney.stats.sprt import (
    ScoreSprt,
    Sprt,
    fit_mean,
    lattice_size,
    llr_means,
    set_index,
    set_mean,
    set_prior_variance,
)

#: 500 deal sets at a table of 4: D = k/12, k -> how many sets
EXAMPLE = {-4: 8, -3: 20, -2: 46, -1: 82, 0: 146, 1: 94, 2: 56, 3: 32, 4: 16}


def example_test(elo1: float = 10) -> Sprt:
    test = Sprt(0, elo1, unit="set", players=4)
    for k, n in EXAMPLE.items():
        for _ in range(n):
            test.add_set(k / 12)
    return test


def test_the_lattice_has_every_value_a_set_can_take():
    assert [lattice_size(k) for k in range(2, 9)] == [9, 25, 49, 81, 121, 169, 225]
    assert set_index(-1, 4) == 0 and set_index(1, 4) == 48 and set_index(0, 4) == 24
    assert set_index(1 / 24, 4) == 25  # a shared place: half a step
    with pytest.raises(StatsError, match="not on the lattice"):
        set_index(0.01, 4)
    with pytest.raises(StatsError, match="lies in"):
        set_index(1.5, 4)


def test_the_worked_example_gives_the_hand_computed_llr_and_verdict():
    test = example_test()
    # exact GLR by hand on the 9 values seen: 3.450; fishtest's 0.001 for the 40 empty cells of
    # the lattice moves it by less than 0.01
    assert test.llr == pytest.approx(3.450, abs=0.01)
    assert test.bounds == pytest.approx((-2.944439, 2.944439), abs=1e-6)
    assert test.verdict == "H1"
    assert test.units == 500


def test_the_exact_fit_matches_the_hand_computed_thetas():
    # on D's scale q_j = p_j/(1+θ(a_j-δ)) with θ0 = 0.83913 (δ0 = 0) and θ1 = 0.11594
    # (δ1 = L(10)-½ = 0.014387); on t = (1+D)/2 the same fit, so the same q
    d = [k / 12 for k in EXAMPLE]
    p = [n / 500 for n in EXAMPLE.values()]
    t = [(1 + x) / 2 for x in d]
    fits = []
    for elo, theta, delta in ((0, 0.83913, 0.0), (10, 0.11594, 0.014387)):
        q = fit_mean(t, p, set_mean(elo))
        assert q == pytest.approx([pj / (1 + theta * (a - delta)) for pj, a in zip(p, d)], rel=2e-5)
        fits.append(q)
    assert 500 * sum(pj * math.log(b / a) for pj, a, b in zip(p, *fits)) == pytest.approx(3.450, abs=5e-4)
    # the same numbers through llr_means: the 9 values seen are the whole support when they are
    # the lattice of t from 1/3 to 2/3, i.e. counts on 25 cells with 8 empty ones each side
    counts = [0] * 8 + list(EXAMPLE.values()) + [0] * 8
    assert llr_means(counts, set_mean(0), set_mean(10)) == pytest.approx(3.450, abs=0.01)


def test_the_worked_example_estimate():
    est = example_test().estimate()
    assert est.score == pytest.approx(0.516667, abs=1e-6)  # ½ + D̄, D̄ = 100/6000
    assert est.sd == pytest.approx(0.14024, abs=1e-5)
    assert est.score_low - 0.5 == pytest.approx(0.004374, abs=2e-6)
    assert est.score_high - 0.5 == pytest.approx(0.028959, abs=2e-6)
    assert est.elo == pytest.approx(11.59, abs=0.01)
    assert (est.elo_low, est.elo_high) == pytest.approx((3.04, 20.15), abs=0.01)
    assert est.los == pytest.approx(0.9961, abs=1e-4)
    assert est.games == 4000 and est.nelo is None


def test_elo1_of_5_is_not_yet_an_answer():
    # normal form by hand: 500·0.007195·(2·0.016667-0.007195)/(2·0.019667) = 2.391; the exact GLR
    # sits close to it (2.376): below 2.944, so the test goes on
    test = example_test(elo1=5)
    assert test.llr == pytest.approx(2.38, abs=0.03)
    assert test.verdict is None


def test_at_two_players_the_set_is_the_duel_pentanomial():
    # a duplicate pair's score s (0, ¼ … 1 per game) is D = s - ½; the GLR does not change when
    # the scores are moved and scaled, so the two tests agree but for fishtest's 0.001 in the
    # four lattice cells a pair never reaches
    pairs = [3, 40, 120, 60, 9]
    duel = Sprt(0, 10, unit="pair", counts=list(pairs))
    table = Sprt(0, 10, unit="set", players=2)
    for i, n in enumerate(pairs):
        for _ in range(n):
            table.add_set(i / 4 - 0.5)
    assert table.llr == pytest.approx(duel.llr, rel=0.01)
    assert table.estimate().elo == pytest.approx(duel.estimate().elo, abs=1e-9)
    assert set_mean(10) == pytest.approx((0.5 + score_from_elo(10)) / 2)


def test_luck_adjusted_sets_use_the_normal_model_on_t():
    test = ScoreSprt(0, 10, unit="set", players=4)
    for k, n in EXAMPLE.items():
        for _ in range(n):
            test.add_set(k / 12)
    # the normal form by hand is 3.465 with σ̂² = 0.019667 on D; on t the prior of 10 sets of
    # variance set_prior_variance(4) = 5/288 is pooled with 500 sets of variance 0.019667/4
    var_t = (500 * 0.019667 / 4 + 10 * 5 / 288) / 510
    hand = 500 * (set_mean(10) - set_mean(0)) * (2 * (0.5 + 0.016667 / 2) - set_mean(0) - set_mean(10)) / (2 * var_t)
    assert set_prior_variance(4) == pytest.approx(5 / 288)
    assert test.llr == pytest.approx(hand, rel=1e-3)
    assert 3.0 < test.llr < 3.465  # the prior only ever pulls the LLR towards 0
    assert test.estimate().elo == pytest.approx(11.59, abs=0.01)


def test_set_tests_read_back_from_their_dict():
    test = example_test()
    again = Sprt.from_dict(test.to_dict())
    assert again.players == 4 and again.counts == test.counts and math.isclose(again.llr, test.llr)
