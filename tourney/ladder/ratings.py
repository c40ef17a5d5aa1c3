"""A ladder's ratings: the stored games read once (their kept sums and the games after them),
refitted with a warm start as games arrive (:mod:`tourney.stats.mle`), and the leaderboard made
from the fit."""

from __future__ import annotations

import numpy as np

from tourney.results import ladder as rows
from tourney.stats.elo import Z95
from tourney.stats.mle import ELO_PER_UNIT, Fit, Games, fit, stages_of


class Ratings:
    """The fit of one ladder, kept up to date: :meth:`add` each game as it is stored, then
    :meth:`refit` (from the last fit, so a refit after a few games is one or two Newton steps)."""

    def __init__(self, db, ladder: dict):
        self.db = db
        self.ladder = ladder
        self.index: dict[int, int] = {}   # entrant id -> index in the fit
        self.games = Games(width=max(2, ladder["players"]))
        self.last_game = 0
        self.fit: Fit | None = None
        self._stored = rows.last_fit(db, ladder["id"]) or {}
        for v in rows.versions(db, ladder["id"]):
            self._index_of(v["entrant_id"])
        # the kept sums of the games folded so far and the few games stored after them, added in
        # one step (tourney.results.stages): the fit of every game, in time that does not grow
        kept, count, self.last_game, new = rows.fit_input(db, ladder)
        stages = list(kept)
        for game_id, seats in new:
            stages.extend(stages_of(seats))
            self.last_game = game_id
        if stages:
            members = np.full((len(stages), self.games.width), -1, dtype=np.int64)
            for r, (_, group, _) in enumerate(stages):
                ids = sorted(self._index_of(e) for e in group)
                members[r, :len(ids)] = ids
            chosen = np.array([self._index_of(c) for c, _, _ in stages], dtype=np.int64)
            weight = np.array([w for _, _, w in stages], dtype=np.float64)
            self.games.add_arrays(members, chosen, weight, count + len(new))

    def track(self, versions: list[dict]) -> None:
        """Give versions submitted since this fit began a place in it (they start at 0)."""
        for v in versions:
            self._index_of(v["entrant_id"])

    def _index_of(self, entrant_id: int) -> int:
        if entrant_id not in self.index:
            self.index[entrant_id] = len(self.index)
        return self.index[entrant_id]

    def load(self) -> int:
        """Read the games stored since the last load; returns how many."""
        new = rows.games(self.db, self.ladder["event_id"], self.last_game)
        for game_id, seats in new:
            self.add(seats)
            self.last_game = game_id
        return len(new)

    def add(self, seats: list[tuple[int, float]]) -> None:
        """One game, as ``(entrant_id, placement)`` per seat."""
        self.games.add([(self._index_of(e), p) for e, p in seats])

    def refit(self) -> Fit:
        n = len(self.index)
        start: Fit | np.ndarray
        if self.fit is not None:
            start = self.fit  # its covariance too, while it holds (tourney.stats.mle.fit)
        else:  # the last stored fit, by entrant (versions added since start at 0)
            start = np.zeros(n)
            for entrant_id, (theta, _) in self._stored.items():
                if entrant_id in self.index:
                    start[self.index[entrant_id]] = theta
        self.fit = fit(n, self.games, start=start)
        return self.fit

    def save(self) -> None:
        """Keep the fit (the next run's warm start, and a point of each version's history)."""
        if self.fit is None:
            return
        f = self.fit
        rows.save_fit(self.db, self.ladder["id"], f.games,
                      {e: [round(float(f.theta[i]), 6), round(f.se(i), 6)] for e, i in self.index.items()})

    def leaderboard(self, versions: list[dict], counts: dict[int, int]) -> list[dict]:
        """One row per version that passed its check and has played, best first: rank, rank range (among the
        versions rated), rating and its 95% interval on the Elo scale (against the field's mean)."""
        f = self.fit if self.fit is not None else self.refit()
        rated = [v for v in versions if v["status"] in ("active", "retired", "disabled")
                 and counts.get(v["entrant_id"])]
        idx = [self.index[v["entrant_id"]] for v in rated]
        f = f.centred(idx)
        ranges = f.rank_ranges(idx)
        out = []
        for v in rated:
            i = self.index[v["entrant_id"]]
            elo, low, high = f.elo(i)
            out.append({
                "rank": 0, "rank_range": ranges[i].label, "entrant": v["entrant"], "author": v["author"],
                "version": v["version"], "status": v["status"], "reason": v["reason"],
                "games": counts.get(v["entrant_id"], 0), "rating": round(elo, 1) + 0.0,
                "rating_low": round(low, 1) + 0.0, "rating_high": round(high, 1) + 0.0,
                "theta": round(float(f.theta[i]), 6), "se": round(f.se(i), 6),
            })
        out.sort(key=lambda r: (-r["theta"], r["entrant"]))
        for rank, r in enumerate(out, 1):
            r["rank"] = rank
        return out

    def neighbours(self, board: list[dict], top: int | None = None) -> list[dict]:
        """Each pair of neighbours among the active versions (in the top ``top`` if given):
        their difference on the Elo scale with its 95% interval, and whether it is separated."""
        f = self.fit if self.fit is not None else self.refit()
        by_name = {v["entrant"]: v for v in rows.versions(self.db, self.ladder["id"])}
        active = [r for r in board if r["status"] == "active"]
        if top is not None:
            active = active[:top]
        out = []
        for upper, lower in zip(active, active[1:]):
            i = self.index[by_name[upper["entrant"]]["entrant_id"]]
            j = self.index[by_name[lower["entrant"]]["entrant_id"]]
            diff, se = float(f.theta[i] - f.theta[j]), f.diff_se(i, j)
            out.append({"upper": upper["entrant"], "lower": lower["entrant"],
                        "difference": round(diff * ELO_PER_UNIT, 1),
                        "difference_low": round((diff - Z95 * se) * ELO_PER_UNIT, 1),
                        "difference_high": round((diff + Z95 * se) * ELO_PER_UNIT, 1),
                        "separated": f.separated(i, j)})
        return out
