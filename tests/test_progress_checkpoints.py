"""The writer's progress checkpoints (``progress_checkpoints``): a long event's chart read
from them shows, at every game it samples, exactly the values that rating and counting every
game gives; the upgrade's backfill writes the same rows as the writer."""

import random

import pytest

from tourney import report
from tourney.results import ratings, store

NAMES = ["ann", "bob", "cid", "dee"]


def store_games(db, count: int, seed: int = 5) -> int:
    """An event of ``count`` games at tables of 2 and 3 (placements, some shared, and points),
    committed in batches of 1, 7 and 32 as the writer does."""
    rng = random.Random(seed)
    schedule = [{"idx": 0, "round": 0, "kind": "league", "seed": 1, "games_target": count,
                 "entrants": NAMES}]
    event = {"name": "long", "format": "round-robin", "rule_set": "crazier-eights", "seed": 1,
             "players": 4, "games": count}
    event_id = store.create_event(db, event, [{"name": n, "builtin": "random"} for n in NAMES],
                                  schedule, {}, "test")
    series_id = store.series_rows(db, event_id)[0]["id"]
    ids = {r["name"]: r["id"] for r in db.query("select id, name from entrants")}
    waiting, sizes = [], [1, 7, 32]
    for idx in range(count):
        table = rng.sample(NAMES, rng.choice([2, 3]))
        places = [rng.randint(1, len(table)) for _ in table]
        seats = [{"seat": k, "entrant_id": ids[name], "points": rng.randint(0, 50),
                  "placement": place, "eliminated": False, "fault": None}
                 for k, (name, place) in enumerate(zip(table, places))]
        winners = [k for k, p in enumerate(places) if p == 1]
        waiting.append((series_id, {"idx": idx, "rule_set": "crazier-eights", "options": {},
                                    "seed": idx, "players": len(table), "first_player": 0,
                                    "turn_order": list(range(len(table))), "teams": None,
                                    "winners": winners, "reason": "out", "choices": [],
                                    "seats": seats}, None))
        if len(waiting) >= sizes[idx % 3] or idx == count - 1:
            store.record_games(db, event_id, waiting)
            waiting = []
    return event_id


@pytest.fixture
def every_ten(monkeypatch):
    monkeypatch.setattr(ratings, "CHECKPOINT", 10)


@pytest.mark.parametrize("ranking", ["ordinal", "points"])
def test_a_chart_from_checkpoints_shows_what_every_game_gives(tmp_path, monkeypatch, every_ten, ranking):
    db = store.open_db(tmp_path / "t.db")
    store_games(db, 235)
    data = {"kind": "event", "event": "long", "games_played": 235, "ranking": ranking,
            "standings": [{"entrant": n} for n in NAMES]}
    live = report.progress(db, data)
    assert live["games"] == list(range(236))  # under MAX_POINTS: every game
    monkeypatch.setattr(report, "LIVE_GAMES", 0)
    sampled = report.progress(db, data)
    assert sampled["games"] == [0, *range(10, 240, 10), 235]
    for name in NAMES:
        assert sampled["series"][name] == [live["series"][name][g] for g in sampled["games"]]
    # the checkpoints carry real movement, not the starting values
    assert len({tuple(v) for v in sampled["series"].values()}) == len(NAMES)


def test_the_upgrade_backfill_writes_the_writers_rows(tmp_path, every_ten):
    db = store.open_db(tmp_path / "t.db")
    store_games(db, 95)
    query = "select * from progress_checkpoints order by game_number, entrant_id"
    kept = [tuple(r) for r in db.execute(query)]
    assert [r[1] for r in kept][::4][:3] == [10, 20, 30] and len(kept) == 9 * 4
    db.execute("delete from progress_checkpoints")
    ratings.backfill_checkpoints(db)
    assert [tuple(r) for r in db.execute(query)] == kept


def test_games_stored_counts_past_the_last_checkpoint(tmp_path, every_ten):
    db = store.open_db(tmp_path / "t.db")
    event_id = store_games(db, 57)
    assert ratings.games_stored(db.conn, event_id) == 57
