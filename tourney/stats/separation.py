"""Which entrants the results can tell apart, shown as rank ranges such as ``2-3``.

Two entrants are *separated* when the 95% confidence interval of the difference between their
ratings excludes 0. Overlapping intervals are not the test: two ratings whose intervals overlap
a little can still differ clearly, since the difference of independent estimates has standard
error ``√(se_a² + se_b²)``, less than ``se_a + se_b``.

An entrant's rank range runs from 1 + the number of entrants separated above it to N − the number
separated below it. Entrants whose ranges overlap cannot be ordered by these results; more games
(or duplicate pairs) narrow the ranges.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tourney.stats.elo import Z95, StatsError


@dataclass(frozen=True)
class Rated:
    """A rating with its standard error (for openskill, ``sigma``; for an estimate printed as
    ``value ± half_width`` at 95%, ``half_width / 1.96``: see :func:`se_from_half_width`)."""

    entrant: str
    value: float
    se: float


@dataclass(frozen=True)
class RankRange:
    """``best``..``worst``: the ranks the entrant could hold given which differences are
    significant; ``inseparable`` lists the entrants it cannot be told apart from."""

    entrant: str
    best: int
    worst: int
    inseparable: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """``"2"`` for a settled rank, ``"2-3"`` for a range."""
        return str(self.best) if self.best == self.worst else f"{self.best}-{self.worst}"

    def to_dict(self) -> dict:
        return {"entrant": self.entrant, "best": self.best, "worst": self.worst, "label": self.label,
                "inseparable": list(self.inseparable)}


def se_from_half_width(half_width: float, z: float = Z95) -> float:
    """Standard error behind a symmetric ``± half_width`` interval at the normal quantile ``z``."""
    return half_width / z


def significantly_better(a: Rated, b: Rated, z: float = Z95) -> bool:
    """Whether A is above B with the difference's interval clear of 0:
    ``(a - b) - z·√(se_a² + se_b²) > 0``, the two estimates taken as independent."""
    return a.value - b.value - z * math.sqrt(a.se**2 + b.se**2) > 0


def rank_ranges_from(order: Sequence[str], better: Callable[[str, str], bool]) -> list[RankRange]:
    """Rank ranges for entrants listed best first, given ``better(a, b)``: whether the results
    show ``a`` above ``b``. Use this form with head-to-head verdicts, e.g. ``better(a, b)`` when
    the pairwise Elo interval of ``a`` against ``b`` lies above 0."""
    ranges = []
    for entrant in order:
        others = [o for o in order if o != entrant]
        above = sum(better(o, entrant) for o in others)
        below = sum(better(entrant, o) for o in others)
        inseparable = tuple(o for o in others if not better(o, entrant) and not better(entrant, o))
        ranges.append(RankRange(entrant, 1 + above, len(order) - below, inseparable))
    return ranges


def rank_ranges(ratings: Sequence[Rated], z: float = Z95) -> list[RankRange]:
    """Rank ranges for independent ratings with standard errors, highest value first (equal
    values in name order); see the module docstring."""
    ordered = sorted(ratings, key=lambda r: (-r.value, r.entrant))
    by_name = {r.entrant: r for r in ordered}
    if len(by_name) != len(ordered):
        raise StatsError("each entrant may appear only once in a ranking")
    return rank_ranges_from([r.entrant for r in ordered],
                            lambda a, b: significantly_better(by_name[a], by_name[b], z))
