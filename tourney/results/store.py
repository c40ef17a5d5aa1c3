"""The results database: SQLite through sqlite-utils, one file, one writer.

Only the ``tourney`` process that runs an event writes (the main process; workers that play
series send finished games back to it). Bots never see the database. Foreign keys are on.
The tables and views are described, and built, in :mod:`tourney.results.schema`; this module
opens the file and reads and writes events, series and games.

Default location: ``results/tourney.db``; ``--db PATH`` or the environment variable
``TOURNEY_DB`` choose another (see :func:`db_path`).

"""

from __future__ import annotations

import atexit
import datetime as _dt
import hashlib
import json
import os
import sqlite3
import time
import weakref
import zlib
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import orjson
from sqlite_utils import Database

import engine
from tourney import narrate
from tourney.errors import UserError
from tourney.results import ratings, schema, seat_balance, tallies

DEFAULT_DB = "results/tourney.db"
#: how long a command waits for another process's write to finish before giving up (generous: a
#: loaded laptop can take seconds to set up a fresh file)
BUSY_TIMEOUT_MS = 30_000
#: how long closing a writer waits for readers to step aside before it folds the WAL back
CLOSE_WAIT_MS = 5_000
#: the ``events.source`` of the throwaway events ``tourney play`` and ``tourney match`` create
COMMAND_LINE = "command line"


class StoreError(UserError):
    """A database problem the user can fix (wrong file, conflicting event)."""


def _pk(pk: object) -> int:
    """The primary key sqlite-utils reports after an insert (always set for our tables)."""
    assert isinstance(pk, int)
    return pk


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
    (:func:`tourney.results.schema.migrate`); an empty file is made a new database. With
    ``readonly=True`` (commands that only read) the file must exist and be current, and the
    connection cannot write: a read never changes the file, and is safe next to a running event.
    A file that is no SQLite database, or the database of another program, is refused with what
    it is (:func:`_refuse_foreign`).

    A writing connection is kept in WAL mode while it is open (readers beside a running event
    keep reading); :func:`close_db` folds the WAL back into the file. Every command closes the
    writers it opened when it ends, however it ends (:mod:`tourney.app`), and so does the
    process at exit (:func:`close_writers`): the ``.db`` alone then holds every game.
    """
    p = db_path(str(path) if path is not None else None)
    memory = str(p) == ":memory:"
    if readonly and not memory and not p.exists():
        raise StoreError(f"{p}: no such database (nothing has been stored there yet; --db names another file)")
    if not memory:
        _refuse_foreign_file(p)
    db: Database
    try:
        if memory:
            db = _Writer(memory=True)
        elif readonly:
            db = Database(sqlite3.connect(f"{p.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False,
                                          factory=_Connection))
            _readers[db.conn] = os.getpid()
            db.execute("select count(*) from sqlite_master").fetchone()  # not a database: fail here
            _refuse_foreign(db, p, readonly)
        else:
            p.parent.mkdir(parents=True, exist_ok=True)
            # any thread may close it at the end (a server's request threads open their own)
            db = _Writer(sqlite3.connect(str(p), check_same_thread=False, factory=_Connection))
            _writers[db.conn] = os.getpid()
            # wait for another process's lock (before WAL: switching a fresh file takes a lock too)
            db.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            _refuse_foreign(db, p, readonly)  # before WAL: another program's file stays as it was
            _switch_to_wal(db)
            # WAL + NORMAL: a committed game survives a crash or kill -9 of tourney (only a
            # power cut may lose the last commits), without an fsync per game
            db.execute("PRAGMA synchronous=NORMAL")
    except sqlite3.Error as exc:  # not a database, locked, unreadable ...
        raise StoreError(f"{p}: cannot open database ({exc})") from None
    except StoreError:  # another program's file: closed as it was found
        if not readonly:
            _writers.pop(db.conn, None)
        db.conn.close()
        raise
    db.execute("PRAGMA foreign_keys=ON")
    db.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    try:
        if readonly:
            schema.check_current(db)
        elif schema.MIGRATIONS.pending(db):
            # several processes may open a fresh file at once: the first to hold the lock applies
            # the migrations, the others find nothing pending once they get it
            with write_lock(db, p):
                schema.migrate(db)
    except schema.SchemaOutOfDate:
        raise StoreError(f"{p}: written by an older tourney; bring it up to date with: "
                         f"tourney upgrade --db {p}") from None
    except sqlite3.Error as exc:
        raise StoreError(f"{p}: cannot prepare database ({exc})") from None
    return db


#: the first bytes of every SQLite database file
_SQLITE_HEADER = b"SQLite format 3\x00"


#: the files this process has opened as results databases: never read again by other means
_opened: set[str] = set()


def _refuse_foreign_file(p: Path) -> None:
    """Refuse a file that is not a SQLite database, saying what it looks like (an empty file is
    a database with nothing in it yet).

    A file is looked at once per process, before SQLite first opens it: closing any other
    descriptor of a file drops every POSIX lock this process holds on it, SQLite's included, and
    another process could then take the WAL from under this one's open connections."""
    key = os.path.realpath(p)
    if key in _opened:
        return
    try:
        with open(p, "rb") as f:
            head = f.read(512)
    except FileNotFoundError:
        _opened.add(key)  # SQLite creates it below
        return
    except (IsADirectoryError, PermissionError):
        return  # SQLite says what is wrong
    if not head or head.startswith(_SQLITE_HEADER):
        _opened.add(key)
        return
    if head.startswith(b"PK\x03\x04"):
        what = "a zip archive"
    elif head.startswith(b"\x1f\x8b"):
        what = "a gzip file"
    else:
        try:
            head.decode("utf-8")
            what = "a text file"
        except UnicodeDecodeError:
            what = "a binary file"
    raise StoreError(f"{p}: not a SQLite database ({what}); --db names a tourney results file")


