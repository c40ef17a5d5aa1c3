"""Head-to-head results from tables of more than two, and openskill's "who is stronger".

A game at a table of k entrants holds k(k-1)/2 head-to-head results: of any two entrants, the
one placed better won and equal placements drew (docs/evaluation.md, "Tables of more than two").
Each pair of entrants gets
at most one result per game, so a pair's W/D/L are independent across games and the trinomial
model of :mod:`tourney.stats.elo` applies to them. Two cautions the docs repeat: the results of
*one* game are correlated across pairs (never pool pairs into one variance), and A-against-B
depends on who else sat at the table, so these Elo differences are relative to the field.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from itertools import combinations
from statistics import NormalDist

from tourney.stats.elo import Estimate, StatsError, trinomial


@dataclass(frozen=True)
class PairRecord:
    """Games between ``first`` and ``second`` (``first`` sorts before ``second``), counted from
    ``first``'s side."""

    first: str
    second: str
    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    def estimate(self) -> Estimate:
        """Score, Elo ± 95% CI, LOS and draw ratio of ``first`` against ``second``."""
        return trinomial(self.wins, self.draws, self.losses)

    def to_dict(self) -> dict:
        return asdict(self)


def pairwise_records(games: Iterable[Sequence[tuple[str, float]]]) -> list[PairRecord]:
    """Head-to-head W/D/L for every two entrants who shared a table, from games given as
    ``(entrant, placement)`` per seat, lower placement better (the input of
    :func:`tourney.ratings.rate_games`). Sorted by ``(first, second)``; an entrant seated twice in
    one game is an error."""
    tally: dict[tuple[str, str], list[int]] = {}
    for number, seats in enumerate(games, 1):
        names = [name for name, _ in seats]
        if len(set(names)) != len(names):
            raise StatsError(f"game {number} seats the same entrant twice: {names}")
        for (a, place_a), (b, place_b) in combinations(seats, 2):
            if b < a:
                (a, place_a), (b, place_b) = (b, place_b), (a, place_a)
            wins_draws_losses = tally.setdefault((a, b), [0, 0, 0])
            wins_draws_losses[0 if place_a < place_b else 1 if place_a == place_b else 2] += 1
    return [PairRecord(a, b, *tally[(a, b)]) for a, b in sorted(tally)]


def probability_stronger(mu_a: float, sigma_a: float, mu_b: float, sigma_b: float) -> float:
    """For two openskill ratings, the chance that A's true skill exceeds B's:
    ``Φ((μA - μB)/√(σA² + σB²))``, treating the two posteriors as independent normals (the LOS
    analogue). Not the chance that A wins one game: that adds the game's
    own noise (openskill's ``predict_win`` uses ``2β²`` more variance). Equal ratings with no
    uncertainty give ½."""
    spread = math.sqrt(sigma_a**2 + sigma_b**2)
    if spread == 0:
        return 0.5 if mu_a == mu_b else float(mu_a > mu_b)
    return NormalDist().cdf((mu_a - mu_b) / spread)
