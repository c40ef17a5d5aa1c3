"""The results database: SQLite through sqlite-utils, one file, one writer.

Only the ``tourney`` process that runs an event writes (the main process; workers that play
series send finished games back to it). Bots never see the database. Foreign keys are on.
The schema is the migration set ``MIGRATIONS`` (``sqlite_utils.Migrations("tourney")``);
other parts of tourney (club scorekeeping, ratings) add their own named migration sets and
apply them after this one (``open_db`` applies this set; call ``yours.apply(db)`` after it).

Default location: ``results/tourney.db``; ``--db PATH`` or the environment variable
``TOURNEY_DB`` choose another (see :func:`db_path`).

Tables (JSON columns hold JSON text; times are UTC ISO-8601 text)
-----------------------------------------------------------------

``entrants``
    One row per entrant name ever seen. ``id`` (pk), ``name`` (unique), ``kind``
    (``"builtin"``, ``"command"`` or ``"member"`` for club members added by other tools),
    ``builtin`` (bot name or null), ``command`` (JSON argv list as written in the config, or
    null), ``cwd``, ``created_at``. A later config with the same name updates
    ``kind``/``builtin``/``command``/``cwd``; the exact spec used by an event is in
    ``event_entrants.spec``.

``events``
    One row per event (what a config's ``[event]`` defines). ``id`` (pk), ``name`` (unique),
    ``format`` (``"single"``, ``"match"``, ``"league"``, ``"round-robin"``), ``rule_set``,
    ``options`` (JSON, as written), ``seed``, ``players`` (per table), ``games`` (best-of N
    for matches, games per league table), ``rounds``, ``config`` (JSON: the normalised event
    config with its entrant specs), ``config_hash`` (sha256 of ``config``; a re-run with a
    different hash is refused), ``source`` (config file path or ``"cli"``), ``status``
    (``"running"`` or ``"finished"``), ``created_at``, ``finished_at``.

``event_entrants``
    Who entered an event. pk (``event_id``, ``entrant_id``); ``position`` (0-based order in
    the config, used by schedules), ``spec`` (JSON: the entrant spec used in this event).

``series``
    One row per series: a best-of-N match, a league table's run of games, or a single game
    (a series of one). ``id`` (pk), ``event_id`` (fk events), ``idx`` (0-based place in the
    event's schedule; unique with ``event_id``), ``round`` (round-robin round, else 0),
    ``kind`` (``"single"``, ``"match"``, ``"league"``), ``seed`` (the series seed, see
    docs/formats.md), ``games_target`` (best-of N legs, or number of league games; 0 = one
    leg of the rule set's own series), ``status``
    (``"pending"``, ``"finished"``), ``outcome`` (``"win"``, ``"draw"`` or null while
    pending), ``winner_id`` (fk entrants, null for a draw or while pending), ``games_played``
    (stored games, i.e. deals), ``finished_at``. All series rows of an event are created before its first game.

``series_entrants``
    The table of a series. pk (``series_id``, ``entrant_id``); ``seat`` (the seat this entrant
    takes in every game of the series), ``wins`` (legs won in a match or single game, games won
    in a league; see docs/formats.md for legs), ``points`` (league points summed
    over the series' games), ``placement`` (1 = best, shared numbers for ties; null while the
    series is pending). Matches rank by wins (more is better), leagues by points (fewer is
    better).

``games``
    One row per finished game (one deal, shuffle to result). Written together with its
    ``seats``, ``replays`` and ``game_logs`` rows (and, for the last game of a series, the
    series' result) in one transaction. ``id`` (pk), ``event_id`` (fk), ``series_id`` (fk),
    ``idx`` (0-based game number in the series; unique with ``series_id``), ``leg`` (0-based
    leg of the series this deal belongs to: equal to ``idx`` unless the rule set plays a leg as
    a run of deals; added by migration ``m003_game_legs``), ``rule_set``,
    ``options`` (JSON, completed with defaults), ``seed`` (the game seed), ``players``,
    ``first_player`` (seat), ``turn_order`` (JSON list of seats in the order they played,
    clockwise from the first player), ``teams`` (JSON or null), ``winners`` (JSON list of
    seats; empty = no winner), ``reason``, ``detail``, ``decisions``, ``seconds``,
    ``finished_at``.

``seats``
    One row per seat of a finished game. pk (``game_id``, ``seat``); ``entrant_id`` (fk),
    ``first`` (1 if this seat played first), ``winner`` (1/0), ``points`` (league points of this
    game, rulings.md item 13 for eliminated players), ``placement`` (1 = best), ``eliminated``
    (1/0), ``fault`` (fault reason code such as ``"timeout"``, or null).

``replays``
    Everything needed to replay a game exactly: pk ``game_id``; ``rule_set``, ``players``,
    ``seed``, ``options`` (JSON), ``first_player``, ``teams`` (JSON or null), ``choices``
    (JSON list: ``game.choices``, the option ids in order, where a bot's fault is the engine's
    record ``"forfeit:<seat>:<code>"`` of ``game.forfeit(seat, code)``), ``forfeits`` (JSON list
    of ``[n, seat, code]``: forfeits after ``n`` choices, for records whose choices lack the
    markers; normally ``[]``; added by migration ``m002_replay_forfeits``).
    ``engine.replay(start, choices)`` with ``start`` = these columns reproduces the game, faults
    included; :func:`replay_game` does the same and also applies ``forfeits``.

``game_logs``
    pk ``game_id``; ``log`` (the readable account, one event per line), ``stderr`` (JSON:
    seat -> captured bot stderr), ``faults`` (JSON: seat -> fault detail text).
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
from pathlib import Path

from sqlite_utils import Database, Migrations

DEFAULT_DB = "results/tourney.db"

MIGRATIONS = Migrations("tourney")


class StoreError(Exception):
    """A database problem the user can fix (wrong file, conflicting event)."""


def now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


def dumps(value) -> str:
    """Canonical JSON text (sorted keys, no spaces) used for every JSON column."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def config_hash(config: dict) -> str:
    return hashlib.sha256(dumps(config).encode()).hexdigest()