def _refuse_foreign(db: Database, p: Path, readonly: bool) -> None:
    """Refuse a SQLite database that some other program made: it has tables, and no record of
    tourney's migrations. One with no tables at all is new: a writer makes it a results file,
    a reader finds nothing stored there yet."""
    tables = [r[0] for r in db.execute(
        "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name")]
    if not tables:
        if readonly:
            raise StoreError(f"{p}: an empty database (nothing has been stored there yet)")
        return
    ours = "_sqlite_migrations" in tables and db.execute(
        "select 1 from _sqlite_migrations where migration_set = ? limit 1",
        [schema.MIGRATIONS.name]).fetchone() is not None
    if not ours:
        shown = ", ".join(tables[:5]) + (", ..." if len(tables) > 5 else "")
        raise StoreError(f"{p}: a SQLite database of another program (tables: {shown}), not tourney's "
                         "results; --db names a tourney results file")


class _Connection(sqlite3.Connection):
    """A connection that, unlike sqlite3's own, can be referred to weakly (:data:`_writers`,
    :data:`_readers`)."""


class _Writer(Database):
    """A writing connection's database, whose ``atomic()`` blocks take the write lock first.

    sqlite-utils opens them with a plain ``BEGIN``, which locks nothing until the first write. In
    WAL mode a transaction that has read and then meets another process's newer commit cannot
    write at all: SQLite answers "database is locked" at once, without waiting, and the runner
    died of it beside a ``ladder submit``. Holding the lock from the first statement makes the
    other process wait for this commit instead (:data:`BUSY_TIMEOUT_MS`)."""

    @contextmanager
    def atomic(self) -> Iterator[Database]:
        if self.conn.in_transaction:  # a savepoint inside the transaction that holds the lock
            with super().atomic():
                yield self
        else:
            with write_lock(self):
                yield self


#: writing connections still open, and the process that opened each (a forked worker's copy of
#: its parent's connection is never closed by the worker)
_writers: weakref.WeakKeyDictionary[sqlite3.Connection, int] = weakref.WeakKeyDictionary()


#: read-only connections still open, and the process that opened each: a command closes its
#: own too, so that they leave its writers' close free to remove the -wal and -shm files
_readers: weakref.WeakKeyDictionary[sqlite3.Connection, int] = weakref.WeakKeyDictionary()


def open_writers() -> set[int]:
    """The ids of the connections now open, writing or reading (what :func:`close_writers`
    leaves alone)."""
    return {id(conn) for conn in [*_writers, *_readers]}


def close_db(db: Database) -> None:
    """Close a writing connection, whole: what it did not commit is rolled back, the WAL is
    copied into the database file and truncated (``wal_checkpoint(TRUNCATE)``) and, when no other
    connection has the file open, the file goes back to journal mode DELETE: SQLite removes the
    ``-wal`` and ``-shm`` files, and the next writer switches to WAL again. A reader beside it
    (``tourney serve``, datasette) is waited for a few seconds at most and keeps working; the
    WAL then stays, empty, and the ``.db`` holds every committed game either way."""
    _close(db.conn)


