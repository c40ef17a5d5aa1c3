"""Sequential probability ratio test (GSPRT) on trinomial or pentanomial counts.

The test weighs H0 "A is ``elo0`` stronger than B" against H1 "A is ``elo1`` stronger"
(``elo0 < elo1``) after every unit and stops as soon as the log-likelihood ratio leaves the band
between Wald's bounds (:func:`bounds`). The nuisance parameters (how the score is spread over the
outcomes: draw rate, pair shape) are unknown, so each hypothesis is represented by the
distribution closest to the observed one that satisfies it (the generalised likelihood ratio,
GSPRT). This is the "exact" LLR fishtest uses today (official-stockfish/fishtest,
server/fishtest/stats/LLRcalc.py, ``LLR_logistic`` and ``LLR_normalized``) and fastchess since
its PR #794; the maths is Michel Van den Bergh's note "support_MLE_multinomial.pdf"
(https://www.cantate.be/Fishtest/). The implementation here is our own, standard library only.

Two ways to state the hypotheses (``model``):

* ``logistic`` (the default): ``elo`` is logistic Elo, so H_i says the expected score per game is
  ``1/(1+10^(-elo_i/400))``. The same ``elo1`` means the same edge in plain and duplicate runs,
  and duplicate pairs just end the test sooner.
* ``normalized``: ``elo`` is normalised Elo (fastchess's default, fishtest's form), so H_i says
  ``(s-½)/σ_game = elo_i/(800/ln 10)``; the hypothesis then moves with the measured spread.

Units: a ``game`` (trinomial counts ``[L, D, W]``), a duplicate ``pair`` (pentanomial counts
``[LL, LD+DL, WL+LW+DD, WD+DW, WW]``) or, at tables of K = 3..8, a substitution ``set``: the 2K
games of one deal, the candidate and the baseline each played in every seat against the same
field. A set's value is ``D``, the candidate's mean placement score less the baseline's; it lies
on a lattice of :func:`lattice_size` equally spaced values, counted as ``t = (1+D)/2`` from 0 up,
and H_i says ``E[D] = L(elo_i) - ½`` ("field Elo", docs/evaluation.md, "Verdicts at tables of
many"). The same exact multinomial GSPRT applies: nothing in it depends on there being 3 or 5
values. Never mix units in one test.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from tourney.stats.elo import NELO_PER_T, Estimate, StatsError, estimate, pentanomial, score_from_elo, trinomial

MODELS = ("logistic", "normalized")
UNITS = {"game": 3, "pair": 5, "set": 0}  # a set's count depends on the table size: lattice_size

#: fishtest's stand-in for an outcome never seen, so that no likelihood is zero
ZERO_COUNT = 1e-3


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's stopping bounds ``(ln(β/(1-α)), ln((1-β)/α))``: accept H0 at or below the first,
    H1 at or above the second (α = β = 0.05 gives ∓2.944439). ``alpha`` is the chance of accepting
    H1 when H0 holds, ``beta`` that of accepting H0 when H1 holds."""
    if not (0 < alpha < 1 and 0 < beta < 1 and alpha + beta < 1):
        raise StatsError(f"alpha and beta must lie in (0, 1) with alpha + beta < 1, not {alpha} and {beta}")
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def _distribution(counts: Sequence[float]) -> tuple[float, list[float], list[float]]:
    """``(N, scores, frequencies)`` for counts of equally spaced unit scores 0 … 1, zero counts
    replaced by :data:`ZERO_COUNT` as fishtest does."""
    regular = [c if c > 0 else ZERO_COUNT for c in counts]
    n = sum(regular)
    last = len(counts) - 1
    return n, [i / last for i in range(len(counts))], [c / n for c in regular]


