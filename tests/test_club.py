"""Club scorekeeping through the CLI: creation, entries, corrections, history, standings, who goes first."""

import json
import random
from pathlib import Path

import pytest

import tourney.commands  # noqa: F401  (registers the commands)
from engine import crazy_eights, super_crazy_eights
from engine.eights_family import NAME, RANK
from tourney.club import ClubError
from tourney.club.entries import card_value, parse_value
from tourney.club.league import League
from tourney.results.store import open_db


def js(result):
    return json.loads(result.stdout)


def by_name(summary):
    return {r["entrant"]: r for r in summary["standings"]}


def test_league_from_creation_to_a_corrected_game(run):
    s = js(run("club", "new", "thu", "--players", "Ann,Bea,Cy", "--seed", "7", "--json"))
    assert s["games_played"] == 0 and s["next_first"]["random"] is True
    assert sorted(s["next_first"]["tied"]) == ["Ann", "Bea", "Cy"]

    s = js(run("club", "add", "thu", "--cards", "Ann=0,Bea=3,Cy=5", "--json", "--by", "kim"))
    assert s["entered"]["winners"] == ["Ann"]
    assert s["next_first"] == {"game": 2, "entrant": "Cy", "points": 5, "tied": [], "random": False}

    s = js(run("club", "add", "thu", "--cards", "Ann=4,Bea=0,Cy=1", "--json"))
    # totals now Ann 4, Bea 3, Cy 6: Cy leads game 3
    assert s["entered"]["first"] == "Cy"
    assert s["next_first"]["entrant"] == "Cy"
    st = by_name(s)
    assert (st["Ann"]["points"], st["Bea"]["points"], st["Cy"]["points"]) == (4, 3, 6)

    # correct game 1: Bea had 9, not 3 -> Bea (9) should have led game 2, which Cy led
    r = run("club", "correct", "thu", "1", "--cards", "Bea=9", "--dry-run", "--json")
    preview = js(r)["correction"]
    assert preview["dry_run"] is True
    assert preview["before"]["Bea"] == 3 and preview["after"]["Bea"] == 9
    assert preview["leaders_changed"] == [
        {"game": 2, "was": "Cy", "now": "Bea", "actually_first": "Cy", "now_random": False}]
    assert "should have gone first" in r.stderr
    # dry run changed nothing
    assert by_name(js(run("club", "standings", "thu", "--json")))["Bea"]["points"] == 3

    # no terminal and no --yes: refuse cleanly, change nothing
    r = run("club", "correct", "thu", "1", "--cards", "Bea=9", ok=False)
    assert r.exit_code == 2 and "--yes" in r.stderr and "Traceback" not in r.output
    assert by_name(js(run("club", "standings", "thu", "--json")))["Bea"]["points"] == 3

    s = js(run("club", "correct", "thu", "1", "--cards", "Bea=9", "--yes", "--by", "lee",
               "--note", "misread", "--json"))
    assert s["correction"]["version"] == 2
    st = by_name(s)
    assert (st["Ann"]["points"], st["Bea"]["points"], st["Cy"]["points"]) == (4, 9, 6)
    assert [r["entrant"] for r in s["standings"]] == ["Ann", "Cy", "Bea"]
    assert [r["rank"] for r in s["standings"]] == [1, 2, 3]
    assert s["next_first"]["entrant"] == "Bea"

    h = js(run("club", "history", "thu", "--json"))["history"]
    assert [e["action"] for e in h] == ["create", "enter", "enter", "correct"]
    assert h[1]["by"] == "kim" and h[3]["by"] == "lee" and h[0]["by"] == "tester"
    assert h[3]["game"] == 1 and h[3]["detail"]["before"]["Bea"] == "3" and h[3]["detail"]["after"]["Bea"] == "9"
    assert h[3]["detail"]["note"] == "misread"
    assert h[3]["detail"]["leaders_changed"][0]["game"] == 2
    assert all(e["at"].endswith("Z") for e in h)

    # the old version is kept
    db = open_db(run.db)
    versions = [r["version"] for r in db.query(
        "SELECT DISTINCT version FROM club_results WHERE game_number = 1 ORDER BY version")]
    assert versions == [1, 2]
    assert db.execute("SELECT COUNT(*) FROM club_results_current WHERE game_number = 1").fetchone()[0] == 3

    # table output is there too
    assert "Bea" in run("club", "history", "thu").stdout