def _close(conn: sqlite3.Connection) -> None:
    _writers.pop(conn, None)
    try:
        if conn.in_transaction:
            conn.rollback()
        conn.execute(f"PRAGMA busy_timeout={CLOSE_WAIT_MS}")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        # the last one out leaves an ordinary file, no WAL: a read-only reader opening it later
        # (tourney standings, a copy) then makes no -wal and -shm beside it either. With another
        # connection open (a reader, another writer) SQLite refuses at once, and WAL stays.
        conn.execute("PRAGMA busy_timeout=0")
        conn.execute("PRAGMA journal_mode=DELETE").fetchall()
    except sqlite3.Error:
        pass  # closed already, or busy: SQLite checkpoints on the last close anyway
    try:
        conn.close()
    except sqlite3.Error:
        pass


def close_writers(keep: set[int] | frozenset[int] = frozenset()) -> None:
    """Close every connection this process opened, except those of ``keep`` (:func:`open_writers`
    before a command: a test's own connections stay open): the readers first, then the writers
    (:func:`close_db`), the last of which can then leave the file without its WAL."""
    for conn, pid in list(_readers.items()):
        if pid == os.getpid() and id(conn) not in keep:
            _readers.pop(conn, None)
            try:
                conn.close()
            except sqlite3.Error:
                pass
    for conn, pid in list(_writers.items()):
        if pid == os.getpid() and id(conn) not in keep:
            _close(conn)


atexit.register(close_writers)


