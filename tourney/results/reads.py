"""Small reads of the results database for the layers above it (events, commands, web), so that
SQL stays in :mod:`tourney.results` (docs/architecture.md). Each returns plain data."""

from __future__ import annotations

import json

from sqlite_utils import Database


def database_files(db: Database) -> list[str]:
    """The files the connection has open (none for an in-memory database)."""
    return [row[2] for row in db.execute("pragma database_list").fetchall() if row[2]]


def event_row(db: Database, event_id: int) -> dict:
    """The ``events`` row of an event, as a dict."""
    return dict(db.table("events").get(event_id))


def event_status(db: Database, event_id: int) -> str:
    """``"running"`` or ``"finished"``."""
    return db.execute("select status from events where id = ?", [event_id]).fetchone()[0]


def event_best_of(db: Database, name: str) -> int:
    """The ``games`` setting of the event named ``name`` (a match's best-of)."""
    return db.execute("select games from events where name = ?", [name]).fetchone()[0]


def event_entrant_specs(db: Database, event_id: int) -> list[dict]:
    """The entrant specs of an event, in the event's order (as its config gave them)."""
    return [json.loads(r[0]) for r in db.execute(
        "select spec from event_entrants where event_id = ? order by position", [event_id])]


def event_game_count(db: Database, event_id: int) -> int:
    """How many games of the event are stored."""
    return db.execute("select count(*) from games where event_id = ?", [event_id]).fetchone()[0]


def series_legs(db: Database, event_id: int) -> dict[int, int]:
    """series id -> how many legs of it have a stored game."""
    return {r["series_id"]: r["legs"] for r in db.query(
        "select series_id, count(distinct leg) as legs from games where event_id = ? "
        "group by series_id", [event_id])}


def complete_duplicate_sets(db: Database, event_id: int) -> dict[int, int]:
    """series id -> its duplicate sets with every rotation stored (a set cut short by an
    interruption is not one)."""
    return {r["series_id"]: r["sets"] for r in db.query(
        "select series_id, count(*) as sets from (select series_id, duplicate_set from games "
        "where event_id = ? and duplicate_set is not null group by series_id, duplicate_set "
        "having count(distinct rotation) = max(players)) group by series_id", [event_id])}


def entrant_id(db: Database, name: str) -> int:
    """The id of the entrant named ``name`` (it must exist)."""
    return db.execute("select id from entrants where name = ?", [name]).fetchone()[0]


def entrant_game_results(db: Database, event_id: int, entrant: int) -> list[tuple[int, bool, bool]]:
    """Every game of ``entrant`` in the finished series of an event, in schedule order, as
    ``(series idx, the game had a winner, the entrant won)`` (an SPRT's games)."""
    return [(idx, winners != "[]", bool(won)) for idx, winners, won in db.execute(
        "select s.idx, g.winners, st.winner from games g join series s on s.id = g.series_id "
        "join seats st on st.game_id = g.id and st.entrant_id = ? "
        "where g.event_id = ? and s.status = 'finished' order by s.idx, g.idx", [entrant, event_id])]


def entrant_games(db: Database, event_id: int, entrant: int) -> list[tuple[int, int, int]]:
    """Every game of ``entrant`` in the finished series of an event, in schedule order, as
    ``(series idx, game id, the entrant's seat)`` (an SPRT's games, luck-adjusted)."""
    return [tuple(r) for r in db.execute(
        "select s.idx, g.id, st.seat from games g join series s on s.id = g.series_id "
        "join seats st on st.game_id = g.id and st.entrant_id = ? "
        "where g.event_id = ? and s.status = 'finished' order by s.idx, g.idx", [entrant, event_id])]


def finished_game_seats(db: Database, event_id: int) -> list[tuple[int, int, int, int, int]]:
    """Every seat of every game in the finished series of an event, in schedule order, as
    ``(series idx, game id, seat, entrant id, placement)`` (an SPRT's substitution sets)."""
    return [tuple(r) for r in db.execute(
        "select s.idx, g.id, st.seat, st.entrant_id, st.placement from games g "
        "join series s on s.id = g.series_id join seats st on st.game_id = g.id "
        "where g.event_id = ? and s.status = 'finished' order by s.idx, g.idx, st.seat", [event_id])]


def entrant_ids_with_events(db: Database) -> list[int]:
    """Every entrant that takes part in an event, by id."""
    return [r[0] for r in db.execute("select distinct entrant_id from event_entrants order by entrant_id")]


def game_ids(db: Database) -> list[int]:
    """Every stored game's id, oldest first."""
    return [r[0] for r in db.execute("select id from games order by id")]


def game_seats(db: Database, game_id: int) -> list[dict]:
    """A stored game's seats in order: ``seat``, ``fault``, ``name`` (the entrant's)."""
    return [dict(r) for r in db.query(
        "select s.seat, s.fault, e.name from seats s join entrants e on e.id = s.entrant_id "
        "where s.game_id = ? order by s.seat", [game_id])]


def game_output(db: Database, game_id: int) -> dict:
    """A game's ``game_logs`` row (``stderr``, ``faults`` as JSON text), or {} if it has none."""
    return next(iter(db.table("game_logs").rows_where("game_id = ?", [game_id])), None) or {}


def every_game_ranks(db: Database) -> list[list[tuple[str, float]]]:
    """Every stored game of the database, oldest first, as its seats' ``(entrant, rank)``: the
    placement, or the points where a seat has none (what the ratings rate)."""
    games: dict[int, list[tuple[str, float]]] = {}
    for r in db.query("SELECT st.game_id, e.name, st.placement, st.points FROM seats st "
                      "JOIN entrants e ON e.id = st.entrant_id ORDER BY st.game_id, st.seat"):
        rank = r["placement"] if r["placement"] is not None else (r["points"] or 0)
        games.setdefault(r["game_id"], []).append((r["name"], rank))
    return list(games.values())


def series_rows_for(db: Database, event_id: int, idxs: list[int]) -> list[dict]:
    """The series ``idxs`` of an event, in the shape of :func:`tourney.results.store.series_rows`
    (each with its ``entrants`` in seat order), read in a few queries whatever the event's size:
    the runner asks for the series it is about to play, not for all of a ladder's thousands."""
    out: list[dict] = []
    wanted = sorted(set(idxs))
    for start in range(0, len(wanted), 500):
        chunk = wanted[start:start + 500]
        marks = ",".join("?" * len(chunk))
        found = [dict(r) for r in db.query(
            f"select * from series where event_id = ? and idx in ({marks}) order by idx", [event_id, *chunk])]
        by_id = {s["id"]: s for s in found}
        for s in found:
            s["entrants"] = []
        if by_id:
            ids = ",".join("?" * len(by_id))
            for r in db.query(
                    "select se.series_id, se.entrant_id, e.name, se.seat, se.wins, se.points, se.placement "
                    f"from series_entrants se join entrants e on e.id = se.entrant_id where se.series_id in ({ids}) "
                    "order by se.series_id, se.seat", list(by_id)):
                row = dict(r)
                by_id[row.pop("series_id")]["entrants"].append(row)
        out.extend(found)
    return out
