"""The one schema: every documented table and view exists whichever command made the file, reads
never write, and a file from before the migration sets were folded upgrades in place."""

import hashlib
import sqlite3
from pathlib import Path

import pytest
from sqlite_utils import Database, Migrations
from typer.testing import CliRunner

import tourney.commands  # noqa: F401  (registers the commands)
from tourney.app import app
from tourney.results import schema

#: the views README.md says datasette shows
VIEWS = {"event_standings", "seat_outcomes", "series_outcomes", "entrant_faults", "club_standings",
         "club_results_current"}
TABLES = {"entrants", "events", "event_entrants", "series", "series_entrants", "games", "seats",
          "replays", "game_logs", "club_leagues", "club_members", "club_games", "club_versions",
          "club_results", "club_log"}


def invoke(*args):
    return CliRunner().invoke(app, list(args))


def digest(path: Path) -> str:
    """Everything the file holds (schema and rows), read through a fresh connection."""
    conn = sqlite3.connect(path)
    try:
        return hashlib.sha256("\n".join(conn.iterdump()).encode()).hexdigest()
    finally:
        conn.close()


@pytest.mark.parametrize("command", [
    ["play", "greedy", "random", "--seed", "2", "--json"],
    ["club", "new", "thu", "--players", "Ann,Bea", "--seed", "1"],
])
def test_any_writing_command_creates_every_table_and_view(tmp_path, command):
    db = tmp_path / "t.db"
    r = invoke(*command, "--db", str(db))
    assert r.exit_code == 0, r.output
    made = Database(db)
    assert set(made.view_names()) == VIEWS
    assert set(made.table_names()) >= TABLES


def test_read_commands_never_write(tmp_path):
    db = tmp_path / "t.db"
    assert invoke("play", "greedy", "random", "--db", str(db), "--json").exit_code == 0
    assert invoke("club", "new", "thu", "--players", "Ann,Bea", "--seed", "1", "--db", str(db)).exit_code == 0
    before = digest(db)
    for args in (["standings"], ["standings", "thu", "--club"], ["report", "--format", "json"],
                 ["games", "--json"], ["replay", "1"], ["club", "standings", "thu"],
                 ["club", "history", "thu"], ["club", "list"]):
        r = invoke(*args, "--db", str(db))
        assert r.exit_code == 0, (args, r.output)
    assert digest(db) == before


def old_layout_db(path: Path) -> None:
    """A file as tourney wrote it before the fold: three migration sets, the views and club tables
    recorded under their old set names."""
    db = Database(path)
    schema.MIGRATIONS.apply(db, stop_before="m004_standings_views")
    for set_name, step, fn in (("standings", "m001_standings_views", schema.m004_standings_views),
                               ("club", "m001_club_tables", schema.m005_club_tables)):
        old = Migrations(set_name)
        old(name=step)(fn)
        old.apply(db)
    db["entrants"].insert({"name": "kept", "kind": "builtin", "builtin": "random"})
    db.conn.close()


def test_reading_an_old_file_refuses_with_the_upgrade_command(tmp_path):
    db = tmp_path / "old.db"
    old_layout_db(db)
    before = digest(db)
    r = invoke("standings", "--db", str(db))
    assert r.exit_code == 2
    assert r.stderr.strip() == f"error: {db}: written by an older tourney; bring it up to date with: " \
                               f"tourney upgrade --db {db}"
    assert digest(db) == before


def test_upgrade_folds_the_old_sets_and_keeps_the_data(tmp_path):
    db = tmp_path / "old.db"
    old_layout_db(db)
    r = invoke("upgrade", "--db", str(db))
    assert r.exit_code == 0, r.output
    up = Database(db)
    assert [m.name for m in schema.MIGRATIONS.applied(up)] == [
        "m001_initial", "m002_replay_forfeits", "m003_game_legs", "m004_standings_views",
        "m005_club_tables", "m008_scale"]
    assert set(up.view_names()) == VIEWS
    assert [r["name"] for r in up["entrants"].rows] == ["kept"]
    assert invoke("club", "list", "--db", str(db)).exit_code == 0


def test_upgrade_of_a_missing_file_is_a_user_error(tmp_path):
    r = invoke("upgrade", "--db", str(tmp_path / "none.db"))
    assert r.exit_code == 2 and "no such database" in r.stderr
    assert not (tmp_path / "none.db").exists()