@MIGRATIONS()
def m001_initial(db: Database) -> None:
    db["entrants"].create(
        {
            "id": int,
            "name": str,
            "kind": str,
            "builtin": str,
            "command": str,
            "cwd": str,
            "created_at": str,
        },
        pk="id",
        not_null={"name", "kind"},
    )
    db["entrants"].create_index(["name"], unique=True)
    db["events"].create(
        {
            "id": int,
            "name": str,
            "format": str,
            "rule_set": str,
            "options": str,
            "seed": int,
            "players": int,
            "games": int,
            "rounds": int,
            "config": str,
            "config_hash": str,
            "source": str,
            "status": str,
            "created_at": str,
            "finished_at": str,
        },
        pk="id",
        not_null={"name", "format", "rule_set", "status"},
    )
    db["events"].create_index(["name"], unique=True)
    db["event_entrants"].create(
        {"event_id": int, "entrant_id": int, "position": int, "spec": str},
        pk=("event_id", "entrant_id"),
        foreign_keys=[("event_id", "events", "id"), ("entrant_id", "entrants", "id")],
    )
    db["series"].create(
        {
            "id": int,
            "event_id": int,
            "idx": int,
            "round": int,
            "kind": str,
            "seed": int,
            "games_target": int,
            "status": str,
            "outcome": str,
            "winner_id": int,
            "games_played": int,
            "finished_at": str,
        },
        pk="id",
        foreign_keys=[("event_id", "events", "id"), ("winner_id", "entrants", "id")],
        not_null={"event_id", "idx", "status"},
    )
    db["series"].create_index(["event_id", "idx"], unique=True)
    db["series_entrants"].create(
        {
            "series_id": int,
            "entrant_id": int,
            "seat": int,
            "wins": int,
            "points": int,
            "placement": int,
        },
        pk=("series_id", "entrant_id"),
        foreign_keys=[("series_id", "series", "id"), ("entrant_id", "entrants", "id")],
    )
    db["games"].create(
        {
            "id": int,
            "event_id": int,
            "series_id": int,
            "idx": int,
            "rule_set": str,
            "options": str,
            "seed": int,
            "players": int,
            "first_player": int,
            "turn_order": str,
            "teams": str,
            "winners": str,
            "reason": str,
            "detail": str,
            "decisions": int,
            "seconds": float,
            "finished_at": str,
        },
        pk="id",
        foreign_keys=[("event_id", "events", "id"), ("series_id", "series", "id")],
        not_null={"event_id", "series_id", "idx"},
    )
    db["games"].create_index(["series_id", "idx"], unique=True)
    db["games"].create_index(["event_id"])
    db["seats"].create(
        {
            "game_id": int,
            "seat": int,
            "entrant_id": int,
            "first": int,
            "winner": int,
            "points": int,
            "placement": int,
            "eliminated": int,
            "fault": str,
        },
        pk=("game_id", "seat"),
        foreign_keys=[("game_id", "games", "id"), ("entrant_id", "entrants", "id")],
    )
    db["seats"].create_index(["entrant_id"])
    db["replays"].create(
        {
            "game_id": int,
            "rule_set": str,
            "players": int,
            "seed": int,
            "options": str,
            "first_player": int,
            "teams": str,
            "choices": str,
        },
        pk="game_id",
        foreign_keys=[("game_id", "games", "id")],
    )
    db["game_logs"].create(
        {"game_id": int, "log": str, "stderr": str, "faults": str},
        pk="game_id",
        foreign_keys=[("game_id", "games", "id")],
    )


