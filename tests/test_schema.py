"""The one schema: every documented table and view exists whichever command made the file, reads
never write, and a file from before the migration sets were folded upgrades in place."""

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest
from helpers import written_today
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
    assert invoke("play", "greedy", "random", "--db", str(db), "--name", "play", "--json").exit_code == 0
    assert invoke("club", "new", "thu", "--players", "Ann,Bea", "--seed", "1", "--db", str(db)).exit_code == 0
    before = digest(db)
    for args in (["standings", "play"], ["standings", "thu", "--club"], ["report", "play", "--format", "json"],
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
        "m005_club_tables", "m006_event_secrets", "m007_duplicate_sets", "m008_scale", "m009_club_nights",
        "m010_pair_tallies", "m011_luck", "m012_club_codes", "m013_ladders",
        "m014_club_code_lookup", "m015_progress_checkpoints", "m016_ladder_codes", "m017_ladder_storage",
        "m018_seat_forfeits", "m019_gauntlet_shares", "m020_kept_series"]
    assert set(up.view_names()) == VIEWS
    assert [r["name"] for r in up["entrants"].rows] == ["kept"]
    assert invoke("club", "list", "--db", str(db)).exit_code == 0


def test_upgrade_of_a_missing_file_is_a_user_error(tmp_path):
    r = invoke("upgrade", "--db", str(tmp_path / "none.db"))
    assert r.exit_code == 2 and "no such database" in r.stderr
    assert not (tmp_path / "none.db").exists()


def test_a_file_that_still_holds_logs_and_inline_replays_reads_and_replays(tmp_path):
    """A game stored before m008_scale (log in game_logs, options and choices inline) still
    lists, replays (the log regenerated equals the stored one) and counts in the standings."""
    from tourney.bots.entrants import open_entrant
    from tourney.bots.referee import play_game
    from tourney.config import entrant_spec
    from tourney.results import store

    path = tmp_path / "old.db"
    old = Database(path)
    schema.MIGRATIONS.apply(old, stop_before="m008_scale")
    specs = [{"name": "g", "builtin": "greedy"}, {"name": "r", "builtin": "random"}]
    event = {"name": "old", "format": "single", "rule_set": "crazier-eights", "seed": 1, "players": 2,
             "games": 1}
    event_id = written_today(old, lambda: store.create_event(
        old, event, specs, [{"idx": 0, "kind": "single", "seed": 0, "games_target": 1, "entrants": ["g", "r"]}],
        {}, "t"))
    series = store.series_rows(old, event_id)[0]
    with open_entrant(entrant_spec(specs[0]), 1) as a, open_entrant(entrant_spec(specs[1]), 2) as b:
        record = play_game([a, b], seed=5, first_player=0)
    res = record.result
    gid = old["games"].insert({
        "event_id": event_id, "series_id": series["id"], "idx": 0, "leg": 0,
        "rule_set": "crazier-eights", "options": store.dumps(record.options), "seed": 5,
        "players": 2, "first_player": 0, "turn_order": "[0, 1]",
        "winners": store.dumps(list(res.winners)), "reason": res.reason}).last_pk
    old["seats"].insert_all({"game_id": gid, "seat": s, "entrant_id": series["entrants"][s]["entrant_id"],
                             "winner": int(s in res.winners), "points": res.points[s],
                             "placement": res.placements[s]} for s in range(2))
    old["replays"].insert({"game_id": gid, "rule_set": "crazier-eights", "players": 2, "seed": 5,
                           "options": store.dumps(record.options), "first_player": 0,
                           "choices": store.dumps(record.choices), "forfeits": "[]"})
    old["game_logs"].insert({"game_id": gid, "log": "\n".join(record.log), "stderr": "{}",
                             "faults": "{}"})
    old.conn.close()

    assert invoke("upgrade", "--db", str(path)).exit_code == 0
    db = store.open_db(path, readonly=True)
    # the replay gives back the engine's account; the referee's first line (seed, seats) and
    # last line (result) are the stored game row's
    stored = db["game_logs"].get(gid)["log"].split("\n")
    assert stored == record.log and store.game_log(db, gid) == record.log[1:-1]
    assert record.log[0].startswith("game: ") and record.log[-1].startswith("result: ")
    replayed = invoke("replay", str(gid), "--db", str(path), "--json")
    assert replayed.exit_code == 0, replayed.output
    shown = json.loads(replayed.stdout)["log"]  # the account, with the deal and decisions between
    missing = [line for line in record.log[1:-1] if "  " + line not in shown]  # indented under the deal
    assert not missing, (missing[:3], shown[:20])
    assert json.loads(replayed.stdout)["matches_stored"] is True
    listed = json.loads(invoke("games", "--db", str(path), "--json").stdout)["games"]
    assert [g["id"] for g in listed] == [gid]
    standings = json.loads(invoke("standings", "old", "--db", str(path), "--json").stdout)
    assert sorted(r["games"] for r in standings["standings"]) == [1, 1]
