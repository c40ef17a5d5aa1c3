"""The rating of an event's standings: the ladder's maximum-likelihood fit, on the event's games.

Every event, and every club league, is rated the same way as the ladder (:mod:`tourney.stats.mle`):
Bradley-Terry at tables of two, Plackett-Luce at more (a game read as its placements, best first;
a shared place is a tie), with the same weak normal prior on each log-strength, as informative as
a fifth of one game between equals, so that an entrant that won (or lost) every game has a finite
rating and interval. Ratings are on the Elo scale, centred on the mean of the entrants that played
(or on ``reference``, an entrant's name: then each rating is the difference from it). The fit does
not depend on the order the games were played in, unlike the online update of
:mod:`tourney.results.ratings`.

What is read: at tables of two the pair tallies the writer keeps (a pair's wins, draws and losses
are all Bradley-Terry needs, so standings stay quick at a million games); at larger tables every
game's placements, counted by result in SQL, so that the fit sees each distinct result once (about
0.8 s per 100,000 four-player games for the query, 1.1 s for the whole standings, measured on a
loaded 2-core machine).

**Duplicate sets as the unit.** The two (or k) games of a duplicate set share a deal, so their
results are correlated: counted as independent games they would give intervals of the wrong
width. The fit itself uses every game; the covariance is then scaled by the dispersion of the
sets, ``φ = tr(C·J) / tr(C·H)``, where ``C`` is the fit's covariance, ``H`` the information of
the games in complete sets and ``J`` the sum over sets of the outer product of each set's score
(gradient) vector: the set-clustered ("sandwich") variance, pooled over the field into one number
so that a single entrant's few sets cannot make its interval vanish. ``φ = 1`` when the games of a
set are as good as independent; duplicate deals that cancel luck give ``φ < 1``. The estimate
is shrunk towards 1 as if :data:`PRIOR_SETS` more sets had shown ``φ = 1``:
``φ = (U·φ̂ + 4) / (U + 4)`` over ``U`` sets, so that a few sets that all came out even cannot
make every interval vanish.

**Rank ranges.** Two entrants are told apart when the 95% interval of their rating difference
(from the joint covariance) excludes 0 *and* the event's own ranking orders them the same way; an
entrant's range runs from 1 + those told apart above it to N - those told apart below it. The
official rank (each format ranks by its own rules) therefore always lies inside its range; a fit
that clearly disagrees with the format's order shows as a wider range, never as a rank outside it.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence

import numpy as np
from sqlite_utils import Database

from tourney.errors import UserError
from tourney.results import tallies
from tourney.stats import mle
from tourney.stats.elo import Z95
from tourney.stats.mle import ELO_PER_UNIT, PRIOR, Fit, Games, fit, stages_of
from tourney.stats.separation import rank_ranges_from

#: the name of the default reference: the mean of the entrants that played
FIELD = "field"

#: one game: ``(entrant_index, placement)`` per seat, lower placement better
Game = Sequence[tuple[int, float]]


def add_counted(games: Games, counted: Iterable[tuple[Game, float]]) -> None:
    """Add games given once each with how often they were played (``(seats, count)``): the same
    stages as adding each game ``count`` times, at the cost of one (an event of a million
    games has a few thousand distinct results at most)."""
    weights: dict[tuple[int, tuple[int, ...]], float] = {}
    total = 0
    for seats, count in counted:
        total += int(count)
        for chosen, group, weight in stages_of(seats):
            weights[(chosen, group)] = weights.get((chosen, group), 0.0) + weight * count
    add_weights(games, weights, total)


def add_weights(games: Games, weights: dict[tuple[int, tuple[int, ...]], float], total: int) -> None:
    """Add summed stages, ``(chosen, group) -> weight`` (``group`` sorted), that hold ``total`` games."""
    if not weights:
        return
    width = max(len(group) for _, group in weights)
    members = np.full((len(weights), width), -1, dtype=np.int64)
    for row, (_, group) in enumerate(weights):
        members[row, :len(group)] = group
    games.add_arrays(members, np.array([c for c, _ in weights], dtype=np.int64),
                     np.fromiter(weights.values(), dtype=np.float64, count=len(weights)), total)


def dispersion(result: Fit, sets: list[list[Game]]) -> float:
    """The dispersion ``φ`` of duplicate sets (module docstring), from the sets' games; 1 when
    there is no complete set. Every set's score vector is summed from its stages at once."""
    sets = [s for s in sets if len(s) > 1]
    if not sets:
        return 1.0
    n = result.n
    width = max(len(seats) for games in sets for seats in games)
    members, chosen, weight, unit = [], [], [], []
    for u, games in enumerate(sets):
        for seats in games:
            for who, group, w in stages_of(seats):
                members.append(group + (-1,) * (width - len(group)))
                chosen.append(who)
                weight.append(w)
                unit.append(u)
    m, c, w_ = np.array(members, dtype=np.int64), np.array(chosen, dtype=np.int64), np.array(weight)
    u_ = np.array(unit, dtype=np.int64)
    p, _ = mle._probabilities(result.theta, m)
    scores = np.zeros((len(sets), n + 1))
    np.add.at(scores, (u_, c), w_)
    np.add.at(scores, (np.repeat(u_, width), np.where(m >= 0, m, n).ravel()), -(w_[:, None] * p).ravel())
    _, info = mle._gradient_and_information(result.theta, m, c, w_)
    return _ratio(result.cov, scores[:, :n].T @ scores[:, :n], info, len(sets))