def _switch_to_wal(db: Database) -> None:
    """Put the file in WAL mode. Switching takes an exclusive lock, and SQLite may answer "locked"
    at once rather than wait when another process holds one on a fresh file, so try again until
    :data:`BUSY_TIMEOUT_MS` has passed."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


@contextmanager
def write_lock(db: Database, path: str | os.PathLike | None = None) -> Iterator[Database]:
    """One transaction that holds SQLite's write lock from its first statement (``BEGIN
    IMMEDIATE``): whatever is read inside it (pending migrations, the next game number) cannot be
    changed by another process before it commits. A busy database is waited for
    (:data:`BUSY_TIMEOUT_MS`); inside, sqlite-utils' own ``atomic()`` blocks become savepoints.
    Everything is rolled back if the block raises."""
    try:
        db.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as exc:
        where = f"{path}: " if path is not None else ""
        raise StoreError(f"{where}database busy ({exc}); another tourney is writing, try again") from None
    try:
        yield db
    except BaseException:
        db.conn.rollback()
        raise
    db.conn.commit()


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
    return _insert(db.conn, "insert into entrants (name, kind, builtin, command, cwd, created_at) "
                   "values (?, ?, ?, ?, ?, ?)", [row["name"], row["kind"], row["builtin"],
                                                 row["command"], row["cwd"], row["created_at"]])


def find_event(db: Database, name: str) -> dict | None:
    rows = list(db.table("events").rows_where("name = ?", [name]))
    return rows[0] if rows else None


def list_events(db: Database) -> list[dict]:
    """Every event, oldest first: ``name``, ``format``, ``rule_set``, ``games`` (stored), ``status``,
    ``source`` (the config path, or ``"command line"`` for ``play``/``match``), ``created_at``."""
    return [dict(r) for r in db.query(
        "select ev.name, ev.format, ev.rule_set, (select count(*) from games g where g.event_id = ev.id) "
        "as games, ev.status, ev.source, ev.created_at from events ev order by ev.id")]


def event_secret(db: Database, event_id: int) -> str | None:
    """The event's secret, which keys its seeds (None: public seeds, or an event stored before
    secrets existed)."""
    row = db.execute("select deal_secret from events where id = ?", [event_id]).fetchone()
    return row[0] if row else None


def delete_event(db: Database, event_id: int) -> None:
    """Remove an event and everything recorded for it (``tourney run --restart``)."""
    with db.atomic():
        game_ids = "select id from games where event_id = ?"
        for table in ("seats", "replays", "game_logs"):
            db.execute(f"delete from {table} where game_id in ({game_ids})", [event_id])
        db.execute("delete from entrant_ratings where event_id = ?", [event_id])
        db.execute("delete from entrant_totals where event_id = ?", [event_id])
        db.execute("delete from progress_checkpoints where event_id = ?", [event_id])
        tallies.delete(db, event_id)
        seat_balance.delete(db, event_id)
        db.execute("delete from fault_tallies where event_id = ?", [event_id])
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
                 config: dict, source: str, secret: str | None = None) -> int:
    """Insert an event, its entrants and all its series rows in one transaction. ``secret`` is
    the event's secret (tourney.seeding), kept here and nowhere else; None: public seeds.

    ``schedule`` items: ``{"idx", "round", "kind", "seed", "games_target", "entrants": [names
    in seat order]}``. Returns the event id.
    """
    with db.atomic():
        ids = {spec["name"]: upsert_entrant(db, spec) for spec in entrant_specs}
        event_id = _pk(db.table("events").insert(
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
                **({"deal_secret": secret} if secret is not None else {}),
            }
        ).last_pk)
        db.table("event_entrants").insert_all(
            {"event_id": event_id, "entrant_id": ids[s["name"]], "position": i, "spec": dumps(s)}
            for i, s in enumerate(entrant_specs)
        )
        _insert_series(db, event_id, ids, schedule)
    return event_id


#: how a bye is stored, by its value: (series outcome, whether its entrant is the winner, place)
BYE_ROWS = {1.0: ("win", True, 1), 0.5: ("draw", False, 1), 0.0: ("loss", False, 2)}


def _insert_series(db: Database, event_id: int, ids: dict[str, int], schedule: list[dict]) -> None:
    """Series rows of ``schedule``; a ``"bye"`` item is stored finished, worth its ``bye`` value
    (a win by default: outcome ``"win"`` and its entrant the winner). The event's
    ``series_count`` follows (its page's paging reads it instead of counting every series)."""
    db.execute("update events set series_count = series_count + ? where id = ?", [len(schedule), event_id])
    for item in schedule:
        row = {
            "event_id": event_id,
            "idx": item["idx"],
            "round": item.get("round", 0),
            "kind": item["kind"],
            "seed": item["seed"],
            "games_target": item["games_target"],
            "status": "pending",
            "games_played": 0,
        }
        placement = None
        if item["kind"] == "bye":
            outcome, wins, placement = BYE_ROWS[float(item.get("bye", 1.0))]
            row.update(status="finished", outcome=outcome, finished_at=now(),
                       winner_id=ids[item["entrants"][0]] if wins else None)
        series_id = _pk(db.table("series").insert(row).last_pk)
        db.table("series_entrants").insert_all(
            {"series_id": series_id, "entrant_id": ids[name], "seat": seat, "wins": 0,
             "points": 0, "placement": placement}
            for seat, name in enumerate(item["entrants"])
        )
        if row["status"] == "finished":
            _count_series(db.conn, series_id)


def add_series(db: Database, event_id: int, schedule: list[dict]) -> None:
    """Add the series of a new round (a Swiss or knockout round made from the results so far)."""
    ids = {r["name"]: r["id"] for r in db.query(
        "select e.id, e.name from event_entrants ee join entrants e on e.id = ee.entrant_id "
        "where ee.event_id = ?", [event_id])}
    with db.atomic():
        _insert_series(db, event_id, ids, schedule)


def record_game(db: Database, event_id: int, series_id: int, game: dict,
                series_result: dict | None = None) -> int:
    """Commit one finished game with its seats, replay, bot output and rating update (and the
    series' result if the game ended the series) in one transaction; returns the game id.

    ``game`` is :func:`tourney.events.play.game_payload` output: ``idx``, ``rule_set``, ``options``,
    ``seed``, ``players``, ``first_player``, ``turn_order``, ``teams``, ``winners``, ``reason``,
    ``detail``, ``decisions``, ``seconds``, ``choices``, ``stderr``, ``faults``,
    ``seats`` (list of ``{"seat", "entrant_id", "points", "placement", "eliminated", "fault"}``).
    ``series_result``: ``{"outcome", "winner_id", "games_played", "entrants": {entrant_id:
    {"wins", "points", "placement"}}}``.

    Only what a replay cannot give is kept: the readable log is regenerated from the replay
    (:func:`replay_game`), the options are stored once per distinct set (``option_sets``) and
    the choices compressed.
    """
    return record_games(db, event_id, [(series_id, game, series_result)])[0]


def record_games(db: Database, event_id: int,
                 items: list[tuple[int, dict, dict | None]]) -> list[int]:
    """Commit games that arrived together, ``(series_id, game, series_result)`` each as for
    :func:`record_game`, in one transaction (all of them or none); returns their ids.

    The writer calls this with every game waiting when it is ready to write (a group commit):
    one game when games come slower than it writes them, several under load, where the commit
    (the WAL write) would otherwise cost more than the rows. Plain SQL with fixed statements,
    since this is the single writer's inner loop (bench/scale.py: writer_games_per_s).
    """
    with db.atomic():
        batch = _Batch(stamp=now(), number=ratings.games_stored(db.conn, event_id))
        ids = [_insert_game(db, event_id, *item, batch) for item in items]
        conn = db.conn
        # a finished series' count was set whole by finish_series
        conn.executemany("update series set games_played = games_played + ? where id = ?",
                         [(n, sid) for sid, n in batch.played.items() if sid not in batch.finished])
        _save_ratings(conn, event_id, batch.kept)
        _save_totals(conn, event_id, batch.totals)
        tallies.save(conn, event_id, batch.pairs, batch.shares)
        seat_balance.save(conn, event_id, batch.seated)
        _save_faults(conn, event_id, batch.faults)
    return ids


@dataclass
class _Batch:
    """What the games of one commit add up to, written once at its end: ratings
    (``entrant_id -> [mu, sigma, games added]``), totals, tallies and games per series."""

    stamp: str
    #: games of the event stored before the next one
    number: int
    kept: dict[int, list] = field(default_factory=dict)
    totals: dict[int, list[int]] = field(default_factory=dict)
    pairs: dict[tuple[int, int], tallies.PairRow] = field(default_factory=dict)
    shares: Counter = field(default_factory=Counter)
    seated: tuple[Counter, Counter] = field(default_factory=lambda: (Counter(), Counter()))
    #: ``(entrant_id, fault) -> [faults, forfeits]``
    faults: dict[tuple[int, str], list[int]] = field(default_factory=dict)
    played: Counter = field(default_factory=Counter)
    finished: set[int] = field(default_factory=set)
    option_ids: dict[str, int] = field(default_factory=dict)


def _insert_game(db: Database, event_id: int, series_id: int, game: dict,
                 series_result: dict | None, batch: _Batch) -> int:
    conn = db.conn
    teams = dumps(game["teams"]) if game.get("teams") else None
    options = _canonical(game["options"])
    options_id = batch.option_ids.get(options)
    if options_id is None:
        options_id = batch.option_ids[options] = _option_set_id(conn, options)
    game_id = _insert(
        conn, "insert into games (event_id, series_id, idx, leg, duplicate_set, rotation, rule_set, seed, "
        "players, first_player, turn_order, teams, winners, reason, detail, decisions, seconds, "
        "finished_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [event_id, series_id, game["idx"], game.get("leg", game["idx"]), game.get("duplicate_set"),
         game.get("rotation"), game["rule_set"],
         game["seed"], game["players"], game["first_player"], _list(game["turn_order"]), teams,
         _list(game["winners"]), game["reason"], game.get("detail", ""),
         game.get("decisions", 0), game.get("seconds", 0.0), batch.stamp],
    )
    winners = set(game["winners"])
    conn.executemany(
        "insert into seats (game_id, seat, entrant_id, first, winner, points, placement, "
        "eliminated, fault, forfeit) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(game_id, s["seat"], s["entrant_id"], int(s["seat"] == game["first_player"]),
          int(s["seat"] in winners), s["points"], s["placement"], int(bool(s.get("eliminated"))),
          s.get("fault"), None if s.get("fault") is None else int(s.get("forfeit") is not False))
         for s in game["seats"]],
    )
    conn.execute(
        "insert into replays (game_id, rule_set, players, seed, options_id, first_player, "
        "teams, choices_z, forfeits) values (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [game_id, game["rule_set"], game["players"], game["seed"], options_id,
         game["first_player"], teams, pack_choices(game["choices"]),
         _list(game.get("forfeits") or [])],
    )
    stderr = {str(k): v for k, v in (game.get("stderr") or {}).items() if v}
    faults = {str(k): v for k, v in (game.get("faults") or {}).items()}
    if stderr or faults:  # what a replay cannot give back
        conn.execute("insert into game_logs (game_id, stderr, faults) values (?, ?, ?)",
                     [game_id, dumps(stderr), dumps(faults)])
    _rate(conn, event_id, game["seats"], batch.kept)
    _count(game, batch.totals)
    _count_faults(game, batch.faults)
    batch.number += 1
    if batch.number % ratings.CHECKPOINT == 0:
        ratings.save_checkpoint(conn, event_id, batch.number, game_id, batch.kept,
                                {i: row[4] for i, row in batch.totals.items()})
    tallies.count_game(game["seats"], batch.pairs, batch.shares)
    seat_balance.add([s["entrant_id"] for s in sorted(game["seats"], key=lambda s: s["seat"])], batch.seated)
    if game.get("duplicate_set") is not None and game["players"] == 2:
        tallies.count_mirror(conn, series_id, game["duplicate_set"], game_id, batch.pairs)
    batch.played[series_id] += 1
    if series_result is not None:
        finish_series(db, series_id, series_result)
        batch.finished.add(series_id)
    return game_id


