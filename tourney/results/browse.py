"""What the web view's pages read (:mod:`tourney.web.pages`): lists of events and leagues, an
event's stamp and series page by page, an entrant's games, a game's seats. Each is one query
(or a few), so a page of an event of 100,000 games reads only the rows it shows; the standings,
the head-to-head and the charts come from :mod:`tourney.results.standings` like every other
reader's. A missing row is ``None``: the page says "not found".
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlite_utils import Database

from tourney.results import ratings


def _one(db: Database, sql: str, params: list) -> dict | None:
    return next((dict(r) for r in db.query(sql, params)), None)


def _limit(limit: int | None, offset: int) -> str:
    return "" if limit is None else f" LIMIT {int(limit)} OFFSET {int(offset)}"


@contextmanager
def snapshot(db: Database) -> Iterator[None]:
    """Read in one transaction (unless one is open already), so that what is read agrees."""
    own = not db.conn.in_transaction
    if own:
        db.execute("BEGIN")
    try:
        yield
    finally:
        if own:
            db.execute("COMMIT")


def events(db: Database) -> list[dict]:
    """Every event, newest first, with its number of games."""
    return [dict(r) for r in db.query(
        "SELECT ev.id, ev.name, ev.format, ev.rule_set, ev.status, ev.source, ev.created_at, "
        "(SELECT COUNT(*) FROM games g WHERE g.event_id = ev.id) AS games FROM events ev ORDER BY ev.id DESC")]


def leagues(db: Database) -> list[dict]:
    """Every club league by name, with its number of games."""
    return [dict(r) for r in db.query(
        "SELECT l.id, l.name, l.rule_set, l.target, l.created_at, "
        "(SELECT COUNT(*) FROM club_games g WHERE g.league_id = l.id) AS games "
        "FROM club_leagues l ORDER BY l.name")]


def event(db: Database, event_id: int) -> dict | None:
    return _one(db, "SELECT * FROM events WHERE id = ?", [event_id])


def event_stamp(db: Database, event_id: int) -> dict | None:
    """The event's status, its number of games (counted from the writer's last checkpoint, not
    game by game) and its last game's id."""
    row = _one(db, "SELECT ev.status, (SELECT MAX(id) FROM games g WHERE g.event_id = ev.id) AS last "
                   "FROM events ev WHERE ev.id = ?", [event_id])
    return None if row is None else {**row, "n": ratings.games_stored(db.conn, event_id)}


def event_entrant_ids(db: Database, event_id: int) -> dict[str, int]:
    return {r["name"]: r["id"] for r in db.query(
        "SELECT e.id, e.name FROM event_entrants ee JOIN entrants e ON e.id = ee.entrant_id "
        "WHERE ee.event_id = ?", [event_id])}


def series_count(db: Database, event_id: int) -> int:
    """How many series the event has (kept with them: counting them took 50 ms at 10^6)."""
    row = db.execute("SELECT series_count FROM events WHERE id = ?", [event_id]).fetchone()
    return row[0] if row else 0


def series_page(db: Database, event_id: int, limit: int | None, offset: int) -> list[dict]:
    """The event's series in schedule order (``limit`` of them from ``offset``; None: all)."""
    return [dict(r) for r in db.query(
        "SELECT s.id, s.idx, s.round, s.kind, s.status, s.outcome, s.games_played, e.name AS winner "
        "FROM series s LEFT JOIN entrants e ON e.id = s.winner_id WHERE s.event_id = ? ORDER BY s.idx"
        + _limit(limit, offset), [event_id])]


def series_seats(db: Database, lo: int, hi: int) -> list[dict]:
    """Who sat in the series with ids ``lo``..``hi``, by series then seat."""
    return [dict(r) for r in db.query(
        "SELECT se.series_id, se.entrant_id, e.name, se.seat, se.wins, se.points, se.placement "
        "FROM series_entrants se JOIN entrants e ON e.id = se.entrant_id "
        "WHERE se.series_id BETWEEN ? AND ? ORDER BY se.series_id, se.seat", [lo, hi])]


