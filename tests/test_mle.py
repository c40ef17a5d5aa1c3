"""Bradley–Terry and Plackett–Luce ratings by maximum likelihood (tourney/stats/mle.py), checked
against a published worked example, values computed by hand, an independent fit by Hunter's MM
algorithm written out here, and the coverage of its 95% intervals by simulation."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from tourney.stats import mle
from tourney.stats.elo import StatsError
from tourney.stats.mle import ELO_PER_UNIT, Games, fit, fit_games, stages_of


def pairs_to_games(wins: list[list[int]]) -> list[list[tuple[int, float]]]:
    """``wins[i][j]`` games won by i against j, as two-seat games."""
    games = []
    for i, row in enumerate(wins):
        for j, w in enumerate(row):
            games += [[(i, 1), (j, 2)]] * w
    return games


def test_the_bradley_terry_fit_matches_the_published_worked_example():
    """Wikipedia's "Bradley–Terry model" worked example (four teams; team A beat B twice, D once,
    ...): Zermelo's iteration converges to p = 0.640, 1.043, 0.660, 2.270 (normalised to a
    geometric mean of 1)."""
    wins = [[0, 2, 0, 1], [3, 0, 5, 0], [0, 3, 0, 1], [4, 0, 3, 0]]
    f = fit_games(4, pairs_to_games(wins), prior=0)
    p = np.exp(f.theta - f.theta.mean())
    assert [round(float(x), 3) for x in p] == [0.640, 1.043, 0.660, 2.270]


def test_two_players_give_the_log_odds_and_its_variance_by_hand():
    """A beats B 3 times out of 4: θA - θB = ln 3; the information of n games at p is n·p(1-p),
    so the variance of the difference is 1/(4 · ¾ · ¼) = 4/3."""
    f = fit_games(2, [[(0, 1), (1, 2)]] * 3 + [[(1, 1), (0, 2)]], prior=0)
    assert f.theta[0] - f.theta[1] == pytest.approx(math.log(3), abs=1e-9)
    assert f.diff_se(0, 1) ** 2 == pytest.approx(4 / 3, abs=1e-6)
    assert f.theta.sum() == pytest.approx(0, abs=1e-9)  # centred on the field
    assert f.elo(0)[0] - f.elo(1)[0] == pytest.approx(400 * math.log10(3), abs=1e-6)  # 3:1 is 190.8 Elo


def test_a_draw_is_half_a_win_each():
    assert stages_of([(0, 1), (1, 1)]) == [(0, (0, 1), 0.5), (1, (0, 1), 0.5)]
    # 2 wins, 1 loss and 2 draws score like 3 wins and 2 losses: ln(3/2)
    games = [[(0, 1), (1, 2)]] * 2 + [[(1, 1), (0, 2)]] + [[(0, 1), (1, 1)]] * 2
    f = fit_games(2, games, prior=0)
    assert f.theta[0] - f.theta[1] == pytest.approx(math.log(3 / 2), abs=1e-9)


def hunter_mm(n: int, rankings: list[list[int]], iterations: int = 5000) -> list[float]:
    """Plackett–Luce by Hunter's MM algorithm (Ann. Statist. 32, 2004, eq. 30), full rankings
    best first, as an independent reference: γ_i ← w_i / Σ_j Σ_stages(j) [i in stage] / Σ γ."""
    gamma = [1.0] * n
    wins = [0.0] * n
    for r in rankings:
        for i in r[:-1]:
            wins[i] += 1
    for _ in range(iterations):
        denom = [0.0] * n
        for r in rankings:
            for s in range(len(r) - 1):
                total = sum(gamma[i] for i in r[s:])
                for i in r[s:]:
                    denom[i] += 1 / total
        gamma = [wins[i] / denom[i] for i in range(n)]
        mean = sum(math.log(g) for g in gamma) / n
        gamma = [g / math.exp(mean) for g in gamma]
    return [math.log(g) for g in gamma]


def test_plackett_luce_agrees_with_hunters_mm_algorithm():
    rng = random.Random(5)
    strength = [1.0, 0.4, 0.0, -0.5, -1.1]
    rankings = []
    for _ in range(120):
        table = rng.sample(range(5), 4)
        left, order = list(table), []
        while left:  # draw the placements from the model
            weights = [math.exp(strength[i]) for i in left]
            pick = rng.choices(left, weights)[0]
            order.append(pick)
            left.remove(pick)
        rankings.append(order)
    games = [[(i, place) for place, i in enumerate(r, 1)] for r in rankings]
    ours = fit_games(5, games, prior=0).theta
    theirs = hunter_mm(5, rankings, iterations=400)
    assert list(ours) == pytest.approx(theirs, abs=1e-4)


def test_a_table_of_two_is_bradley_terry():
    """Plackett–Luce at two seats is Bradley–Terry: the same games fitted as rankings or as
    pairs give the same ratings."""
    games = pairs_to_games([[0, 3, 1], [2, 0, 4], [2, 1, 0]])
    assert list(fit_games(3, games, prior=0).theta) == pytest.approx(
        hunter_mm(3, [[a for a, _ in sorted(g, key=lambda s: s[1])] for g in games], 400), abs=1e-4)


def test_a_warm_start_reaches_the_same_optimum_without_a_new_inversion(monkeypatch):
    rng = random.Random(2)
    kept = Games(width=4)
    for _ in range(400):
        table = rng.sample(range(12), 4)
        kept.add([(i, place) for place, i in enumerate(sorted(table, key=lambda i: i + rng.gauss(0, 4)), 1)])
    first = fit(12, kept)
    for _ in range(10):
        table = rng.sample(range(12), 4)
        kept.add([(i, place) for place, i in enumerate(table, 1)])
    monkeypatch.setattr(mle, "CHORD_FROM", 10)  # as on a large ladder
    warm = fit(12, kept, start=first)
    cold = fit(12, kept)
    assert list(warm.theta) == pytest.approx(list(cold.theta), abs=1e-6)
    # 10 games more on 400: no entrant's information grew by 10%, so the covariance is kept
    # (chord steps, no new n x n inversion), and it is still that of the new data within 5%
    assert warm.cov is first.cov
    assert np.diag(warm.cov) == pytest.approx(np.diag(cold.cov), rel=0.05)
    # a new entrant (or 10% more information for one) makes the refit compute it again
    kept.add([(12, 1), (0, 2)])
    again = fit(13, kept, start=warm)
    assert again.cov is not warm.cov and again.cov.shape == (13, 13)


def test_a_perfect_record_needs_the_prior():
    games = [[(0, 1), (1, 2)]] * 5
    with pytest.raises(StatsError, match="won or lost every"):
        fit_games(2, games, prior=0)
    f = fit_games(2, games)  # the default prior keeps it finite, and A is above B
    assert 0 < (f.theta[0] - f.theta[1]) * ELO_PER_UNIT < 2000
    # the normal interval is cautious at the extremes (its variance grows as p nears 1): 5-0
    # does not separate the two, 30-0 does
    assert not f.separated(0, 1)
    assert fit_games(2, [[(0, 1), (1, 2)]] * 30).separated(0, 1)


def test_the_95_percent_interval_of_a_difference_covers_the_truth_about_95_percent_of_the_time():
    """By simulation: 200 ladders of 6 entrants with known strengths, 4-seat tables drawn from
    Plackett–Luce; the interval of θ0 - θ1 (and of θ2 - θ5) must cover the true difference about
    95% of the time (binomial sd at 400 checks: 1.1%)."""
    rng = np.random.default_rng(11)
    truth = np.array([0.6, 0.3, 0.0, -0.2, -0.3, -0.4])
    covered = checks = 0
    for _ in range(200):
        kept = Games(width=4)
        for _ in range(150):
            table = rng.choice(6, size=4, replace=False)
            keys = truth[table] + rng.gumbel(size=4)  # Gumbel noise: the ranking is Plackett–Luce
            kept.add([(int(i), place) for place, i in enumerate(table[np.argsort(-keys)], 1)])
        f = fit(6, kept, prior=0)
        for a, b in ((0, 1), (2, 5)):
            diff = f.theta[a] - f.theta[b]
            covered += abs(diff - (truth[a] - truth[b])) <= 1.959964 * f.diff_se(a, b)
            checks += 1
    assert 0.925 <= covered / checks <= 0.975


def test_centred_ratings_keep_every_difference():
    games = pairs_to_games([[0, 3, 1], [2, 0, 4], [2, 1, 0]])
    f = fit_games(4, games)  # entrant 3 has not played
    c = f.centred([0, 1, 2])
    assert c.theta[:3].sum() == pytest.approx(0, abs=1e-12)
    assert c.diff_se(0, 1) == pytest.approx(f.diff_se(0, 1), abs=1e-12)
    assert c.theta[0] - c.theta[2] == pytest.approx(f.theta[0] - f.theta[2], abs=1e-12)