def _tilt(frequencies: Sequence[float], offsets: Sequence[float]) -> list[float]:
    """The distribution ``qⱼ = pⱼ/(1+θ·dⱼ)`` closest to ``p`` (in Kullback-Leibler terms) with
    ``Σ qⱼ·dⱼ = 0``. θ is the root of ``g(θ) = Σ pⱼdⱼ/(1+θdⱼ)``, the derivative of the concave
    ``Σ pⱼ·ln(1+θdⱼ)``, so g falls strictly from +∞ to -∞ on ``(-1/max d, -1/min d)``. Newton
    steps; a step that would leave the bracket still known to hold the root goes nine tenths of
    the way to its edge instead, which closes in on a root next to a pole in a few steps."""
    if not min(offsets) < 0 < max(offsets):
        # only the normalized fit can get here: its first rounds start from the uniform distribution
        raise StatsError("normalized bounds this far from 0 cannot be fitted (keep them within about ±200 nElo)")
    lo, hi = -1 / max(offsets), -1 / min(offsets)
    theta = 0.0
    for _ in range(200):
        g = slope = 0.0
        for p, d in zip(frequencies, offsets):
            r = d / (1 + theta * d)
            g += p * r
            slope -= p * r * r
        if g > 0:
            lo = theta
        elif g < 0:
            hi = theta
        else:
            break
        new = theta - g / slope
        if not lo < new < hi:
            new = theta + 0.9 * ((hi if g > 0 else lo) - theta)
        if abs(new - theta) <= 1e-15 * max(1.0, abs(theta)):
            theta = new
            break
        theta = new
    return [p / (1 + theta * d) for p, d in zip(frequencies, offsets)]


def fit_mean(scores: Sequence[float], frequencies: Sequence[float], mean: float) -> list[float]:
    """The most likely distribution on ``scores`` with the given mean, for observed
    ``frequencies`` (Van den Bergh, Proposition 1.1). ``mean`` must lie strictly between the
    lowest and highest score."""
    return _tilt(frequencies, [a - mean for a in scores])


def fit_t_value(scores: Sequence[float], frequencies: Sequence[float], t: float) -> list[float]:
    """The most likely distribution on ``scores`` whose t-value ``(mean - ½)/sd`` is ``t``.

    No closed form: start from the uniform distribution and repeat a mean fit with shifted scores
    ``aⱼ - ½ - t·σ·(1 + ((aⱼ - μ)/σ)²)/2``, μ and σ of the previous round, until the distribution
    stops moving. At the fixed point the shifted scores average to ``μ - ½ - t·σ = 0``, which is
    the constraint (Van den Bergh, "normalized_elo_practical.pdf", §4.1)."""
    q = [1 / len(scores)] * len(scores)
    for _ in range(100):
        mu = sum(p * a for p, a in zip(q, scores))
        sigma = math.sqrt(sum(p * (a - mu) ** 2 for p, a in zip(q, scores)))
        offsets = [a - 0.5 - t * sigma * (1 + ((a - mu) / sigma) ** 2) / 2 for a in scores]
        new = _tilt(frequencies, offsets)
        if max(abs(x - y) for x, y in zip(new, q)) < 1e-12:
            return new
        q = new
    return q


