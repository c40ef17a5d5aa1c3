"""Luck-adjusted scores (AIVAT-style control variates) for the eights family; see docs/evaluation.md.

* :mod:`tourney.luck.value` - the value function: features of a seat, the fitted pairwise model;
* :mod:`tourney.luck.chance` - which draws are chance events, from the referee's full view;
* :mod:`tourney.luck.adjust` - the adjusted score of a replayed game;
* :mod:`tourney.results.luck` - per-entrant adjusted score and Elo ± CI, and the stored games' read.
"""

from tourney.luck.adjust import Adjusted, adjust

__all__ = ["Adjusted", "adjust"]
