"""The pairwise tallies the writer keeps, so that comparisons read a few rows per pair of
entrants instead of every pair of seats of every game (docs/scale.md).

Two tables (schema migration ``m010_pair_tallies``), both kept with each stored game in the
game's transaction, as ``entrant_totals`` and ``entrant_ratings`` are:

``pair_tallies``
    pk (``event_id``, ``entrant_id``, ``opponent_id``), one row per direction: the entrant's
    ``wins``, ``draws`` and ``losses`` against the opponent, counted over every game they
    shared (a win is the better place; a seat without a placement is placed by its points), and
    ``pair0`` .. ``pair4``: how many complete mirror pairs of a two-player duplicate event the
    entrant scored 0, ¼, ½, ¾ and 1 in (the two games of one duplicate set; a pair cut short
    counts for nothing: :mod:`tourney.results.comparisons`).
``field_tallies``
    pk (``event_id``, ``entrant_id``, ``share``): how many games the entrant scored ``share``
    of its opponents beaten in (a shared place counts half), as
    :func:`tourney.results.comparisons.field_scores` counts them.

:func:`recount` computes the same rows from the games table; the migration fills the tables
with it and the tests compare it with the kept rows.
"""

from __future__ import annotations

import sqlite3
from collections import Counter

from sqlite_utils import Database

#: one kept row of ``pair_tallies``: wins, draws, losses, pair0 .. pair4
PairRow = list[int]


def _place(seat: dict) -> float:
    placement, points = seat.get("placement"), seat.get("points")
    return placement if placement is not None else (points if points is not None else 0)


def count_game(seats: list[dict], pairs: dict[tuple[int, int], PairRow],
               shares: Counter) -> None:
    """Add one game (``seats``: ``entrant_id``, ``placement``, ``points``) to the batch's
    ``pairs`` (directed) and ``shares`` (``(entrant_id, share) -> games``)."""
    places = [(s["entrant_id"], _place(s)) for s in seats]
    if len(places) < 2:
        return
    if len(places) == 2 and places[0][0] != places[1][0]:  # the writer's common case, quicker
        (a, pa), (b, pb) = places
        won = 0 if pa < pb else 1 if pa == pb else 2
        pairs.setdefault((a, b), [0] * 8)[won] += 1
        pairs.setdefault((b, a), [0] * 8)[2 - won] += 1
        shares[(a, 1 - won / 2)] += 1
        shares[(b, won / 2)] += 1
        return
    beaten: dict[int, list[float]] = {}
    for i, (a, pa) in enumerate(places):
        for j, (b, pb) in enumerate(places):
            if i == j:
                continue
            score = 1.0 if pa < pb else 0.5 if pa == pb else 0.0
            got = beaten.setdefault(a, [0.0, 0])
            got[0] += score
            got[1] += 1
            if a != b:
                row = pairs.setdefault((a, b), [0] * 8)
                row[0 if score == 1 else 1 if score == 0.5 else 2] += 1
    for a, (score, n) in beaten.items():
        shares[(a, round(score / n, 9))] += 1


def _mirror(games: list[list[tuple[int, float]]]) -> tuple[int, int, int] | None:
    """What one duplicate set adds to the mirror-pair counts: ``(a, b, index)`` with ``index``
    = 4 x a's score over the pair, or None unless the set is exactly two two-player games
    between the same two entrants. ``games``: the set's games, as their seats'
    ``(entrant_id, place)``."""
    played = [g for g in games if len(g) == 2 and g[0][0] != g[1][0]]
    if len(played) != 2 or {e for e, _ in played[0]} != {e for e, _ in played[1]}:
        return None
    a = played[0][0][0]
    total = 0.0
    for seats in played:
        mine = next(p for e, p in seats if e == a)
        theirs = next(p for e, p in seats if e != a)
        total += 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
    b = next(e for e, _ in played[0] if e != a)
    return a, b, round(2 * total)


def count_mirror(conn: sqlite3.Connection, series_id: int, duplicate_set: int, game_id: int,
                 pairs: dict[tuple[int, int], PairRow]) -> None:
    """Add to ``pairs`` what the stored game ``game_id`` changes in the mirror pairs of its
    duplicate set (call after its seats are inserted): the set's count with it minus without."""
    games: dict[int, list[tuple[int, float]]] = {}
    for gid, entrant, placement, points in conn.execute(
            "select g.id, s.entrant_id, s.placement, s.points from games g "
            "join seats s on s.game_id = g.id where g.series_id = ? and g.duplicate_set = ? "
            "and g.players = 2 order by g.id, s.seat", [series_id, duplicate_set]):
        games.setdefault(gid, []).append(
            (entrant, _place({"placement": placement, "points": points})))
    before = _mirror([g for gid, g in games.items() if gid != game_id])
    after = _mirror(list(games.values()))
    for change, counted in ((-1, before), (1, after)):
        if counted is not None:
            a, b, index = counted
            pairs.setdefault((a, b), [0] * 8)[3 + index] += change
            pairs.setdefault((b, a), [0] * 8)[3 + 4 - index] += change


