"""Ratings by maximum likelihood over all games: Bradley–Terry for two players, Plackett–Luce for
placements at larger tables, with 95% intervals and rank ranges (docs/evaluation.md, "The ladder").

Each entrant ``i`` has a log-strength ``θ_i``. A game is read as its placements, best first, as
a run of choices (Plackett–Luce): the winner is chosen from everyone at the table with chance
``e^θ_w / Σ e^θ``, the second from those left, and so on; with two players this is Bradley–Terry,
``P(a beats b) = 1 / (1 + e^-(θ_a - θ_b))``. Entrants tied on a place share its choice: each of
``m`` tied entrants is counted as chosen with weight ``1/m`` from everyone not placed above them,
so a two-player draw is half a win each (as in Elo), and a table with no ties is exact
Plackett–Luce. One *stage* is one such choice: who was chosen, from which set, with what weight.

The fit is Newton's method on the log-likelihood, started from the last fit (a warm start: a few
new games move the optimum a little, so one or two steps finish it), with a weak normal prior
``θ ~ N(0, 1/prior)`` so that an entrant that won (or lost) every game keeps a finite rating; at
``prior = 0`` it is the plain maximum-likelihood estimate. The covariance of the estimates is the
inverse of the information matrix (the negative Hessian); ratings are centred on the field's
mean, so an interval is against the average entrant, and the interval of a *difference* uses
the covariance of the two (they are not independent: both were estimated from shared games).

numpy is needed here (not elsewhere in :mod:`tourney.stats`): a refit over a million games is
array arithmetic, too slow as Python loops. Ratings are shown on the Elo scale:
``elo = θ · 400 / ln 10``, so a difference of 200 means the stronger wins 76% of two-player games.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from tourney.stats.elo import Z95, StatsError
from tourney.stats.separation import RankRange, rank_ranges_from

#: Elo points per unit of log-strength: 400 / ln 10
ELO_PER_UNIT = 400.0 / math.log(10.0)

#: the prior's precision: as informative as a fifth of one game between equals (a game's
#: information is p(1-p) = 1/4 at p = 1/2), enough to keep a perfect record finite
PRIOR = 0.05


def stages_of(placements: Sequence[tuple[int, float]]) -> list[tuple[int, tuple[int, ...], float]]:
    """The choices one game is read as: ``(chosen, from_whom, weight)`` each, from the game's
    ``(entrant_index, placement)`` per seat (lower placement is better, equal ones tie). The
    last entrant left has no choice to make and gives no stage.

    >>> stages_of([(0, 2), (1, 1), (2, 3)])
    [(1, (0, 1, 2), 1.0), (0, (0, 2), 1.0)]
    >>> stages_of([(0, 1), (1, 1)])  # a draw: half a win each
    [(0, (0, 1), 0.5), (1, (0, 1), 0.5)]
    """
    ordered = sorted(placements, key=lambda s: s[1])
    if len({i for i, _ in ordered}) != len(ordered):
        raise StatsError(f"a game seats the same entrant twice: {[i for i, _ in ordered]}")
    out: list[tuple[int, tuple[int, ...], float]] = []
    start = 0
    while start < len(ordered):
        end = start
        while end < len(ordered) and ordered[end][1] == ordered[start][1]:
            end += 1
        remaining = tuple(sorted(i for i, _ in ordered[start:]))
        if len(remaining) > 1:
            weight = 1.0 / (end - start)
            out.extend((i, remaining, weight) for i, _ in ordered[start:end])
        start = end
    return out


class Games:
    """The games a fit reads, kept as arrays of distinct stages (see the module docstring) with
    their summed weights: the same choice from the same set, made again, adds to its row's weight
    instead of adding a row, so a ladder that keeps pairing neighbours keeps its arrays short.

    ``add`` takes one game's ``(entrant_index, placement)`` per seat; indices run from 0 and
    the number of entrants can grow between fits."""

    def __init__(self, width: int = 8):
        self.width = width
        self.count = 0
        self._members = np.empty((0, width), dtype=np.int64)
        self._chosen = np.empty(0, dtype=np.int64)
        self._weight = np.empty(0, dtype=np.float64)
        self._index: dict[tuple[int, tuple[int, ...]], int] | None = {}
        self._new: list[tuple[int, tuple[int, ...]]] = []   # rows not yet in the arrays
        self._added: dict[int, float] = {}                   # row -> weight not yet in the arrays

    def add(self, placements: Sequence[tuple[int, float]]) -> None:
        if len(placements) > self.width:
            raise StatsError(f"a game of {len(placements)} seats, more than {self.width}")
        index = self._keys()
        for chosen, group, weight in stages_of(placements):
            row = index.get((chosen, group))
            if row is None:
                row = index[(chosen, group)] = len(self._chosen) + len(self._new)
                self._new.append((chosen, group))
            self._added[row] = self._added.get(row, 0.0) + weight
        self.count += 1

    def _keys(self) -> dict[tuple[int, tuple[int, ...]], int]:
        if self._index is None:  # after add_arrays: rebuilt once, when a single game comes again
            self._index = {(int(c), tuple(int(x) for x in m if x >= 0)): r
                           for r, (c, m) in enumerate(zip(self._chosen, self._members))}
        return self._index

    def add_arrays(self, members: np.ndarray, chosen: np.ndarray, weight: np.ndarray, games: int) -> None:
        """Add stages already in array form (``members`` sorted in each row, padded with -1): a
        benchmark's million games without a Python loop per game."""
        self._flush()
        pad = np.full((len(members), self.width), -1, dtype=np.int64)
        pad[:, :members.shape[1]] = members
        rows = np.concatenate([np.column_stack([self._chosen, self._members]),
                               np.column_stack([chosen.astype(np.int64), pad])])
        unique, inverse = np.unique(rows, axis=0, return_inverse=True)
        weights = np.bincount(inverse.ravel(), weights=np.concatenate([self._weight, weight]), minlength=len(unique))
        self._chosen, self._members = unique[:, 0].copy(), unique[:, 1:].copy()
        self._weight = weights.astype(np.float64)
        self._index = None
        self.count += games

    def _flush(self) -> None:
        if self._new:
            members = np.full((len(self._new), self.width), -1, dtype=np.int64)
            for r, (_, group) in enumerate(self._new):
                members[r, :len(group)] = group
            self._members = np.concatenate([self._members, members])
            self._chosen = np.concatenate([self._chosen, np.array([c for c, _ in self._new], dtype=np.int64)])
            self._weight = np.concatenate([self._weight, np.zeros(len(self._new))])
            self._new = []
        if self._added:
            rows = np.fromiter(self._added.keys(), dtype=np.int64, count=len(self._added))
            self._weight[rows] += np.fromiter(self._added.values(), dtype=np.float64, count=len(self._added))
            self._added = {}

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(members, chosen, weight)``: one row per distinct stage; ``members`` padded with -1
        and trimmed to the widest stage."""
        self._flush()
        used = int((self._members >= 0).sum(axis=1).max()) if len(self._members) else 1
        return self._members[:, :max(used, 1)], self._chosen, self._weight


@dataclass
class Fit:
    """Fitted ratings (``theta``, log-strengths centred on the field) and their covariance."""

    theta: np.ndarray
    cov: np.ndarray
    games: int
    loglik: float
    iterations: int
    prior: float = PRIOR
    #: each entrant's information (summed stage weights) when ``cov`` was last computed in full
    basis: np.ndarray | None = None

    @property
    def n(self) -> int:
        return len(self.theta)

    def se(self, i: int) -> float:
        return math.sqrt(max(self.cov[i, i], 0.0))

    def diff_se(self, i: int, j: int) -> float:
        """Standard error of ``θ_i - θ_j`` (from the covariance: the two are not independent)."""
        return math.sqrt(max(self.cov[i, i] + self.cov[j, j] - 2 * self.cov[i, j], 0.0))

    def separated(self, i: int, j: int, z: float = Z95) -> bool:
        """Whether ``i`` is above ``j`` with the difference's 95% interval clear of 0."""
        return bool(self.theta[i] - self.theta[j] - z * self.diff_se(i, j) > 0)

    def elo(self, i: int) -> tuple[float, float, float]:
        """``(rating, low, high)`` on the Elo scale, against the field's mean, at 95%."""
        half = Z95 * self.se(i)
        t = float(self.theta[i])
        return t * ELO_PER_UNIT, (t - half) * ELO_PER_UNIT, (t + half) * ELO_PER_UNIT

    def centred(self, on: Sequence[int]) -> Fit:
        """The same fit with ratings measured from the mean of the entrants ``on`` (those that
        have played, say): ``θ - mean_on(θ)``, covariance ``A C Aᵀ`` with ``A = I - 1 wᵀ``,
        ``w`` = 1/m on ``on``. Differences do not change; single intervals then say where an
        entrant stands against that field, not how sure the prior is of the field's level."""
        on = list(on)
        if not on:
            return self
        w = np.zeros(self.n)
        w[on] = 1.0 / len(on)
        a = np.eye(self.n) - np.outer(np.ones(self.n), w)
        return Fit(self.theta - float(w @ self.theta), a @ self.cov @ a.T, self.games, self.loglik,
                   self.iterations, self.prior, self.basis)

    def rank_ranges(self, indices: Sequence[int] | None = None, z: float = Z95) -> dict[int, RankRange]:
        """Rank ranges (docs/evaluation.md) among ``indices`` (default: everyone), by index."""
        chosen = list(range(self.n)) if indices is None else list(indices)
        order = sorted(chosen, key=lambda i: (-self.theta[i], i))
        # every pair's verdict at once, by the same arithmetic as separated(): a page asks for
        # these on every request, and a pair at a time costs milliseconds per hundred versions
        idx = np.array(chosen, dtype=np.int64)
        theta, cov = self.theta[idx], self.cov[np.ix_(idx, idx)]
        var = np.diag(cov)
        se = np.sqrt(np.maximum(var[:, None] + var[None, :] - 2 * cov, 0.0))
        apart = ((theta[:, None] - theta[None, :] - z * se) > 0).tolist()
        at = {str(i): k for k, i in enumerate(chosen)}
        ranges = rank_ranges_from([str(i) for i in order], lambda a, b: apart[at[a]][at[b]])
        return {int(r.entrant): r for r in ranges}