def series_game_list(db: Database, lo: int, hi: int) -> list[dict]:
    """The games of the series with ids ``lo``..``hi``, by series then game."""
    return [dict(r) for r in db.query(
        "SELECT id, series_id, idx, winners, reason FROM games "
        "WHERE series_id BETWEEN ? AND ? ORDER BY series_id, idx", [lo, hi])]


def entrant(db: Database, entrant_id: int) -> dict | None:
    return _one(db, "SELECT id, name, kind, builtin, created_at FROM entrants WHERE id = ?", [entrant_id])


def entrant_totals(db: Database, entrant_id: int) -> dict:
    """Games, wins and points over every event."""
    row = _one(db, "SELECT COUNT(*) AS games, COALESCE(SUM(winner), 0) AS wins, "
                   "COALESCE(SUM(points), 0) AS points FROM seats WHERE entrant_id = ?", [entrant_id])
    assert row is not None  # an aggregate always has its row
    return row


def entrant_faults(db: Database, entrant_id: int) -> dict[str, int]:
    return {r["fault"]: r["n"] for r in db.query(
        "SELECT fault, COUNT(*) AS n FROM seats WHERE entrant_id = ? AND fault IS NOT NULL "
        "GROUP BY fault ORDER BY fault", [entrant_id])}


def entrant_games(db: Database, entrant_id: int, limit: int | None, offset: int) -> list[dict]:
    """The entrant's games in every event, newest first, with its seat, result, fault and the
    game's fault messages (``messages``, JSON)."""
    return [dict(r) for r in db.query(
        "SELECT g.id, g.event_id, ev.name AS event, s.idx AS series, g.idx AS game, g.reason, st.seat, "
        "st.points, st.placement, st.winner, st.fault, gl.faults AS messages FROM seats st "
        "JOIN games g ON g.id = st.game_id JOIN events ev ON ev.id = g.event_id "
        "JOIN series s ON s.id = g.series_id LEFT JOIN game_logs gl ON gl.game_id = g.id "
        "WHERE st.entrant_id = ? ORDER BY g.id DESC" + _limit(limit, offset), [entrant_id])]


def opponents(db: Database, game_ids: list[int], entrant_id: int) -> list[tuple[int, str]]:
    """``(game id, name)`` of everyone but ``entrant_id`` at the games, in seat order."""
    marks = ",".join("?" * len(game_ids))
    return [(r["game_id"], r["name"]) for r in db.query(
        f"SELECT st.game_id, e.name FROM seats st JOIN entrants e ON e.id = st.entrant_id "
        f"WHERE st.game_id IN ({marks}) AND st.entrant_id != ? ORDER BY st.seat", [*game_ids, entrant_id])]


def game(db: Database, game_id: int) -> dict | None:
    """A game with its event's name and its series' number."""
    return _one(db, "SELECT g.*, ev.name AS event, s.idx AS series_idx FROM games g "
                    "JOIN events ev ON ev.id = g.event_id JOIN series s ON s.id = g.series_id "
                    "WHERE g.id = ?", [game_id])


def game_seats(db: Database, game_id: int) -> list[dict]:
    return [dict(r) for r in db.query(
        "SELECT st.seat, st.entrant_id, e.name, st.points, st.placement, st.winner, st.eliminated, st.fault, "
        "st.forfeit FROM seats st JOIN entrants e ON e.id = st.entrant_id WHERE st.game_id = ? ORDER BY st.seat",
        [game_id])]


def game_fault_messages(db: Database, game_id: int) -> str | None:
    """The game's fault messages by seat (JSON), if its log is kept."""
    row = _one(db, "SELECT faults FROM game_logs WHERE game_id = ?", [game_id])
    return row["faults"] if row else None


def league_name(db: Database, league_id: int) -> str | None:
    row = _one(db, "SELECT name FROM club_leagues WHERE id = ?", [league_id])
    return row["name"] if row else None
