"""A forfeit and a fault, one meaning each (docs/protocol.md, section 5; issue 39, point 5): a
fault is any breach of the protocol, recorded on its seat; a forfeit is a game that a fault cost.
In a league where A leaves first and B then times out, B wins: B's timeout is recorded as a fault
that came after the game was decided, and is no forfeit, in run's output, the database, the
standings' JSON and an older file brought up to date."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from typer.testing import CliRunner

import tourney.commands  # noqa: F401  (registers the commands)
from tourney.app import app
from tourney.results import store

FAULT_BOT = str(Path(__file__).resolve().parent / "bots" / "fault_bot.py")

#: A answers its first request and leaves 1 s later, while B is asked; B never answers and runs
#: out of its 3 s after that: A's leaving came first and decides the game
CONFIG = f"""
[event]
name = "late"
format = "league"
players = 2
games = 1
seed = 1
public_seeds = true

[limits]
sandbox = "off"
grace = 0.3

[[entrants]]
name = "A"
command = ["{{python}}", "{FAULT_BOT}", "leave_after", "1", "1.0"]

[[entrants]]
name = "B"
command = ["{{python}}", "{FAULT_BOT}", "hang", "1"]
limits = {{ decision_timeout = 3.0 }}
"""


def seats(db: Path) -> list[tuple]:
    con = sqlite3.connect(db)
    rows = con.execute("select e.name, st.winner, st.fault, st.forfeit from seats st "
                       "join entrants e on e.id = st.entrant_id order by st.seat").fetchall()
    con.close()
    return rows


def test_a_fault_after_the_game_was_decided_is_no_forfeit(tmp_path):
    config, db = tmp_path / "late.toml", tmp_path / "late.db"
    config.write_text(CONFIG)
    result = CliRunner().invoke(app, ["run", str(config), "--db", str(db), "-q"])
    assert result.exit_code == 0, result.stderr
    assert seats(db) == [("A", 0, "crash", 1), ("B", 1, "timeout", 0)]
    err = result.stderr
    assert "fault: B in game 1: timeout" in err and "(after the game was decided: not a forfeit)" in err
    assert "  A: 1 fault (crash 1), 1 game forfeited; see:" in err
    assert "  B: 1 fault (timeout 1), 0 games forfeited; see:" in err
    rows = {r["entrant"]: r for r in json.loads(CliRunner().invoke(
        app, ["standings", "late", "--db", str(db), "--json"]).stdout)["standings"]}
    assert (rows["B"]["wins"], rows["B"]["faults"], rows["B"]["fault_count"], rows["B"]["forfeits"]) == (
        1, {"timeout": 1}, 1, 0)
    assert (rows["A"]["faults"], rows["A"]["forfeits"]) == ({"crash": 1}, 1)
    # the game's page (tourney serve, report --format site) says it in words
    from tourney.web import pages

    reader = store.open_db(db, readonly=True)
    summary = pages.game_data(reader, 1)["summary"]
    reader.conn.close()
    assert any(line.startswith("A (seat 0) lost by a fault: crash") for line in summary)
    assert any(line.startswith("B (seat 1) faulted after the game was decided: timeout")
               and line.endswith("(not a forfeit).") for line in summary)

    # a file written before seats said so: the upgrade reads it from the replay
    old = tmp_path / "old.db"
    shutil.copy(db, old)
    con = sqlite3.connect(old)
    con.execute("drop view entrant_faults")
    con.execute("drop view seat_outcomes")
    con.execute("alter table seats drop column forfeit")
    con.execute("delete from _sqlite_migrations where name = 'm018_seat_forfeits'")
    con.commit()
    con.close()
    store.close_db(store.open_db(old))
    assert seats(old) == seats(db)