def _canonical(value: dict) -> str:
    """Canonical JSON text of an options table (sorted keys, compact, UTF-8) for
    ``option_sets``, where equal texts are one row: several times faster than :func:`dumps`."""
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()


def _list(value: list) -> str:
    """A list as :func:`dumps` writes it (compact JSON), an order of magnitude faster."""
    return orjson.dumps(value).decode()


def _option_set_id(conn: sqlite3.Connection, options: str) -> int:
    """The id of this options text in ``option_sets`` (added the first time it is seen)."""
    row = conn.execute("select id from option_sets where options = ?", [options]).fetchone()
    if row is not None:
        return row[0]
    return _insert(conn, "insert into option_sets (options) values (?)", [options])


def _insert(conn: sqlite3.Connection, sql: str, params: list) -> int:
    """Run one insert and return the new row's id."""
    row_id = conn.execute(sql, params).lastrowid
    assert row_id is not None
    return row_id


def pack_choices(choices: list) -> bytes:
    """A game's option ids as stored in ``replays.choices_z``: its JSON text, zlib-compressed
    (option ids repeat a handful of prefixes: level 1, the fastest, already keeps under a third
    of the text, and this runs once per game in the writer)."""
    return zlib.compress(orjson.dumps(list(choices)), 1)


def unpack_choices(blob: bytes) -> list:
    return json.loads(zlib.decompress(blob))