def llr(counts: Sequence[float], elo0: float, elo1: float, model: str = "logistic") -> float:
    """Generalised log-likelihood ratio of H1 against H0 for counts of equally spaced unit scores
    ``0, 1/(k-1), …, 1`` (lowest first: ``[L, D, W]`` for games, the pentanomial for pairs):
    ``LLR = N·Σ p̂ⱼ·ln(q1ⱼ/q0ⱼ)``, ``p̂`` the observed frequencies and ``qᵢ`` the most likely
    distribution under Hᵢ. 0 with no units.

    ``normalized`` takes 3 (games) or 5 (pairs) counts; a pair's t-value is √2 times the per-game
    one, since a pair's mean has half a game's variance (fishtest ``LLR_normalized``). Its fit is
    iterative and refuses bounds far beyond any real test (a few hundred nElo) with a
    :class:`StatsError`, as fishtest's does."""
    if model not in MODELS:
        raise StatsError(f"unknown SPRT model {model!r}: use one of {', '.join(MODELS)}")
    if len(counts) < 2 or any(c < 0 for c in counts):
        raise StatsError(f"SPRT counts must be two or more non-negative numbers, not {list(counts)}")
    if sum(counts) == 0:
        return 0.0
    if model == "logistic":
        return llr_means(counts, score_from_elo(elo0), score_from_elo(elo1))
    if len(counts) not in (3, 5):
        raise StatsError("the normalized model takes game (3) or pair (5) counts")
    n, scores, p = _distribution(counts)
    scale = 1.0 if len(counts) == 3 else math.sqrt(2)
    q0, q1 = (fit_t_value(scores, p, e / NELO_PER_T * scale) for e in (elo0, elo1))
    return n * sum(pj * math.log(b / a) for pj, a, b in zip(p, q0, q1))


def llr_means(counts: Sequence[float], mean0: float, mean1: float) -> float:
    """The generalised LLR of "the unit score's mean is ``mean1``" against "it is ``mean0``", for
    counts of equally spaced unit scores ``0 … 1``: ``N·Σ p̂ⱼ·ln(q1ⱼ/q0ⱼ)`` with ``qᵢ`` the most
    likely distribution of mean ``meanᵢ`` (:func:`fit_mean`). 0 with no units."""
    if sum(counts) == 0:
        return 0.0
    n, scores, p = _distribution(counts)
    q0, q1 = (fit_mean(scores, p, m) for m in (mean0, mean1))
    return n * sum(pj * math.log(b / a) for pj, a, b in zip(p, q0, q1))


def lattice_size(players: int) -> int:
    """The values a substitution set's ``D`` can take at a table of ``players``: multiples of
    ``1/(2K(K-1))`` from -1 to 1 (placement scores move in steps of ``1/(K-1)``, a shared place
    halves it, and ``D`` averages K rotations), ``4K(K-1)+1`` in all (49 at K = 4)."""
    if not 2 <= players <= 8:
        raise StatsError(f"tables seat 2 to 8 players, not {players}")
    return 4 * players * (players - 1) + 1


def set_mean(elo: float) -> float:
    """The mean of ``t = (1+D)/2`` when the candidate is ``elo`` field Elo better: ``E[D] =
    L(elo) - ½``, so ``(½ + L(elo))/2``."""
    return (0.5 + score_from_elo(elo)) / 2


def set_index(difference: float, players: int) -> int:
    """The lattice cell of a set's ``D`` (:func:`lattice_size`), lowest first."""
    if not -1 - 1e-9 <= difference <= 1 + 1e-9:
        raise StatsError(f"a set's placement difference lies in [-1, 1], not {difference!r}")
    steps = lattice_size(players) - 1
    cell = (1 + difference) / 2 * steps
    if abs(cell - round(cell)) > 1e-6:
        raise StatsError(f"{difference!r} is not on the lattice of a table of {players}")
    return round(cell)


def llr_normal(counts: Sequence[float], elo0: float, elo1: float) -> float:
    """The normal approximation of the logistic LLR, ``N·(s1-s0)(2ŝ-s0-s1)/(2σ̂²)`` (fishtest
    ``LLR_alt2``; fastchess before its PR #426). Close to :func:`llr` for small Elo differences;
    kept as a cross-check."""
    n, scores, p = _distribution(counts)
    s = sum(pj * a for pj, a in zip(p, scores))
    variance = sum(pj * (a - s) ** 2 for pj, a in zip(p, scores))
    s0, s1 = score_from_elo(elo0), score_from_elo(elo1)
    return n * (s1 - s0) * (2 * s - s0 - s1) / (2 * variance)


