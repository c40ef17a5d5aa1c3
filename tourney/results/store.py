"""The results database: SQLite through sqlite-utils, one file, one writer.

Only the ``tourney`` process that runs an event writes (the main process; workers that play
series send finished games back to it). Bots never see the database. Foreign keys are on.
The tables and views are described, and built, in :mod:`tourney.results.schema`; this module
opens the file and reads and writes events, series and games.

Default location: ``results/tourney.db``; ``--db PATH`` or the environment variable
``TOURNEY_DB`` choose another (see :func:`db_path`).

"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import sqlite3
from pathlib import Path

from sqlite_utils import Database

from tourney.errors import UserError
from tourney.results import schema

DEFAULT_DB = "results/tourney.db"
#: the ``events.source`` of the throwaway events ``tourney play`` and ``tourney match`` create
COMMAND_LINE = "command line"


class StoreError(UserError):
    """A database problem the user can fix (wrong file, conflicting event)."""


def now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


def dumps(value) -> str:
    """Canonical JSON text (sorted keys, no spaces) used for every JSON column."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def config_hash(config: dict) -> str:
    return hashlib.sha256(dumps(config).encode()).hexdigest()


def db_path(option: str | None = None) -> Path:
    """The database file: ``--db`` if given, else ``$TOURNEY_DB``, else ``results/tourney.db``."""
    return Path(option or os.environ.get("TOURNEY_DB") or DEFAULT_DB)


def open_db(path: str | os.PathLike | None = None, *, readonly: bool = False) -> Database:
    """Open the database; ``path=None`` uses :func:`db_path`.

    By default (writing commands) the file is created if needed and its schema brought up to date
    (:func:`tourney.results.schema.migrate`). With ``readonly=True`` (commands that only read) the
    file must exist and be current, and the connection cannot write: a read never changes the
    file, and is safe next to a running event.
    """
    p = db_path(str(path) if path is not None else None)
    memory = str(p) == ":memory:"
    if readonly and not memory and not p.exists():
        raise StoreError(f"{p}: no such database (nothing has been stored there yet; --db names another file)")
    try:
        if memory:
            db = Database(memory=True)
        elif readonly:
            db = Database(sqlite3.connect(f"{p.resolve().as_uri()}?mode=ro", uri=True))
            db.execute("select count(*) from sqlite_master").fetchone()  # not a database: fail here
        else:
            p.parent.mkdir(parents=True, exist_ok=True)
            db = Database(p)
            db.execute("PRAGMA journal_mode=WAL")
            # WAL + NORMAL: a committed game survives a crash or kill -9 of tourney (only a
            # power cut may lose the last commits), without an fsync per game
            db.execute("PRAGMA synchronous=NORMAL")
    except sqlite3.Error as exc:  # not a database, locked, unreadable ...
        raise StoreError(f"{p}: cannot open database ({exc})") from None
    db.execute("PRAGMA foreign_keys=ON")
    db.execute("PRAGMA busy_timeout=10000")
    try:
        if readonly:
            schema.check_current(db)
        else:
            schema.migrate(db)
    except schema.SchemaOutOfDate:
        raise StoreError(f"{p}: written by an older tourney; bring it up to date with: "
                         f"tourney upgrade --db {p}") from None
    except sqlite3.Error as exc:
        raise StoreError(f"{p}: cannot prepare database ({exc})") from None
    return db


# ---------------------------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------------------------


def upsert_entrant(db: Database, spec: dict) -> int:
    """The id of entrant ``spec["name"]``, created or updated from the spec."""
    row = {
        "name": spec["name"],
        "kind": "builtin" if spec.get("builtin") else "command",
        "builtin": spec.get("builtin"),
        "command": dumps(spec["command"]) if spec.get("command") else None,
        "cwd": spec.get("cwd"),
    }
    existing = list(db.table("entrants").rows_where("name = ?", [spec["name"]]))
    if existing:
        db.table("entrants").update(existing[0]["id"], row)
        return existing[0]["id"]
    row["created_at"] = now()
    return db.table("entrants").insert(row).last_pk


def find_event(db: Database, name: str) -> dict | None:
    rows = list(db.table("events").rows_where("name = ?", [name]))
    return rows[0] if rows else None


def list_events(db: Database) -> list[dict]:
    """Every event, oldest first: ``name``, ``format``, ``rule_set``, ``games`` (stored), ``status``,
    ``source`` (the config path, or ``"command line"`` for ``play``/``match``), ``created_at``."""
    return [dict(r) for r in db.query(
        "select ev.name, ev.format, ev.rule_set, (select count(*) from games g where g.event_id = ev.id) "
        "as games, ev.status, ev.source, ev.created_at from events ev order by ev.id")]


def delete_event(db: Database, event_id: int) -> None:
    """Remove an event and everything recorded for it (``tourney run --restart``)."""
    with db.atomic():
        game_ids = "select id from games where event_id = ?"
        for table in ("seats", "replays", "game_logs"):
            db.execute(f"delete from {table} where game_id in ({game_ids})", [event_id])
        db.execute("delete from games where event_id = ?", [event_id])
        db.execute(
            "delete from series_entrants where series_id in "
            "(select id from series where event_id = ?)",
            [event_id],
        )
        db.execute("delete from series where event_id = ?", [event_id])
        db.execute("delete from event_entrants where event_id = ?", [event_id])
        db.execute("delete from events where id = ?", [event_id])


