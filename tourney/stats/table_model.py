"""A table of K players with known truth, to measure the error rates of the substitution-set SPRT
(docs/evaluation.md, "Verdicts at tables of many"; the model of the design note on multiplayer
verdicts, §6).

In a game every seat gets a performance ``u = θ(occupant) + edge(seat) + S + noise·G`` and the
seats are ranked by it, highest first. ``edge`` favours the early seats (+0.2, +0.1, 0, -0.1, …),
``S`` is a standard Gumbel draw per seat standing for the deal's luck and the common course of
play, and ``G`` a fresh standard Gumbel draw per seat and game. With Gumbel noise alone this is
Plackett-Luce with worths ``e^θ``. A substitution set plays each rotation r (the tested entrant at
seat r, the field in a fixed cyclic order after it) once with the candidate and once with the
baseline: the same ``S`` in both games (the same deal), fresh ``G``. The naive design draws a
new ``S`` for the baseline's games (its own deals).

The truth of a hypothesis is ``E[D]``, the expected set value. By symmetry it is 0 when the
candidate is the baseline; for a field-Elo hypothesis ``L(elo) - ½`` the candidate's worth is
found by :func:`calibrate` (common random numbers and the secant method).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tourney.stats.elo import score_from_elo
from tourney.stats.sprt import Sprt, decide


def wilson(successes: int, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson's score interval for a binomial proportion (E. B. Wilson, "Probable inference, the
    law of succession, and statistical inference", JASA 22, 1927): the proportions whose normal
    test would not reject the observed one. 5 of 10 gives (0.2366, 0.7634)."""
    if trials <= 0:
        raise ValueError("a proportion needs at least one trial")
    p = successes / trials
    z2 = z * z
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / (1 + z2 / trials)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class TableModel:
    """``players`` seats; ``field`` the worths (natural log) of the K-1 others in their order after
    the tested seat (default: copies of the baseline, worth 0); ``noise`` the weight of the fresh
    per-game draw."""

    players: int
    field: tuple[float, ...] = ()
    noise: float = 0.5

    def __post_init__(self) -> None:
        if not 2 <= self.players <= 8:
            raise ValueError(f"tables seat 2 to 8 players, not {self.players}")
        if not self.field:
            object.__setattr__(self, "field", (0.0,) * (self.players - 1))
        if len(self.field) != self.players - 1:
            raise ValueError(f"a table of {self.players} has {self.players - 1} others, not {len(self.field)}")

    def _layout(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(edge of each seat, field worth at each seat per rotation, tested-seat mask per rotation)."""
        k = self.players
        edge = np.array([0.2 - 0.1 * s for s in range(k)])
        worth = np.zeros((k, k))
        tested = np.zeros((k, k), dtype=bool)
        for r in range(k):
            tested[r, r] = True
            for j, theta in enumerate(self.field):
                worth[r, (r + 1 + j) % k] = theta
        return edge, worth, tested

    def _scores(self, theta: float, luck: np.ndarray, fresh: np.ndarray) -> np.ndarray:
        """The tested entrant's placement score per unit and rotation: the share of the others it
        outperformed. ``luck`` and ``fresh`` are Gumbel draws shaped (units, K rotations, K seats)."""
        edge, worth, tested = self._layout()
        u = np.where(tested, theta, worth) + edge + luck + self.noise * fresh
        mine = u[:, tested]  # (units, K): the tested seat of each rotation
        beaten = (u < mine[:, :, None]).sum(axis=2)
        return beaten / (self.players - 1)

    def units(self, rng: np.random.Generator, theta: float, n: int, paired: bool = True,
              theta_baseline: float = 0.0) -> np.ndarray:
        """``n`` set values ``D`` with the candidate of worth ``theta``: substitution sets, or with
        ``paired = False`` the naive design (the baseline's K games on deals of their own)."""
        shape = (n, self.players, self.players)
        luck = rng.gumbel(size=shape)
        a = self._scores(theta, luck, rng.gumbel(size=shape))
        b = self._scores(theta_baseline, luck if paired else rng.gumbel(size=shape), rng.gumbel(size=shape))
        return (a - b).mean(axis=1)


def target(elo: float) -> float:
    """``E[D]`` under a field-Elo hypothesis: ``L(elo) - ½``."""
    return score_from_elo(elo) - 0.5


def calibrate(model: TableModel, elo: float, units: int = 100_000, seed: int = 0) -> float:
    """The candidate's worth θ for which ``E[D] = L(elo) - ½``: the same draws for every θ tried
    (common random numbers), so E[D](θ) is smooth, and the secant method on it."""
    if elo == 0:
        return 0.0
    rng = np.random.default_rng(seed)
    shape = (units, model.players, model.players)
    luck, fresh_a, fresh_b = (rng.gumbel(size=shape) for _ in range(3))
    base = model._scores(0.0, luck, fresh_b).mean()

    def gap(theta: float) -> float:
        return float(model._scores(theta, luck, fresh_a).mean() - base) - target(elo)

    x0, x1 = 0.0, 0.1
    f0, f1 = gap(x0), gap(x1)
    for _ in range(30):
        if f1 == f0:
            break
        x0, x1, f0 = x1, x1 - f1 * (x1 - x0) / (f1 - f0), f1
        f1 = gap(x1)
        if abs(f1) < 1e-7:
            break
    return x1


@dataclass
class Outcome:
    verdict: str | None
    units: int


def run_test(model: TableModel, theta: float, elo0: float, elo1: float, rng: np.random.Generator, *,
             alpha: float = 0.05, beta: float = 0.05, look_every: int = 8, max_units: int = 2500,
             paired: bool = True, chunk: int = 256) -> Outcome:
    """One SPRT on simulated sets, looking after every ``look_every`` sets as the event does
    (:data:`tourney.formats.sequential.BATCH`); at ``max_units`` sets it stops inconclusive."""
    test = Sprt(elo0, elo1, alpha, beta, unit="set", players=model.players)
    steps = len(test.counts) - 1
    limits = test.bounds
    done = 0
    while done < max_units:
        cells = np.rint((1 + model.units(rng, theta, chunk, paired=paired)) / 2 * steps).astype(int)
        for start in range(0, chunk, look_every):
            for c in cells[start:start + look_every]:
                test.counts[c] += 1
            done += len(cells[start:start + look_every])
            verdict = decide(test.llr, limits)
            if verdict is not None or done >= max_units:
                return Outcome(verdict, done)
    return Outcome(None, done)


@dataclass
class Rates:
    """Error rates of ``runs`` tests at each truth: the share accepting H1 at elo0 (false positives,
    α) and at elo1 (power, 1-β), with Wilson 95% intervals, and the mean games to a verdict."""

    runs: int
    false_positives: int
    power_hits: int
    inconclusive: int
    games_h0: float
    games_h1: float

    @property
    def fp_rate(self) -> float:
        return self.false_positives / self.runs

    @property
    def power(self) -> float:
        return self.power_hits / self.runs

    def fp_interval(self) -> tuple[float, float]:
        return wilson(self.false_positives, self.runs)

    def power_interval(self) -> tuple[float, float]:
        return wilson(self.power_hits, self.runs)


def error_rates(model: TableModel, elo0: float, elo1: float, runs: int, seed: int = 1, *,
                paired: bool = True, calibration_units: int = 100_000, **kwargs) -> Rates:
    """``runs`` SPRTs with the truth at elo0 and ``runs`` with it at elo1."""
    thetas = [calibrate(model, e, calibration_units, seed) for e in (elo0, elo1)]
    rng = np.random.default_rng(seed + 1)
    at = [[run_test(model, theta, elo0, elo1, rng, paired=paired, **kwargs) for _ in range(runs)]
          for theta in thetas]
    games = 2 * model.players
    return Rates(runs=runs, false_positives=sum(o.verdict == "H1" for o in at[0]),
                 power_hits=sum(o.verdict == "H1" for o in at[1]),
                 inconclusive=sum(o.verdict is None for side in at for o in side),
                 games_h0=games * sum(o.units for o in at[0]) / runs,
                 games_h1=games * sum(o.units for o in at[1]) / runs)