@dataclass
class Sprt:
    """A running SPRT: add results as they arrive, read :attr:`llr`, :attr:`bounds` and
    :attr:`verdict`. Stop at the first verdict; results added after it still count, so the
    verdict can change back (concurrent games that finish late belong in the counts, fishtest#933).

    ``counts`` are from A's side, lowest score first: ``[L, D, W]`` for ``unit="game"`` and
    ``[LL, LD+DL, WL+LW+DD, WD+DW, WW]`` for ``unit="pair"``."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "logistic"
    unit: str = "game"
    counts: list[int] = field(default_factory=list)
    #: the table size of a ``set`` test (2 for games and pairs)
    players: int = 2

    def __post_init__(self) -> None:
        if self.unit not in UNITS:
            raise StatsError(f"unknown SPRT unit {self.unit!r}: use game, pair or set")
        if self.model not in MODELS:
            raise StatsError(f"unknown SPRT model {self.model!r}: use one of {', '.join(MODELS)}")
        if not self.elo0 < self.elo1:
            raise StatsError(f"elo0 must be below elo1, not {self.elo0} and {self.elo1}")
        bounds(self.alpha, self.beta)
        if self.unit == "set":
            lattice_size(self.players)  # 2 to 8 (at 2 it is the duel's pentanomial, rescaled)
            if self.model != "logistic":
                raise StatsError("a set SPRT states its hypotheses in field Elo: model logistic")
        size = lattice_size(self.players) if self.unit == "set" else UNITS[self.unit]
        if not self.counts:
            self.counts = [0] * size
        elif len(self.counts) != size or any(c < 0 for c in self.counts):
            raise StatsError(f"a {self.unit} SPRT needs {size} non-negative counts, not {self.counts}")

    def add_game(self, score: float) -> None:
        """Count one game: A's score 1, ½ or 0."""
        if self.unit != "game":
            raise StatsError("this SPRT counts pairs: add both games of a pair with add_pair")
        if score not in (0, 0.5, 1):
            raise StatsError(f"a game score must be 1, 0.5 or 0, not {score!r}")
        self.counts[round(2 * score)] += 1

    def add_pair(self, first: float, second: float) -> None:
        """Count one complete duplicate pair: A's scores in its two games."""
        if self.unit != "pair":
            raise StatsError("this SPRT counts games: add them one at a time with add_game")
        if first not in (0, 0.5, 1) or second not in (0, 0.5, 1):
            raise StatsError(f"game scores must be 1, 0.5 or 0, not {first!r} and {second!r}")
        self.counts[round(2 * (first + second))] += 1

    def add_set(self, difference: float) -> None:
        """Count one complete substitution set: ``D``, the candidate's mean placement score over
        the K rotations less the baseline's (:func:`set_index`)."""
        if self.unit != "set":
            raise StatsError(f"this SPRT counts {self.unit}s, not substitution sets")
        self.counts[set_index(difference, self.players)] += 1

    @property
    def units(self) -> int:
        return sum(self.counts)

    @property
    def llr(self) -> float:
        if self.unit == "set":
            return llr_means(self.counts, set_mean(self.elo0), set_mean(self.elo1))
        return llr(self.counts, self.elo0, self.elo1, self.model)

    @property
    def bounds(self) -> tuple[float, float]:
        return bounds(self.alpha, self.beta)

    @property
    def verdict(self) -> str | None:
        """``"H1"`` once the LLR reaches the upper bound, ``"H0"`` once it reaches the lower one,
        else ``None`` (keep playing; at a cap, report "inconclusive")."""
        return decide(self.llr, self.bounds)

    def estimate(self) -> Estimate:
        """Score, Elo ± 95% CI and LOS of the counts so far. After an SPRT stops this estimate is
        biased (early stops happen on lucky runs): label it so (docs/evaluation.md, "Stopping
        rules and pitfalls")."""
        if self.unit == "game":
            losses, draws, wins = self.counts
            return trinomial(wins, draws, losses)
        if self.unit == "set":
            steps = len(self.counts) - 1
            return set_estimate([2 * i / steps - 1 for i in range(len(self.counts))], self.counts,
                                self.players, "substitution")
        return pentanomial(self.counts)

    def to_dict(self) -> dict:
        """The set-up, the counts and where the test stands; :meth:`from_dict` reads it back."""
        value, (lower, upper) = self.llr, self.bounds
        table = {"players": self.players} if self.unit == "set" else {}
        return {"elo0": self.elo0, "elo1": self.elo1, "alpha": self.alpha, "beta": self.beta,
                "model": self.model, "unit": self.unit, "counts": list(self.counts), "units": self.units,
                "llr": value, "lower_bound": lower, "upper_bound": upper, "verdict": decide(value, (lower, upper)),
                **table}

    @classmethod
    def from_dict(cls, data: dict) -> Sprt:
        """A test resumed from :meth:`to_dict`'s output (the derived fields are recomputed)."""
        return cls(elo0=data["elo0"], elo1=data["elo1"], alpha=data["alpha"], beta=data["beta"],
                   model=data["model"], unit=data["unit"], counts=list(data["counts"]),
                   players=data.get("players", 2))


