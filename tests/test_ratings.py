"""Ratings: openskill Plackett-Luce over stored results, recomputed in game order."""

import pytest
from test_standings import build_event, g

from tourney.results.ratings import MU, SIGMA, event_ratings, rate_games, rating_ranks
from tourney.results.standings import event_standings
from tourney.results.store import open_db


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


def test_ratings_are_recomputed_from_stored_results(tmp_path):
    db = open_db(str(tmp_path / "r.db"))
    ev = build_event(db, "e", "single", ["A", "B", "C"], [
        ("single", ["A", "B", "C"], [g([0], [0, 2, 5], [1, 2, 3])], ("win", "A")),
        ("single", ["A", "B", "C"], [g([0], [0, 2, 5], [1, 2, 3])], ("win", "A")),
    ])
    before = event_ratings(db, ev["id"])
    assert before["A"].mu > before["B"].mu > before["C"].mu
    # a corrected result (B in fact won the second game) simply changes the ratings
    second = db.execute("SELECT id FROM games WHERE event_id = ? ORDER BY id DESC LIMIT 1", [ev["id"]]).fetchone()[0]
    db.execute("UPDATE seats SET placement = 2, winner = 0 WHERE game_id = ? AND seat = 0", [second])
    db.execute("UPDATE seats SET placement = 1, winner = 1 WHERE game_id = ? AND seat = 1", [second])
    db.conn.commit()
    after = event_ratings(db, ev["id"])
    assert after["B"].mu > before["B"].mu and after["A"].mu < before["A"].mu
    rows = {x["entrant"]: x for x in event_standings(db, ev)["standings"]}
    assert rows["B"]["rating"]["mu"] == pytest.approx(after["B"].mu, abs=1e-4)