#: the dispersion's weak prior: as many sets as this at φ = 1, so that a few sets that all came
#: out even cannot shrink every interval to nothing
PRIOR_SETS = 4


def _ratio(cov: np.ndarray, outer: np.ndarray, info: np.ndarray, sets: int) -> float:
    model = float(np.trace(cov @ info))
    if model <= 0:
        return 1.0
    raw = float(np.trace(cov @ outer)) / model
    return (sets * raw + PRIOR_SETS) / (sets + PRIOR_SETS)


def pair_dispersion(result: Fit, mirror: dict[tuple[int, int], list[int]]) -> float:
    """:func:`dispersion` for two-player duplicate events from the kept mirror-pair counts
    (``(a, b) -> [sets in which a scored 0, ¼, ½, ¾, 1]``, each pair once): a set of two games
    has score ``2s - 2p`` for ``a`` (``s`` its share, ``p`` the fitted chance a beats b) and
    information ``2p(1-p)``, both along ``e_a - e_b``."""
    n = result.n
    outer = np.zeros((n, n))
    info = np.zeros((n, n))
    for (a, b), counts in mirror.items():
        p = 1.0 / (1.0 + math.exp(-(result.theta[a] - result.theta[b])))
        d = np.zeros(n)
        d[a], d[b] = 1.0, -1.0
        dd = np.outer(d, d)
        for index, count in enumerate(counts):
            outer += count * (2 * index / 4 - 2 * p) ** 2 * dd
        info += sum(counts) * 2 * p * (1 - p) * dd
    if not mirror:
        return 1.0
    return _ratio(result.cov, outer, info, sum(sum(c) for c in mirror.values()))


