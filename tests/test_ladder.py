"""The ladder (docs/ladder.md): commands, checks of new versions, bad versions disabled, kill -9
and resume, the standings' JSON against its schema, and the matchmaker's rules."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import jsonschema
import numpy as np
from helpers import RANDOM_BOT, ROOT, count_games, start_serve, stop_serve

from tourney.ladder.matchmaking import PLACEMENT_GAMES, Matchmaker, Pool
from tourney.results import ladder as rows
from tourney.results import store

SCHEMA = json.loads((ROOT / "docs" / "schemas" / "ladder.schema.json").read_text())


def env_for_children(db: str) -> dict:
    return {**os.environ, "TOURNEY_DB": db, "PYTHONPATH": str(ROOT)}


def standings(run, name="spring") -> dict:
    data = json.loads(run("ladder", "standings", name, "--json").stdout)
    jsonschema.validate(data, SCHEMA)
    return data


def test_a_ladder_of_built_in_bots_plays_and_ranks(run):
    run("ladder", "new", "spring", "--players", "2", "--seed", "3")
    run("ladder", "submit", "spring", "ann", "--builtin", "greedy")
    run("ladder", "submit", "spring", "bo", "--builtin", "random")
    run("ladder", "submit", "spring", "cy", "--builtin", "random")
    r = run("ladder", "run", "spring", "--games", "30", "-q", "-j", "1")
    assert "30 game(s) played" in r.stderr
    data = standings(run)
    assert data["games_played"] == 30 and data["model"] == "bradley-terry"
    assert sum(row["games"] for row in data["standings"]) == 60
    assert {row["entrant"] for row in data["standings"]} == {"spring/ann/v1", "spring/bo/v1", "spring/cy/v1"}
    ranks = [row["rank"] for row in data["standings"]]
    assert ranks == [1, 2, 3]
    assert all(row["rating_low"] <= row["rating"] <= row["rating_high"] for row in data["standings"])
    # the table says which way is better
    assert "rating (higher better)" in run("ladder", "standings", "spring").stdout
    # the games are the event's: the ordinary commands see them
    assert count_games(Path(run.db)) == 30


def test_a_four_player_ladder_uses_plackett_luce(run):
    run("ladder", "new", "four", "--players", "4", "--seed", "5")
    for author in ("a", "b", "c", "d", "e"):
        run("ladder", "submit", "four", author, "--builtin", "random" if author != "a" else "greedy")
    run("ladder", "run", "four", "--games", "12", "-q", "-j", "1")
    data = standings(run, "four")
    assert data["model"] == "plackett-luce" and data["games_played"] == 12
    assert sum(row["games"] for row in data["standings"]) == 48
    with sqlite3.connect(run.db) as con:
        assert {n for (n,) in con.execute("select count(*) from seats group by game_id")} == {4}


def test_bad_usage_is_one_clear_error_and_changes_nothing(run):
    for args, text in [
        (("ladder", "new", "x", "--players", "9"), "--players must be 2 to 8"),
        (("ladder", "new", "x y"), "ladder name 'x y'"),
        (("ladder", "new", "x", "--rule-set", "chess"), "chess"),
        (("ladder", "submit", "nope", "ann", "--builtin", "random"), "no ladder called 'nope'"),
    ]:
        r = run(*args, ok=False)
        assert r.exit_code == 2, r.output
        assert text in r.stderr and "Traceback" not in r.output
    run("ladder", "new", "x")
    r = run("ladder", "new", "x", ok=False)
    assert r.exit_code == 2 and "already exists" in r.stderr
    r = run("ladder", "submit", "x", "bad/name", "--builtin", "random", ok=False)
    assert r.exit_code == 2 and "author 'bad/name'" in r.stderr
    r = run("ladder", "submit", "x", "ann", "--", "no-such-program-here", ok=False)
    assert r.exit_code == 2 and "not found" in r.stderr
    with sqlite3.connect(run.db) as con:
        assert con.execute("select count(*) from ladder_versions").fetchone()[0] == 0


def test_a_new_version_is_checked_first_and_refused_with_the_reason(run, tmp_path):
    run("ladder", "new", "spring")
    bad = tmp_path / "bad.py"
    bad.write_text("print('hello there', flush=True)\n")
    r = run("ladder", "submit", "spring", "bob", "--", sys.executable, str(bad), ok=False)
    assert r.exit_code == 3
    assert "rejected" in r.stdout and "handshake" in r.stdout and "hello" in r.stdout  # check's advice
    good = run("ladder", "submit", "spring", "ann", "--", sys.executable, RANDOM_BOT)
    assert "spring/ann/v1: active" in good.stdout
    data = standings(run)
    refused = {v["entrant"]: v for v in data["unrated"]}["spring/bob/v1"]
    assert refused["status"] == "rejected" and "handshake" in refused["reason"]


def test_a_new_version_retires_the_earlier_one_which_keeps_its_games(run):
    run("ladder", "new", "spring", "--seed", "1")
    run("ladder", "submit", "spring", "ann", "--builtin", "random")
    run("ladder", "submit", "spring", "bo", "--builtin", "greedy")
    run("ladder", "run", "spring", "--games", "8", "-q", "-j", "1")
    run("ladder", "submit", "spring", "ann", "--builtin", "greedy")
    run("ladder", "run", "spring", "--games", "8", "-q", "-j", "1")
    rows_ = {r["entrant"]: r for r in standings(run)["standings"]}
    assert rows_["spring/ann/v1"]["status"] == "retired" and rows_["spring/ann/v1"]["games"] == 8
    assert rows_["spring/ann/v1"]["reason"] == "replaced by v2"
    assert rows_["spring/ann/v2"]["games"] == 8 and rows_["spring/bo/v1"]["games"] == 16


def test_a_version_submitted_while_the_ladder_runs_is_checked_and_plays(tmp_path):
    from tourney.ladder import service

    db = store.open_db(tmp_path / "l.db")
    service.new_ladder(db, "s", "crazier-eights", 2, seed=3)
    for author, bot in (("ann", "greedy"), ("bo", "random")):
        service.submit(db, "s", author, builtin=bot)
    notes: list[str] = []
    runner = service.LadderRun(db, "s", batch=4, on_note=notes.append)
    submitted = []

    def on_game(names, payload):  # after the first game: a submission arrives, unchecked
        if not submitted:
            submitted.append(service.submit(db, "s", "cy", builtin="random", check=False))

    runner.on_game = on_game
    runner.play(games=24)
    cy = next(v for v in rows.versions(db, 1) if v["author"] == "cy")
    assert cy["status"] == "active" and any("checking s/cy/v1" in n for n in notes)
    assert rows.game_counts(db, 1).get(cy["entrant_id"], 0) >= 6  # placed first


def test_an_authors_versions_meet_only_when_the_ladder_allows_it(run):
    run("ladder", "new", "spring", "--keep-versions", "--seed", "2")
    for author in ("ann", "ann", "bo"):
        run("ladder", "submit", "spring", author, "--builtin", "random")
    run("ladder", "run", "spring", "--games", "10", "-q", "-j", "1")
    with sqlite3.connect(run.db) as con:
        tables = con.execute("select group_concat(e.name) from seats st join entrants e on e.id = st.entrant_id "
                             "group by st.game_id").fetchall()
    assert len(tables) == 10
    assert all("bo" in t[0] for t in tables)  # ann's two versions never sat together


BREAKS_LATER = """
import os, runpy, sys
here = os.path.dirname(os.path.abspath(__file__))
if os.path.exists(os.path.join(here, "BROKEN")):
    sys.exit(1)  # before the handshake: every game it is seated at is a fault