def _probabilities(theta: np.ndarray, members: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each stage's choice probabilities over its members (0 on padding) and log-normaliser."""
    padded = np.append(theta, -np.inf)
    x = padded[members]  # -1 indexes the -inf at the end
    top = x.max(axis=1, keepdims=True)
    e = np.exp(x - top)
    total = e.sum(axis=1, keepdims=True)
    return e / total, (top + np.log(total))[:, 0]


def loglik(theta: np.ndarray, members: np.ndarray, chosen: np.ndarray, weight: np.ndarray) -> float:
    """The log-likelihood of the stages at ``theta`` (without the prior)."""
    if not len(chosen):
        return 0.0
    _, lognorm = _probabilities(theta, members)
    return float((weight * (theta[chosen] - lognorm)).sum())


def _gradient(theta, members, chosen, weight) -> np.ndarray:
    n = len(theta)
    if not len(chosen):
        return np.zeros(n)
    p, _ = _probabilities(theta, members)
    idx = np.where(members >= 0, members, n)
    return (np.bincount(chosen, weights=weight, minlength=n + 1)
            - np.bincount(idx.ravel(), weights=(weight[:, None] * p).ravel(), minlength=n + 1))[:n]


def _gradient_and_information(theta, members, chosen, weight) -> tuple[np.ndarray, np.ndarray]:
    n = len(theta)
    if not len(chosen):
        return np.zeros(n), np.zeros((n, n))
    p, _ = _probabilities(theta, members)
    wp = weight[:, None] * p
    idx = np.where(members >= 0, members, n)
    grad = (np.bincount(chosen, weights=weight, minlength=n + 1)
            - np.bincount(idx.ravel(), weights=wp.ravel(), minlength=n + 1))[:n]
    info: np.ndarray = np.diag(np.bincount(idx.ravel(), weights=wp.ravel(), minlength=n + 1)[:n])
    flat = np.zeros((n + 1) * (n + 1))
    width = members.shape[1]
    for a in range(width):
        for b in range(width):
            flat += np.bincount(idx[:, a] * (n + 1) + idx[:, b], weights=wp[:, a] * p[:, b],
                                minlength=(n + 1) * (n + 1))
    return grad, info - flat.reshape(n + 1, n + 1)[:n, :n]


def _inverse(info: np.ndarray, prior: float) -> np.ndarray:
    n = len(info)
    if prior > 0:
        return np.linalg.inv(info + prior * np.eye(n))
    # no prior: ratings are only known up to a shift; fix the mean at 0 (the pseudo-inverse);
    # entrants in groups that never met are not comparable at all (pinv gives them no link)
    j = np.full((n, n), 1.0 / n)
    try:
        return np.linalg.inv(info + j) - j
    except np.linalg.LinAlgError:
        return np.linalg.pinv(info)


def _solve(info: np.ndarray, prior: float, grad: np.ndarray) -> np.ndarray:
    """Newton's step: ``(info + prior·I)⁻¹ grad`` (the mean held at 0 without a prior)."""
    n = len(info)
    if prior > 0:
        return np.linalg.solve(info + prior * np.eye(n), grad)
    try:
        step = np.linalg.solve(info + np.full((n, n), 1.0 / n), grad)
    except np.linalg.LinAlgError:
        step = np.linalg.pinv(info) @ grad
    return step - step.mean()


NO_FINITE = ("no finite maximum-likelihood rating: an entrant won or lost every comparison it "
             "was in (use a prior)")


#: the covariance is computed again in full once some entrant's information has grown by this
#: share since it last was (or an entrant is new); until then a refit reuses it ...
REFRESH = 0.1
#: ... on fits of at least this many entrants; smaller ones invert at every step, which costs
#: little there, and keeps the matchmaker's variances exact (bench/ladder.py: a kept covariance
#: at 50 entrants made settling its top 10 take twice the games)
CHORD_FROM = 250


def _weights(n: int, members: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """Each entrant's summed stage weights: how much of the data it takes part in."""
    idx = np.where(members >= 0, members, n)
    return np.bincount(idx.ravel(), weights=np.repeat(weight, members.shape[1]), minlength=n + 1)[:n]


def fit(n: int, games: Games, start: Fit | np.ndarray | None = None, prior: float = PRIOR,
        tol: float = 1e-7, max_iter: int = 100, refresh: float = REFRESH) -> Fit:
    """Ratings of entrants ``0 .. n-1`` from ``games``, from ``start`` (the last fit, or its
    ``theta``; entrants new since then start at 0) or from 0. With ``prior = 0`` an entrant with
    a perfect record has no finite estimate: :class:`StatsError`.

    Newton's method, each step solving with the information matrix at the current point; the
    covariance is its inverse at the end. A warm start from a :class:`Fit` whose covariance still
    holds (no entrant new, none with ``refresh`` more information than when it was computed: a
    batch of games on a large ladder) takes *chord* steps instead, with the last covariance as the
    inverse Hessian: the same optimum, without a new n × n inversion; the covariance is kept.
    That is done from :data:`CHORD_FROM` entrants on."""
    members, chosen, weight = games.arrays()
    theta = np.zeros(n)
    if start is not None and n:
        old = start.theta if isinstance(start, Fit) else np.asarray(start, dtype=float)
        theta[:min(n, len(old))] = old[:n]
        theta -= theta.mean()
    basis = _weights(n, members, weight)
    chord = (isinstance(start, Fit) and n >= CHORD_FROM and start.n == n and start.basis is not None
             and start.prior == prior and bool(np.all(basis <= start.basis * (1 + refresh) + 1e-9)))

    def objective(t: np.ndarray) -> float:
        return loglik(t, members, chosen, weight) - 0.5 * prior * float(t @ t)

    current = objective(theta)
    iterations = 0
    info = np.zeros((n, n))
    while iterations < max_iter:
        iterations += 1
        if chord:
            assert isinstance(start, Fit)
            grad = _gradient(theta, members, chosen, weight) - prior * theta
            step = start.cov @ grad
        else:
            grad, info = _gradient_and_information(theta, members, chosen, weight)
            grad -= prior * theta
            step = _solve(info, prior, grad)
        scale = 1.0
        while True:  # the step, halved while it would lower the likelihood
            trial = theta + scale * step
            value = objective(trial)
            if value >= current - 1e-12 or scale < 1e-6:
                break
            scale /= 2
        theta, current = trial - (trial.mean() if prior == 0 else 0.0), value
        if not np.isfinite(theta).all() or np.abs(theta).max(initial=0.0) > 30:
            raise StatsError(NO_FINITE)
        if np.abs(scale * step).max(initial=0.0) < tol:
            break
        if chord and iterations >= 20:  # too far for chord steps: Newton's from here
            chord = False
    if chord:
        assert isinstance(start, Fit)
        return Fit(theta, start.cov, games.count, current, iterations, prior, start.basis)
    return Fit(theta, _inverse(info, prior), games.count, current, iterations, prior, basis)


def fit_games(n: int, games: Iterable[Sequence[tuple[int, float]]], prior: float = PRIOR) -> Fit:
    """:func:`fit` from games given as ``(entrant_index, placement)`` per seat."""
    kept = Games()
    for g in games:
        kept.add(g)
    return fit(n, kept, prior=prior)