def set_estimate(differences: Sequence[float], counts: Sequence[int], players: int, model: str) -> Estimate:
    """What substitution sets say: the "score" is ``½ + D̄`` (the candidate's expected placement
    score against a field it would tie with if D̄ were 0), its Elo the field Elo ``L⁻¹(½ + D̄)``,
    the interval ``D̄ ± 1.96·σ̂/√N`` from the spread of D across sets (never across games: the
    games of a set share a deal), LOS ``Φ(D̄/SE)``. Normalised Elo has no per-game scale here and
    is left out (docs/evaluation.md, "Verdicts at tables of many")."""
    units = sum(counts)
    if units == 0:
        return Estimate(model=model, units=0, games=0)
    scores = [0.5 + d for d in differences]
    mean = sum(c * x for c, x in zip(counts, scores)) / units
    if not 0 < mean < 1:  # the candidate placed above (or below) everyone in every game
        return Estimate(model=model, units=units, games=units * 2 * players, score=mean)
    found = estimate(scores, counts, model=model, games_per_unit=2 * players)
    return replace(found, nelo=None, nelo_pm=None)


def decide(value: float, limits: tuple[float, float]) -> str | None:
    """``"H1"`` for an LLR at or above the upper bound, ``"H0"`` at or below the lower, else ``None``."""
    lower, upper = limits
    if value >= upper:
        return "H1"
    if value <= lower:
        return "H0"
    return None


#: ScoreSprt's guard against the first units' variance: PRIOR_UNITS pseudo-units of variance ¼
#: (the most a game scored 0 or 1 can have) are pooled with the data, and no verdict comes before
#: MIN_UNITS units. Without them, a variance estimated from a handful of units is often tiny and
#: the test stops early and wrongly: 20% and 15% error rates instead of 5% in the simulation of
#: tests/test_luck.py; with them, within its sampling error of 5%.
PRIOR_UNITS = 10
PRIOR_VARIANCE = 0.25
MIN_UNITS = 10


