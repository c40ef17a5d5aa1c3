"""Keeping a long-lived results file small and safe: ``tourney compact`` and ``tourney backup``.

:func:`compact` brings an event's (or a ladder's) stored games to what their record needs (the
game's own record is its seed and choices; everything shown of it replays from them): rows from
files written before migration ``m008_scale`` lose their inline options, choices and readable
logs for the compressed forms, the keep-logs policy (:mod:`tourney.results.logs`) is applied to
every game, and a ladder's kept stage sums are counted again from its games. Ratings,
standings and replays read the same afterwards (tests/test_storage.py compares them).

:func:`backup` copies a database with SQLite's online backup API, in one step and inside one
read transaction: in WAL mode a running writer goes on meanwhile, and the copy is the file as of
one commit.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

from sqlite_utils import Database

from tourney.results import logs, stages, store


def compact(db: Database, event_id: int, keep: int | None, ladder_id: int | None = None) -> dict:
    """Compact one event's games (see the module docstring) in one transaction; returns what
    changed: ``games``, ``rows_rewritten`` (old inline rows), ``stderr_dropped`` (characters)."""
    conn = db.conn
    with db.atomic():
        rewritten = 0
        old = conn.execute(
            "select r.game_id, r.options, r.choices from replays r join games g on g.id = r.game_id "
            "where g.event_id = ? and (r.choices is not null or r.options is not null)", [event_id]).fetchall()
        for game_id, options, choices in old:
            options_id = store._option_set_id(conn, store._canonical(json.loads(options or "{}")))
            packed = store.pack_choices(json.loads(choices)) if choices is not None else None
            conn.execute("update replays set options = null, options_id = ?, "
                         "choices_z = coalesce(?, choices_z), choices = null where game_id = ?",
                         [options_id, packed, game_id])
            rewritten += 1
        conn.execute("update games set options = null where event_id = ? and options is not null", [event_id])
        # the readable log is regenerated from the replay (store.game_log)
        conn.execute("update game_logs set log = null where log is not null and game_id in "
                     "(select id from games where event_id = ?)", [event_id])
        dropped = logs.apply(conn, event_id, keep, full=True)
        conn.execute("delete from game_logs where (stderr is null or stderr = '{}') "
                     "and (faults is null or faults = '{}') and log is null "
                     "and game_id in (select id from games where event_id = ?)", [event_id])
        if ladder_id is not None:
            stages.recount(conn, ladder_id)
        games = conn.execute("select count(*) from games where event_id = ?", [event_id]).fetchone()[0]
    return {"games": games, "rows_rewritten": rewritten, "stderr_dropped": dropped}


def size(db: Database) -> int:
    """The database's size in bytes, as its pages count (the write-ahead log's included)."""
    return db.execute("PRAGMA page_count").fetchone()[0] * db.execute("PRAGMA page_size").fetchone()[0]


def vacuum(db: Database) -> None:
    """Give the freed pages back to the file system (rewrites the file: it waits for, and then
    holds off, other writers while it runs)."""
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.execute("VACUUM")


def backup(source: str | os.PathLike, dest: str | os.PathLike) -> int:
    """Copy the database ``source`` to ``dest`` (a new file) with SQLite's online backup; returns
    the copy's size in bytes. The copy is written beside ``dest`` and renamed into place once
    complete and checked, so ``dest`` is never half written."""
    src, out = Path(source), Path(dest)
    if not src.exists():
        raise store.StoreError(f"{src}: no such database")
    if out.exists():
        raise store.StoreError(f"{out}: already exists (remove it first, or name a new file)")
    out.parent.mkdir(parents=True, exist_ok=True)
    part = out.with_name(out.name + ".part")
    part.unlink(missing_ok=True)
    reader = sqlite3.connect(f"{src.resolve().as_uri()}?mode=ro", uri=True)
    try:
        reader.execute(f"PRAGMA busy_timeout={store.BUSY_TIMEOUT_MS}")
        writer = sqlite3.connect(part)
        try:
            # one step (pages=-1): one read transaction, so a commit meanwhile cannot restart it
            reader.backup(writer, pages=-1)
            writer.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
            ok = writer.execute("PRAGMA quick_check").fetchone()[0]
        finally:
            writer.close()
    except sqlite3.Error as exc:
        part.unlink(missing_ok=True)
        raise store.StoreError(f"{src}: cannot back up ({exc})") from None
    finally:
        reader.close()
    if ok != "ok":
        part.unlink(missing_ok=True)
        raise store.StoreError(f"{out}: the copy failed its check ({ok})")
    part.rename(out)
    return out.stat().st_size
