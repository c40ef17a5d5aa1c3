"""The results database: migrations, foreign keys, one transaction per game."""

import sqlite3

import pytest
from helpers import written_today

from tourney.results import schema, store


def make(db):
    event_id = store.create_event(
        db, {"name": "e", "format": "match", "rule_set": "crazier-eights", "seed": 1,
             "players": 2, "games": 3},
        [{"name": "a", "builtin": "random"}, {"name": "b", "builtin": "greedy"}],
        [{"idx": 0, "kind": "match", "seed": 5, "games_target": 3, "entrants": ["a", "b"]}],
        {"x": 1}, "test")
    return event_id, store.series_rows(db, event_id)[0]


def game(idx=0, **kw):
    data = {"idx": idx, "rule_set": "crazier-eights", "options": {}, "seed": 3, "players": 2,
            "first_player": 1, "turn_order": [1, 0], "teams": None, "winners": [0],
            "reason": "empty_hand", "choices": ["end"], "log": ["x"],
            "seats": [{"seat": 0, "entrant_id": 1, "points": 0, "placement": 1},
                      {"seat": 1, "entrant_id": 2, "points": 4, "placement": 2, "fault": "timeout"}]}
    data.update(kw)
    return data


def test_migrations_create_schema_once(tmp_path):
    path = tmp_path / "t.db"
    db = store.open_db(path)
    names = set(db.table_names())
    assert {"entrants", "events", "event_entrants", "series", "series_entrants", "games",
            "seats", "replays", "game_logs"} <= names
    applied = [m.name for m in schema.MIGRATIONS.applied(db)]
    assert applied == ["m001_initial", "m002_replay_forfeits", "m003_game_legs", "m004_standings_views",
                       "m005_club_tables", "m006_event_secrets", "m007_duplicate_sets", "m008_scale",
                       "m009_club_nights", "m010_pair_tallies", "m011_luck", "m012_club_codes", "m013_ladders",
                       "m014_club_code_lookup", "m015_progress_checkpoints", "m016_ladder_codes", "m017_ladder_storage",
                       "m018_seat_forfeits", "m019_gauntlet_shares", "m020_kept_series"]
    db2 = store.open_db(path)  # re-opening applies nothing twice
    assert [m.name for m in schema.MIGRATIONS.applied(db2)] == applied
    assert db2.execute("pragma foreign_keys").fetchone()[0] == 1


def test_legs_migration_gives_older_games_their_own_leg(tmp_path):
    from sqlite_utils import Database

    path = tmp_path / "old.db"
    old = Database(path)
    schema.MIGRATIONS.apply(old, stop_before="m003_game_legs")
    event_id, series = written_today(old, lambda: make(old))
    for idx in (0, 1):  # rows as the schema before m003 held them
        old["games"].insert({"event_id": event_id, "series_id": series["id"], "idx": idx,
                             "rule_set": "crazier-eights", "options": "{}", "seed": idx,
                             "players": 2, "first_player": 0, "turn_order": "[0, 1]",
                             "winners": "[0]", "reason": "empty_hand"})
    old.conn.close()
    db = store.open_db(path)
    assert [r["leg"] for r in db.query("select leg from games order by idx")] == [0, 1]
    assert [g["leg"] for g in store.list_games(db)] == [0, 1]


def test_db_path_precedence(monkeypatch):
    monkeypatch.setenv("TOURNEY_DB", "/tmp/x.db")
    assert str(store.db_path()) == "/tmp/x.db"
    assert str(store.db_path("y.db")) == "y.db"
    monkeypatch.delenv("TOURNEY_DB")
    assert str(store.db_path()) == "results/tourney.db"


def test_record_game_is_one_transaction():
    db = store.open_db(":memory:")
    event_id, series = make(db)
    bad = game(seats=[{"seat": 0, "entrant_id": 1, "points": 0, "placement": 1},
                      {"seat": 1, "entrant_id": 999, "points": 4, "placement": 2}])  # no such entrant
    with pytest.raises(sqlite3.IntegrityError, match="FOREIGN KEY constraint failed"):
        store.record_game(db, event_id, series["id"], bad)
    assert db["games"].count == 0 and db["seats"].count == 0 and db["replays"].count == 0
    result = {"outcome": "win", "winner_id": 1, "games_played": 1,
              "entrants": {1: {"wins": 1, "points": 0, "placement": 1},
                           2: {"wins": 0, "points": 4, "placement": 2}}}
    gid = store.record_game(db, event_id, series["id"], game(), result)
    assert db["seats"].count == 2 and store.load_replay(db, gid)["choices"] == '["end"]'
    s = store.series_rows(db, event_id)[0]
    assert s["status"] == "finished" and s["winner_id"] == 1
    assert [e["wins"] for e in s["entrants"]] == [1, 0]
    # the same game twice is refused, and nothing of the second attempt is kept
    with pytest.raises(sqlite3.IntegrityError, match="UNIQUE constraint failed: games.series_id, games.idx"):
        store.record_game(db, event_id, series["id"], game())
    assert db["games"].count == 1 and db["seats"].count == 2 and db["replays"].count == 1


def test_list_games_filters():
    db = store.open_db(":memory:")
    event_id, series = make(db)
    store.record_game(db, event_id, series["id"], game())
    assert len(store.list_games(db, event="e")) == 1
    with pytest.raises(store.StoreError, match="no event named 'other'"):
        store.list_games(db, event="other")
    assert len(store.list_games(db, entrant="b")) == 1
    with pytest.raises(store.StoreError, match="no entrant named 'zed'"):
        store.list_games(db, entrant="zed")
    row = store.list_games(db)[0]
    assert row["seats"][1]["fault"] == "timeout"


def test_games_committed_together_are_all_or_nothing_and_rate_as_one_by_one():
    def b_wins(idx):
        return game(idx, winners=[1], seats=[{"seat": 0, "entrant_id": 1, "points": 3, "placement": 2},
                                             {"seat": 1, "entrant_id": 2, "points": 0, "placement": 1}])

    games = [game(0), b_wins(1), game(2)]
    one_by_one = store.open_db(":memory:")
    event_id, series = make(one_by_one)
    for g in games:
        store.record_game(one_by_one, event_id, series["id"], g)
    together = store.open_db(":memory:")
    event_id, series = make(together)
    bad = game(3, seats=[{"seat": 0, "entrant_id": 1, "points": 0, "placement": 1},
                         {"seat": 1, "entrant_id": 999, "points": 4, "placement": 2}])
    with pytest.raises(sqlite3.IntegrityError, match="FOREIGN KEY"):
        store.record_games(together, event_id, [(series["id"], g, None) for g in [*games, bad]])
    assert together["games"].count == 0 and together["entrant_ratings"].count == 0
    store.record_games(together, event_id, [(series["id"], g, None) for g in games])
    ratings = "select entrant_id, mu, sigma, games from entrant_ratings order by entrant_id"
    assert together.execute(ratings).fetchall() == one_by_one.execute(ratings).fetchall()
    assert [r[3] for r in together.execute(ratings).fetchall()] == [3, 3]
    assert store.series_rows(together, event_id)[0]["games_played"] == 3