def llr_scores(scores: Sequence[float], elo0: float, elo1: float, *, prior_units: float = PRIOR_UNITS,
               min_units: int = MIN_UNITS, prior_variance: float = PRIOR_VARIANCE,
               mean_of=score_from_elo) -> float:
    """The GSPRT log-likelihood ratio for real-valued unit scores (luck-adjusted scores, which
    are not confined to 0, ½ and 1): under a normal model of the unit score with its variance
    estimated from the data, ``LLR = N·(s1-s0)(2ŝ-s0-s1)/(2σ̂²)``, ``ŝ`` the mean of the N scores,
    ``s_i`` the logistic scores of the bounds, and ``σ̂² = (N·v + prior_units·¼)/(N + prior_units)``
    with ``v`` their (population) variance. This is the normal approximation fishtest keeps as
    ``LLR_alt2`` (official-stockfish/fishtest, server/fishtest/stats/LLRcalc.py) and fastchess
    used before its PR #426; with ``prior_units=0`` and counts of 0, ½ and 1 it equals
    :func:`llr_normal`. 0 below ``min_units`` scores (and at least two). Substitution sets pass
    :func:`set_mean` as ``mean_of`` (their scores are ``t = (1+D)/2``) and a smaller
    ``prior_variance`` (:func:`set_prior_variance`)."""
    n = len(scores)
    if n < max(2, min_units):
        return 0.0
    mean = sum(scores) / n
    variance = sum((x - mean) ** 2 for x in scores) / n
    variance = (n * variance + prior_units * prior_variance) / (n + prior_units)
    if variance <= 1e-15:
        return 0.0
    s0, s1 = mean_of(elo0), mean_of(elo1)
    return n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance)


def set_prior_variance(players: int) -> float:
    """The prior variance of a set's ``t = (1+D)/2`` for :func:`llr_scores`: what it would be
    unpaired between equal players, ``Var(D) = 2·(K+1)/(12(K-1))/K`` (the placement score's
    variance at a table of K, twice, over K rotations), divided by 4. Pairing only makes it
    smaller, so the prior errs towards caution, as ¼ does for games."""
    return 2 * (players + 1) / (12 * (players - 1)) / players / 4


@dataclass
class ScoreSprt:
    """A running SPRT on real-valued unit scores (:func:`llr_scores`): a game's or a duplicate
    pair's luck-adjusted score of A. Bounds in logistic Elo, as :class:`Sprt`."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    unit: str = "game"
    scores: list[float] = field(default_factory=list)
    #: the table size of a ``set`` test, whose scores are ``t = (1+D)/2``
    players: int = 2

    def __post_init__(self) -> None:
        if self.unit not in UNITS:
            raise StatsError(f"unknown SPRT unit {self.unit!r}: use game, pair or set")
        if self.unit == "set":
            lattice_size(self.players)
        if not self.elo0 < self.elo1:
            raise StatsError(f"elo0 must be below elo1, not {self.elo0} and {self.elo1}")
        bounds(self.alpha, self.beta)

    def add(self, score: float) -> None:
        if not math.isfinite(score):
            raise StatsError(f"a score must be a finite number, not {score!r}")
        self.scores.append(score)

    @property
    def units(self) -> int:
        return len(self.scores)

    def add_set(self, difference: float) -> None:
        """Count one substitution set by its (luck-adjusted) ``D``."""
        self.add((1 + difference) / 2)

    @property
    def llr(self) -> float:
        if self.unit == "set":
            return llr_scores(self.scores, self.elo0, self.elo1, prior_variance=set_prior_variance(self.players),
                              mean_of=set_mean)
        return llr_scores(self.scores, self.elo0, self.elo1)

    @property
    def bounds(self) -> tuple[float, float]:
        return bounds(self.alpha, self.beta)

    @property
    def verdict(self) -> str | None:
        return decide(self.llr, self.bounds)

    def estimate(self) -> Estimate:
        """Score, Elo ± 95% CI and LOS of the mean score so far (normal approximation, variance
        from the data); biased after the test stops, as :meth:`Sprt.estimate`."""
        model = "luck-adjusted"
        if self.unit == "set":
            return set_estimate([2 * t - 1 for t in self.scores], [1] * len(self.scores), self.players, model)
        per_unit = 2 if self.unit == "pair" else 1
        if not self.scores:
            return Estimate(model=model, units=0, games=0)
        mean = sum(self.scores) / len(self.scores)
        if not 0 < mean < 1:  # only a handful of adjusted scores can average outside (0, 1)
            return Estimate(model=model, units=self.units, games=self.units * per_unit, score=mean)
        return estimate(self.scores, [1] * len(self.scores), model=model, games_per_unit=per_unit)
