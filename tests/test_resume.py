"""Interrupted runs: a real ``tourney run`` is killed with SIGKILL at several moments and
resumed; the resumed database must hold exactly the games of an uninterrupted run."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from typer.testing import CliRunner

import tourney.commands
from tourney.app import app

ROOT = Path(__file__).resolve().parent.parent

CONFIG = """
[event]
name = "resume"
format = "round-robin"
seed = 42
games = 5
rounds = 2
concurrency = 2

[limits]
decision_timeout = 5.0

[[entrants]]
name = "greedy"
builtin = "greedy"

[[entrants]]
name = "random"
builtin = "random"

[[entrants]]
name = "py-random"
command = ["{python}", "ROOT/examples/bots/random_bot.py"]

[[entrants]]
name = "py-smart"
command = ["{python}", "ROOT/examples/bots/smart_bot.py"]
"""


def tourney(*args):
    return [sys.executable, "-m", "tourney", *args]


def env():
    e = dict(os.environ)
    e["PYTHONPATH"] = str(ROOT) + os.pathsep + e.get("PYTHONPATH", "")
    e.pop("TOURNEY_DB", None)
    return e


def count_games(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            return con.execute("select count(*) from games").fetchone()[0]
        finally:
            con.close()
    except sqlite3.OperationalError:  # tables not created yet
        return 0


def snapshot(db: Path) -> dict:
    """Everything that must not depend on interruptions: per (series, game) the game row,
    seats and replay; per series its result. Ids and times are left out."""
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    games = {}
    for g in con.execute(
            "select g.*, s.idx as sidx from games g join series s on s.id = g.series_id"):
        seats = [
            (r["seat"], r["name"], r["first"], r["winner"], r["points"], r["placement"],
             r["eliminated"], r["fault"])
            for r in con.execute(
                "select st.*, e.name from seats st join entrants e on e.id = st.entrant_id "
                "where game_id = ? order by seat", [g["id"]])
        ]
        rep = con.execute("select * from replays where game_id = ?", [g["id"]]).fetchone()
        key = (g["sidx"], g["idx"])
        assert key not in games, f"game {key} stored twice"
        games[key] = (g["seed"], g["first_player"], g["turn_order"], g["winners"], g["reason"],
                      tuple(seats), rep["choices_z"], rep["seed"], rep["options_id"])
    series = {}
    for s in con.execute("select * from series"):
        rows = tuple(
            (r["name"], r["seat"], r["wins"], r["points"], r["placement"])
            for r in con.execute(
                "select se.*, e.name from series_entrants se join entrants e "
                "on e.id = se.entrant_id where series_id = ? order by seat", [s["id"]])
        )
        series[s["idx"]] = (s["status"], s["outcome"], s["games_played"], rows)
    status = con.execute("select status from events").fetchone()[0]
    con.close()
    return {"games": games, "series": series, "status": status}


def run_and_kill(cfg: Path, db: Path, after_games: int) -> bool:
    """Start a run, SIGKILL it once ``after_games`` games are stored; True if it was killed
    before finishing."""
    proc = subprocess.Popen(tourney("run", str(cfg), "--db", str(db), "-q", "--resume"),
                            env=env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while proc.poll() is None and count_games(db) < after_games:
            time.sleep(0.005)
        killed = proc.poll() is None
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait()
    return killed


def test_kill_and_resume_equals_uninterrupted(tmp_path):
    cfg = tmp_path / "event.toml"
    cfg.write_text(CONFIG.replace("ROOT", str(ROOT)))
    reference_db = tmp_path / "reference.db"
    subprocess.run(tourney("run", str(cfg), "--db", str(reference_db), "-q"), env=env(),
                   check=True, stdout=subprocess.DEVNULL)
    reference = snapshot(reference_db)
    total = len(reference["games"])
    assert reference["status"] == "finished" and total > 20

    # one database killed three times (at the start, early, mid-run), then resumed to the end
    db = tmp_path / "killed.db"
    kills = 0
    stored = []
    for moment in (0, 3, total // 2):
        kills += run_and_kill(cfg, db, moment)
        stored.append(count_games(db))
    assert kills >= 2, "the run finished before it could be killed"
    assert stored[-1] < total
    result = CliRunner().invoke(app, ["run", str(cfg), "--db", str(db), "--resume", "--json",
                                      "-q"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["games"] == total
    assert snapshot(db) == reference

    # Ctrl-C (SIGINT to the whole process group, as a terminal sends it): exit 130, then resume
    db = tmp_path / "interrupted.db"
    proc = subprocess.Popen(
        tourney("run", str(cfg), "--db", str(db), "-q"), env=env(), start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    while proc.poll() is None and count_games(db) < total // 3:
        time.sleep(0.005)
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate()
        assert proc.returncode == 130, err
        assert b"Traceback" not in err and b"--resume" in err
    else:
        proc.communicate()
    result = CliRunner().invoke(app, ["run", str(cfg), "--db", str(db), "--json", "-q"])
    assert result.exit_code == 0, result.output
    assert snapshot(db) == reference


def test_rerun_of_finished_event_plays_nothing(tmp_path):
    cfg = tmp_path / "event.toml"
    cfg.write_text(CONFIG.replace("ROOT", str(ROOT)).replace("rounds = 2", "rounds = 1")
                   .replace("games = 5", "games = 1"))
    db = tmp_path / "r.db"
    runner = CliRunner()
    first = runner.invoke(app, ["run", str(cfg), "--db", str(db), "--json", "-q", "-j", "1"])
    assert first.exit_code == 0, first.output
    before = snapshot(db)
    again = runner.invoke(app, ["run", str(cfg), "--db", str(db), "--json", "-q"])
    assert again.exit_code == 0
    assert json.loads(again.stdout) == json.loads(first.stdout)
    assert snapshot(db) == before