def _rate(conn: sqlite3.Connection, event_id: int, seats: list[dict], kept: dict) -> None:
    """Rate one game's entrants in game order, as :func:`tourney.results.ratings.rate_games`
    would from the stored games. ``kept`` holds the batch's ratings, ``entrant_id -> [mu,
    sigma, games added]``, read from ``entrant_ratings`` the first time an entrant appears and
    written back once per batch (:func:`_save_ratings`)."""
    if len(seats) < 2:
        return
    ids = [s["entrant_id"] for s in seats]
    for i in ids:
        if i not in kept:
            row = conn.execute("select mu, sigma from entrant_ratings where event_id = ? and "
                               "entrant_id = ?", [event_id, i]).fetchone()
            kept[i] = [*(row or (ratings.MU, ratings.SIGMA)), 0]
    ranks = [s["placement"] if s["placement"] is not None else (s["points"] or 0) for s in seats]
    after = ratings.rate_one([(kept[i][0], kept[i][1]) for i in ids], ranks)
    for i, (mu, sigma) in zip(ids, after):
        kept[i][:] = [mu, sigma, kept[i][2] + 1]


def _count(game: dict, totals: dict[int, list[int]]) -> None:
    """Add a game to its entrants' totals, ``entrant_id -> [games, wins, draws, losses, points,
    faults]``, as the ``seat_outcomes`` view classifies seats: a win, a draw (no winner, shared
    first place: rulings.md item 14) or a loss."""
    winners = set(game["winners"])
    for seat in game["seats"]:
        row = totals.setdefault(seat["entrant_id"], [0, 0, 0, 0, 0, 0])
        win = seat["seat"] in winners
        draw = not winners and seat["placement"] == 1
        for k, add in enumerate((1, win, draw, not (win or draw), seat["points"] or 0,
                                 seat.get("fault") is not None)):
            row[k] += int(add)


def _save_totals(conn: sqlite3.Connection, event_id: int, totals: dict[int, list[int]]) -> None:
    conn.executemany(
        "insert into entrant_totals (event_id, entrant_id, games, wins, draws, losses, points, "
        "faults) values (?, ?, ?, ?, ?, ?, ?, ?) on conflict (event_id, entrant_id) do update set "
        "games = games + excluded.games, wins = wins + excluded.wins, "
        "draws = draws + excluded.draws, losses = losses + excluded.losses, "
        "points = points + excluded.points, faults = faults + excluded.faults",
        [(event_id, i, *row) for i, row in totals.items()],
    )


