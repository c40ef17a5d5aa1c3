"""Score, Elo difference with a 95% confidence interval, LOS and draw ratio from match counts.

Two models, both a normal approximation of the mean score per unit mapped through the logistic
Elo curve (docs/evaluation.md, "Elo from counts"):

* **trinomial**: the unit is one game, scored 1 (win), ½ (draw) or 0 (loss) for entrant A;
* **pentanomial**: the unit is a duplicate pair (one deal played twice, seats swapped), scored as
  the mean of A's two games: 0, ¼, ½, ¾ or 1. With pairs as the units, the variance reflects the
  correlation between a pair's two games, which the trinomial model on paired games ignores (with
  deal luck it gives too wide an interval).

Sources for the formulas: fastchess (Disservin/fastchess, app/src/matchmaking/elo/elo_wdl.cpp and
elo_pentanomial.cpp) and fishtest (official-stockfish/fishtest, server/fishtest/stats/stat_util.py).
No code is taken from them.

Every function takes plain counts and returns plain data: :class:`Estimate` serialises with
:meth:`Estimate.to_dict` (JSON has no infinity, so an unbounded end becomes ``null`` there).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields, replace
from statistics import NormalDist

#: the two-sided 95% normal quantile, Φ⁻¹(0.975) = 1.959963984540054
Z95 = NormalDist().inv_cdf(0.975)

#: normalised Elo per unit of t-value (mean score above ½ in standard deviations), 800/ln 10
NELO_PER_T = 800 / math.log(10)

#: unit scores of the two models, in the order counts are given (lowest first)
TRINOMIAL_SCORES = (0.0, 0.5, 1.0)
PENTANOMIAL_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)

_STANDARD_NORMAL = NormalDist()


class StatsError(ValueError):
    """Counts that cannot describe a match (negative, wrong length, or W/D/L that contradict the
    pair counts); the message is one clear line."""


# ---- conversions -------------------------------------------------------------------------------

def score_from_elo(elo: float) -> float:
    """Expected score of a side ``elo`` points stronger than its opponent, on the logistic curve
    ``1 / (1 + 10^(-elo/400))`` (Elo's formula as used by fishtest and fastchess)."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def elo_from_score(score: float) -> float:
    """Logistic Elo difference for an expected score: ``-400·log10(1/score - 1)``, the inverse of
    :func:`score_from_elo`. A score of 0 or below gives ``-inf`` and 1 or above ``+inf``."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def nelo_from_score(score: float, sd_game: float) -> float:
    """Normalised Elo: the score's distance from ½ in per-game standard deviations, scaled by
    800/ln 10 so that it matches logistic Elo near 50% with no draws (fishtest's ``nelo``)."""
    return (score - 0.5) / sd_game * NELO_PER_T


def los_from(score: float, se: float) -> float:
    """Likelihood of superiority ``Φ((score - ½)/se)``: the probability, under the normal
    approximation, that A's true expected score is above ½ (fastchess ``los()``). cutechess's
    ``½ + ½·erf((W-L)/√(2(W+L)))`` is a close, slightly more cautious variant."""
    return _STANDARD_NORMAL.cdf((score - 0.5) / se)


# ---- counts --------------------------------------------------------------------------------

def wdl_counts(scores: Iterable[float]) -> tuple[int, int, int]:
    """``(wins, draws, losses)`` from per-game scores 1, ½ and 0."""
    wins = draws = losses = 0
    for s in scores:
        if s == 1:
            wins += 1
        elif s == 0.5:
            draws += 1
        elif s == 0:
            losses += 1
        else:
            raise StatsError(f"a game score must be 1, 0.5 or 0, not {s!r}")
    return wins, draws, losses


def pentanomial_counts(pairs: Iterable[tuple[float, float]]) -> tuple[int, int, int, int, int]:
    """Pair counts ``[LL, LD+DL, WL+LW+DD, WD+DW, WW]`` (fishtest's order, lowest pair score
    first) from A's two game scores in each complete pair. Incomplete pairs must be left out by
    the caller: half a pair is not a pentanomial outcome."""
    counts = [0] * 5
    for first, second in pairs:
        for s in (first, second):
            if s not in (0, 0.5, 1):
                raise StatsError(f"a game score must be 1, 0.5 or 0, not {s!r}")
        counts[round(2 * (first + second))] += 1
    return counts[0], counts[1], counts[2], counts[3], counts[4]


def _check_counts(counts: Sequence[int], size: int, what: str) -> None:
    if len(counts) != size:
        raise StatsError(f"{what} needs {size} counts, got {len(counts)}")
    if any(c < 0 for c in counts):
        raise StatsError(f"{what} counts must not be negative: {list(counts)}")


def check_pairs_match_games(pentanomial: Sequence[int], wdl: tuple[int, int, int]) -> None:
    """Raise :class:`StatsError` unless the game counts ``(wins, draws, losses)`` can come from
    the pair counts. The middle class mixes WL/LW pairs (x of them) and DD pairs, so with pair
    counts c0..c4: ``W = x + c3 + 2·c4``, ``D = c1 + 2·(c2 - x) + c3``, ``L = 2·c0 + c1 + x``
    for some ``0 ≤ x ≤ c2``. Counts that fail this come from a bookkeeping bug, not from play."""
    c0, c1, c2, c3, c4 = pentanomial
    wins, draws, losses = wdl
    x = wins - c3 - 2 * c4
    if not (0 <= x <= c2 and draws == c1 + 2 * (c2 - x) + c3 and losses == 2 * c0 + c1 + x):
        raise StatsError(f"W/D/L {wins}/{draws}/{losses} do not match the pair counts {list(pentanomial)}")


# ---- estimates -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Estimate:
    """What the counts say about A against B. ``units`` are games (trinomial) or pairs
    (pentanomial); ``games`` counts games either way.

    Edge cases (docs/evaluation.md, "Edge cases"):

    * no units: every statistic is ``None``;
    * every unit the same result (zero variance, e.g. all wins): ``score`` and ``elo`` are the
      plain values (``elo`` is ``±inf`` for all wins or all losses), but the normal approximation
      has no spread, so the interval, ``elo_pm``, ``los``, ``nelo`` and ``nelo_pm`` are ``None``;
    * an interval end past score 0 or 1: the score bound is clamped to [0, 1] and the Elo bound is
      ``-inf``/``+inf`` (``elo_pm`` is then ``inf``). :meth:`to_dict` writes infinities as ``null``.
    """

    model: str
    units: int
    games: int
    #: mean score per game, in [0, 1]
    score: float | None = None
    #: 95% confidence interval of the score, clamped to [0, 1]
    score_low: float | None = None
    score_high: float | None = None
    #: logistic Elo difference and the Elo of the score interval's ends
    elo: float | None = None
    elo_low: float | None = None
    elo_high: float | None = None
    #: the "±" fastchess prints: half the width of the Elo interval
    elo_pm: float | None = None
    #: likelihood of superiority, in [0, 1]
    los: float | None = None
    #: normalised Elo and the half-width of its (symmetric) 95% interval
    nelo: float | None = None
    nelo_pm: float | None = None
    #: share of games drawn (``None`` for pair counts given without W/D/L)
    draw_ratio: float | None = None
    #: standard deviation of one unit's score
    sd: float | None = None
    #: pentanomial only, with W/D/L given: trinomial variance / (2 · pair variance) = 1/(1+ρ), ρ the
    #: correlation of A's two scores in a pair; above 1 means the pairs needed fewer games
    variance_ratio: float | None = None

    def to_dict(self) -> dict:
        """The fields as a JSON-safe dict: infinities become ``None``."""
        out: dict = {}
        for f in fields(self):
            value = getattr(self, f.name)
            out[f.name] = None if isinstance(value, float) and not math.isfinite(value) else value
        return out


def mean_and_variance(scores: Sequence[float], counts: Sequence[float]) -> tuple[float, float]:
    """Mean and (population) variance of a unit's score given how often each score occurred:
    ``s = Σ pᵢaᵢ``, ``σ² = Σ pᵢ(aᵢ - s)²`` with ``pᵢ = countᵢ/N``."""
    n = sum(counts)
    mean = sum(c * a for a, c in zip(scores, counts)) / n
    variance = sum(c * (a - mean) ** 2 for a, c in zip(scores, counts)) / n
    return mean, variance


def estimate(scores: Sequence[float], counts: Sequence[int], *, model: str, games_per_unit: int,
             z: float = Z95) -> Estimate:
    """The :class:`Estimate` for any unit-score distribution (the trinomial and pentanomial
    functions call this). With ``N`` units, mean ``s`` and variance ``σ²`` per unit:
    ``SE = σ/√N``, score interval ``s ± z·SE``, Elo interval the logistic Elo of its ends,
    ``LOS = Φ((s-½)/SE)``, and ``nElo = (s-½)/σ_game · 800/ln 10`` with the per-game deviation
    ``σ_game = σ·√games_per_unit`` (fastchess's pentanomial nElo)."""
    units = sum(counts)
    if units == 0:
        return Estimate(model=model, units=0, games=0)
    s, variance = mean_and_variance(scores, counts)
    # rounding can leave a hair of variance where every unit has the same score
    variance = 0.0 if variance < 1e-15 else variance
    base = Estimate(model=model, units=units, games=units * games_per_unit, score=s,
                    elo=elo_from_score(s), sd=math.sqrt(variance))
    if variance == 0.0:
        return base
    se = math.sqrt(variance / units)
    low, high = max(0.0, s - z * se), min(1.0, s + z * se)
    elo_low, elo_high = elo_from_score(low), elo_from_score(high)
    sd_game = math.sqrt(variance * games_per_unit)
    return Estimate(
        model=model, units=units, games=base.games, score=s, score_low=low, score_high=high,
        elo=base.elo, elo_low=elo_low, elo_high=elo_high, elo_pm=(elo_high - elo_low) / 2,
        los=los_from(s, se), nelo=nelo_from_score(s, sd_game), nelo_pm=z * se / sd_game * NELO_PER_T,
        sd=base.sd)


def trinomial(wins: int, draws: int, losses: int, *, z: float = Z95) -> Estimate:
    """Estimate from plain games: A's wins, draws and losses against B (docs/evaluation.md,
    "Games: the trinomial model")."""
    _check_counts((wins, draws, losses), 3, "W/D/L")
    e = estimate(TRINOMIAL_SCORES, (losses, draws, wins), model="trinomial", games_per_unit=1, z=z)
    games = wins + draws + losses
    return replace(e, draw_ratio=draws / games if games else None)


def pentanomial(counts: Sequence[int], wdl: tuple[int, int, int] | None = None, *,
                z: float = Z95) -> Estimate:
    """Estimate from duplicate pairs: ``counts`` are ``[LL, LD+DL, WL+LW+DD, WD+DW, WW]`` from A's
    side (pair scores 0, ¼, ½, ¾, 1; docs/evaluation.md, "Duplicate pairs"). The pair counts cannot tell a WL pair from
    a DD pair, so the draw ratio and the variance ratio need the games' ``wdl`` as well; given,
    they are checked against the pairs (:func:`check_pairs_match_games`)."""
    _check_counts(counts, 5, "the pentanomial")
    e = estimate(PENTANOMIAL_SCORES, counts, model="pentanomial", games_per_unit=2, z=z)
    if wdl is None or e.units == 0:
        return e
    _check_counts(wdl, 3, "W/D/L")
    check_pairs_match_games(counts, wdl)
    pair_variance = (e.sd or 0.0) ** 2
    game_variance = mean_and_variance(TRINOMIAL_SCORES, (wdl[2], wdl[1], wdl[0]))[1]
    ratio = game_variance / (2 * pair_variance) if pair_variance > 0 else None
    return replace(e, draw_ratio=wdl[1] / e.games, variance_ratio=ratio)

