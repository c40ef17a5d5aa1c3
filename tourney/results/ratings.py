"""The *online* rating of bot entrants: Weng and Lin's Plackett-Luce update, with openskill's
defaults, game by game over the stored results (the update itself is
:func:`tourney.stats.weng_lin.rate`). It serves where an estimate must follow the games as they
come, cheaply: the Swiss seeding (:func:`tourney.events.rounds.rating_order`) and a report's
progress chart; it depends on the order of the games, so the standings rank and rate with the
maximum-likelihood fit instead (:mod:`tourney.results.rating_fit`) and give this one only as the
deprecated ``rating`` field of their JSON.

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
#: the writer keeps every entrant's rating after each CHECKPOINT-th game of an event
#: (``progress_checkpoints``, with its points so far), for the charts of long events (:func:`checkpoints`)
CHECKPOINT = 1000


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


def iter_event_games(db, event_id: int, after: int = 0, with_ids: bool = False):
    """The finished games of an event in game order, one at a time (memory does not grow with
    the event), each a list of ``(entrant, rank, points)`` per seat (``(game_id, seats)`` with
    ``with_ids``); ``after``: only games with a greater id."""
    rows = db.conn.execute(
        "SELECT st.game_id, e.name, st.placement, st.points FROM seats st "
        "JOIN games g ON g.id = st.game_id JOIN entrants e ON e.id = st.entrant_id "
        "WHERE g.event_id = ? AND g.id > ? ORDER BY g.id, st.seat", [event_id, after])
    current = None
    seats: list[tuple[str, float, int]] = []
    for game_id, name, placement, points in rows:
        if game_id != current and seats:
            yield (current, seats) if with_ids else seats
            seats = []
        current = game_id
        seats.append((name, placement if placement is not None else (points or 0), points))
    if seats:
        yield (current, seats) if with_ids else seats


def event_ratings(db, event_id: int) -> dict[str, Rating]:
    return rate_games(event_games(db, event_id))


def rating_ranks(ratings: dict[str, Rating]) -> dict[str, int]:
    """entrant -> rank by ordinal (higher first; equal ordinals, to 9 decimals, share a rank)."""
    keyed = {n: round(r.ordinal, 9) for n, r in ratings.items()}
    return {n: 1 + sum(1 for o in keyed.values() if o > k) for n, k in keyed.items()}


def games_stored(conn, event_id: int) -> int:
    """How many games of the event are stored: the last checkpoint's count and the games after
    it, so that the writer counts at most :data:`CHECKPOINT` rows however long the event."""
    last = conn.execute("SELECT game_number, game_id FROM progress_checkpoints WHERE event_id = ? "
                        "ORDER BY game_number DESC LIMIT 1", [event_id]).fetchone()
    number, after = last or (0, 0)
    return number + conn.execute("SELECT COUNT(*) FROM games WHERE event_id = ? AND id > ?",
                                 [event_id, after]).fetchone()[0]


def save_checkpoint(conn, event_id: int, number: int, game_id: int, rated: dict[int, list],
                    points: dict[int, int]) -> None:
    """Keep every entrant's rating and points so far after the event's game ``number``
    (``game_id``): the kept rows (``entrant_ratings``, ``entrant_totals``) with what the writer's
    batch adds to them, ``rated`` (entrant id -> ``[mu, sigma, ...]``) and ``points`` (entrant id
    -> points)."""
    now: dict[int, list] = {}
    for i, mu, sigma, total in conn.execute(
            "SELECT t.entrant_id, r.mu, r.sigma, t.points FROM entrant_totals t "
            "LEFT JOIN entrant_ratings r ON r.event_id = t.event_id AND r.entrant_id = t.entrant_id "
            "WHERE t.event_id = ?", [event_id]):
        now[i] = [mu, sigma, total]
    for i, kept in rated.items():
        now.setdefault(i, [None, None, 0])[:2] = kept[:2]
    for i, added in points.items():
        now.setdefault(i, [None, None, 0])[2] += added
    conn.executemany(
        "INSERT OR REPLACE INTO progress_checkpoints (event_id, game_number, game_id, entrant_id, "
        "mu, sigma, points) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [(event_id, number, game_id, i, *row) for i, row in now.items()])


#: one checkpoint: the game number, its game id, and ``entrant -> (mu, sigma) or None`` (not yet
#: rated) and ``entrant -> points so far``
Checkpoint = tuple[int, int, dict[str, tuple[float, float] | None], dict[str, int]]


def checkpoints(db, event_id: int, every: int = CHECKPOINT) -> list[Checkpoint]:
    """The event's checkpoints after every ``every`` games (a multiple of :data:`CHECKPOINT`)
    and its last one, in game order."""
    out: list[Checkpoint] = []
    for number, game_id, name, mu, sigma, points in db.conn.execute(
            "SELECT c.game_number, c.game_id, e.name, c.mu, c.sigma, c.points "
            "FROM progress_checkpoints c JOIN entrants e ON e.id = c.entrant_id "
            "WHERE c.event_id = ? AND (c.game_number % ? = 0 OR c.game_number = "
            "(SELECT MAX(game_number) FROM progress_checkpoints WHERE event_id = ?)) "
            "ORDER BY c.game_number", [event_id, every, event_id]):
        if not out or out[-1][0] != number:
            out.append((number, game_id, {}, {}))
        out[-1][2][name] = None if mu is None else (mu, sigma)
        out[-1][3][name] = points
    return out


def backfill_checkpoints(db) -> None:
    """Checkpoints of the events already stored, counted again from their games in game order."""
    ids = {name: i for i, name in db.conn.execute("SELECT id, name FROM entrants")}
    for (event_id,) in db.conn.execute("SELECT id FROM events").fetchall():
        rated: dict[str, tuple[float, float]] = {}
        points: dict[str, int] = {}
        for number, (game_id, seats) in enumerate(iter_event_games(db, event_id, with_ids=True), 1):
            for name, _, scored in seats:
                points[name] = points.get(name, 0) + (scored or 0)
            if len(seats) >= 2:
                before = [rated.get(name, (MU, SIGMA)) for name, _, _ in seats]
                after = rate_one(before, [rank for _, rank, _ in seats])
                rated.update(zip([name for name, _, _ in seats], after))
            if number % CHECKPOINT == 0:
                db.conn.executemany(
                    "INSERT OR REPLACE INTO progress_checkpoints VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [(event_id, number, game_id, ids[n], *(rated.get(n) or (None, None)), p)
                     for n, p in points.items()])
