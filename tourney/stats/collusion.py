"""Tests behind collusion detection: stratified 2×2 tables and the Holm correction.

Every collusion signal of :mod:`tourney.results.fairplay` asks one question of a pair of
entrants: do *units* that concern the partner (a hostile effect that could have been aimed at
the partner; a game the partner sat in) turn out differently from comparable units that do not?
"Comparable" is a stratum: the units of one stratum share what the position offered (how many
targets there were, where the target stood), so only the partner's identity differs. Each stratum
is a 2×2 table::

                      hit    miss
    partner units      a      b
    other units        c      d

Under the null hypothesis (the outcome does not depend on who the partner is, given the
stratum) and given every table's margins, ``a`` is hypergeometric in each stratum and the strata
are independent. The exact conditional test (Mantel-Haenszel's setting, computed exactly as
R's ``mantelhaen.test(exact = TRUE)`` does for 2×2×K tables) sums the ``a``'s and compares the
sum with its exact distribution; large tables use the Mantel-Haenszel normal approximation with
continuity correction. Many pairs are tested at once, so p-values are adjusted with Holm's
step-down method, which holds the family-wise error rate without assuming the tests independent.

Pure functions, standard library only; tests/test_collusion.py checks them against published
values (R's penicillin-and-rabbits example, Fisher's tea tasting) and brute-force enumeration.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from statistics import NormalDist

#: a stratum's 2×2 table (a, b, c, d): partner units hit a / missed b, other units hit c / missed d
Table = tuple[int, int, int, int]

#: above this many steps of convolution the exact test gives way to the normal approximation
EXACT_WORK_LIMIT = 400_000

#: hypergeometric probabilities below this share of a stratum's largest are dropped (their sum is
#: far below any p-value that matters; it keeps the convolution short)
_NEGLIGIBLE = 1e-17


@dataclass(frozen=True)
class StratifiedResult:
    """One stratified test: ``observed`` partner hits against ``expected`` under the null,
    ``partner_units`` and ``other_units`` counted over strata that can tell (both rows present,
    hits and misses both possible), the one-sided ``p_value`` and the ``method``
    (``"exact"``, ``"mantel-haenszel"`` or ``"none"`` when no stratum can tell)."""

    observed: int
    expected: float
    partner_units: int
    other_units: int
    p_value: float
    method: str

    def to_dict(self) -> dict:
        return asdict(self)


def _informative(tables: Iterable[Table]) -> list[Table]:
    """Strata whose ``a`` is not fixed by the margins: both rows and both columns non-empty."""
    out = []
    for a, b, c, d in tables:
        if min(a, b, c, d) < 0:
            raise ValueError(f"a 2x2 table holds counts, not {(a, b, c, d)}")
        if (a + b) and (c + d) and (a + c) and (b + d):
            out.append((a, b, c, d))
    return out


def hypergeometric(table: Table) -> tuple[int, list[float]]:
    """The exact distribution of ``a`` given the margins of ``table``: ``(low, pmf)`` where
    ``pmf[i]`` is P(a = low + i). Negligible tails (below 1e-17 of the mode) are dropped."""
    a, b, c, d = table
    rows, hits, total = a + b, a + c, a + b + c + d
    low, high = max(0, rows + hits - total), min(rows, hits)
    log_norm = _log_choose(total, rows)
    logs = [_log_choose(hits, k) + _log_choose(total - hits, rows - k) - log_norm for k in range(low, high + 1)]
    top = max(logs)
    keep = [i for i, v in enumerate(logs) if v - top > math.log(_NEGLIGIBLE)]
    first, last = keep[0], keep[-1]
    return low + first, [math.exp(v) for v in logs[first:last + 1]]


def _log_choose(n: int, k: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def exact_distribution(tables: Sequence[Table]) -> tuple[int, list[float]]:
    """The exact distribution of ``Σa`` over independent strata: ``(low, pmf)``, the convolution
    of each stratum's :func:`hypergeometric`."""
    low, pmf = 0, [1.0]
    for table in tables:
        t_low, t_pmf = hypergeometric(table)
        out = [0.0] * (len(pmf) + len(t_pmf) - 1)
        for i, p in enumerate(pmf):
            if p:
                for j, q in enumerate(t_pmf):
                    out[i + j] += p * q
        top = max(out)
        keep = [i for i, v in enumerate(out) if v > top * _NEGLIGIBLE]
        low, pmf = low + t_low + keep[0], out[keep[0]:keep[-1] + 1]
    return low, pmf


