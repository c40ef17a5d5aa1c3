"""Ratings of bot entrants: Weng and Lin's Plackett-Luce model, with openskill's defaults,
over the stored results (the update itself is :func:`tourney.stats.weng_lin.rate`).

Ratings follow the event's finished games in game order (``games.id``, the order they were
committed). The database's writer keeps them as each game is stored (``entrant_ratings``,
:func:`rate_one`), so standings read them in one query however many games there are;
:func:`event_ratings` recomputes the same values from the ``seats`` table (the reference, used
when an older file is upgraded, and for the rating history of charts). Each game is a
free-for-all with one team per seat; ``ranks`` are the seats' placements (1 = best, equal
placements tie), or their points when no placement is stored. Leaderboards use the conservative ordinal ``mu - 3*sigma``
(``rating.ordinal()``), never ``mu`` alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tourney.stats import weng_lin

#: model defaults (openskill's): mu 25, sigma 25/3
MU = weng_lin.MU
SIGMA = weng_lin.SIGMA


@dataclass
class Rating:
    entrant: str
    mu: float = MU
    sigma: float = SIGMA
    games: int = 0
    #: ordinal after each rated game of this event, as ``(game_number, ordinal)``; game numbers are
    #: 1-based positions in the event's game order
    history: list[tuple[int, float]] = field(default_factory=list)

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma

    def to_dict(self) -> dict:
        return {"mu": round(self.mu, 4), "sigma": round(self.sigma, 4), "ordinal": round(self.ordinal, 4),
                "games": self.games}


def rate_games(games: list[list[tuple[str, float]]]) -> dict[str, Rating]:
    """Ratings after ``games``, each a list of ``(entrant, rank)`` per seat (lower rank is better,
    equal ranks tie), in game order. Games with fewer than two seats are skipped."""
    out: dict[str, Rating] = {}
    for number, seats in enumerate(games, 1):
        if len(seats) < 2:
            continue
        players = [out.setdefault(name, Rating(name)) for name, _ in seats]
        after = rate_one([(r.mu, r.sigma) for r in players], [rank for _, rank in seats])
        for r, (mu, sigma) in zip(players, after):
            r.mu, r.sigma = mu, sigma
            r.games += 1
            r.history.append((number, r.ordinal))
    return out


def rate_one(before: list[tuple[float, float]], ranks: list[float]) -> list[tuple[float, float]]:
    """``(mu, sigma)`` of each seat after one game, from their values before it and the seats'
    ranks; the step :func:`rate_games` repeats, done by the database's writer as each game is
    stored (``entrant_ratings``)."""
    return weng_lin.rate(before, [float(r) for r in ranks])


def kept_ratings(db, event_id: int) -> dict[str, Rating]:
    """The ratings the writer keeps for an event (``entrant_ratings``): the same values as
    :func:`event_ratings` gives from the stored games, read in one query (no ``history``)."""
    return {r["name"]: Rating(r["name"], r["mu"], r["sigma"], r["games"]) for r in db.query(
        "SELECT e.name, r.mu, r.sigma, r.games FROM entrant_ratings r "
        "JOIN entrants e ON e.id = r.entrant_id WHERE r.event_id = ?", [event_id])}


def event_games(db, event_id: int) -> list[list[tuple[str, float]]]:
    """The finished games of an event in schedule order (series, then game within it), as
    ``rate_games`` input: the same ratings however many workers played the event."""
    games: dict[int, list[tuple[str, float]]] = {}
    rows = db.query(
        "SELECT st.game_id, e.name, st.placement, st.points FROM seats st "
        "JOIN games g ON g.id = st.game_id JOIN series s ON s.id = g.series_id "
        "JOIN entrants e ON e.id = st.entrant_id "
        "WHERE g.event_id = ? ORDER BY s.idx, g.idx, st.seat", [event_id])
    for r in rows:
        rank = r["placement"] if r["placement"] is not None else (r["points"] or 0)
        games.setdefault(r["game_id"], []).append((r["name"], rank))
    return list(games.values())


def iter_event_games(db, event_id: int):
    """The finished games of an event in game order, one at a time (memory does not grow with
    the event), each a list of ``(entrant, rank, points)`` per seat."""
    rows = db.conn.execute(
        "SELECT st.game_id, e.name, st.placement, st.points FROM seats st "
        "JOIN games g ON g.id = st.game_id JOIN entrants e ON e.id = st.entrant_id "
        "WHERE g.event_id = ? ORDER BY g.id, st.seat", [event_id])
    current = None
    seats: list[tuple[str, float, int]] = []
    for game_id, name, placement, points in rows:
        if game_id != current and seats:
            yield seats
            seats = []
        current = game_id
        seats.append((name, placement if placement is not None else (points or 0), points))
    if seats:
        yield seats


def event_ratings(db, event_id: int) -> dict[str, Rating]:
    return rate_games(event_games(db, event_id))


def rating_ranks(ratings: dict[str, Rating]) -> dict[str, int]:
    """entrant -> rank by ordinal (higher first; equal ordinals, to 9 decimals, share a rank)."""
    keyed = {n: round(r.ordinal, 9) for n, r in ratings.items()}
    return {n: 1 + sum(1 for o in keyed.values() if o > k) for n, k in keyed.items()}