def rate(names: list[str], games: Games, ranks: dict[str, int], reference: str | None = None,
         phi: float = 1.0, dispersion_of=None) -> dict:
    """Ratings of ``names`` (indices into ``games``) with 95% intervals and rank ranges against
    the official ``ranks`` (entrant -> rank); ``dispersion_of(fit)`` gives the duplicate sets'
    ``φ`` once the fit is known. See :func:`event_rating` for the shape."""
    if reference is not None and reference not in names:
        raise UserError(f"--reference {reference!r} is not an entrant of this event "
                        f"(entrants: {', '.join(names)})")
    n = len(names)
    members, _, weight = games.arrays()
    played_weight = np.bincount(np.where(members >= 0, members, n).ravel(),
                                weights=np.repeat(weight, members.shape[1]), minlength=n + 1)[:n]
    played = [i for i in range(n) if played_weight[i] > 0]
    result = fit(n, games, prior=PRIOR)
    if dispersion_of is not None:
        phi = dispersion_of(result)
    result = Fit(result.theta, result.cov * phi, result.games, result.loglik, result.iterations, result.prior)
    centre = [names.index(reference)] if reference is not None else played
    shown = result.centred(centre)
    rows: dict[str, dict | None] = {}
    for i, name in enumerate(names):
        if i not in played:
            rows[name] = None
            continue
        se = shown.se(i)
        theta = float(shown.theta[i])
        rows[name] = {"rating": _r(theta * ELO_PER_UNIT), "rating_low": _r((theta - Z95 * se) * ELO_PER_UNIT),
                      "rating_high": _r((theta + Z95 * se) * ELO_PER_UNIT), "rating_pm": _r(Z95 * se * ELO_PER_UNIT),
                      "theta": round(theta, 6) + 0.0, "se": round(se, 6) + 0.0}
    index = {name: i for i, name in enumerate(names)}

    def told_apart(a: str, b: str) -> bool:
        i, j = index[a], index[b]
        return (ranks[a] < ranks[b] and i in played and j in played
                and result.separated(i, j))

    order = sorted(names, key=lambda name: (ranks[name], index[name]))
    ranges = {r.entrant: r.label for r in rank_ranges_from(order, told_apart)}
    return {"rows": rows, "rank_range": ranges, "dispersion": round(phi, 4), "fit": result,
            "reference": reference or FIELD}


def _r(value: float) -> float:
    return round(value, 1) + 0.0


def model_of(players: int, duplicate: bool) -> dict:
    """What the fit is, for the standings' ``rating_model``."""
    return {"model": "bradley-terry" if players <= 2 else "plackett-luce",
            "unit": "duplicate set" if duplicate else "game", "prior": PRIOR, "scale": "elo",
            "interval": 0.95}