def test_tie_for_first_is_random_from_seed_and_reproducible(run):
    run("club", "new", "a", "--players", "P,Q,R", "--seed", "11")
    run("club", "new", "b", "--players", "P,Q,R", "--seed", "11")
    for league in ("a", "b"):
        run("club", "add", league, "--cards", "P=0,Q=4,R=4")
    fa = js(run("club", "standings", "a", "--json"))["next_first"]
    fb = js(run("club", "standings", "b", "--json"))["next_first"]
    # docs/standings.md: random.Random("club:{seed}:{game}").choice(tied players in roster order)
    expected = random.Random("club:11:2").choice(["Q", "R"])
    assert fa == fb == {"game": 2, "entrant": expected, "points": 4, "tied": ["Q", "R"], "random": True}
    assert "settled at random" in run("club", "standings", "a").stdout


def test_tie_break_seed_includes_the_game_number(run):
    # Ann and Bea are tied before game 1 (0-0) and again before game 3 (3-3). With seed 3 the
    # documented seeds "club:3:1" and "club:3:3" pick different players, so a seed without the
    # game number (the same pick both times) cannot pass.
    def pick(game):
        return random.Random(f"club:3:{game}").choice(["Ann", "Bea"])

    assert pick(1) != pick(3)
    s = js(run("club", "new", "t", "--players", "Ann,Bea", "--seed", "3", "--json"))
    assert s["next_first"] == {"game": 1, "entrant": pick(1), "points": 0, "tied": ["Ann", "Bea"],
                               "random": True}
    s = js(run("club", "add", "t", "--cards", "Ann=0,Bea=3", "--json"))
    assert s["entered"]["first"] == pick(1)
    assert s["next_first"] == {"game": 2, "entrant": "Bea", "points": 3, "tied": [], "random": False}
    s = js(run("club", "add", "t", "--cards", "Ann=3,Bea=0", "--json"))
    assert s["entered"]["first"] == "Bea"
    assert s["next_first"] == {"game": 3, "entrant": pick(3), "points": 3, "tied": ["Ann", "Bea"],
                               "random": True}
    s = js(run("club", "add", "t", "--cards", "Ann=0,Bea=1", "--json"))
    assert s["entered"]["first"] == pick(3)


@pytest.mark.parametrize("cards, message", [
    ("Ann=0,Bea=3,Zed=4", "unknown player 'Zed'"),
    ("Ann=0,Bea=3", "missing player: Cy"),
    ("Ann=1,Bea=3,Cy=2", "no winner"),
    ("Ann=0,Bea=0,Cy=2", "two winners"),
    ("Ann=0,Bea=-3,Cy=2", "cannot be negative"),
    ("Ann=0,Bea=x,Cy=2", "whole number"),
    ("Ann=0,Bea=3,Cy=2,Ann=1", "given twice"),
    ("Ann=0,Bea", "expected NAME=VALUE"),
])
def test_bad_entries_are_refused_with_one_line(run, cards, message):
    run("club", "new", "thu", "--players", "Ann,Bea,Cy", "--seed", "1")
    r = run("club", "add", "thu", "--cards", cards, ok=False)
    assert r.exit_code == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], r.stderr
    assert js(run("club", "standings", "thu", "--json"))["games_played"] == 0


def test_unknown_league_is_one_line(run):
    r = run("club", "standings", "nope", ok=False)  # no database yet: reading creates none
    assert r.exit_code == 2 and r.stderr.count("\n") == 1 and "no such database" in r.stderr
    assert not Path(run.db).exists()
    run("club", "new", "thu", "--players", "Ann,Bea", "--seed", "1")
    r = run("club", "standings", "nope", ok=False)
    assert r.exit_code == 2 and r.stderr.count("\n") == 1 and "no club league named 'nope'" in r.stderr


def test_elimination_scores_snapshot_and_lone_survivor_wins(run):
    run("club", "new", "e", "--players", "A,B,C", "--seed", "2")
    s = js(run("club", "add", "e", "--cards", "A=0,B=elim:6,C=2", "--json"))
    assert s["entered"]["points"] == {"A": 0, "B": 6, "C": 2}
    r = run("club", "add", "e", "--cards", "A=3,B=elim:2,C=elim:4", ok=False)
    assert "A is the only player not eliminated, so A won: enter A=0" in r.stderr
    # everybody eliminated together: a draw, no winner (rulings.md item 14)
    s = js(run("club", "add", "e", "--cards", "A=elim:3,B=elim:2,C=elim:4", "--json"))
    assert s["entered"]["winners"] == []
    run("club", "new", "z", "--players", "A,B,C", "--seed", "2", "--eliminated-score", "max_plus_one")
    s = js(run("club", "add", "z", "--cards", "A=0,B=elim:1,C=4", "--json"))
    assert s["entered"]["points"]["B"] == 5


