"""One game's rating update under Weng and Lin's Plackett-Luce model (Weng & Lin 2011, "A
Bayesian approximation method for online ranking", JMLR 12, Algorithm 4), for free-for-all
games of one player a side: the update :mod:`tourney.results.ratings` applies to every stored
game, with openskill's defaults (mu 25, sigma 25/3, beta 25/6, kappa 0.0001, tau 25/300).

openskill computes the same numbers, but through rating objects, deep copies and sorting
helpers that cost the results writer over a third of its time per game; this is the same
arithmetic over plain floats, in the same order, so that both give bit-identical results
(tests/test_weng_lin.py checks that, and a two-player game against the values worked by hand).
"""

from __future__ import annotations

import math

MU = 25.0
SIGMA = 25.0 / 3.0
BETA = 25.0 / 6.0
KAPPA = 0.0001
TAU = 25.0 / 300.0


def rate(before: list[tuple[float, float]], ranks: list[float]) -> list[tuple[float, float]]:
    """``(mu, sigma)`` of each player after one game, from ``(mu, sigma)`` before it and each
    player's rank (lower is better; equal ranks tie; ranks are truncated to integers, as
    openskill does). Players are given in seat order and come back in it.

    >>> [(round(m, 4), round(s, 4)) for m, s in rate([(25.0, SIGMA), (25.0, SIGMA)], [1, 2])]
    [(27.6354, 8.0659), (22.3646, 8.0659)]
    """
    n = len(before)
    # openskill adds the dynamics term tau to every sigma first, then works in rank order
    # (a stable sort, ties keep seat order); the sums below follow its order of addition
    order = sorted(range(n), key=lambda i: ranks[i])
    rank = [int(ranks[i]) for i in order]
    mu = [before[i][0] for i in order]
    sigma = [math.sqrt(before[i][1] * before[i][1] + TAU * TAU) for i in order]
    var = [s**2 for s in sigma]

    beta_squared = BETA**2
    collective = 0.0
    for v in var:
        collective += v + beta_squared
    c = math.sqrt(collective)
    strength = [math.exp(m / c) for m in mu]
    # sum_q[q]: the strengths of everyone ranked no better than q; a[q]: how many share q's rank
    sum_q = [0.0] * n
    for i in range(n):
        for q in range(n):
            if rank[i] >= rank[q]:
                sum_q[q] += strength[i]
    a = [sum(1 for r in rank if r == rank[q]) for q in range(n)]

    after: list[tuple[float, float]] = [(0.0, 0.0)] * n
    for i in range(n):
        omega = delta = 0.0
        for q in range(n):
            if rank[q] <= rank[i]:
                p = strength[i] / sum_q[q]
                delta += p * (1 - p) / a[q]
                omega += (1 - p) / a[q] if q == i else -p / a[q]
        omega *= var[i] / c
        delta *= var[i] / c**2
        delta *= math.sqrt(var[i]) / c  # openskill's default gamma
        share = sigma[i] ** 2 / var[i]  # one player a side: the whole team's variance
        new_mu = mu[i] + share * omega * 1.0
        new_sigma = sigma[i] * math.sqrt(max(1 - share * delta * 1.0, KAPPA))
        after[order[i]] = (new_mu, new_sigma)
    return after
