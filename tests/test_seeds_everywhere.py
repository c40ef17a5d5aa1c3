"""Seeds as documented, in every mode (docs/formats.md, "Seeding and reproducibility"; issue 39,
point 3): a bot that seeds from ``hello.seed`` (protocol 1.0) and one that seeds from every
``game_start.seed`` (1.2, ``reuse``) play the same games at ``-j 1``, ``-j 2``, on a Dask cluster
and after an interrupted run is resumed, under each restart setting; every seed any process
receives is one of the seeding table; and no process is started that plays no game."""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import tourney.commands  # noqa: F401  (registers the commands)
from tourney import seeding
from tourney.app import app
from tourney.results import store

ROOT = Path(__file__).resolve().parent.parent
SEED_BOT = str(ROOT / "tests" / "bots" / "seed_bot.py")
EVENT_SEED, SERIES, GAMES = 11, 3, 2  # a round robin of three entrants, two games a pair


@pytest.fixture(scope="module")
def cluster():
    """A local Dask cluster's address (two worker processes), or None without Dask."""
    try:
        import distributed
    except ImportError:  # the cluster is an extra: the other modes are still checked
        yield None
        return
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as c:
        yield c.scheduler_address


def config(tmp_path: Path, restart: str, log: Path) -> Path:
    path = tmp_path / f"seeds-{restart}.toml"
    path.write_text(f"""
[event]
name = "seeds"
format = "round-robin"
unit = "league"
seed = {EVENT_SEED}
public_seeds = true  # the runs are events of their own: deal them alike
players = 2
games = {GAMES}

[limits]
sandbox = "off"  # the bots write down their seeds outside their folder
restart = "{restart}"
startup_timeout = 30.0
decision_timeout = 30.0

[[entrants]]
name = "hello"
command = ["{sys.executable}", "{SEED_BOT}", "hello", "{log}"]

[[entrants]]
name = "game"
command = ["{sys.executable}", "{SEED_BOT}", "game", "{log}"]

[[entrants]]
name = "greedy"
builtin = "greedy"
""")
    return path


def games_of(db: Path) -> list[tuple]:
    con = sqlite3.connect(db)
    rows = con.execute(
        "select s.idx, g.idx, g.seed, g.first_player, g.winners, r.choices_z, "
        "(select group_concat(coalesce(st.fault, '-'), ' ') from seats st where st.game_id = g.id) "
        "from games g join series s on s.id = g.series_id join replays r on r.game_id = g.id "
        "order by s.idx, g.idx").fetchall()
    con.close()
    return rows


def players(db: Path) -> set[int]:
    """The pids of the bot processes that played a stored game (each says so on stderr)."""
    con = sqlite3.connect(db)
    found = set()
    for (text,) in con.execute("select stderr from game_logs"):
        for err in json.loads(text).values():
            found |= {int(line.split()[1]) for line in err.splitlines() if line.startswith("pid ")}
    con.close()
    return found


TABLE = {seeding.entrant_seed(EVENT_SEED, s, seat) for s in range(SERIES) for seat in range(2)} | {
    seeding.game_entrant_seed(EVENT_SEED, s, seat, g) for s in range(SERIES) for seat in range(2)
    for g in range(GAMES)}


def run(cfg: Path, db: Path, *options: str, code: int = 0) -> None:
    result = CliRunner().invoke(app, ["run", str(cfg), "--db", str(db), "-q", *options])
    assert result.exit_code == code, (result.stdout, result.stderr)


@pytest.mark.parametrize("restart", ["never", "series", "game"])
def test_seeded_bots_play_the_same_games_in_every_mode(tmp_path, cluster, monkeypatch, restart):
    runs = {}
    modes = [("j1", ["-j", "1"]), ("j2", ["-j", "2"])] + ([("cluster", ["--cluster", cluster])] if cluster else [])
    for mode, options in modes:
        log = tmp_path / f"{mode}.log"
        db = tmp_path / f"{mode}.db"
        run(config(tmp_path, restart, log), db, *options)
        runs[mode] = (db, log)
    # interrupted (as Ctrl-C would) once two games are stored, then resumed
    log, db = tmp_path / "resumed.log", tmp_path / "resumed.db"
    record = store.record_games

    def interrupted(*args, **kwargs):
        ids = record(*args, **kwargs)
        if len(games_of(db)) >= 2:
            raise KeyboardInterrupt
        return ids

    monkeypatch.setattr(store, "record_games", interrupted)
    run(config(tmp_path, restart, log), db, "-j", "2", code=130)
    monkeypatch.setattr(store, "record_games", record)
    assert 2 <= len(games_of(db)) < SERIES * GAMES
    run(config(tmp_path, restart, log), db, "-j", "2")
    runs["resumed"] = (db, log)

    reference = games_of(runs["j1"][0])
    assert len(reference) == SERIES * GAMES and all(row[6] == "- -" for row in reference)
    for mode, (db, log) in runs.items():
        assert games_of(db) == reference, mode
        received = [line.split() for line in log.read_text().splitlines()]
        assert {int(seed) for _, _, seed in received} <= TABLE, mode  # every seed is the table's
        if mode != "resumed":  # (the interrupted run's processes played games that were lost)
            assert {int(pid) for pid, kind, _ in received if kind == "hello"} <= players(db), mode