#: document 003's example, three games of crazy-eights to 100 (card values: 8 = 50, K/Q/J/10 = 10,
#: A = 1, others face value)
DOCUMENT_003 = [
    "Kara=8+K+2,Daniel=0,Luis=Q+J+9,Emily=7+7+A",  # 62, 0, 29, 15
    "Kara=0,Daniel=8h+A,Luis=10+5,Emily=8s",        # 0, 51, 15, 50
    "Kara=8d,Daniel=0,Luis=K+Q,Emily=7",            # 50, 0, 20, 7: Kara 112, Daniel 51, Luis 64, Emily 72
]
DANIEL_WINS_003 = {"after_game": 3, "winners": ["Daniel"], "lowest_total": 51}


def document_003_league(run, games=3):
    """League "classic" with the first ``games`` games of document 003 entered."""
    run("club", "new", "classic", "--players", "Kara,Daniel,Luis,Emily", "--rule-set", "crazy-eights",
        "--target", "100", "--seed", "3")
    for cards in DOCUMENT_003[:games]:
        run("club", "add", "classic", "--cards", cards)


def test_crazy_eights_target_league_reproduces_document_003(run):
    """Document 003: Kara 112, Daniel 51, Luis 64, Emily 72 when one passes 100: Daniel wins."""
    document_003_league(run, games=2)
    r = run("club", "add", "classic", "--cards", "Kara=50,Daniel=0,Luis=20,Emily=0", ok=False)
    assert "two winners" in r.stderr                                  # only one player goes out
    s = js(run("club", "add", "classic", "--cards", DOCUMENT_003[2], "--json"))
    totals = {r["entrant"]: r["points"] for r in s["standings"]}
    assert totals == {"Kara": 112, "Daniel": 51, "Luis": 64, "Emily": 72}
    assert s["finished"] == DANIEL_WINS_003
    assert s["standings"][0]["entrant"] == "Daniel" and s["next_first"] is None
    r = run("club", "add", "classic", "--cards", "Kara=0,Daniel=1,Luis=2,Emily=3", ok=False)
    assert "is over" in r.stderr and "Daniel won" in r.stderr


def end_warnings(result):
    return [line for line in result.stderr.splitlines() if "end of the league" in line]


@pytest.mark.parametrize("game, cards, end, entered_after, says", [
    # Kara held two eights in game 1: 100 at once, so the league was over after game 1
    ("1", "Kara=8+8", {"after_game": 1, "winners": ["Daniel"], "lowest_total": 0}, [2, 3],
     "now: over after game 1, Daniel won with 0); games 2, 3 were entered after game 1"),
    # Daniel held a king and a five more in game 2: 66, so Luis (64) is lowest when Kara passes 100
    ("2", "Daniel=8h+A+K+5", {"after_game": 3, "winners": ["Luis"], "lowest_total": 64}, [],
     "now: over after game 3, Luis won with 64)"),
    # Kara held a seven, not an eight, in game 3: nobody has reached 100 yet
    ("3", "Kara=7", None, [], "now: not over, no total reaches 100)"),
])
def test_a_correction_that_changes_the_end_of_the_league_warns(run, game, cards, end, entered_after, says):
    document_003_league(run)
    r = run("club", "correct", "classic", game, "--cards", cards, "--dry-run", "--json")
    assert js(r)["correction"]["finished_changed"] == {
        "target": 100, "was": DANIEL_WINS_003, "now": end, "entered_after": entered_after}
    [line] = end_warnings(r)
    assert line.startswith("warning: this correction would change the end of the league (was: over after game 3, "
                           "Daniel won with 51; would be: ")
    assert js(run("club", "standings", "classic", "--json"))["finished"] == DANIEL_WINS_003  # nothing stored

    r = run("club", "correct", "classic", game, "--cards", cards, "--yes", "--json")
    [line] = end_warnings(r)
    assert line.startswith("warning: this correction changes the end of the league") and says in line, line
    s = js(r)
    assert s["finished"] == end and s["correction"]["finished_changed"]["entered_after"] == entered_after
    assert s["games_played"] == 3                                     # games after the end are kept
    assert js(run("club", "history", "classic", "--json"))["history"][-1]["detail"]["finished_changed"]["now"] == end


def test_a_correction_that_keeps_the_end_says_nothing_about_it(run):
    document_003_league(run)
    r = run("club", "correct", "classic", "3", "--cards", "Emily=9", "--yes", "--json")  # Emily 74, Daniel still wins
    assert js(r)["correction"]["finished_changed"] is None and end_warnings(r) == []
    assert js(r)["finished"] == DANIEL_WINS_003


def test_a_league_no_longer_over_takes_the_next_game(run):
    document_003_league(run)
    run("club", "correct", "classic", "3", "--cards", "Kara=7", "--yes")           # Kara 69: nobody at 100
    s = js(run("club", "add", "classic", "--cards", "Kara=0,Daniel=8+K,Luis=2,Emily=3", "--json"))
    assert s["entered"]["game"] == 4
    # Kara 69, Daniel 111, Luis 66, Emily 75
    assert s["finished"] == {"after_game": 4, "winners": ["Luis"], "lowest_total": 66}