runpy.run_path(os.path.join(here, "random_bot.py"), run_name="__main__")
"""


def test_a_version_that_goes_bad_is_disabled_with_the_reason_and_the_others_play_on(run, tmp_path):
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "main.py").write_text(BREAKS_LATER)
    (folder / "random_bot.py").write_text(Path(RANDOM_BOT).read_text())
    run("ladder", "new", "spring", "--seed", "4", "--sandbox", "off", "--startup-timeout", "5")
    run("ladder", "submit", "spring", "ann", "--path", str(folder))
    run("ladder", "submit", "spring", "bo", "--builtin", "random")
    run("ladder", "submit", "spring", "cy", "--builtin", "greedy")
    ann = {v["entrant"]: v for v in standings(run)["unrated"]}["spring/ann/v1"]
    assert ann["status"] == "active"
    # the version runs from the ladder's own copy of the folder: break that copy
    with sqlite3.connect(run.db) as con:
        cwd = json.loads(con.execute("select spec from ladder_versions where author = 'ann'").fetchone()[0])["cwd"]
    assert Path(cwd) != folder and (Path(cwd) / "main.py").exists()
    (Path(cwd) / "BROKEN").write_text("")
    r = run("ladder", "run", "spring", "--games", "16", "-q", "-j", "1")
    assert "disabled spring/ann/v1: faulted in 3 of its last 3 games" in r.stderr
    data = standings(run)
    by_name = {row["entrant"]: row for row in data["standings"]}
    assert by_name["spring/ann/v1"]["status"] == "disabled"
    assert "startup" in by_name["spring/ann/v1"]["reason"] and "tourney replay" in by_name["spring/ann/v1"]["reason"]
    # disabled after its third fault; tables of its batch already dealt are still played
    assert 3 <= by_name["spring/ann/v1"]["games"] <= 3 + 4
    assert data["games_played"] == 16  # the others played on
    assert by_name["spring/bo/v1"]["games"] + by_name["spring/cy/v1"]["games"] == 32 - by_name["spring/ann/v1"]["games"]


def test_kill_9_loses_nothing_and_run_resumes(tmp_path):
    db = str(tmp_path / "t.db")
    env = env_for_children(db)
    tourney = [sys.executable, "-m", "tourney"]
    subprocess.run([*tourney, "ladder", "new", "spring", "--seed", "9"], env=env, check=True, capture_output=True)
    for author, bot in (("ann", "greedy"), ("bo", "random"), ("cy", "random")):
        subprocess.run([*tourney, "ladder", "submit", "spring", author, "--builtin", bot], env=env, check=True,
                       capture_output=True)
    proc = subprocess.Popen([*tourney, "ladder", "run", "spring", "-q", "-j", "2"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while count_games(Path(db)) < 12:
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    con = sqlite3.connect(db)
    stored = con.execute("select count(*) from games").fetchone()[0]
    # every stored game is whole: its seats, its replay, and its series finished
    assert con.execute("select count(*) from seats").fetchone()[0] == 2 * stored
    assert con.execute("select count(*) from replays").fetchone()[0] == stored
    assert con.execute("select count(*) from series where status = 'finished'").fetchone()[0] == stored
    con.close()
    done = subprocess.run([*tourney, "ladder", "run", "spring", "--games", "6", "-q", "-j", "1"], env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    con = sqlite3.connect(db)
    assert con.execute("select count(*) from games").fetchone()[0] == stored + 6
    con.close()
    out = subprocess.run([*tourney, "ladder", "standings", "spring", "--json"], env=env, capture_output=True,
                         text=True, check=True)
    data = json.loads(out.stdout)
    assert data["games_played"] == stored + 6
    assert sum(r["games"] for r in data["standings"]) == 2 * (stored + 6)


def test_settle_closes_submissions_and_says_which_pairs_stayed_tied(run):
    run("ladder", "new", "spring", "--seed", "6")
    for author, bot in (("ann", "greedy"), ("bo", "random"), ("cy", "random")):
        run("ladder", "submit", "spring", author, "--builtin", bot)
    r = run("ladder", "settle", "spring", "--top", "3", "--games", "10", "-q", "-j", "1", "--json")
    done = json.loads(r.stdout)
    assert done["games"] <= 10 and done["top"] == 3
    assert len(done["neighbours"]) == 2
    # random against random cannot be separated in 10 games: that pair stays tied, and is named
    tied = [p for p in done["neighbours"] if not p["separated"]]
    assert tied and not done["settled"]
    text = run("ladder", "settle", "spring", "--top", "3", "--games", "2", "-q", "-j", "1").stdout
    assert "stayed tied" in text and "tied: spring/" in text
    r = run("ladder", "submit", "spring", "dee", "--builtin", "random", ok=False)
    assert r.exit_code == 2 and "closed to submissions" in r.stderr
    r = run("ladder", "run", "spring", "--games", "2", ok=False)
    assert r.exit_code == 2 and "settle phase" in r.stderr


# -- the matchmaker ----------------------------------------------------------------------------


def pool(n=12, k=2, games=20, **kw) -> Pool:
    theta = np.linspace(1.5, -1.5, n)
    cov = np.eye(n) * 0.05 + 0.01
    return Pool(theta, cov, list(range(n)), [f"a{i}" for i in range(n)], [games] * n, k, **kw)


def test_a_new_version_is_placed_first():
    p = pool()
    p.games = [20] * 11 + [0]
    p.cov[11, 11] = 20.0
    tables = Matchmaker(p, random.Random(1)).tables(PLACEMENT_GAMES)
    assert all(11 in t for t in tables)


def test_tables_of_a_batch_still_playing_count_as_scheduled():
    """Planning ahead: tables chosen earlier and not played yet count as played. A version
    below its minimum share that is already seated enough is not seated first again, and the
    doubt those tables address shrinks."""
    p = pool(min_share=0.5)
    p.games = [40] * 12
    p.games[3] = 10
    assert Matchmaker(p, random.Random(1)).focus() == 3
    maker = Matchmaker(p, random.Random(1))
    before = maker.var.copy()
    maker.scheduled([[3, 4]] * 10)
    assert maker.played[maker.position[3]] == 20 and maker.focus() != 3
    pair = min(maker.position[3], maker.position[4])
    assert maker.var[pair] < 0.9 * before[pair]  # ten games between them are counted
    maker = Matchmaker(p, random.Random(1))
    maker.scheduled([[3, 99]])  # a version no longer playing: the table is left out
    assert maker.played[maker.position[3]] == 10


def test_a_version_below_its_minimum_share_is_seated():
    p = pool(min_share=0.5)
    p.games = [40] * 12
    p.games[3] = 10
    assert 3 in Matchmaker(p, random.Random(1)).tables(1)[0]


def test_the_settle_phase_plays_only_where_the_top_is_in_doubt():
    p = pool(n=20, k=4, top=5)
    tables = Matchmaker(p, random.Random(3)).tables(40)
    seated = [i for t in tables for i in t]
    # the top five's neighbours (and the sixth, who decides the fifth) fill the tables
    assert set(seated) <= set(range(5 + 2 * 4 + 1))
    assert sum(i < 5 for i in seated) > 0.6 * len(seated)


def test_separated_neighbours_are_settled_and_unsettled_ones_are_chased():
    p = pool(n=6, top=6)
    p.cov = np.eye(6) * 1e-4  # everything separated
    assert Matchmaker(p).settled()
    p.theta = np.array([1.0, 0.99, 0.0, -0.5, -1.0, -1.5])  # 0 and 1 in doubt
    p.cov = np.eye(6) * 1e-3
    maker = Matchmaker(p, random.Random(0))
    assert not maker.settled()
    assert sorted(maker.tables(1)[0]) == [0, 1]


def test_no_author_meets_itself_unless_allowed():
    p = pool(n=8, k=4)
    p.authors = ["x", "x", "x", "y", "y", "z", "z", "w"]
    for t in Matchmaker(p, random.Random(2)).tables(30):
        assert len({p.authors[i] for i in t}) == len(t)
    p.same_author = True
    assert any(len({p.authors[i] for i in t}) < len(t) for t in Matchmaker(p, random.Random(2)).tables(30))


def test_the_store_keeps_a_ladders_rows(tmp_path):
    db = store.open_db(tmp_path / "x.db")
    assert rows.find(db, "none") is None
    assert set(db.table_names()) >= {"ladders", "ladder_versions", "ladder_fits"}


def test_the_ladders_page_is_live_under_serve_and_static_in_the_site(run, tmp_path):
    import urllib.request

    run("ladder", "new", "spring", "--seed", "8")
    for author, bot in (("ann", "greedy"), ("bo", "random"), ("cy", "random")):
        run("ladder", "submit", "spring", author, "--builtin", bot)
    run("ladder", "run", "spring", "--games", "30", "-q", "-j", "1")
    run("ladder", "settle", "spring", "--top", "3", "--games", "4", "-q", "-j", "1")
    proc, base = start_serve(run.db)
    try:
        index = urllib.request.urlopen(f"{base}/").read().decode()
        assert 'ladder/1"' in index
        html = urllib.request.urlopen(f"{base}/ladder/1").read().decode()
        data = json.loads(urllib.request.urlopen(f"{base}/ladder/1.json").read())
    finally:
        stop_serve(proc)
    jsonschema.validate(data["ladder"], SCHEMA)
    assert [r["entrant"] for r in data["ladder"]["standings"]][0] in html
    assert "rating<br><small>higher is better</small>" in html and "range<br><small>at 95%</small>" in html
    assert data["settle_top"] == 3
    for pair in data["deciding"]:  # the pairs the settle phase is still deciding are named
        assert f"{pair['upper']} and {pair['lower']}" in html
    game = data["recent"][0]["game_id"]
    assert f'game/{game}"' in html  # recent games link to their replays
    assert len(data["course"]["games"]) >= 2 and "Ratings over time" in html
    assert {v["status"] for v in data["versions"]} == {"active"}
    run("report", "--format", "site", "-o", str(tmp_path / "site"))
    assert (tmp_path / "site" / "ladder" / "1.html").exists()
    assert json.loads((tmp_path / "site" / "ladder" / "1.json").read_text())["id"] == 1