def _count_faults(game: dict, faults: dict[tuple[int, str], list[int]]) -> None:
    """Add a game's faulted seats to ``faults``, ``(entrant_id, fault) -> [faults, forfeits]``, as
    the ``entrant_faults`` view counts them (a forfeit: the fault cost the seat its game)."""
    for seat in game["seats"]:
        if seat.get("fault") is not None:
            row = faults.setdefault((seat["entrant_id"], seat["fault"]), [0, 0])
            row[0] += 1
            row[1] += int(seat.get("forfeit") is not False)


def _save_faults(conn: sqlite3.Connection, event_id: int, faults: dict[tuple[int, str], list[int]]) -> None:
    conn.executemany(
        "insert into fault_tallies (event_id, entrant_id, fault, count, forfeits) values (?, ?, ?, ?, ?) "
        "on conflict (event_id, entrant_id, fault) do update set count = count + excluded.count, "
        "forfeits = forfeits + excluded.forfeits",
        [(event_id, i, fault, n, lost) for (i, fault), (n, lost) in faults.items()])


def _save_ratings(conn: sqlite3.Connection, event_id: int, kept: dict) -> None:
    conn.executemany(
        "insert into entrant_ratings (event_id, entrant_id, mu, sigma, games) values (?, ?, ?, ?, ?) "
        "on conflict (event_id, entrant_id) do update set mu = excluded.mu, sigma = excluded.sigma, "
        "games = games + excluded.games",
        [(event_id, i, mu, sigma, added) for i, (mu, sigma, added) in kept.items()],
    )


def finish_series(db: Database, series_id: int, result: dict) -> None:
    """Store a series' result (call inside the transaction of its last game), and add it to its
    entrants' kept series totals the first time."""
    done = db.execute("select status from series where id = ?", [series_id]).fetchone()
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
    if done is not None and done[0] != "finished":
        _count_series(db.conn, series_id)


def _count_series(conn: sqlite3.Connection, series_id: int) -> None:
    """Add a finished series to its entrants' kept totals in ``entrant_totals``: played, and won,
    drawn or lost as the ``series_outcomes`` view says, and the games won of a match (its legs)."""
    event_id, kind, winner_id, outcome = conn.execute(
        "select event_id, kind, winner_id, outcome from series where id = ?", [series_id]).fetchone()
    rows = []
    for entrant_id, placement, wins in conn.execute(
            "select entrant_id, placement, wins from series_entrants where series_id = ?", [series_id]).fetchall():
        won = winner_id == entrant_id
        drawn = not won and outcome == "draw" and placement == 1
        rows.append((event_id, entrant_id, int(won), int(drawn), int(not (won or drawn)),
                     (wins or 0) if kind == "match" else 0))
    conn.executemany(
        "insert into entrant_totals (event_id, entrant_id, games, wins, draws, losses, points, faults, "
        "series_played, series_won, series_drawn, series_lost, legs_won) "
        "values (?1, ?2, 0, 0, 0, 0, 0, 0, 1, ?3, ?4, ?5, ?6) on conflict (event_id, entrant_id) do update set "
        "series_played = series_played + 1, series_won = series_won + excluded.series_won, "
        "series_drawn = series_drawn + excluded.series_drawn, series_lost = series_lost + excluded.series_lost, "
        "legs_won = legs_won + excluded.legs_won", rows)


def finish_event(db: Database, event_id: int) -> None:
    """Mark an event finished and settle its ratings. While it runs, the writer rates games in
    the order they arrive, which depends on the workers; once it is finished the ratings are
    recomputed once in schedule order, so a finished event has the same ratings at any
    concurrency and after any resume (docs/standings.md)."""
    ids = {r["name"]: r["id"] for r in db.query("select id, name from entrants")}
    settled = ratings.event_ratings(db, event_id)
    with db.atomic():
        db.execute("delete from entrant_ratings where event_id = ?", [event_id])
        db.table("entrant_ratings").insert_all(
            {"event_id": event_id, "entrant_id": ids[n], "mu": r.mu, "sigma": r.sigma, "games": r.games}
            for n, r in settled.items())
        db.table("events").update(event_id, {"status": "finished", "finished_at": now()})


# ---------------------------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------------------------


def load_replay(db: Database, game_id: int) -> dict | None:
    """The ``replays`` row of a game, or None, with ``options`` and ``choices`` as JSON text
    whichever way the file stores them (inline in older files; ``option_sets`` and the
    compressed ``choices_z`` since migration ``m008_scale``)."""
    rows = list(db.query(
        "select r.*, o.options as set_options from replays r "
        "left join option_sets o on o.id = r.options_id where r.game_id = ?", [game_id]))
    if not rows:
        return None
    row = dict(rows[0])
    if row.get("options") is None:
        row["options"] = row.pop("set_options")
    if row.get("choices") is None and row.get("choices_z") is not None:
        row["choices"] = dumps(unpack_choices(row["choices_z"]))
    row.pop("set_options", None)
    row.pop("choices_z", None)
    return row