def event_rating(db: Database, event: dict, names: list[str], ranks: dict[str, int],
                 reference: str | None = None) -> dict:
    """The rating of each entrant of a stored event: ``{"rows": {entrant: {"rating",
    "rating_low", "rating_high", "rating_pm", "theta", "se"} or None (no games)}, "rank_range":
    {entrant: "2-3"}, "reference", "model": {...}}`` (docs/standings.md, "The rating")."""
    ids = {r[0]: r[1] for r in db.execute("SELECT id, name FROM entrants")}
    index = {name: i for i, name in enumerate(names)}
    players = int(event.get("players") or 2)
    duplicate = bool(db.execute("SELECT 1 FROM games INDEXED BY idx_games_duplicate "  # not every game
                                "WHERE event_id = ? AND duplicate_set IS NOT NULL LIMIT 1", [event["id"]]).fetchone())
    games = Games(width=max(2, players))
    dispersion_of = None
    if players <= 2:
        pairs, _ = tallies.kept(db, event["id"])
        rows, chosen, weight = [], [], []
        mirror: dict[tuple[int, int], list[int]] = {}
        for (a, b), row in pairs.items():
            if ids.get(a) not in index or ids.get(b) not in index:
                continue
            i, j = index[ids[a]], index[ids[b]]
            won = row[0] + row[1] / 2  # a draw is half a win each
            if won:
                rows.append(sorted((i, j)))
                chosen.append(i)
                weight.append(won)
            if i < j and any(row[3:]):
                mirror[(i, j)] = row[3:]
        if rows:
            games.add_arrays(np.array(rows, dtype=np.int64), np.array(chosen), np.array(weight, dtype=float),
                             sum(r[0] + r[1] + r[2] for r in pairs.values()) // 2)
        if duplicate and mirror:
            def dispersion_of(result):
                return pair_dispersion(result, mirror)
    elif duplicate:
        sets: dict[tuple[int, int], list[Game]] = {}
        counted: Counter = Counter()
        for key, seats in _event_games(db, event["id"], index):
            counted[tuple(seats)] += 1
            if key is not None:
                sets.setdefault(key, []).append(seats)
        add_counted(games, counted.items())
        if sets:
            def dispersion_of(result):
                return dispersion(result, list(sets.values()))
    else:
        ladder = db.execute("SELECT id FROM ladders WHERE event_id = ?", [event["id"]]).fetchone()
        if ladder is not None:
            _add_ladder_stages(db, {"id": ladder[0], "event_id": event["id"]},
                               {i: index[n] for i, n in ids.items() if n in index}, games)
        else:
            add_counted(games, _distinct_games(db, event["id"], index))
    out = rate(names, games, ranks, reference, dispersion_of=dispersion_of)
    out["model"] = {**model_of(players, duplicate), "dispersion": out["dispersion"]}
    del out["fit"], out["dispersion"]
    return out


def _add_ladder_stages(db: Database, ladder: dict, index: dict[int, int], games: Games) -> None:
    """A ladder's games into ``games`` (``index``: entrant id -> row): the stage sums its runner
    keeps (:mod:`tourney.results.stages`) and the few games stored after them, read in one
    snapshot: the same stages as every game read one by one, in time independent of their number."""
    from tourney.results import ladder as ladder_rows  # the ladder's reads: only for a ladder's event

    kept, count, _, after = ladder_rows.fit_input(db, ladder)
    weights: dict[tuple[int, tuple[int, ...]], float] = defaultdict(float)
    for chosen, members, weight in kept:
        if chosen in index and all(m in index for m in members):
            weights[(index[chosen], tuple(sorted(index[m] for m in members)))] += weight
    for _, seats in after:
        for chosen, group, weight in stages_of([(index[e], place) for e, place in seats if e in index]):
            weights[(chosen, group)] += weight
    add_weights(games, weights, count + len(after))


def _distinct_games(db: Database, event_id: int, index: dict[str, int]) -> list[tuple[Game, int]]:
    """The event's finished games counted by their result (who placed where), in SQL: each
    distinct result once with how often it came."""
    ids = {r[0]: r[1] for r in db.execute("SELECT id, name FROM entrants")}
    out: list[tuple[Game, int]] = []
    for pattern, count in db.execute(
            "SELECT pattern, COUNT(*) FROM (SELECT group_concat(s.entrant_id || ':' || "
            "COALESCE(s.placement, s.points, 0), ',') AS pattern FROM games g "
            "JOIN seats s ON s.game_id = g.id WHERE g.event_id = ? GROUP BY g.id) GROUP BY pattern", [event_id]):
        seats: list[tuple[int, float]] = []
        for part in pattern.split(","):
            entrant, place = part.split(":")
            if ids.get(int(entrant)) in index:
                seats.append((index[ids[int(entrant)]], float(place)))
        if len(seats) >= 2:
            out.append((seats, count))
    return out


def _event_games(db: Database, event_id: int, index: dict[str, int]):
    """Each finished game of the event as ``(duplicate set key or None, [(index, place)])``; a
    seat without a placement is placed by its points."""
    current: int | None = None
    key: tuple[int, int] | None = None
    seats: list[tuple[int, float]] = []
    for game_id, series_id, dset, name, place in db.execute(
            "SELECT g.id, g.series_id, g.duplicate_set, e.name, COALESCE(s.placement, s.points, 0) "
            "FROM games g JOIN seats s ON s.game_id = g.id JOIN entrants e ON e.id = s.entrant_id "
            "WHERE g.event_id = ? ORDER BY g.id, s.seat", [event_id]):
        if game_id != current:
            if len(seats) >= 2:
                yield key, seats
            current, seats = game_id, []
            key = None if dset is None else (series_id, dset)
        if name in index:
            seats.append((index[name], place))
    if len(seats) >= 2:
        yield key, seats
