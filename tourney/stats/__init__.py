"""Statistics for verdicts: Elo with confidence intervals, LOS, the SPRT, rank ranges.

Pure functions over counts, standard library only (but ``mle``, which needs numpy and is not
imported here): no database, no CLI. Results are frozen
dataclasses, and the running :class:`Sprt` a mutable one; each has a ``to_dict()`` that is safe
for JSON. docs/evaluation.md explains every method and names its source.

``elo``         score, Elo ± 95% CI, LOS, draw ratio (trinomial games, pentanomial pairs), conversions
``sprt``        the GSPRT log-likelihood ratio, Wald's bounds and a running :class:`Sprt`
``pairwise``    head-to-head W/D/L from placements at tables of any size; openskill's P(A > B)
``separation``  which entrants are statistically separable, as rank ranges like ``2-3``
``mle``         Bradley–Terry and Plackett–Luce ratings by maximum likelihood, with covariance
"""

from tourney.stats.elo import (
    Z95,
    Estimate,
    StatsError,
    elo_from_score,
    pentanomial,
    pentanomial_counts,
    score_from_elo,
    trinomial,
    wdl_counts,
)
from tourney.stats.pairwise import PairRecord, pairwise_records, probability_stronger
from tourney.stats.separation import RankRange, Rated, rank_ranges, rank_ranges_from
from tourney.stats.sprt import Sprt, bounds, llr

__all__ = [
    "Z95", "Estimate", "PairRecord", "RankRange", "Rated", "Sprt", "StatsError", "bounds", "elo_from_score",
    "llr", "pairwise_records", "pentanomial", "pentanomial_counts", "probability_stronger", "rank_ranges",
    "rank_ranges_from", "score_from_elo", "trinomial", "wdl_counts",
]