def create_event(db: Database, event: dict, entrant_specs: list[dict], schedule: list[dict],
                 config: dict, source: str) -> int:
    """Insert an event, its entrants and all its series rows in one transaction.

    ``schedule`` items: ``{"idx", "round", "kind", "seed", "games_target", "entrants": [names
    in seat order]}``. Returns the event id.
    """
    with db.atomic():
        ids = {spec["name"]: upsert_entrant(db, spec) for spec in entrant_specs}
        event_id = db.table("events").insert(
            {
                "name": event["name"],
                "format": event["format"],
                "rule_set": event["rule_set"],
                "options": dumps(event.get("options") or {}),
                "seed": event["seed"],
                "players": event["players"],
                "games": event["games"],
                "rounds": event.get("rounds", 1),
                "config": dumps(config),
                "config_hash": config_hash(config),
                "source": source,
                "status": "running",
                "created_at": now(),
            }
        ).last_pk
        db.table("event_entrants").insert_all(
            {"event_id": event_id, "entrant_id": ids[s["name"]], "position": i, "spec": dumps(s)}
            for i, s in enumerate(entrant_specs)
        )
        for item in schedule:
            series_id = db.table("series").insert(
                {
                    "event_id": event_id,
                    "idx": item["idx"],
                    "round": item.get("round", 0),
                    "kind": item["kind"],
                    "seed": item["seed"],
                    "games_target": item["games_target"],
                    "status": "pending",
                    "games_played": 0,
                }
            ).last_pk
            db.table("series_entrants").insert_all(
                {"series_id": series_id, "entrant_id": ids[name], "seat": seat, "wins": 0,
                 "points": 0}
                for seat, name in enumerate(item["entrants"])
            )
    return event_id


def record_game(db: Database, event_id: int, series_id: int, game: dict,
                series_result: dict | None = None) -> int:
    """Commit one finished game with its seats, replay and log (and the series' result if the
    game ended the series) in one transaction; returns the game id.

    ``game`` is :func:`tourney.events.play.game_payload` output: ``idx``, ``rule_set``, ``options``,
    ``seed``, ``players``, ``first_player``, ``turn_order``, ``teams``, ``winners``, ``reason``,
    ``detail``, ``decisions``, ``seconds``, ``choices``, ``log``, ``stderr``, ``faults``,
    ``seats`` (list of ``{"seat", "entrant_id", "points", "placement", "eliminated", "fault"}``).
    ``series_result``: ``{"outcome", "winner_id", "games_played", "entrants": {entrant_id:
    {"wins", "points", "placement"}}}``.
    """
    with db.atomic():
        game_id = db.table("games").insert(
            {
                "event_id": event_id,
                "series_id": series_id,
                "idx": game["idx"],
                "leg": game.get("leg", game["idx"]),
                "rule_set": game["rule_set"],
                "options": dumps(game["options"]),
                "seed": game["seed"],
                "players": game["players"],
                "first_player": game["first_player"],
                "turn_order": dumps(game["turn_order"]),
                "teams": dumps(game["teams"]) if game.get("teams") else None,
                "winners": dumps(game["winners"]),
                "reason": game["reason"],
                "detail": game.get("detail", ""),
                "decisions": game.get("decisions", 0),
                "seconds": game.get("seconds", 0.0),
                "finished_at": now(),
            }
        ).last_pk
        winners = set(game["winners"])
        db.table("seats").insert_all(
            {
                "game_id": game_id,
                "seat": s["seat"],
                "entrant_id": s["entrant_id"],
                "first": int(s["seat"] == game["first_player"]),
                "winner": int(s["seat"] in winners),
                "points": s["points"],
                "placement": s["placement"],
                "eliminated": int(bool(s.get("eliminated"))),
                "fault": s.get("fault"),
            }
            for s in game["seats"]
        )
        db.table("replays").insert(
            {
                "game_id": game_id,
                "rule_set": game["rule_set"],
                "players": game["players"],
                "seed": game["seed"],
                "options": dumps(game["options"]),
                "first_player": game["first_player"],
                "teams": dumps(game["teams"]) if game.get("teams") else None,
                "choices": dumps(game["choices"]),
                "forfeits": dumps(game.get("forfeits") or []),
            }
        )
        db.table("game_logs").insert(
            {
                "game_id": game_id,
                "log": "\n".join(game.get("log") or []),
                "stderr": dumps({str(k): v for k, v in (game.get("stderr") or {}).items()}),
                "faults": dumps({str(k): v for k, v in (game.get("faults") or {}).items()}),
            }
        )
        db.execute(
            "update series set games_played = games_played + 1 where id = ?", [series_id]
        )
        if series_result is not None:
            finish_series(db, series_id, series_result)
    return game_id


