"""Standings and tie-breaks from hand-built results (through tourney.results.store), including shared ranks."""

import json

import pytest
from helpers import build_event, g
from typer.testing import CliRunner

import tourney.commands  # noqa: F401  (registers the commands)
from tourney.app import app
from tourney.results.standings import TIE_BREAKS, event_standings
from tourney.results.store import open_db


@pytest.fixture
def db(tmp_path):
    return open_db(str(tmp_path / "t.db"))


def rows(data):
    return {r["entrant"]: r for r in data["standings"]}


def test_games_ranking_with_shared_rank_and_faults(db):
    # three single games between A, B, C. A and B each win one and lose one with equal points;
    # a draw between A and B at the top; C loses every game, once by a timeout fault.
    ev = build_event(db, "singles", "single", ["A", "B", "C"], [
        ("single", ["A", "B", "C"], [g([0], [0, 3, 5], [1, 2, 3])], ("win", "A")),
        ("single", ["B", "A", "C"], [g([0], [0, 3, 5], [1, 2, 3], {2: "timeout"})], ("win", "B")),
        ("single", ["C", "A", "B"], [g([], [4, 2, 2], [3, 1, 1])], ("draw", None)),
    ])
    data = event_standings(db, ev)
    assert data["ranking"] == "games" and data["tie_breaks"] == TIE_BREAKS["games"]
    r = rows(data)
    assert (r["A"]["wins"], r["A"]["draws"], r["A"]["losses"], r["A"]["points"]) == (1, 1, 1, 5)
    assert (r["B"]["wins"], r["B"]["draws"], r["B"]["losses"], r["B"]["points"]) == (1, 1, 1, 5)
    assert (r["C"]["wins"], r["C"]["draws"], r["C"]["losses"], r["C"]["points"]) == (0, 0, 3, 14)
    assert r["A"]["rank"] == r["B"]["rank"] == 1 and r["C"]["rank"] == 3
    assert r["C"]["faults"] == {"timeout": 1} and r["C"]["fault_count"] == 1 and r["A"]["faults"] == {}
    assert data["games_played"] == 3
    # the rating sits next to the official rank, with its own rank by ordinal; it depends on the
    # order of the games (A won while everybody was new), so A and B need not be equal there
    assert {r[n]["rating"]["rank"] for n in "AB"} == {1, 2} and r["C"]["rating"]["rank"] == 3
    assert r["C"]["rating"]["ordinal"] < min(r["A"]["rating"]["ordinal"], r["B"]["rating"]["ordinal"])
    assert all(r[n]["rating"]["games"] == 3 for n in "ABC")


def test_games_tie_broken_by_faults(db):
    ev = build_event(db, "f", "single", ["A", "B", "C"], [
        ("single", ["A", "B", "C"], [g([0], [0, 3, 3], [1, 2, 2], {1: "crash"})], ("win", "A")),
    ])
    r = rows(event_standings(db, ev))
    # B and C: no wins, no draws, 3 points each; B's fault puts it behind
    assert (r["A"]["rank"], r["C"]["rank"], r["B"]["rank"]) == (1, 2, 3)
    assert r["B"]["faults"] == {"crash": 1}


def test_points_ranking_for_a_league(db):
    ev = build_event(db, "lg", "league", ["A", "B", "C", "D"], [
        ("league", ["A", "B", "C", "D"], [
            g([0], [0, 4, 6, 2], [1, 3, 4, 2]),
            g([1], [4, 0, 1, 5], [3, 1, 2, 4]),
            g([2], [3, 3, 0, 1], [3, 3, 1, 2]),
        ], ("draw", None)),  # A, B and C share the fewest points: a drawn league, D last
    ])
    data = event_standings(db, ev)
    assert data["ranking"] == "points"
    r = rows(data)
    # totals: A 7, B 7, C 7, D 8; A, B and C each won once: all tied on total, wins and average
    assert [r[n]["points"] for n in "ABCD"] == [7, 7, 7, 8]
    assert [r[n]["wins"] for n in "ABCD"] == [1, 1, 1, 0]
    assert [(r[n]["series"]["drawn"], r[n]["series"]["lost"]) for n in "ABCD"] == [(1, 0)] * 3 + [(0, 1)]
    assert [r[n]["rank"] for n in "ABCD"] == [1, 1, 1, 4]
    assert r["A"]["average"] == pytest.approx(7 / 3, abs=1e-4)
    assert [x["entrant"] for x in data["standings"]] == ["A", "B", "C", "D"]


def test_points_ranking_tie_broken_by_wins(db):
    ev = build_event(db, "lg2", "league", ["A", "B", "C"], [
        ("league", ["A", "B", "C"], [
            g([0], [0, 3, 4], [1, 2, 3]),
            g([2], [3, 3, 0], [2, 2, 1]),
            g([1, 2], [1, 0, 0], [3, 1, 1]),  # a Super-style game with two winners
        ], None),
    ])
    r = rows(event_standings(db, ev))
    # totals A 4 (1 win), B 6 (1 win), C 4 (2 wins): C before A on wins, B last on points
    assert [r[n]["points"] for n in "ABC"] == [4, 6, 4]
    assert [r[n]["wins"] for n in "ABC"] == [1, 1, 2]
    assert (r["C"]["rank"], r["A"]["rank"], r["B"]["rank"]) == (1, 2, 3)


