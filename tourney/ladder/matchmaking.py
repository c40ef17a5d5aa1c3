"""Which tables the ladder plays next: each chosen for what it tells about the part of the
ranking still in doubt (docs/evaluation.md, "The ladder: ratings and matchmaking").

The ranking is settled where every two neighbours (adjacent in the current order) are separated
at 95%: ``|θa - θb| > z·sd(θa - θb)``. A table's worth is how much it is expected to shrink the
variance of the neighbours' differences that still count, each as a share of what it is now:

    gain(T) = Σ over counted neighbour pairs (a, b) of  w_ab · (Var_ab - Var'_ab) / Var_ab

where ``Var'`` is the variance after the table's game, from the fit's covariance ``C`` and the
game's expected Fisher information ``F_T`` (a Bayesian update of a normal posterior:
``C' = C - C_T (I + F_T C_TT)⁻¹ F_T C_T``). ``F_T`` sums, over the table's pairs,
``p(1-p)`` times the pair's outer product, scaled by ``4(K - H_K) / (K(K-1))`` (H_K the K-th
harmonic number) so that a table of K equals carries what a Plackett–Luce ranking of K carries;
with two players it is exact Bradley–Terry information.

A table is built around a *focus*, then filled greedily from the focus's neighbourhood in the
order (the versions within a few places of it) with the entrant that adds the most gain. The
focus is, in this order:

1. a new version (fewer than :data:`PLACEMENT_GAMES` games): it is placed first;
2. (while the ladder runs, not while it settles) an active version below its minimum share of
   the games: every version keeps being measured;
3. a member of the counted neighbour pair with the largest weighted variance, the one with
   fewer games.

Tables of one batch are chosen one after another; after each, the covariance of its
neighbourhood is updated as if its game had been played (what is already scheduled is not
scheduled again for the same doubt). Tables of an earlier batch still being played count the
same way (:meth:`Matchmaker.scheduled`). An author's versions sit at one table only when the ladder
allows it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tourney import seating
from tourney.stats.elo import Z95

#: games a new version plays as a focus before the ordinary rules apply
PLACEMENT_GAMES = 6
#: weight of a neighbour pair already separated, while the ladder runs (it is watched, not chased)
SETTLED_WEIGHT = 0.1


@dataclass
class Pool:
    """What the matchmaker reads: the fit over every rated version, and who may play."""

    theta: np.ndarray          # log-strengths, by version index
    cov: np.ndarray            # their covariance
    active: list[int]          # indices of versions that may play
    authors: Sequence[str]     # by index
    games: Sequence[int]       # games played, by index
    players: int               # table size K
    same_author: bool = False  # may an author's versions meet
    min_share: float = 0.25    # of the mean games of active versions
    top: int | None = None     # settle phase: only the neighbours in the top N count
    #: earlier tables in seat order (version indices), which the seat order balances against
    seatings: Sequence[Sequence[int]] = ()


def order(pool: Pool) -> list[int]:
    """Active versions, best first."""
    return sorted(pool.active, key=lambda i: (-pool.theta[i], i))


def pair_status(theta: np.ndarray, cov: np.ndarray, ranked: Sequence[int], z: float = Z95
                ) -> tuple[np.ndarray, np.ndarray]:
    """For each neighbour pair ``(ranked[r], ranked[r+1])``: the variance of its difference and
    whether it is separated at the ``z`` level."""
    a = np.asarray(ranked[:-1], dtype=int)
    b = np.asarray(ranked[1:], dtype=int)
    var = np.maximum(cov[a, a] + cov[b, b] - 2 * cov[a, b], 1e-12)
    return var, theta[a] - theta[b] > z * np.sqrt(var)


def _scale(k: int) -> float:
    harmonic = sum(1.0 / m for m in range(1, k + 1))
    return 4 * (k - harmonic) / (k * (k - 1))


def _information(theta: np.ndarray, tables: np.ndarray) -> np.ndarray:
    """Expected information of one game at each table (``tables``: (n, k) indices into
    ``theta``), shape (n, k, k)."""
    n, k = tables.shape
    t = theta[tables]
    p = 1.0 / (1.0 + np.exp(-(t[:, :, None] - t[:, None, :])))
    pq = p * (1 - p)
    np.einsum("nii->ni", pq)[:] = 0.0
    info = -pq
    idx = np.arange(k)
    info[:, idx, idx] = pq.sum(axis=2)
    return info * _scale(k)


class Matchmaker:
    """Chooses tables from a :class:`Pool` (see the module docstring)."""

    def __init__(self, pool: Pool, rng: random.Random | None = None, window: int | None = None):
        self.pool = pool
        self.rng = rng or random.Random(0)
        self.ranked = order(pool)
        self.position = {v: r for r, v in enumerate(self.ranked)}
        self.cov = pool.cov.copy()
        self.theta = np.asarray(pool.theta, dtype=float)
        #: games of each active version, by place in ``ranked`` (counting the tables scheduled)
        self.played = np.array([pool.games[i] for i in self.ranked], dtype=float)
        self.window = window or max(3, 2 * pool.players)
        n = len(self.ranked)
        last = n - 1 if pool.top is None else min(pool.top, n) - 1
        #: neighbour pairs that count: pair r joins ranked[r] and ranked[r + 1]
        self.counted = np.arange(max(last, 0))
        self.a = np.array(self.ranked[:-1], dtype=int)
        self.b = np.array(self.ranked[1:], dtype=int)
        self.weights = np.zeros(max(n - 1, 0))
        self.var = np.ones(max(n - 1, 0))
        self._refresh(self.counted)

    def _refresh(self, pairs: np.ndarray) -> None:
        """Variance, and weight (by whether it is separated), of the given neighbour pairs."""
        if not len(pairs):
            return
        a, b = self.a[pairs], self.b[pairs]
        var = np.maximum(self.cov[a, a] + self.cov[b, b] - 2 * self.cov[a, b], 1e-12)
        separated = self.theta[a] - self.theta[b] > Z95 * np.sqrt(var)
        self.var[pairs] = var
        self.weights[pairs] = np.where(separated, 0.0 if self.pool.top is not None else SETTLED_WEIGHT, 1.0)

    def settled(self) -> bool:
        """Whether every counted neighbour pair is separated (by the fit, not by what is scheduled)."""
        return not len(self.counted) or not self.weights[self.counted].any()

    # -- the focus ---------------------------------------------------------------------------

    def _fewest(self, places: np.ndarray) -> int:
        """The version with the fewest games among those at ``places`` (ties: at random)."""
        games = self.played[places]
        return self.ranked[int(self.rng.choice(places[games == games.min()].tolist()))]

    def focus(self) -> int:
        new = np.flatnonzero(self.played < PLACEMENT_GAMES)
        if len(new):
            return self._fewest(new)
        if self.pool.top is None and self.pool.min_share > 0:
            behind = np.flatnonzero(self.played < self.pool.min_share * self.played.mean())
            if len(behind):
                return self._fewest(behind)
        if not len(self.counted):
            return self._fewest(np.arange(len(self.ranked)))
        priority = self.weights[self.counted] * self.var[self.counted]
        best = priority.max()
        if best <= 0:  # everything counted is separated: keep measuring where it is closest
            priority = self.var[self.counted]
            best = priority.max()
        r = int(self.counted[self.rng.choice(np.flatnonzero(priority >= best * (1 - 1e-9)).tolist())])
        return self._fewest(np.array([r, r + 1]))

    # -- filling a table ---------------------------------------------------------------------

    def _neighbourhood(self, focus: int) -> list[int]:
        r = self.position[focus]
        lo, hi = max(0, r - self.window), min(len(self.ranked), r + self.window + 1)
        return self.ranked[lo:hi]

    def _allowed(self, table: list[int], candidate: int) -> bool:
        if candidate in table:
            return False
        if self.pool.same_author:
            return True
        author = self.pool.authors[candidate]
        return all(self.pool.authors[t] != author for t in table)

    def _local_pairs(self, members: list[int]) -> np.ndarray:
        rows = sorted({self.position[m] for m in members})
        lo, hi = max(0, rows[0] - 1), rows[-1] + 1
        return np.arange(lo, min(hi, len(self.counted)))  # counted pairs are 0 .. len - 1

    def _gains(self, cov: np.ndarray, theta: np.ndarray, table: list[int], candidates: list[int],
               pairs: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """gain(table + [c]) for each candidate c (see the module docstring), all in the local
        coordinates of ``cov`` and ``theta``; ``a``, ``b``: the local ends of ``pairs``."""
        if not len(pairs) or not self.weights[pairs].any():
            return np.zeros(len(candidates))
        tables = np.array([table + [c] for c in candidates], dtype=int)
        rows = cov[tables]                                                  # (n, k, L)
        u = rows[:, :, a] - rows[:, :, b]                                   # (n, k, P)
        ctt = rows[np.arange(len(tables))[:, None, None], np.arange(tables.shape[1])[None, :, None],
                   tables[:, None, :]]                                      # (n, k, k)
        info = _information(theta, tables)                                  # (n, k, k)
        eye = np.eye(tables.shape[1])
        x = np.linalg.solve(eye + info @ ctt, info @ u)                      # (n, k, P)
        reduction = (u * x).sum(axis=1)                                      # (n, P)
        return (reduction * (self.weights[pairs] / self.var[pairs])).sum(axis=1)

    def table(self) -> list[int]:
        focus = self.focus()
        r = self.position[focus]
        lo, hi = max(0, r - self.window), min(len(self.ranked), r + self.window + 1)
        k = min(self.pool.players, len(self.ranked))
        if sum(self._allowed([focus], c) for c in self.ranked[lo:hi]) < k - 1:
            lo, hi = 0, len(self.ranked)  # the neighbourhood is used up (authors): look further out
        local = self.ranked[lo:hi]
        idx = np.array(local, dtype=int)
        cov = self.cov[np.ix_(idx, idx)]
        theta = self.theta[idx]
        pairs = np.arange(lo, min(hi - 1, len(self.counted)))  # neighbour pairs inside the window
        a, b = pairs - lo, pairs + 1 - lo
        table = [r - lo]
        while len(table) < k:
            candidates = [c for c in range(len(local)) if c not in table
                          and self._allowed([local[t] for t in table], local[c])]
            if not candidates:
                break
            gains = self._gains(cov, theta, table, candidates, pairs, a, b)
            best = gains.max()
            if best <= 0:  # nothing to learn here: the nearest in the order
                pick = min(candidates, key=lambda c: (abs(c + lo - r), self.rng.random()))
            else:
                pick = self.rng.choice([c for c, g in zip(candidates, gains) if g >= best * (1 - 1e-9)])
            table.append(pick)
        return [local[t] for t in table]

    def _scheduled(self, table: list[int]) -> None:
        """Update the covariance as if the table's game had been played, and the counts."""
        places = [self.position[i] for i in table]
        self.played[places] += 1
        t = np.array(table, dtype=int)
        lo, hi = max(0, min(places) - self.window), min(len(self.ranked), max(places) + self.window + 1)
        near = sorted(set(self.ranked[lo:hi]) | set(table))
        idx = np.array(near, dtype=int)
        local = self.cov[np.ix_(idx, idx)]
        spot = {v: k for k, v in enumerate(near)}
        where = np.array([spot[i] for i in table])
        info = _information(self.theta, t[None, :])[0]
        ct = local[where, :]
        update = ct.T @ np.linalg.solve(np.eye(len(t)) + info @ local[np.ix_(where, where)], info @ ct)
        self.cov[np.ix_(idx, idx)] = local - update
        self._refresh(self._local_pairs(near))

    def scheduled(self, tables: list[list[int]]) -> None:
        """Count tables chosen earlier and not played yet (a batch still being played) as if
        their games had been played, as the tables of one batch count for the next; a table
        with a version that no longer plays is left out."""
        for t in tables:
            if len(t) >= 2 and all(i in self.position for i in t):
                self._scheduled(t)

    def tables(self, count: int) -> list[list[int]]:
        """The next ``count`` tables (fewer when too few versions can play)."""
        if len(self.ranked) < 2:
            return []
        out = []
        # the order round each table is tourney.seating's, balanced against the earlier tables
        # (never the order the table was filled in); its own generator, drawn from the
        # matchmaker's state without a draw, leaves the choice of tables as it was (from the
        # state's integers alone: before Python 3.12, hash(None) differs from process to process)
        ledger = seating.Ledger.of(self.pool.seatings)
        seat_rng = random.Random(hash(self.rng.getstate()[1]))
        for _ in range(count):
            t = self.table()
            if len(t) < 2:
                break
            seated = seating.seat_table(t, ledger, seat_rng)
            ledger.add(seated)
            out.append(seated)
            self._scheduled(t)
        return out


def choose_tables(pool: Pool, count: int, rng: random.Random | None = None) -> list[list[int]]:
    """The next ``count`` tables for ``pool`` (see :class:`Matchmaker`)."""
    return Matchmaker(pool, rng).tables(count)