def finish_series(db: Database, series_id: int, result: dict) -> None:
    """Store a series' result (call inside the transaction of its last game)."""
    db.table("series").update(
        series_id,
        {
            "status": "finished",
            "outcome": result["outcome"],
            "winner_id": result.get("winner_id"),
            "games_played": result["games_played"],
            "finished_at": now(),
        },
    )
    for entrant_id, row in result["entrants"].items():
        db.execute(
            "update series_entrants set wins = ?, points = ?, placement = ? "
            "where series_id = ? and entrant_id = ?",
            [row["wins"], row["points"], row["placement"], series_id, int(entrant_id)],
        )


def finish_event(db: Database, event_id: int) -> None:
    with db.atomic():
        db.table("events").update(event_id, {"status": "finished", "finished_at": now()})


# ---------------------------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------------------------


def replay_start(row: dict) -> dict:
    """The ``engine.replay`` start dict of a ``replays`` row."""
    return {
        "rule_set": row["rule_set"],
        "players": row["players"],
        "seed": row["seed"],
        "options": json.loads(row["options"]) if row["options"] else {},
        "first_player": row["first_player"],
        "teams": json.loads(row["teams"]) if row["teams"] else None,
    }


def replay_game(row: dict, on_line=None, names: list[str] | None = None):
    """Re-create a stored game from a ``replays`` row (choices and forfeits); ``on_line`` gets
    each event in words (with the entrant ``names``) as it happens. Returns the engine game."""
    import engine
    from tourney import narrate

    game = engine.new_game(**replay_start(row))
    table = narrate.table_for(game, names or [f"seat {s}" for s in range(game.players)])
    choices = json.loads(row["choices"])
    forfeits = json.loads(row.get("forfeits") or "[]")
    shown = 0

    def flush():
        nonlocal shown
        while shown < len(game.events):
            if on_line is not None:
                on_line(narrate.event(table, game.events[shown]))
            shown += 1

    flush()
    for i in range(len(choices) + 1):
        for n, seat, code in forfeits:
            if n == i:
                game.forfeit(seat, code)
                flush()
        if i < len(choices):
            engine.apply_choice(game, choices[i])  # an option id or a forfeit marker
            flush()
    return game


def series_rows(db: Database, event_id: int) -> list[dict]:
    """The series of an event in schedule order, each with ``entrants``: list of
    ``{"entrant_id", "name", "seat", "wins", "points", "placement"}`` in seat order."""
    out = []
    for s in db.query("select * from series where event_id = ? order by idx", [event_id]):
        s = dict(s)
        s["entrants"] = [
            dict(r)
            for r in db.query(
                "select se.entrant_id, e.name, se.seat, se.wins, se.points, se.placement "
                "from series_entrants se join entrants e on e.id = se.entrant_id "
                "where se.series_id = ? order by se.seat",
                [s["id"]],
            )
        ]
        out.append(s)
    return out


def series_games(db: Database, series_id: int) -> list[dict]:
    """Finished games of a series in order, with ``seats`` (list of seat dicts)."""
    games = []
    for g in db.query("select * from games where series_id = ? order by idx", [series_id]):
        g = dict(g)
        g["winners"] = json.loads(g["winners"])
        g["seats"] = [
            dict(r)
            for r in db.query("select * from seats where game_id = ? order by seat", [g["id"]])
        ]
        games.append(g)
    return games


def list_games(db: Database, event: str | None = None, entrant: str | None = None,
               limit: int | None = None) -> list[dict]:
    """Games (newest last) with event name, series idx and seat summaries; filters by event name
    and by entrant name."""
    if event is not None and find_event(db, event) is None:
        raise StoreError(f"no event named {event!r} (tourney events lists them)")
    if entrant is not None and not db.table("entrants").count_where("name = ?", [entrant]):
        raise StoreError(f"no entrant named {entrant!r}")
    where, params = [], []
    if event is not None:
        where.append("ev.name = ?")
        params.append(event)
    if entrant is not None:
        where.append(
            "g.id in (select st.game_id from seats st join entrants en on en.id = st.entrant_id "
            "where en.name = ?)"
        )
        params.append(entrant)
    sql = (
        "select g.id, ev.name as event, s.idx as series, g.leg, g.idx as game, g.rule_set, g.seed, "
        "g.first_player, g.winners, g.reason, g.decisions, g.finished_at "
        "from games g join events ev on ev.id = g.event_id join series s on s.id = g.series_id"
    )
    if where:
        sql += " where " + " and ".join(where)
    sql += " order by g.id"
    if limit:
        sql += f" limit {int(limit)}"
    rows = []
    for g in db.query(sql, params):
        g = dict(g)
        g["winners"] = json.loads(g["winners"])
        g["seats"] = [
            dict(r)
            for r in db.query(
                "select st.seat, e.name as entrant, st.points, st.placement, st.fault "
                "from seats st join entrants e on e.id = st.entrant_id where st.game_id = ? "
                "order by st.seat",
                [g["id"]],
            )
        ]
        rows.append(g)
    return rows
