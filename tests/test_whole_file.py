"""The results file is whole after every command that writes (docs/formats.md, "The results
file"): however a command ends (done, a user error, Ctrl-C, a bot's crash) its WAL is folded back
into the ``.db`` and removed, so the ``.db`` copied alone holds every game; a reader beside a
running event keeps reading; after ``kill -9`` the next open recovers the WAL left beside the file.
And a file that is no results file is named for what it is (issue 39, points 1 and 9)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from helpers import FAULT_BOT, GREEDY_AND_RANDOM, ROOT, count_games, start_serve, stop_serve
from typer.testing import CliRunner

import tourney.commands  # noqa: F401  (registers the commands)
from tourney.app import app

TOURNEY = [sys.executable, "-m", "tourney"]


def games_in_copy(db: Path, tmp_path: Path) -> int:
    """The games found in a copy of the ``.db`` file alone, in a folder of its own."""
    folder = tmp_path / f"copy-{time.monotonic_ns()}"
    folder.mkdir()
    shutil.copy(db, folder / db.name)
    return count_games(folder / db.name)


def leftovers(db: Path) -> list[str]:
    return [p.name for p in db.parent.iterdir() if p.name.startswith(db.name + "-")]


def cli(*args: str, code: int = 0):
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == code, (result.stdout, result.stderr)
    return result


def league(tmp_path: Path, name: str = "l", games: int = 2, extra: str = "", fmt: str = "league") -> Path:
    config = tmp_path / f"{name}.toml"
    config.write_text(f'[event]\nname = "{name}"\nformat = "{fmt}"\nplayers = 2\ngames = {games}\nseed = 5\n'
                      + GREEDY_AND_RANDOM + extra)
    return config


def test_match_in_a_temp_folder_leaves_no_wal_and_the_db_alone_holds_its_games(tmp_path):
    done = subprocess.run([*TOURNEY, "match", "greedy", "random", "-n", "3", "--db", "t.db"], cwd=tmp_path,
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.db"]
    played = sum(line.startswith("game ") for line in done.stdout.splitlines())
    assert played >= 2 and games_in_copy(tmp_path / "t.db", tmp_path) == played


def test_every_writing_command_leaves_the_db_whole(tmp_path):
    db = tmp_path / "w.db"
    expected = 0
    cli("play", "greedy", "random", "--db", str(db))
    expected += 1
    cli("match", "greedy", "random", "-n", "1", "--db", str(db))
    expected += 1
    cli("run", str(league(tmp_path)), "--db", str(db), "-q")
    expected += 2
    out = cli("sprt", "greedy", "random", "--elo0", "0", "--elo1", "400", "--max-games", "4", "-j", "1",
              "--db", str(db), "--json", "--public-seeds")
    expected += json.loads(out.stdout)["sprt"]["games"]
    assert leftovers(db) == [] and games_in_copy(db, tmp_path) == expected
    cli("ladder", "new", "spring", "--players", "2", "--seed", "3", "--db", str(db))
    for author, bot in (("ann", "greedy"), ("bo", "random")):
        cli("ladder", "submit", "spring", author, "--builtin", bot, "--db", str(db))
    cli("ladder", "run", "spring", "--games", "4", "-q", "-j", "1", "--db", str(db))
    expected += 4
    assert leftovers(db) == [] and games_in_copy(db, tmp_path) == expected
    cli("club", "new", "thu", "--players", "Ann,Bea", "--seed", "7", "--db", str(db))
    cli("club", "add", "thu", "--cards", "Ann=0,Bea=3", "--db", str(db))
    assert leftovers(db) == []
    shutil.copy(db, tmp_path / "club-copy.db")
    con = sqlite3.connect(tmp_path / "club-copy.db")
    assert con.execute("select count(*) from club_results").fetchone()[0] >= 1
    con.close()


def test_a_user_error_and_a_bot_crash_leave_the_db_whole(tmp_path):
    db = tmp_path / "e.db"
    crash = f'\n[[entrants]]\nname = "crash"\ncommand = ["{{python}}", "{FAULT_BOT}", "crash", "1"]\n'
    cli("run", str(league(tmp_path, "c", 1, crash, "round-robin")), "--db", str(db), "-q")  # a bot crashes: a fault
    played = count_games(db)
    assert played == 3 and leftovers(db) == [] and games_in_copy(db, tmp_path) == played
    # the same event name, another config: refused (a user error) after the file was opened
    cli("run", str(league(tmp_path, "c", 3, crash, "round-robin")), "--db", str(db), "-q", code=2)
    assert leftovers(db) == [] and games_in_copy(db, tmp_path) == played


def test_ctrl_c_leaves_the_db_whole_and_kill_9_leaves_a_wal_the_next_open_recovers(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for sig in (signal.SIGINT, signal.SIGKILL):
        db = tmp_path / f"{sig.name}.db"
        config = league(tmp_path, sig.name, 400)
        proc = subprocess.Popen([*TOURNEY, "run", str(config), "--db", str(db), "-q", "-j", "1"], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 120
            while count_games(db) < 3:
                assert proc.poll() is None and time.monotonic() < deadline
                time.sleep(0.05)
            proc.send_signal(sig)
            proc.wait(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        stored = count_games(db)
        assert stored >= 3
        if sig == signal.SIGINT:
            assert proc.returncode == 130
            assert leftovers(db) == [] and games_in_copy(db, tmp_path) == stored
        else:  # the WAL stays beside the file; copied together, the next open folds it back
            assert f"{db.name}-wal" in leftovers(db)
            folder = tmp_path / "killed"
            folder.mkdir()
            for part in [db.name, *leftovers(db)]:
                shutil.copy(tmp_path / part, folder / part)
            out = cli("games", "--db", str(folder / db.name), "--json")
            assert len(json.loads(out.stdout)["games"]) == stored
            cli("upgrade", "--db", str(folder / db.name))  # a writing open, and its close
            assert leftovers(folder / db.name) == []
            assert games_in_copy(folder / db.name, tmp_path) == stored


def test_a_reader_beside_a_running_event_keeps_reading_and_the_db_is_whole(tmp_path):
    db = tmp_path / "r.db"
    cli("match", "greedy", "random", "-n", "1", "--db", str(db))
    proc, url = start_serve(db)
    try:
        def page() -> int:
            with urllib.request.urlopen(url + "/", timeout=30) as response:
                return response.status

        assert page() == 200
        cli("run", str(league(tmp_path, "beside", 4)), "--db", str(db), "-q")
        assert page() == 200
        # the reader keeps the file open: the WAL may stay, emptied; the .db has every game
        assert games_in_copy(db, tmp_path) == 5
        assert all((tmp_path / name).stat().st_size == 0 for name in leftovers(db) if name.endswith("-wal"))
    finally:
        stop_serve(proc)


@pytest.mark.parametrize("content, word", [
    (b"[event]\nname = 'x'\n", "not a SQLite database (a text file)"),
    (bytes(range(256)) * 4, "not a SQLite database (a binary file)"),
    (None, "a SQLite database of another program (tables: notes)"),
], ids=["text", "binary", "foreign"])
def test_a_file_that_is_no_results_file_is_named_for_what_it_is(tmp_path, content, word):
    db = tmp_path / "x.db"
    if content is None:
        con = sqlite3.connect(db)
        con.execute("create table notes (text)")
        con.commit()
        con.close()
    else:
        db.write_bytes(content)
    before = db.read_bytes()
    for args in (["standings"], ["match", "greedy", "random", "-n", "1"]):
        result = cli(*args, "--db", str(db), code=2)
        assert f"error: {db}: {word}" in result.stderr and "upgrade" not in result.stderr
    assert db.read_bytes() == before  # nothing written into another program's file


def test_an_empty_file_is_a_new_database(tmp_path):
    db = tmp_path / "empty.db"
    db.touch()
    result = cli("standings", "--db", str(db), code=2)
    assert "nothing has been stored there yet" in result.stderr and "upgrade" not in result.stderr
    cli("match", "greedy", "random", "-n", "1", "--db", str(db))
    assert count_games(db) == 1


def test_a_second_connection_keeps_this_process_s_locks_so_another_writer_leaves_the_wal_alone(tmp_path):
    # reading the file's first bytes by other means, then closing that descriptor, would drop every
    # POSIX lock this process holds on it (SQLite's too): another process ending its command could
    # then put the file back in the rollback journal, or remove the WAL, under this one's connections
    from tourney.results import store

    path = tmp_path / "two.db"
    first = store.open_db(path)
    first["t"].insert({"x": 1})
    second = store.open_db(path)  # a server's second thread, say
    second["t"].insert({"x": 2})
    other = subprocess.run([sys.executable, "-c", (
        "import sys; from tourney.results import store\n"
        f"db = store.open_db({str(path)!r}); db['t'].insert({{'x': 3}}); store.close_writers()\n")],
        env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=120)
    assert other.returncode == 0, other.stderr
    assert first.execute("pragma journal_mode").fetchone()[0] == "wal"
    assert {f"{path.name}-wal", f"{path.name}-shm"} <= set(leftovers(path))
    first["t"].insert({"x": 4})
    second["t"].insert({"x": 5})
    assert first.execute("select count(*) from t").fetchone()[0] == 5
    assert first.execute("pragma integrity_check").fetchone()[0] == "ok"
    store.close_db(first)
    store.close_db(second)


def test_a_writer_s_transaction_holds_the_write_lock_from_its_first_read(tmp_path):
    # with sqlite-utils' plain BEGIN a transaction that read first, then met another writer's newer
    # commit, could not write at all ("database is locked" at once, no waiting): a ladder's runner
    # died of it beside `ladder submit`. Now the other writer is the one that waits
    from tourney.results import store

    path = tmp_path / "lock.db"
    runner = store.open_db(path)
    runner["t"].insert({"x": 1})
    submit = sqlite3.connect(path, timeout=0.2)  # another process's connection, patient for 0.2 s
    with runner.atomic():
        assert runner.execute("select count(*) from t").fetchone()[0] == 1  # read first
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            submit.execute("insert into t (x) values (2)")  # waits for the runner, then gives up
        runner["t"].insert({"x": 3})  # and the runner's own write goes through
    submit.execute("insert into t (x) values (2)")  # after the commit, the other writer's turn
    submit.commit()
    submit.close()
    assert sorted(x for (x,) in runner.execute("select x from t")) == [1, 2, 3]
    store.close_db(runner)
