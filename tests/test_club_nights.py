"""Club nights (issue 16): absences, withdrawal fairness, void and restore, renames, the game list,
table plans, and every card form. Expected figures are worked out by hand in the comments."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

import tourney.commands  # noqa: F401  (registers the commands)
from tourney.club import ClubError
from tourney.club import night as nightplan
from tourney.club.entries import parse_value
from tourney.club.league import League
from tourney.results.store import open_db


def js(result):
    return json.loads(result.stdout)


def table(summary):
    """entrant -> (rank, points, games, absences) from a --json summary."""
    return {r["entrant"]: (r["rank"], r["points"], r["games"], r["absences"]) for r in summary["standings"]}


def snapshot(run) -> list:
    """Everything the club commands show: the leagues, and each one's games and history."""
    leagues = js(run("club", "list", "--json"))["leagues"]
    return [leagues] + [(js(run("club", "games", lg["name"], "--json")),
                         js(run("club", "history", lg["name"], "--json"))) for lg in leagues]


def refused(run, *args, says: str):
    """A refusal: exit 2, one error line (the last; a change waiting for confirmation shows its
    preview first) containing ``says``, no traceback, nothing changed."""
    before = snapshot(run)
    r = run(*args, ok=False)
    assert r.exit_code == 2, r.output
    errors = [line for line in r.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and r.stderr.strip().splitlines()[-1] == errors[0] and says in errors[0], r.stderr
    assert "Traceback" not in r.output
    assert snapshot(run) == before


# ---- absences


@pytest.mark.parametrize("rule, charge", [
    # game 1: Ann 0, Bea 3, Cy 6; Dee absent
    ("average", 3),    # (0 + 3 + 6) / 3 = 3
    ("highest", 6),
    ("none", 0),
    ("10", 10),
])
def test_an_absent_player_is_charged_by_the_league_rule(run, rule, charge):
    run("club", "new", "thu", "--players", "Ann,Bea,Cy,Dee", "--seed", "1", "--absence", rule)
    s = js(run("club", "add", "thu", "--cards", "Ann=0,Bea=3,Cy=6", "--absent", "Dee", "--json"))
    assert s["entered"]["absent"] == ["Dee"]
    assert table(s)["Dee"][1:] == (charge, 0, 1)
    assert table(s)["Cy"][1:] == (6, 1, 0)
    # the charge counts for who goes first: most points leads game 2
    leader = s["next_first"]
    if charge > 6:
        assert leader["entrant"] == "Dee" and leader["points"] == charge
    elif charge == 6:
        assert sorted(leader["tied"]) == ["Cy", "Dee"]
    else:
        assert leader["entrant"] == "Cy"


def test_average_absence_rounds_up(run):
    run("club", "new", "thu", "--players", "Ann,Bea,Cy", "--seed", "1")
    s = js(run("club", "add", "thu", "--cards", "Ann=0,Bea=5", "--absent", "Cy", "--json"))
    assert table(s)["Cy"] == (2, 3, 0, 1)   # (0 + 5) / 2 = 2.5 -> 3; Ann 0, Cy 3, Bea 5


def test_absence_refusals(run):
    run("club", "new", "thu", "--players", "Ann,Bea,Cy", "--seed", "1")
    refused(run, "club", "add", "thu", "--cards", "Ann=0,Bea=5", "--absent", "Zed", says="unknown player 'Zed'")
    refused(run, "club", "add", "thu", "--cards", "Ann=0,Bea=5,Cy=2", "--absent", "Cy", says="Cy did not play")
    refused(run, "club", "add", "thu", "--cards", "Ann=0", "--absent", "Bea,Cy", says="fewer than two players")
    refused(run, "club", "add", "thu", "--cards", "Ann=0,Bea=5", says="missing player: Cy")
    refused(run, "club", "new", "fri", "--players", "A,B", "--absence", "often", says="unknown absence rule")


# ---- withdrawal fairness


# A leaves after game 1 with 2 points; B and C play on:
#   game 1  A 2, B 0, C 5      game 2  B 3, C 0      game 3  B 4, C 0
# played totals: A 2 (1 game), B 7 (3), C 5 (3)
@pytest.mark.parametrize("rule, order, points, extra", [
    ("total", ["A", "C", "B"], {"A": 2, "B": 7, "C": 5}, None),
    # each round A missed is charged its average, rounded up: (3+0)/2 -> 2, (4+0)/2 -> 2
    ("penalty", ["C", "A", "B"], {"A": 6, "B": 7, "C": 5}, None),
    # A's 2 points over 1 of 3 rounds -> 6.0
    ("prorate", ["C", "A", "B"], {"A": 2, "B": 7, "C": 5}, {"A": 6.0, "B": 7, "C": 5}),
    # averages: C 5/3, A 2, B 7/3
    ("average", ["C", "A", "B"], {"A": 2, "B": 7, "C": 5}, None),
])
def test_early_withdrawal_ranks_by_the_league_rule(run, rule, order, points, extra):
    run("club", "new", "thu", "--players", "A,B,C", "--seed", "1", "--withdrawal", rule)
    run("club", "add", "thu", "--cards", "A=2,B=0,C=5")
    run("club", "withdraw", "thu", "A", "--yes")
    run("club", "add", "thu", "--cards", "B=3,C=0")
    s = js(run("club", "add", "thu", "--cards", "B=4,C=0", "--json"))
    assert [r["entrant"] for r in s["standings"]] == order
    assert {r["entrant"]: r["points"] for r in s["standings"]} == points
    if extra:
        assert {r["entrant"]: r["prorated"] for r in s["standings"]} == extra
    assert {r["entrant"]: r["missed"] for r in s["standings"]} == {"A": 2, "B": 0, "C": 0}
    r = run("club", "standings", "thu")
    assert ("pro-rated" in r.stdout) == (rule == "prorate")


# ---- void and restore


def test_void_a_duplicate_then_restore_it(run):
    run("club", "new", "thu", "--players", "Ann,Bea,Cy", "--seed", "1")
    run("club", "add", "thu", "--cards", "Ann=0,Bea=3,Cy=5")
    run("club", "add", "thu", "--cards", "Ann=0,Bea=3,Cy=5")       # the same game typed twice
    run("club", "add", "thu", "--cards", "Ann=2,Bea=0,Cy=1")
    assert table(js(run("club", "standings", "thu", "--json")))["Cy"][1] == 11

    r = run("club", "void", "thu", "2", "--dry-run", "--json")
    assert js(r)["void"]["points"] == {"Ann": 0, "Bea": 3, "Cy": 5} and js(r)["void"]["dry_run"] is True
    # game 2 led by Cy (5); without it game 3 would still be led by Cy: no warning
    assert "warning" not in r.stderr
    refused(run, "club", "void", "thu", "2", says="--yes")
    refused(run, "club", "void", "thu", "9", "--yes", says="no game 9")

    s = js(run("club", "void", "thu", "2", "--yes", "--note", "typed twice", "--json"))
    assert table(s) == {"Ann": (1, 2, 2, 0), "Bea": (2, 3, 2, 0), "Cy": (3, 6, 2, 0)}
    games = js(run("club", "games", "thu", "--json"))["games"]
    assert [g["void"] for g in games] == [False, True, False]
    assert games[1]["results"] == [] and games[1]["version"] == 2 and games[1]["note"] == "typed twice"
    refused(run, "club", "void", "thu", "2", "--yes", says="already void")
    refused(run, "club", "correct", "thu", "2", "--cards", "Bea=1", "--yes", says="is void")

    s = js(run("club", "restore", "thu", "2", "--yes", "--json"))
    assert s["restore"]["version"] == 3
    assert table(s)["Cy"][1] == 11
    refused(run, "club", "restore", "thu", "2", "--yes", says="not void")
    actions = [h["action"] for h in js(run("club", "history", "thu", "--json"))["history"]]
    assert actions == ["create", "enter", "enter", "enter", "void", "restore"]


def test_restore_brings_back_the_corrected_result(run):
    run("club", "new", "thu", "--players", "Ann,Bea", "--seed", "1")
    run("club", "add", "thu", "--cards", "Ann=0,Bea=3")
    run("club", "correct", "thu", "1", "--cards", "Bea=4", "--yes")
    run("club", "void", "thu", "1", "--yes")
    s = js(run("club", "restore", "thu", "1", "--yes", "--json"))
    assert table(s)["Bea"][1] == 4 and s["restore"]["values"] == {"Ann": "0", "Bea": "4"}


def test_voiding_warns_when_it_changes_who_should_have_gone_first(run):
    run("club", "new", "thu", "--players", "Ann,Bea,Cy", "--seed", "1")
    run("club", "add", "thu", "--cards", "Ann=0,Bea=3,Cy=1")
    run("club", "add", "thu", "--cards", "Ann=2,Bea=0,Cy=1")   # totals Ann 2, Bea 3, Cy 2: Bea leads game 3
    run("club", "add", "thu", "--cards", "Ann=0,Bea=1,Cy=1")
    # without game 1, the totals before game 3 are Ann 2, Bea 0, Cy 1: Ann should have led it
    r = run("club", "void", "thu", "1", "--dry-run")
    assert "warning: game 3 was already played with Bea first; after this change Ann should have gone first" in r.stderr
    changes = js(run("club", "void", "thu", "1", "--dry-run", "--json"))["void"]["leaders_changed"]
    assert {"game": 3, "was": "Bea", "now": "Ann", "actually_first": "Bea", "now_random": False} in changes


# ---- renames


def test_rename_a_player_and_the_league_keeping_history(run):
    run("club", "new", "thu", "--players", "Ann,Bea,Cy", "--seed", "1")
    run("club", "add", "thu", "--cards", "Ann=0,Bea=3,Cy=5")
    run("club", "rename", "thu", "Bea Smith", "--player", "#2")
    refused(run, "club", "rename", "thu", "Ann", "--player", "Cy", says="already in league")
    s = js(run("club", "add", "thu", "--cards", "Ann=1,Bea Smith=0,Cy=2", "--json"))
    assert table(s)["Bea Smith"] == (2, 3, 2, 0)   # Ann 0 + 1, Bea 3 + 0, Cy 5 + 2
    run("club", "new", "fri", "--players", "X,Y")
    refused(run, "club", "rename", "thu", "fri", says="already exists")
    run("club", "rename", "thu", "thursday")
    refused(run, "club", "standings", "thu", says="no club league named 'thu'")
    history = js(run("club", "history", "thursday", "--json"))["history"]
    assert history[1]["detail"]["values"] == {"Ann": "0", "Bea": "3", "Cy": "5"}   # as entered then
    assert [h["detail"] for h in history if h["action"] == "rename"] == [
        {"player": "Bea", "to": "Bea Smith"}, {"league": "thu", "to": "thursday"}]


# ---- the game list


def test_games_lists_current_results_after_corrections(run):
    run("club", "new", "thu", "--players", "Ann,Bea,Cy", "--seed", "1")
    run("club", "add", "thu", "--cards", "Ann=0,Bea=3,Cy=5", "--note", "first night")
    run("club", "add", "thu", "--cards", "Ann=2,Bea=0", "--absent", "Cy")
    run("club", "correct", "thu", "1", "--cards", "Bea=4", "--yes")
    games = js(run("club", "games", "thu", "--json"))["games"]
    assert [(g["game"], g["version"], g["absent"]) for g in games] == [(1, 2, []), (2, 1, ["Cy"])]
    assert games[0]["results"] == [
        {"entrant": "Ann", "entry": "0", "points": 0, "winner": True},
        {"entrant": "Bea", "entry": "4", "points": 4, "winner": False},
        {"entrant": "Cy", "entry": "5", "points": 5, "winner": False}]
    text = run("club", "games", "thu").stdout
    assert "Ann 0*, Bea 4, Cy 5" in text and "Cy" in text.splitlines()[-1]


# ---- club nights


def test_a_night_at_two_tables_by_standings(run):
    run("club", "new", "thu", "--players", "Ann,Bea,Cy,Dee,Eve,Fay", "--seed", "4")
    # totals after game 1: Ann 0, Bea 1, Cy 2, Dee 3, Eve 4, Fay 5 (ranks in that order)
    run("club", "add", "thu", "--cards", "Ann=0,Bea=1,Cy=2,Dee=3,Eve=4,Fay=5")
    plan = js(run("club", "night", "thu", "--absent", "Fay", "--tables", "2", "--json"))["night"]
    # 5 present at 2 tables: 3 and 2; best-ranked together; most points first
    assert [[s["entrant"] for s in t["seats"]] for t in plan["tables"]] == [["Cy", "Bea", "Ann"], ["Eve", "Dee"]]
    assert plan["absent"] == ["Fay"] and plan["round"] == 2

    refused(run, "club", "add", "thu", "--cards", "Ann=0,Bea=1,Cy=2", says="give --table")
    refused(run, "club", "add", "thu", "--table", "3", "--cards", "Ann=0", says="no table 3")
    refused(run, "club", "add", "thu", "--table", "1", "--cards", "Ann=0,Bea=1,Cy=2", "--absent", "Eve",
            says="fixed by the table plan")
    refused(run, "club", "add", "thu", "--table", "1", "--cards", "Ann=0,Bea=1,Dee=2", says="Dee did not play")

    s = js(run("club", "add", "thu", "--table", "2", "--cards", "Eve=0,Dee=6", "--json"))
    assert s["entered"]["first"] == "Eve" and (s["entered"]["round"], s["entered"]["table"]) == (2, 2)
    assert s["next_first"] is None and s["night"]["open"] == [1]
    refused(run, "club", "add", "thu", "--table", "2", "--cards", "Eve=0,Dee=6", says="already entered")
    refused(run, "club", "night", "thu", says="under way")
    refused(run, "club", "withdraw", "thu", "Fay", "--yes", says="under way")
    s = js(run("club", "add", "thu", "--table", "1", "--cards", "Ann=3,Bea=0,Cy=3", "--json"))
    assert s["entered"]["first"] == "Cy" and s["night"] is None
    # Fay is charged the round's average over both tables: (6 + 0 + 3 + 0 + 3) / 5 = 2.4 -> 3
    # totals: Bea 1, Ann 3, Eve 4, Cy 5, Fay 5 + 3 = 8, Dee 9
    assert table(s) == {"Ann": (2, 3, 2, 0), "Bea": (1, 1, 2, 0), "Cy": (4, 5, 2, 0), "Dee": (6, 9, 2, 0),
                        "Eve": (3, 4, 2, 0), "Fay": (5, 8, 1, 1)}
    assert s["next_first"]["entrant"] == "Dee"
    games = js(run("club", "games", "thu", "--json"))["games"]
    assert [(g["game"], g["round"], g["table"]) for g in games] == [(1, 1, None), (2, 2, 2), (3, 2, 1)]


def test_a_plan_is_replaced_until_a_table_is_entered_and_a_drawn_plan_repeats(run):
    run("club", "new", "a", "--players", "P1,P2,P3,P4,P5,P6,P7,P8", "--seed", "9")
    run("club", "new", "b", "--players", "P1,P2,P3,P4,P5,P6,P7,P8", "--seed", "9")
    first = js(run("club", "night", "a", "--split", "draw", "--json"))["night"]
    again = js(run("club", "night", "a", "--split", "draw", "--json"))["night"]
    other = js(run("club", "night", "b", "--split", "draw", "--json"))["night"]
    assert first == again == other
    assert [len(t["seats"]) for t in first["tables"]] == [4, 4]
    shown = js(run("club", "night", "a", "--show", "--json"))["night"]
    assert shown["tables"] == first["tables"]
    plan = js(run("club", "night", "a", "--present", "P1,P2,P3,P4,P5", "--json"))["night"]
    assert [len(t["seats"]) for t in plan["tables"]] == [3, 2] and plan["absent"] == ["P6", "P7", "P8"]
    assert plan["round"] == 1
    refused(run, "club", "night", "a", "--tables", "3", "--present", "P1,P2,P3,P4,P5", says="cannot fill 3 tables")


def test_voiding_a_night_game_reopens_its_table(run):
    run("club", "new", "thu", "--players", "A,B,C,D", "--seed", "2")
    run("club", "night", "thu", "--tables", "2")
    plan = js(run("club", "night", "thu", "--show", "--json"))["night"]
    t1 = [s["entrant"] for s in plan["tables"][0]["seats"]]
    t2 = [s["entrant"] for s in plan["tables"][1]["seats"]]
    run("club", "add", "thu", "--table", "1", "--cards", f"{t1[0]}=0,{t1[1]}=2")
    run("club", "add", "thu", "--table", "2", "--cards", f"{t2[0]}=0,{t2[1]}=9")
    run("club", "void", "thu", "2", "--yes")
    assert js(run("club", "night", "thu", "--show", "--json"))["night"]["open"] == [2]
    run("club", "add", "thu", "--table", "2", "--cards", f"{t2[0]}=0,{t2[1]}=1")
    refused(run, "club", "restore", "thu", "2", "--yes", says="now has game 3")


def test_table_sizes_and_seating_by_hand():
    assert nightplan.table_sizes(10, tables=3) == [4, 3, 3]
    assert nightplan.table_sizes(10) == [4, 3, 3]
    assert nightplan.table_sizes(4, size=2) == [2, 2]
    with pytest.raises(ClubError, match="not both"):
        nightplan.table_sizes(6, tables=2, size=3)
    players = [nightplan.Player(i, n, i, pts, 1) for i, (n, pts) in enumerate([("A", 4), ("B", 9), ("C", 4)], 1)]
    seated, tied = nightplan.seat(players, seed=1, round_no=1, table_no=1)
    assert [p.name for p in seated] == ["B", "A", "C"] and tied == []


@given(points=st.lists(st.integers(0, 30), min_size=2, max_size=14), tables=st.integers(1, 7),
       how=st.sampled_from(nightplan.SPLITS), seed=st.integers(0, 10**6))
def test_a_plan_seats_everyone_once_most_points_first(points, tables, how, seed):
    players = [nightplan.Player(i, f"P{i}", i, p, r) for i, (p, r) in
               enumerate(zip(points, sorted(range(len(points)), key=lambda k: points[k]), strict=True), 1)]
    if len(players) < 2 * tables:
        with pytest.raises(ClubError):
            nightplan.plan(players, seed=seed, round_no=1, how=how, tables=tables)
        return
    plan = nightplan.plan(players, seed=seed, round_no=1, how=how, tables=tables)
    seats = [i for t in plan for i in t["seats"]]
    assert sorted(seats) == [p.member_id for p in players]
    sizes = [len(t["seats"]) for t in plan]
    assert max(sizes) - min(sizes) <= 1 and min(sizes) >= 2
    pts = {p.member_id: p.points for p in players}
    for t in plan:
        assert pts[t["seats"][0]] == max(pts[i] for i in t["seats"])


# ---- entry forms


@pytest.mark.parametrize("text, points", [("T+K", 20), ("Ts Kd", 20), ("10h+ace", 11), ("8h", 50), ("8+", 50),
                                          ("t", 10), ("jack+queen", 20), ("23", 23)])
def test_card_forms_of_crazy_eights(text, points):
    assert parse_value("crazy-eights", "Bea", text)[1] == points


def test_ten_written_t_through_the_cli(run):
    run("club", "new", "classic", "--players", "Ann,Bea", "--rule-set", "crazy-eights", "--seed", "1")
    s = js(run("club", "add", "classic", "--cards", "Ann=0,#2=T+8h", "--json"))
    assert s["entered"]["points"] == {"Ann": 0, "Bea": 60}
    refused(run, "club", "add", "classic", "--cards", "Ann=0,Bea=X", says="not a card: 'X'")


# ---- the view and the Python totals agree


@given(st.lists(st.tuples(st.sampled_from(["add", "absent", "void", "withdraw"]), st.integers(0, 9),
                          st.integers(0, 9)), max_size=12),
       st.sampled_from(["average", "highest", "none", "7"]), st.sampled_from(["penalty", "total"]))
def test_standings_view_and_python_totals_agree(steps, absence, withdrawal):
    db = open_db(":memory:")
    league = League.create(db, "x", ["A", "B", "C", "D"], seed=1, absence=absence, withdrawal=withdrawal, by="t")
    for action, a, b in steps:
        active = league.active_members()
        try:
            if action == "add" or action == "absent":
                out = active[a % len(active)] if action == "absent" and len(active) > 2 else None
                playing = [m for m in active if m is not out]
                values = [(m.name, "0" if k == 0 else str((a + b * k) % 7)) for k, m in enumerate(playing)]
                league.add(values, absent=[out.name] if out else [], by="t")
            elif action == "void" and league.played():
                league.void(1 + a % league.played(), by="t")
            elif action == "withdraw":
                league.withdraw(active[b % len(active)].name, by="t")
        except ClubError:
            pass
    games = league.games()
    totals = league.totals(games, len(games))
    names = {m.id: m.name for m in league.members()}
    view = {r["entrant"]: r["points"] for r in league.standings()}
    assert view == {names[i]: p for i, p in totals.items()}


def test_a_league_from_before_club_nights_upgrades_in_place(tmp_path):
    from sqlite_utils import Database

    from tourney.results import schema

    path = tmp_path / "old.db"
    old = Database(path)
    schema.MIGRATIONS.apply(old, stop_before="m009_club_nights")
    old["club_leagues"].insert({"id": 1, "name": "thu", "rule_set": "crazier-eights", "seed": 1,
                                "eliminated_score": "snapshot", "created_at": "x", "created_by": "x"})
    old["club_members"].insert_all([{"id": i, "league_id": 1, "roster": i, "name": n, "start_points": 0,
                                     "joined_after": 0} for i, n in ((1, "Ann"), (2, "Bea"))])
    for number, (ann, bea) in enumerate([(0, 3), (4, 0)], 1):
        old["club_games"].insert({"league_id": 1, "number": number, "first_member_id": 1, "first_how": "derived"})
        old["club_versions"].insert({"league_id": 1, "game_number": number, "version": 1, "action": "enter",
                                     "by": "x", "at": "x"})
        old["club_results"].insert_all([{"league_id": 1, "game_number": number, "version": 1, "member_id": i,
                                         "entry": str(p), "points": p, "winner": int(p == 0)}
                                        for i, p in ((1, ann), (2, bea))])
    old.conn.close()
    league = League(open_db(path), "thu")
    assert (league.absence, league.withdrawal) == ("average", "penalty")
    assert [(g.number, g.round, g.table) for g in league.games()] == [(1, 1, None), (2, 2, None)]
    assert [(r["entrant"], r["points"], r["games"]) for r in league.standings()] == [("Bea", 3, 2), ("Ann", 4, 2)]
    assert league.add([("Ann", "0"), ("Bea", "1")], by="t")["game"] == 3


def test_a_round_under_way_is_completed_after_a_table_reaches_the_target(run):
    run("club", "new", "thu", "--players", "A,B,C,D", "--seed", "2", "--target", "5")
    plan = js(run("club", "night", "thu", "--tables", "2", "--json"))["night"]
    t1, t2 = ([s["entrant"] for s in t["seats"]] for t in plan["tables"])
    refused(run, "club", "join", "thu", "E", says="under way")
    s = js(run("club", "add", "thu", "--table", "1", "--cards", f"{t1[0]}=0,{t1[1]}=6", "--json"))
    assert s["finished"] == {"after_game": 1, "winners": [t1[0]], "lowest_total": 0}
    s = js(run("club", "add", "thu", "--table", "2", "--cards", f"{t2[0]}=2,{t2[1]}=0", "--json"))
    assert s["entered"]["game"] == 2 and s["finished"]["after_game"] == 1
    refused(run, "club", "add", "thu", "--cards", "A=0,B=1,C=1,D=1", says="is over")


def test_the_standings_during_a_night_say_which_tables_are_still_to_enter(run):
    run("club", "new", "thu", "--players", "A,B,C,D", "--seed", "2")
    refused(run, "club", "night", "thu", "--show", says="no round of a club night is under way")
    refused(run, "club", "add", "thu", "--table", "1", "--cards", "A=0,B=1", says="no club night is planned")
    plan = js(run("club", "night", "thu", "--size", "2", "--json"))["night"]
    t1 = [s["entrant"] for s in plan["tables"][0]["seats"]]
    run("club", "add", "thu", "--table", "1", "--cards", f"{t1[0]}=0,{t1[1]}=2")
    text = run("club", "standings", "thu").stdout
    assert "Round 1 is being played at tables; still to enter: table 2" in text
    shown = run("club", "night", "thu", "--show").stdout
    assert shown.splitlines()[1].endswith("[entered]") and not shown.splitlines()[2].endswith("[entered]")


def test_changing_the_rules_recomputes_the_standings_and_is_logged(run):
    run("club", "new", "thu", "--players", "A,B,C", "--seed", "1")
    run("club", "add", "thu", "--cards", "A=0,B=4", "--absent", "C")      # C charged (0 + 4) / 2 = 2
    assert table(js(run("club", "standings", "thu", "--json")))["C"][1] == 2
    s = js(run("club", "set", "thu", "--absence", "highest", "--json"))
    assert table(s)["C"][1] == 4 and s["changed"] == {"absence": {"was": "average", "now": "highest"}}
    s = js(run("club", "set", "thu", "--absence", "9", "--withdrawal", "total", "--json"))
    assert table(s)["C"][1] == 9 and (s["absence"], s["withdrawal"]) == ("9", "total")
    refused(run, "club", "set", "thu", "--withdrawal", "total", says="nothing to change")
    refused(run, "club", "set", "thu", "--withdrawal", "sometimes", says="unknown withdrawal rule")
    last = js(run("club", "history", "thu", "--json"))["history"][-1]
    assert last["action"] == "set" and last["detail"]["withdrawal"] == {"was": "penalty", "now": "total"}