def game_log(db: Database, game_id: int) -> list[str] | None:
    """A stored game's readable log, regenerated from its replay (None: no such game)."""
    row = load_replay(db, game_id)
    if row is None:
        return None
    names = [r["name"] for r in db.query(
        "select e.name from seats s join entrants e on e.id = s.entrant_id where s.game_id = ? "
        "order by s.seat", [game_id])]
    lines: list[str] = []
    replay_game(row, on_line=lines.append, names=names)
    return lines


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


def replay_steps(row: dict):
    """A stored game step by step (from a ``replays`` row): yields ``(game, choice)`` just before
    each stored choice is applied, then ``(game, None)`` once the last one is. The same engine
    game object is yielded each time, changed in place. Forfeits kept apart from the choices (the
    ``forfeits`` column of older files) are applied where they happened."""
    game = engine.new_game(**replay_start(row))
    choices = json.loads(row["choices"])
    forfeits = json.loads(row.get("forfeits") or "[]")
    for i in range(len(choices) + 1):
        for n, seat, code in forfeits:
            if n == i:
                game.forfeit(seat, code)
        if i < len(choices):
            yield game, choices[i]
            engine.apply_choice(game, choices[i])  # an option id or a forfeit marker
    yield game, None


def replay_game(row: dict, on_line=None, names: list[str] | None = None):
    """Re-create a stored game from a ``replays`` row (choices and forfeits); ``on_line`` gets
    each event in words (with the entrant ``names``) as it happens. Returns the engine game."""
    shown = 0
    game = table = None
    for game, _ in replay_steps(row):
        if table is None:
            table = narrate.table_for(game, names or [f"seat {s}" for s in range(game.players)])
        while shown < len(game.events):
            if on_line is not None:
                on_line(narrate.event(table, game.events[shown]))
            shown += 1
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


def series_status(db: Database, series_id: int) -> str | None:
    """A series' status as stored now (``"pending"``, ``"finished"``; None: no such series)."""
    row = db.execute("select status from series where id = ?", [series_id]).fetchone()
    return row[0] if row else None


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
               limit: int | None = None, offset: int = 0) -> list[dict]:
    """One page of games (oldest first) with event name, series idx and seat summaries; filters
    by event name and by entrant name. ``limit`` games from the ``offset``-th on (None or 0:
    all); a page costs the same however many games are stored (index on ``games.event_id``)."""
    where: list[str] = []
    params: list[str | int] = []
    if event is not None and find_event(db, event) is None:
        raise StoreError(f"no event named {event!r} (tourney events lists them)")
    if entrant is not None and not db.table("entrants").count_where("name = ?", [entrant]):
        raise StoreError(f"no entrant named {entrant!r}")
    if event is not None:
        where.append("g.event_id = (select id from events where name = ?)")
        params.append(event)
    if entrant is not None:
        where.append(
            "g.id in (select st.game_id from seats st join entrants en on en.id = st.entrant_id "
            "where en.name = ?)"
        )
        params.append(entrant)
    sql = (
        "select g.id, ev.name as event, s.idx as series, g.leg, g.idx as game, g.duplicate_set, "
        "g.rotation, g.rule_set, g.seed, "
        "g.first_player, g.winners, g.reason, g.decisions, g.finished_at "
        "from games g join events ev on ev.id = g.event_id join series s on s.id = g.series_id"
    )
    if where:
        sql += " where " + " and ".join(where)
    sql += " order by g.id"
    if limit or offset:
        sql += " limit ? offset ?"
        params += [int(limit) if limit else -1, int(offset)]
    rows = [dict(g) for g in db.query(sql, params)]
    seats: dict[int, list[dict]] = {g["id"]: [] for g in rows}
    if rows:
        for r in db.query(
                "select st.game_id, st.seat, e.name as entrant, st.points, st.placement, st.fault "
                "from seats st join entrants e on e.id = st.entrant_id where st.game_id in "
                f"({', '.join('?' * len(rows))}) order by st.game_id, st.seat", list(seats)):
            r = dict(r)
            seats[r.pop("game_id")].append(r)
    for g in rows:
        g["winners"] = json.loads(g["winners"])
        g["seats"] = seats[g["id"]]
    return rows
