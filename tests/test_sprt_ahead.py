"""The local pool plays an SPRT's next batch ahead (tourney.events.runner.Runner, ``ahead``): the
verdict, the games counted and the games themselves are those of batch after batch, at any -j,
and no game played past the stop is ever stored."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tourney.config import parse_config
from tourney.events import runner
from tourney.formats.sequential import BATCH
from tourney.results import store

ROOT = Path(__file__).resolve().parent.parent
SMART = str(ROOT / "examples" / "bots" / "smart_bot.py")
LOG_BOT = str(ROOT / "tests" / "bots" / "log_bot.py")

#: what the code before playing ahead answered, at -j 1 and -j 2 alike (smart against its noisy
#: self, seed 3, public seeds, --elo0 0 --elo1 60 unless given again): verdict, games, LLR
BEFORE = {
    (): ("H1 accepted", 48, 3.0871),
    ("--max-games", "20"): ("inconclusive", 20, 0.7394),
    ("--duplicate", "--elo1", "120"): ("H1 accepted", 32, 4.5889),
}


def cli_sprt(tmp_path: Path, jobs: int, extra: tuple[str, ...]) -> tuple[str, int, float, int, str]:
    """``tourney sprt`` in a process of its own: verdict, games, LLR, games stored, and a digest
    of every stored game (series, game, deal seed, first player, winners, decisions, moves)."""
    conf = tmp_path / "c.toml"
    conf.write_text('[event]\nname = "t"\nformat = "sprt"\nentrants = ["smart", "noisy"]\n\n'
                    f'[[entrants]]\nname = "smart"\ncommand = ["{{python}}", "{SMART}"]\n\n'
                    f'[[entrants]]\nname = "noisy"\ncommand = ["{{python}}", "{SMART}", "--noise", "0.3"]\n')
    db = tmp_path / f"j{jobs}-{'-'.join(extra)}.db"
    done = subprocess.run(
        [sys.executable, "-m", "tourney", "sprt", "smart", "noisy", "--config", str(conf), "-j", str(jobs),
         "--seed", "3", "--public-seeds", "--elo0", "0", "--elo1", "60", "--db", str(db), "--json", *extra],
        capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)["sprt"]
    con = sqlite3.connect(db)
    rows = con.execute(
        "select s.idx, g.idx, g.seed, g.first_player, g.winners, g.decisions, r.choices, r.choices_z "
        "from games g join series s on s.id = g.series_id join replays r on r.game_id = g.id "
        "order by s.idx, g.idx").fetchall()
    con.close()
    return (result["verdict"], result["games"], result["llr"], len(rows),
            hashlib.sha256(repr(rows).encode()).hexdigest())


@pytest.mark.parametrize("extra", list(BEFORE))
def test_the_verdict_and_the_games_are_those_of_batch_after_batch_at_j1_and_j2(tmp_path, extra):
    verdict, games, llr = BEFORE[extra]
    one = cli_sprt(tmp_path, 1, extra)  # one process: batch after batch, nothing ahead
    two = cli_sprt(tmp_path, 2, extra)  # two workers, the next batch played ahead
    assert one[:4] == two[:4] == (verdict, games, llr, games)  # nothing stored past the stop
    assert one[4] == two[4]  # the same deals, moves and results


def log_entrant(name: str, log: Path, *gate: str) -> dict:
    return {"name": name, "command": [sys.executable, LOG_BOT, str(log), name, *gate], "cwd": str(ROOT),
            "limits": {"startup_timeout": 60.0, "decision_timeout": 60.0, "sandbox": "off"}}


def sprt_event(tmp_path: Path, entrants: list[dict]):
    raw = {"event": {"name": "s", "format": "sprt", "seed": 3, "elo0": 0, "elo1": 150, "public_seeds": True,
                     "entrants": [e["name"] for e in entrants]},
           "entrants": entrants}
    cfg = parse_config(raw, base_dir=str(ROOT))
    db = store.open_db(str(tmp_path / "s.db"))
    event_id, _ = runner.prepare_event(db, cfg, "test")
    return cfg, db, event_id


def stored(db) -> list[tuple]:
    return [tuple(r) for r in db.execute("select s.idx, g.idx from games g join series s on s.id = g.series_id "
                                         "order by s.idx, g.idx")]


def test_a_batch_played_ahead_of_a_stop_is_never_stored(tmp_path):
    log = tmp_path / "log"
    log.touch()
    # series 0's game waits until a game of the next batch (series BATCH on) has begun: the
    # batch ahead is being played when the first batch ends, and the test then stops
    cfg, db, event_id = sprt_event(tmp_path, [log_entrant("a", log, str(BATCH)), log_entrant("b", log)])
    tasks = runner.pending_tasks(db, event_id, cfg)
    assert [t.idx for t in tasks] == list(range(BATCH))
    run = runner.Runner(db, event_id, tasks, 2, more=list,  # the test stops after the first batch
                        ahead=lambda: runner.ahead_tasks(db, event_id, cfg))
    run.run()
    lines = log.read_text().split()
    assert any(int(i) >= BATCH for kind, i in zip(lines[::4], lines[3::4]) if kind == "game")
    assert stored(db) == [(i, 0) for i in range(BATCH)]
    assert len(store.series_rows(db, event_id)) == BATCH  # the batch ahead was never stored
    assert run.ahead_counts["rounds"] == 1 and run.ahead_counts["dropped"] == 1
    assert run.ahead_counts["kept"] == 0


def test_a_batch_ahead_that_differs_from_the_next_one_is_dropped_and_the_next_one_played(tmp_path):
    cfg, db, event_id = sprt_event(tmp_path, [{"name": "g", "builtin": "greedy"},
                                              {"name": "r", "builtin": "random"}])
    tasks = runner.pending_tasks(db, event_id, cfg)
    rounds = []

    def more():  # one more batch, as the event schedules it
        new = runner.next_round_tasks(db, event_id, cfg) if not rounds else []
        rounds.append(new)
        return new

    def ahead():  # a guess with the other seats: not what comes next
        return [t.__class__(**{**t.__dict__, "entrants": t.entrants[::-1]})
                for t in runner.ahead_tasks(db, event_id, cfg)]

    run = runner.Runner(db, event_id, tasks, 2, more=more, ahead=ahead)
    run.run()
    assert len(rounds[0]) == BATCH
    assert stored(db) == [(i, 0) for i in range(2 * BATCH)]
    seats = {r["idx"]: [e["name"] for e in r["entrants"]] for r in store.series_rows(db, event_id)}
    assert seats[BATCH] == ["g", "r"] and seats[BATCH + 1] == ["r", "g"]  # the scheduled seats
    played = [r[0] for r in db.execute(
        "select e.name from seats st join games g on g.id = st.game_id join series s on s.id = g.series_id "
        "join entrants e on e.id = st.entrant_id where s.idx = ? order by st.seat", [BATCH])]
    assert played == ["g", "r"]  # played as scheduled, not as guessed
    assert run.ahead_counts["kept"] == 0 and run.ahead_counts["dropped"] == 2