def test_series_ranking_for_matches(db):
    # round robin of best-of-3 matches: A beats B, B beats C, A and C draw their match
    ev = build_event(db, "rr", "round-robin", ["A", "B", "C"], [
        ("match", ["A", "B"], [g([0], [0, 2], [1, 2]), g([0], [0, 1], [1, 2])], ("win", "A")),
        ("match", ["B", "C"], [g([0], [0, 2], [1, 2]), g([1], [3, 0], [2, 1]), g([0], [0, 1], [1, 2])], ("win", "B")),
        ("match", ["C", "A"], [g([0], [0, 2], [1, 2]), g([1], [3, 0], [2, 1]), g([], [1, 1], [1, 1])], ("draw", None)),
    ])
    data = event_standings(db, ev)
    assert data["ranking"] == "series"
    r = rows(data)
    assert r["A"]["series"] == {"played": 2, "won": 1, "drawn": 1, "lost": 0, "legs_won": 3}
    assert r["B"]["series"] == {"played": 2, "won": 1, "drawn": 0, "lost": 1, "legs_won": 2}
    assert r["C"]["series"] == {"played": 2, "won": 0, "drawn": 1, "lost": 1, "legs_won": 2}
    assert (r["A"]["rank"], r["B"]["rank"], r["C"]["rank"]) == (1, 2, 3)
    assert r["A"]["draws"] == 1 and r["C"]["draws"] == 1


def test_legs_won_break_ties_before_deals_won(db):
    # a cycle of matches: A beats B, B beats C, C beats A, every entrant wins one series. Deals won:
    # A 4, B 3, C 2; legs won (as a match of legs to 100 stores them): A 2, B 3, C 4
    ev = build_event(db, "legs", "round-robin", ["A", "B", "C"], [
        ("match", ["A", "B"], [g([0], [0, 9], [1, 2])] * 3, ("win", "A")),
        ("match", ["B", "C"], [g([0], [0, 9], [1, 2])] * 3, ("win", "B")),
        ("match", ["C", "A"], [g([0], [0, 9], [1, 2])] * 2 + [g([1], [9, 0], [2, 1])], ("win", "C")),
    ], legs=[(2, 0), (3, 1), (3, 0)])
    data = event_standings(db, ev)
    r = rows(data)
    assert [r[n]["wins"] for n in "ABC"] == [3 + 1, 3, 2]  # deals won
    assert [r[n]["series"]["legs_won"] for n in "ABC"] == [2, 3, 4]
    assert [x["entrant"] for x in data["standings"]] == ["C", "B", "A"]
    assert data["tie_breaks"][2] == "legs won (more first)"


def test_view_is_the_definition(db):
    build_event(db, "v", "single", ["A", "B"], [
        ("single", ["A", "B"], [g([1], [3, 0], [2, 1])], ("win", "B")),
    ])
    view = list(db.query("SELECT entrant, rank, wins, losses FROM event_standings ORDER BY rank"))
    assert view == [{"entrant": "B", "rank": 1, "wins": 1, "losses": 0},
                    {"entrant": "A", "rank": 2, "wins": 0, "losses": 1}]


def test_standings_cli_json_and_errors(tmp_path, monkeypatch):
    path = str(tmp_path / "cli.db")
    monkeypatch.setenv("TOURNEY_DB", path)
    db = open_db(path)
    build_event(db, "first", "single", ["A", "B"], [
        ("single", ["A", "B"], [g([0], [0, 3], [1, 2])], ("win", "A"))])
    build_event(db, "second", "single", ["X", "Y<&>"], [
        ("single", ["X", "Y<&>"], [g([1], [2, 0], [2, 1])], ("win", "Y<&>"))])
    runner = CliRunner()
    r = runner.invoke(app, ["standings", "first", "--json"])
    assert r.exit_code == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["version"] == 2 and data["event"] == "first"
    assert [x["entrant"] for x in data["standings"]] == ["A", "B"]
    r = runner.invoke(app, ["standings", "--json"])  # latest event
    assert json.loads(r.stdout)["event"] == "second"
    r = runner.invoke(app, ["standings"])
    assert r.exit_code == 0 and "Y<&>" in r.stdout
    r = runner.invoke(app, ["standings", "nope"])
    assert r.exit_code == 2 and r.stderr.startswith("error: no event named 'nope'") and "Traceback" not in r.output
    r = runner.invoke(app, ["standings", "--db", str(tmp_path / "missing.db")])
    assert r.exit_code == 2 and "no such database" in r.stderr


def test_standings_cli_reads_club_leagues(tmp_path, monkeypatch):
    monkeypatch.setenv("TOURNEY_DB", str(tmp_path / "c.db"))
    runner = CliRunner()
    assert runner.invoke(app, ["club", "new", "thu", "--players", "A,B", "--seed", "1"]).exit_code == 0
    assert runner.invoke(app, ["club", "add", "thu", "--cards", "A=0,B=4"]).exit_code == 0
    data = json.loads(runner.invoke(app, ["standings", "thu", "--json"]).stdout)
    assert data["kind"] == "club" and [(x["entrant"], x["points"]) for x in data["standings"]] == [("A", 0), ("B", 4)]
    assert data["next_first"]["entrant"] == "B"
