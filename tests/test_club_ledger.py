"""The club ledger (tourney/club/ledger.py) as plain functions, and the one table of cases that holds
its totals and the ``club_standings`` SQL view to the same hand-computed points."""

from __future__ import annotations

import pytest

from tourney.club.entries import Member
from tourney.club.league import League
from tourney.club.ledger import Game, Ledger, same_end, start_points
from tourney.results.store import open_db


def members(*names: str) -> tuple[Member, ...]:
    return tuple(Member(i, i, n, 0, 0, None) for i, n in enumerate(names, 1))


def game(number: int, points: dict[int, int], round_no: int | None = None) -> Game:
    return Game(number, 1, [{"member_id": m, "name": str(m), "points": p, "winner": int(p == 0), "entry": str(p)}
                            for m, p in points.items()], None, "derived", round_no or number)


def ledger(ms, **rules) -> Ledger:
    return Ledger(**{"seed": 1, "target": None, "absence": "average", "absence_points": None,
                     "withdrawal": "penalty", "members": ms, "absences": {}, **rules})


def test_totals_add_start_points_game_points_and_absence_charges():
    ms = (Member(1, 1, "A", 0, 0, None), Member(2, 2, "B", 0, 0, None), Member(3, 3, "C", 4, 1, None))
    games = [game(1, {1: 0, 2: 5}), game(2, {1: 3, 2: 0, 3: 7})]
    # C joined after game 1 with 4 points, so is not absent from it
    assert ledger(ms).totals(games, 2) == {1: 3, 2: 5, 3: 11}
    assert ledger(ms).totals(games, 1) == {1: 0, 2: 5, 3: 4}
    # an absence from round 1 costs its average rounded up: (0 + 5) / 2 -> 3
    assert ledger(ms, absences={1: [3]}).totals(games, 1) == {1: 0, 2: 5, 3: 7}


def test_the_leader_has_the_most_points_and_a_tie_is_settled_from_the_seed_alone():
    ms = members("A", "B", "C")
    games = [game(1, {1: 0, 2: 4, 3: 4})]
    picks = {ledger(ms, seed=s).leader(2, list(ms), games).name for s in range(40)}
    assert picks == {"B", "C"}  # a fair draw between the tied, never A
    lead = ledger(ms, seed=7).leader(2, list(ms), games)
    assert lead.tied == ["B", "C"] and lead.points == 4
    assert ledger(ms, seed=7).leader(2, list(ms), games).name == lead.name


def test_the_end_of_a_league_and_what_a_change_does_to_it():
    ms = members("A", "B")
    games = [game(1, {1: 0, 2: 6}), game(2, {1: 5, 2: 0}), game(3, {1: 0, 2: 6})]
    book = ledger(ms, target=10)
    assert book.finished(games) == {"after_game": 3, "winners": ["1"], "lowest_total": 5}
    changed = [g.copy() for g in games]
    changed[0].entries[1]["points"] = 11
    leaders, end = book.consequences(games, changed, 1)
    assert end["now"] == {"after_game": 1, "winners": ["1"], "lowest_total": 0}
    assert end["entered_after"] == [2, 3]
    assert [c["game"] for c in leaders] == []  # B led before and after
    assert same_end(book.finished(games), book.finished(games))


@pytest.mark.parametrize("rule, expected", [("max", 9), ("min", 2), ("average", 6), ("zero", 0), ("15", 15),
                                            ("x", None), ("-3", None)])
def test_a_joining_players_start_points(rule, expected):
    assert start_points(rule, [2, 6, 9]) == expected


# ---- one table of cases: the ledger's totals and the club_standings view, against the hand-computed points

CASES = {
    "plain": ({}, "A,B,C", [("add", "A=0,B=3,C=5"), ("add", "A=4,B=0,C=2")], {"A": 4, "B": 3, "C": 7}),
    "absent, average": ({}, "A,B,C,D", [("add", "A=0,B=3,C=5", "D")], {"A": 0, "B": 3, "C": 5, "D": 3}),
    "absent, highest": ({"absence": "highest"}, "A,B,C,D", [("add", "A=0,B=3,C=5", "D")],
                        {"A": 0, "B": 3, "C": 5, "D": 5}),
    "absent, fixed": ({"absence": "10"}, "A,B,C", [("add", "A=0,B=3", "C")], {"A": 0, "B": 3, "C": 10}),
    "absent, none": ({"absence": "none"}, "A,B,C", [("add", "A=0,B=3", "C")], {"A": 0, "B": 3, "C": 0}),
    "withdrawn, penalty": ({}, "A,B,C", [("add", "A=0,B=2,C=4"), ("withdraw", "C"), ("add", "A=3,B=0")],
                           {"A": 3, "B": 2, "C": 6}),
    "withdrawn, total": ({"withdrawal": "total"}, "A,B,C", [("add", "A=0,B=2,C=4"), ("withdraw", "C"),
                                                             ("add", "A=3,B=0")], {"A": 3, "B": 2, "C": 4}),
    "late joiner": ({}, "A,B", [("add", "A=0,B=5"), ("join", "C"), ("add", "A=1,B=0,C=2")],
                    {"A": 1, "B": 5, "C": 7}),
    "void": ({}, "A,B", [("add", "A=0,B=5"), ("add", "A=9,B=0"), ("void", "2")], {"A": 0, "B": 5}),
    "a night of two tables": ({}, "A,B,C,D,E", [("night", "E"), ("table", "1", "0,3"), ("table", "2", "0,5")],
                              {"E": 2}),
}


@pytest.mark.parametrize("case", CASES)
def test_the_ledger_and_the_standings_view_agree_with_the_hand_computed_totals(tmp_path, case):
    options, players, steps, expected = CASES[case]
    league = League.create(open_db(tmp_path / "l.db"), "x", players.split(","), seed=2, by="t", **options)
    for step in steps:
        if step[0] == "add":
            values = [tuple(p.split("=")) for p in step[1].split(",")]
            league.add(values, absent=list(step[2:]), by="t")
        elif step[0] == "withdraw":
            league.withdraw(step[1], by="t")
        elif step[0] == "join":
            league.join(step[1], by="t")
        elif step[0] == "void":
            league.void(int(step[1]), by="t")
        elif step[0] == "night":
            league.plan_night(absent=[step[1]], tables=2, by="t")
        else:
            night = league.describe_night(league.open_night())
            seats = next(t["seats"] for t in night["tables"] if t["table"] == int(step[1]))
            league.add(list(zip([s["entrant"] for s in seats], step[2].split(","))), table=int(step[1]), by="t")
    games = league.games()
    names = {m.id: m.name for m in league.members()}
    book = {names[i]: p for i, p in league.ledger().totals(games, len(games)).items()}
    view = {r["entrant"]: r["points"] for r in league.standings()}
    assert {n: book[n] for n in expected} == expected
    assert view == book
