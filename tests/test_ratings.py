"""Ratings: openskill Plackett-Luce over stored results, recomputed in game order."""

import pytest
from helpers import build_event, g, written_today

from tourney.results.ratings import MU, SIGMA, event_ratings, kept_ratings, rate_games, rating_ranks
from tourney.results.standings import event_standings
from tourney.results.store import StoreError, open_db


def test_a_tie_gives_equal_changes_to_equal_players():
    r = rate_games([[("A", 1), ("B", 1), ("C", 3)]])
    assert r["A"].mu == pytest.approx(r["B"].mu, abs=1e-12)
    assert r["A"].sigma == pytest.approx(r["B"].sigma, abs=1e-12)
    assert r["A"].mu - MU == pytest.approx(r["B"].mu - MU, abs=1e-12) and r["A"].mu > MU > r["C"].mu
    # the order of the seats does not matter
    r2 = rate_games([[("C", 3), ("B", 1), ("A", 1)]])
    for n in "ABC":
        assert r2[n].mu == pytest.approx(r[n].mu, abs=1e-12)
    assert rating_ranks(r) == {"A": 1, "B": 1, "C": 3}


def test_all_tied_changes_nothing_in_mu():
    r = rate_games([[("A", 1), ("B", 1)]])
    assert r["A"].mu == pytest.approx(MU) and r["B"].mu == pytest.approx(MU)
    assert r["A"].sigma < SIGMA  # but the uncertainty shrinks


def test_winner_gains_and_history_is_per_game():
    r = rate_games([[("A", 1), ("B", 2)], [("A", 1), ("B", 2)], [("B", 1), ("A", 2)]])
    assert r["A"].games == 3 and [n for n, _ in r["A"].history] == [1, 2, 3]
    assert r["A"].ordinal == pytest.approx(r["A"].mu - 3 * r["A"].sigma)
    assert r["A"].mu > r["B"].mu


def test_the_writer_keeps_the_ratings_a_recomputation_gives(tmp_path):
    db = open_db(str(tmp_path / "r.db"))
    ev = build_event(db, "e", "single", ["A", "B", "C"], [
        ("single", ["A", "B", "C"], [g([0], [0, 2, 5], [1, 2, 3])], ("win", "A")),
        ("single", ["A", "B", "C"], [g([1], [3, 0, 5], [2, 1, 3])], ("win", "B")),
        ("single", ["A", "B", "C"], [g([0], [0, 2, 5], [1, 2, 2])], ("win", "A")),
    ])
    recomputed = event_ratings(db, ev["id"])
    kept = kept_ratings(db, ev["id"])
    assert set(kept) == {"A", "B", "C"}
    for name, r in recomputed.items():
        assert (kept[name].mu, kept[name].sigma, kept[name].games) == (r.mu, r.sigma, r.games)
    assert recomputed["A"].mu > recomputed["B"].mu > recomputed["C"].mu
    rows = {x["entrant"]: x for x in event_standings(db, ev)["standings"]}
    assert rows["B"]["rating"]["mu"] == pytest.approx(recomputed["B"].mu, abs=1e-4)


def test_the_writer_keeps_the_totals_the_seats_sum_to(tmp_path):
    db = open_db(str(tmp_path / "t.db"))
    ev = build_event(db, "e", "single", ["A", "B", "C"], [
        ("single", ["A", "B", "C"], [g([0], [0, 2, 5], [1, 2, 3], {2: "timeout"})], ("win", "A")),
        ("single", ["A", "B", "C"], [g([], [2, 2, 5], [1, 1, 3])], ("draw", None)),
        ("single", ["C", "B", "A"], [g([0], [0, 1, 4], [1, 2, 3])], ("win", "C")),
    ])
    names = {r["id"]: r["name"] for r in db["entrants"].rows}
    kept = {names[r[0]]: r[1:] for r in db.execute(
        "SELECT entrant_id, games, wins, draws, losses, points, faults FROM entrant_totals "
        "WHERE event_id = ?", [ev["id"]])}
    # by hand: A won, drew, lost (0 + 2 + 4 points); B lost, drew, lost; C faulted once
    assert kept == {"A": (3, 1, 1, 1, 6, 0), "B": (3, 0, 1, 2, 5, 0), "C": (3, 1, 0, 2, 10, 1)}


def test_upgrading_an_older_file_computes_its_ratings_once(tmp_path):
    from sqlite_utils import Database

    from tourney.results import schema, store

    path = tmp_path / "old.db"
    old = Database(path)
    schema.MIGRATIONS.apply(old, stop_before="m008_scale")
    event = {"name": "e", "format": "single", "rule_set": "crazier-eights", "seed": 1, "players": 2,
             "games": 1}
    schedule = [{"idx": i, "kind": "single", "seed": i, "games_target": 1, "entrants": ["A", "B"]}
                for i in range(2)]
    event_id = written_today(old, lambda: store.create_event(
        old, event, [{"name": "A", "builtin": "random"}, {"name": "B", "builtin": "random"}], schedule, {}, "t"))
    ids = {r["name"]: r["id"] for r in old["entrants"].rows}
    for s in store.series_rows(old, event_id):  # B wins the first game, A the second
        gid = old["games"].insert({"event_id": event_id, "series_id": s["id"], "idx": 0, "leg": 0,
                                   "rule_set": "crazier-eights", "seed": 0, "players": 2,
                                   "first_player": 0, "winners": "[0]", "reason": "t"}).last_pk
        places = [2, 1] if s["idx"] == 0 else [1, 2]
        old["seats"].insert_all({"game_id": gid, "seat": seat, "entrant_id": ids[n],
                                 "placement": places[seat], "winner": int(places[seat] == 1),
                                 "points": 3 * (places[seat] - 1)}
                                for seat, n in enumerate(["A", "B"]))
    old.conn.close()
    with pytest.raises(StoreError, match="tourney upgrade"):
        open_db(str(path), readonly=True)
    db = open_db(str(path))
    expected = rate_games([[("A", 2), ("B", 1)], [("A", 1), ("B", 2)]])
    kept = kept_ratings(db, event_id)
    assert {n: (r.mu, r.sigma, r.games) for n, r in kept.items()} == {
        n: (r.mu, r.sigma, 2) for n, r in expected.items()}
    # and the totals standings read: one win and one loss each, 3 points for the loss
    totals = db.execute("SELECT entrant_id, games, wins, draws, losses, points, faults "
                        "FROM entrant_totals ORDER BY entrant_id").fetchall()
    assert totals == [(ids["A"], 2, 1, 0, 1, 3, 0), (ids["B"], 2, 1, 0, 1, 3, 0)]