def test_card_values():
    assert [card_value("crazy-eights", r) for r in range(1, 14)] == [1, 2, 3, 4, 5, 6, 7, 50, 9, 10, 10, 10, 10]
    assert [card_value("super-crazy-eights", r) for r in range(1, 14)] == [1, 20, 3, 4, 5, 6, 7, 50, 9, 10, 10, 10, 10]
    assert parse_value("super-crazy-eights", "x", "2+8+Kd+A") == (4, 81, False)
    assert parse_value("crazy-eights", "x", "23") == (None, 23, False)
    assert parse_value("crazier-eights", "x", "elim:4") == (4, None, True)
    with pytest.raises(ClubError, match="not a card"):
        parse_value("crazy-eights", "x", "8+Z")
    with pytest.raises(ClubError, match="no elimination"):
        parse_value("crazy-eights", "x", "elim:3")


@pytest.mark.parametrize("rule_set, engine_points", [
    ("crazy-eights", crazy_eights.card_points),
    ("super-crazy-eights", super_crazy_eights.card_points),
])
def test_club_values_every_card_as_the_engine_does(rule_set, engine_points):
    deck = range(52)
    for card in deck:
        assert card_value(rule_set, RANK[card]) == engine_points(card), NAME[card]
        assert parse_value(rule_set, "x", NAME[card]) == (1, engine_points(card), False), NAME[card]
    whole_deck = "+".join(NAME[c] for c in deck)
    assert parse_value(rule_set, "x", whole_deck) == (52, sum(engine_points(c) for c in deck), False)


def test_super_crazy_eights_allows_several_winners(run):
    run("club", "new", "s", "--players", "A,B,C", "--rule-set", "super-crazy-eights", "--seed", "4")
    s = js(run("club", "add", "s", "--cards", "A=0,B=0,C=2+3", "--json"))
    assert s["entered"]["winners"] == ["A", "B"] and s["entered"]["points"]["C"] == 23


def test_withdraw_and_join(run):
    run("club", "new", "w", "--players", "A,B,C", "--seed", "5")
    run("club", "add", "w", "--cards", "A=0,B=3,C=6")
    r = run("club", "withdraw", "w", "C", ok=False)                   # no terminal, no --yes
    assert r.exit_code == 2 and "--yes" in r.stderr
    s = js(run("club", "withdraw", "w", "C", "--yes", "--json"))
    c = by_name(s)["C"]
    assert c["withdrawn"] is True and c["points"] == 6 and c["withdrawn_after"] == 1
    r = run("club", "add", "w", "--cards", "A=0,B=3,C=1", ok=False)
    assert "C withdrew after game 1" in r.stderr
    s = js(run("club", "join", "w", "D", "--json"))                   # default start: max of active (3)
    assert s["joined"] == {"player": "D", "joined_after": 1, "start_points": 3, "start": "max"}
    r = run("club", "add", "w", "--cards", "A=2,B=0", ok=False)
    assert "missing player: D" in r.stderr
    s = js(run("club", "add", "w", "--cards", "A=2,B=0,D=1", "--json"))
    st = by_name(s)
    assert (st["A"]["points"], st["B"]["points"], st["D"]["points"], st["D"]["games"]) == (2, 3, 4, 1)
    assert st["C"]["withdrawn"] is True and st["C"]["rank"] == 4
    assert s["next_first"]["entrant"] == "D"
    s = js(run("club", "join", "w", "E", "--start", "zero", "--json"))
    assert s["joined"]["start_points"] == 0
    assert "withdrawn" in run("club", "standings", "w").stdout
    assert [e["action"] for e in js(run("club", "history", "w", "--json"))["history"]] == [
        "create", "enter", "withdraw", "join", "enter", "join"]


def test_names_with_commas_and_equals(run):
    run("club", "new", "odd", "--player", "Smith, J", "--player", "a=b", "--seed", "1")
    s = js(run("club", "add", "odd", "--card", "Smith, J=0", "--card", "a=b=4", "--json"))
    assert s["entered"]["points"] == {"Smith, J": 0, "a=b": 4}


def test_shared_ranks_in_the_view(tmp_path):
    db = open_db(str(tmp_path / "x.db"))
    lg = League.create(db, "v", ["A", "B", "C"], seed=1, by="t")
    lg.add([("A", "0"), ("B", "2"), ("C", "3")])
    lg.add([("A", "2"), ("B", "0"), ("C", "1")])
    # A 2 (1 win), B 2 (1 win), C 4: A and B tied on total, wins and average -> share rank 1
    ranks = {r["entrant"]: r["rank"] for r in lg.standings()}
    assert ranks == {"A": 1, "B": 1, "C": 3}