def save(conn: sqlite3.Connection, event_id: int, pairs: dict[tuple[int, int], PairRow],
         shares: Counter) -> None:
    """Add a batch's counts to the kept tallies."""
    conn.executemany(
        "insert into pair_tallies (event_id, entrant_id, opponent_id, wins, draws, losses, "
        "pair0, pair1, pair2, pair3, pair4) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
        "on conflict (event_id, entrant_id, opponent_id) do update set "
        "wins = wins + excluded.wins, draws = draws + excluded.draws, "
        "losses = losses + excluded.losses, pair0 = pair0 + excluded.pair0, "
        "pair1 = pair1 + excluded.pair1, pair2 = pair2 + excluded.pair2, "
        "pair3 = pair3 + excluded.pair3, pair4 = pair4 + excluded.pair4",
        [(event_id, a, b, *row) for (a, b), row in pairs.items()])
    conn.executemany(
        "insert into field_tallies (event_id, entrant_id, share, games) values (?, ?, ?, ?) "
        "on conflict (event_id, entrant_id, share) do update set games = games + excluded.games",
        [(event_id, a, share, n) for (a, share), n in shares.items()])


def delete(db: Database, event_id: int) -> None:
    db.execute("delete from pair_tallies where event_id = ?", [event_id])
    db.execute("delete from field_tallies where event_id = ?", [event_id])


def kept(db: Database, event_id: int) -> tuple[dict[tuple[int, int], PairRow], Counter]:
    """The kept tallies of an event: ``(pairs, shares)`` as :func:`count_game` builds them
    (rows that count nothing left out)."""
    pairs = {(r[0], r[1]): list(r[2:]) for r in db.execute(
        "select entrant_id, opponent_id, wins, draws, losses, pair0, pair1, pair2, pair3, pair4 "
        "from pair_tallies where event_id = ?", [event_id]) if any(r[2:])}
    shares = Counter({(r[0], r[1]): r[2] for r in db.execute(
        "select entrant_id, share, games from field_tallies where event_id = ? and games != 0",
        [event_id])})
    return pairs, shares


#: every two seats of one game of the event, as (game, entrant, its place, opponent, the
#: opponent's place); a seat without a placement is placed by its points, as in the ratings
_SEAT_PAIRS = """
    SELECT a.game_id, a.entrant_id AS a, COALESCE(a.placement, a.points, 0) AS pa,
           b.entrant_id AS b, COALESCE(b.placement, b.points, 0) AS pb
    FROM games g
    JOIN seats a ON a.game_id = g.id JOIN seats b ON b.game_id = g.id AND b.seat != a.seat
    WHERE g.event_id = ?
"""


def recount(db: Database, event_id: int) -> tuple[dict[tuple[int, int], PairRow], Counter]:
    """The tallies of an event counted from its stored games, in SQL (what :func:`kept` must
    equal; the migration's backfill)."""
    pairs: dict[tuple[int, int], PairRow] = {}
    for a, b, wins, draws, losses in db.execute(
            f"SELECT a, b, SUM(pa < pb), SUM(pa = pb), SUM(pa > pb) FROM ({_SEAT_PAIRS}) "
            f"WHERE a != b GROUP BY a, b", [event_id]):
        pairs[(a, b)] = [wins, draws, losses, 0, 0, 0, 0, 0]
    shares: Counter = Counter()
    for a, share, n in db.execute(
            f"SELECT a, share, COUNT(*) FROM ("
            f"  SELECT game_id, a, ROUND((SUM(pa < pb) + 0.5 * SUM(pa = pb)) / COUNT(*), 9) AS share"
            f"  FROM ({_SEAT_PAIRS}) GROUP BY game_id, a) GROUP BY a, share", [event_id]):
        shares[(a, share)] = n
    sets: dict[tuple[int, int], dict[int, list[tuple[int, float]]]] = {}
    for series_id, duplicate_set, game_id, entrant, place in db.execute(
            "SELECT g.series_id, g.duplicate_set, g.id, s.entrant_id, "
            "COALESCE(s.placement, s.points, 0) FROM games g JOIN seats s ON s.game_id = g.id "
            "WHERE g.event_id = ? AND g.duplicate_set IS NOT NULL AND g.players = 2 "
            "ORDER BY g.id, s.seat", [event_id]):
        sets.setdefault((series_id, duplicate_set), {}).setdefault(game_id, []).append((entrant, place))
    for games in sets.values():
        counted = _mirror(list(games.values()))
        if counted is not None:
            a, b, index = counted
            pairs.setdefault((a, b), [0] * 8)[3 + index] += 1
            pairs.setdefault((b, a), [0] * 8)[3 + 4 - index] += 1
    return pairs, shares


def backfill(db: Database) -> None:
    """Fill the tallies of every stored event from its games (migration ``m010_pair_tallies``)."""
    for (event_id,) in db.execute("SELECT id FROM events").fetchall():
        pairs, shares = recount(db, event_id)
        save(db.conn, event_id, pairs, shares)