@MIGRATIONS()
def m002_replay_forfeits(db: Database) -> None:
    db["replays"].add_column("forfeits", str, not_null_default="[]")


@MIGRATIONS()
def m003_game_legs(db: Database) -> None:
    # games stored before legs existed were each a leg of their own
    db["games"].add_column("leg", int)
    db.execute("update games set leg = idx")


def db_path(option: str | None = None) -> Path:
    """The database file: ``--db`` if given, else ``$TOURNEY_DB``, else ``results/tourney.db``."""
    return Path(option or os.environ.get("TOURNEY_DB") or DEFAULT_DB)


def open_db(path: str | os.PathLike | None = None, *, create: bool = True) -> Database:
    """Open (and migrate) the database; ``path=None`` uses :func:`db_path`.

    With ``create=False`` a missing file is a :class:`StoreError` (for read-only commands).
    """
    p = db_path(str(path) if path is not None else None)
    if not create and str(p) != ":memory:" and not p.exists():
        raise StoreError(f"{p}: no such database (run an event first, or pass --db)")
    if str(p) == ":memory:":
        db = Database(memory=True)
    else:
        if p.parent and not p.parent.exists():
            p.parent.mkdir(parents=True, exist_ok=True)
        try:
            db = Database(p)
            db.execute("PRAGMA journal_mode=WAL")
            # WAL + NORMAL: a committed game survives a crash or kill -9 of tourney (only a
            # power cut may lose the last commits), without an fsync per game
            db.execute("PRAGMA synchronous=NORMAL")
        except Exception as exc:  # sqlite3.DatabaseError: not a database, locked, ...
            raise StoreError(f"{p}: cannot open database ({exc})") from None
    db.execute("PRAGMA foreign_keys=ON")
    db.execute("PRAGMA busy_timeout=10000")
    try:
        MIGRATIONS.apply(db)
    except Exception as exc:
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
    existing = list(db["entrants"].rows_where("name = ?", [spec["name"]]))
    if existing:
        db["entrants"].update(existing[0]["id"], row)
        return existing[0]["id"]
    row["created_at"] = now()
    return db["entrants"].insert(row).last_pk


def find_event(db: Database, name: str) -> dict | None:
    rows = list(db["events"].rows_where("name = ?", [name]))
    return rows[0] if rows else None


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
        event_id = db["events"].insert(
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
        db["event_entrants"].insert_all(
            {"event_id": event_id, "entrant_id": ids[s["name"]], "position": i, "spec": dumps(s)}
            for i, s in enumerate(entrant_specs)
        )
        for item in schedule:
            series_id = db["series"].insert(
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
            db["series_entrants"].insert_all(
                {"series_id": series_id, "entrant_id": ids[name], "seat": seat, "wins": 0,
                 "points": 0}
                for seat, name in enumerate(item["entrants"])
            )
    return event_id


def record_game(db: Database, event_id: int, series_id: int, game: dict,
                series_result: dict | None = None) -> int:
    """Commit one finished game with its seats, replay and log (and the series' result if the
    game ended the series) in one transaction; returns the game id.

    ``game`` is :func:`tourney.formats.game_payload` output: ``idx``, ``rule_set``, ``options``,
    ``seed``, ``players``, ``first_player``, ``turn_order``, ``teams``, ``winners``, ``reason``,
    ``detail``, ``decisions``, ``seconds``, ``choices``, ``log``, ``stderr``, ``faults``,
    ``seats`` (list of ``{"seat", "entrant_id", "points", "placement", "eliminated", "fault"}``).
    ``series_result``: ``{"outcome", "winner_id", "games_played", "entrants": {entrant_id:
    {"wins", "points", "placement"}}}``.
    """
    with db.atomic():
        game_id = db["games"].insert(
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
        db["seats"].insert_all(
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
        db["replays"].insert(
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
        db["game_logs"].insert(
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
    db["series"].update(
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
        db["events"].update(event_id, {"status": "finished", "finished_at": now()})


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


def replay_game(row: dict, on_line=None):
    """Re-create a stored game from a ``replays`` row (choices and forfeits); ``on_line`` gets
    each readable log line as it happens. Returns the engine game."""
    import engine

    game = engine.new_game(**replay_start(row))
    choices = json.loads(row["choices"])
    forfeits = json.loads(row.get("forfeits") or "[]")
    shown = 0

    def flush():
        nonlocal shown
        while shown < len(game.events):
            if on_line is not None:
                on_line(game.describe(game.events[shown]))
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