def exact_p_value(tables: Sequence[Table], alternative: str) -> float:
    """One-sided exact conditional p-value of ``Σa``: ``"less"`` is P(Σa ≤ observed) (the partner
    is hit less often than the strata predict), ``"greater"`` is P(Σa ≥ observed)."""
    _check(alternative)
    tables = _informative(tables)
    observed = sum(t[0] for t in tables)
    low, pmf = exact_distribution(tables)
    if alternative == "less":
        tail = sum(pmf[: max(0, observed - low + 1)])
    else:
        tail = sum(pmf[max(0, observed - low):])
    return min(1.0, tail)


def mantel_haenszel(tables: Sequence[Table], alternative: str, correct: bool = True) -> tuple[float, float]:
    """The Mantel-Haenszel statistic ``(z, p)`` for ``Σa`` over the strata, as R's
    ``mantelhaen.test`` computes it: ``Δ = Σa - ΣE[a]`` with the hypergeometric mean and variance
    of each stratum, ``z = sign(Δ)·(|Δ| - ½)/√ΣVar[a]`` (the ½ is the continuity correction, made
    only when ``|Δ| ≥ ½``); ``alternative`` is ``"less"`` (p = Φ(z)), ``"greater"`` (p = 1 - Φ(z))
    or ``"two-sided"`` (``z²`` is the Mantel-Haenszel chi-square, p its upper tail)."""
    if alternative != "two-sided":
        _check(alternative)
    tables = _informative(tables)
    mean, var = _moments(tables)
    if var == 0:
        return 0.0, 1.0
    delta = sum(t[0] for t in tables) - mean
    shift = 0.5 if correct and abs(delta) >= 0.5 else 0.0
    z = math.copysign(abs(delta) - shift, delta) / math.sqrt(var)
    normal = NormalDist()
    if alternative == "two-sided":
        return z, min(1.0, 2 * normal.cdf(-abs(z)))
    return z, normal.cdf(z) if alternative == "less" else normal.cdf(-z)


def _moments(tables: Sequence[Table]) -> tuple[float, float]:
    mean = var = 0.0
    for a, b, c, d in tables:
        rows, others, hits, misses = a + b, c + d, a + c, b + d
        total = rows + others
        mean += rows * hits / total
        var += rows * others * hits * misses / (total * total * (total - 1))
    return mean, var


def stratified_test(tables: Iterable[Table], alternative: str) -> StratifiedResult:
    """The test of every collusion signal: exact when the convolution is small (under
    :data:`EXACT_WORK_LIMIT` steps), else Mantel-Haenszel with continuity correction."""
    _check(alternative)
    tables = _informative(tables)
    observed = sum(t[0] for t in tables)
    mean, _ = _moments(tables)
    partner = sum(t[0] + t[1] for t in tables)
    other = sum(t[2] + t[3] for t in tables)
    if not tables:
        return StratifiedResult(0, 0.0, 0, 0, 1.0, "none")
    work, width = 0, 1
    for a, b, c, _ in tables:
        span = min(a + b, a + c) + 1
        work += width * span
        width += span - 1
    if work <= EXACT_WORK_LIMIT:
        p, method = exact_p_value(tables, alternative), "exact"
    else:
        p, method = mantel_haenszel(tables, alternative)[1], "mantel-haenszel"
    return StratifiedResult(observed, mean, partner, other, p, method)


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment: the i-th smallest of m p-values becomes
    ``max over j ≤ i of min(1, (m - j + 1) · p_(j))``, in the input's order. Rejecting every
    hypothesis whose adjusted p is below α holds the chance of any false rejection at α, whatever
    the dependence between the tests (Holm 1979)."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def _check(alternative: str) -> None:
    if alternative not in ("less", "greater"):
        raise ValueError(f"alternative is 'less' or 'greater', not {alternative!r}")
