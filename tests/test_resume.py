"""Interrupted runs: a real ``tourney run`` is killed with SIGKILL at several moments, or
stopped with Ctrl-C, and resumed; the resumed database must hold exactly the games of an
uninterrupted run.

The interruptions cannot come too late: one entrant is tests/bots/gate_bot.py, which stops
answering at a chosen request of the run, so the run is still going when the test interrupts it.
"""

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import GREEDY_AND_RANDOM, children, count_games, processes_with, snapshot
from typer.testing import CliRunner

import tourney.commands  # registers the commands
from tourney.app import app

ROOT = Path(__file__).resolve().parent.parent
SMART = str(ROOT / "examples" / "bots" / "smart_bot.py")

#: the limits and the two subprocess bots of every config here: a gate bot, which the test holds
#: up at a chosen request, and the example smart bot
GATED = """
[limits]
decision_timeout = 30.0  # long: a held-up gate bot is interrupted, never timed out
sandbox = "off"  # the gate bot counts requests in the test's folder, outside its own

[[entrants]]
name = "py-gate"
command = ["{python}", "ROOT/tests/bots/gate_bot.py", "GATE"]

[[entrants]]
name = "py-smart"
command = ["{python}", "ROOT/examples/bots/smart_bot.py"]
"""

CONFIG = """
[event]
name = "resume"
format = "round-robin"
seed = 42
public_seeds = true  # the reference and the interrupted run are two events: deal them alike
games = 3
rounds = 1
concurrency = 2

""" + GREEDY_AND_RANDOM + GATED


def tourney(*args):
    return [sys.executable, "-m", "tourney", *args]


def env():
    e = dict(os.environ)
    e["PYTHONPATH"] = str(ROOT) + os.pathsep + e.get("PYTHONPATH", "")
    e.pop("TOURNEY_DB", None)
    return e


def set_gate(gate: Path, block_at: int | None) -> None:
    """Restart the gate bots' request count; make request ``block_at`` of the next run block."""
    for name in ("requests", "waiting", "block_at"):
        (gate / name).unlink(missing_ok=True)
    if block_at is not None:
        (gate / "block_at").write_text(str(block_at))


def gate_requests(gate: Path) -> int:
    return int((gate / "requests").read_text())


def wait_until_blocked(proc: subprocess.Popen, gate: Path) -> None:
    """Wait until a gate bot is holding the run up; the run cannot have finished."""
    while not (gate / "waiting").exists():
        assert proc.poll() is None, "the run ended although a gate bot never answered"
        time.sleep(0.005)


def wait_for_exit(pids: list[int]) -> None:
    """Block until every process of ``pids`` has exited (they are not our children)."""
    for pid in pids:
        try:
            fd = os.pidfd_open(pid)
        except ProcessLookupError:
            continue
        try:
            select.select([fd], [], [])
        finally:
            os.close(fd)


def kill_while_blocked(cfg: Path, db: Path, gate: Path, block_at: int) -> None:
    """Start a run that resumes ``db``, SIGKILL its main process once a gate bot blocks it,
    and wait until its workers have left (they close their bots when the main process dies)."""
    set_gate(gate, block_at)
    proc = subprocess.Popen(tourney("run", str(cfg), "--db", str(db), "-q", "--resume"),
                            env=env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until_blocked(proc, gate)
        workers = children(proc.pid)
        warm = processes_with(SMART, also="python", zombies=False)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert workers  # concurrency 2: the series ran in worker processes
    assert warm  # the warm bots of the workers' pools (protocol 1.2 reuse)
    wait_for_exit(workers)
    # nothing of any warm bot is left: the workers and the keepers end them (docs/protocol.md)
    end = time.monotonic() + 30
    while processes_with(SMART, also="python", zombies=False) and time.monotonic() < end:
        time.sleep(0.05)
    assert processes_with(SMART, also="python", zombies=False) == []


def reference_run(tmp_path: Path, config: str) -> tuple[Path, Path, dict]:
    """Write ``config`` (its gate bots counting in a new folder) and run it uninterrupted; returns
    the config's path, the gate folder and a snapshot of the reference database."""
    gate = tmp_path / "gate"
    gate.mkdir()
    cfg = tmp_path / "event.toml"
    cfg.write_text(config.replace("ROOT", str(ROOT)).replace("GATE", str(gate)))
    reference_db = tmp_path / "reference.db"
    set_gate(gate, None)
    subprocess.run(tourney("run", str(cfg), "--db", str(reference_db), "-q"), env=env(),
                   check=True, stdout=subprocess.DEVNULL)
    return cfg, gate, snapshot(reference_db)


def test_kill_and_resume_equals_uninterrupted(tmp_path):
    cfg, gate, reference = reference_run(tmp_path, CONFIG)
    total = len(reference["games"])
    requests = gate_requests(gate)  # the gate bots' requests in a whole run
    assert reference["status"] == "finished" and total > 10 and requests > 100

    # one database killed three times (at the first gate request, early, mid-run), then resumed.
    # A run blocks at request N of its own count, so the games it stores hold fewer than N gate
    # requests: after the kills, at least half of the gate requests of a whole run are still to
    # come, and every run reaches its N.
    db = tmp_path / "killed.db"
    stored = []
    for block_at in (1, requests // 4, requests // 4):
        kill_while_blocked(cfg, db, gate, block_at)
        stored.append(count_games(db))
    assert stored == sorted(stored) and stored[-1] < total  # nothing lost, nothing finished
    set_gate(gate, None)
    result = CliRunner().invoke(app, ["run", str(cfg), "--db", str(db), "--resume", "--json",
                                      "-q"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["games"] == total
    assert snapshot(db) == reference

    # Ctrl-C (SIGINT to the whole process group, as a terminal sends it): exit 130, then resume
    db = tmp_path / "interrupted.db"
    set_gate(gate, requests // 3)
    proc = subprocess.Popen(
        tourney("run", str(cfg), "--db", str(db), "-q"), env=env(), start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    wait_until_blocked(proc, gate)
    workers = children(proc.pid)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate()
    wait_for_exit(workers)
    assert proc.returncode == 130, err
    # one line that says how to go on, no traceback
    assert err.decode() == f"interrupted: finished games are stored; resume with: tourney run {cfg} --resume\n"
    assert 0 < count_games(db) < total
    set_gate(gate, None)
    result = CliRunner().invoke(app, ["run", str(cfg), "--db", str(db), "--json", "-q"])
    assert result.exit_code == 0, result.output
    assert snapshot(db) == reference


def test_rerun_of_finished_event_plays_nothing(tmp_path):
    cfg = tmp_path / "event.toml"
    cfg.write_text(CONFIG.replace("ROOT", str(ROOT)).replace("GATE", str(tmp_path))
                   .replace("games = 3", "games = 1"))
    db = tmp_path / "r.db"
    runner = CliRunner()
    first = runner.invoke(app, ["run", str(cfg), "--db", str(db), "--json", "-q", "-j", "1"])
    assert first.exit_code == 0, first.output
    before = snapshot(db)
    again = runner.invoke(app, ["run", str(cfg), "--db", str(db), "--json", "-q"])
    assert again.exit_code == 0
    assert json.loads(again.stdout) == json.loads(first.stdout)
    assert snapshot(db) == before


SWISS = """
[event]
name = "resume-swiss"
format = "swiss"
seed = 8
public_seeds = true  # the reference and the interrupted run are two events: deal them alike
games = 1
rounds = 3
duplicate = true
concurrency = 2

""" + GREEDY_AND_RANDOM + GATED + """
[[entrants]]
name = "greedy-2"
builtin = "greedy"
"""


def test_kill_and_resume_a_duplicate_swiss(tmp_path):
    # rounds made from results, and duplicate sets cut anywhere: the resumed event must pair
    # the same rounds and finish every set exactly as an uninterrupted run
    cfg, gate, reference = reference_run(tmp_path, SWISS)
    total = len(reference["games"])
    requests = gate_requests(gate)
    assert reference["status"] == "finished" and len(reference["series"]) == 9
    db = tmp_path / "killed.db"
    stored = []
    for block_at in (1, requests // 4, requests // 4):  # as in the test above: never too late
        kill_while_blocked(cfg, db, gate, block_at)
        stored.append(count_games(db))
    assert stored == sorted(stored) and stored[-1] < total
    set_gate(gate, None)
    result = CliRunner().invoke(app, ["run", str(cfg), "--db", str(db), "--json", "-q"])
    assert result.exit_code == 0, result.output
    assert snapshot(db) == reference


SPRT = """
[event]
name = "resume-sprt"
format = "sprt"
entrants = ["py-smart", "py-gate"]
seed = 7
public_seeds = true
elo0 = 0
elo1 = 150
concurrency = 2

""" + GATED


def test_kill_and_resume_an_sprt_played_a_batch_ahead(tmp_path):
    # the workers play the next batch before the test has looked at the last one: a kill may
    # come in either; the resumed test must store the same games and stop at the same place
    cfg, gate, reference = reference_run(tmp_path, SPRT)
    total = len(reference["games"])
    requests = gate_requests(gate)
    assert reference["status"] == "finished" and total > 16
    db = tmp_path / "killed.db"
    stored = []
    for block_at in (1, requests // 4, requests // 4):
        kill_while_blocked(cfg, db, gate, block_at)
        stored.append(count_games(db))
    assert stored == sorted(stored) and stored[-1] < total
    set_gate(gate, None)
    result = CliRunner().invoke(app, ["run", str(cfg), "--db", str(db), "--json", "-q"])
    assert result.exit_code == 0, result.output
    assert snapshot(db) == reference


@pytest.mark.parametrize("concurrency, group", [("1", False), ("2", True)])
def test_sigterm_stops_a_run_as_ctrl_c_does_and_it_resumes(tmp_path, concurrency, group):
    """A service manager's SIGTERM, to the runner alone or to its whole process group (the
    workers get it too): exit 143, said on stderr without a traceback, no bot left, the finished
    games stored, and --resume plays the rest."""
    from helpers import RANDOM_BOT, leftovers, terminate_while_playing

    bots = []
    for name in ("ann", "bo"):
        bots.append(tmp_path / f"{name}_term_bot.py")
        bots[-1].write_text(Path(RANDOM_BOT).read_text())
    config = tmp_path / "term.toml"
    config.write_text('[event]\nname = "term"\nformat = "round-robin"\ngames = 1\nrounds = 30\nseed = 4\n\n'
                      '[limits]\nsandbox = "off"\n\n'
                      + "".join(f'[[entrants]]\nname = "{b.stem}"\ncommand = ["{{python}}", "{b}"]\n\n' for b in bots))
    db = tmp_path / "t.db"
    env = {**os.environ, "TOURNEY_DB": str(db), "PYTHONPATH": str(ROOT)}
    pid, code, said = terminate_while_playing(
        [sys.executable, "-m", "tourney", "run", str(config), "-j", concurrency, "-q"], env, db, 3, group, tmp_path)
    assert code == 143, said
    assert "interrupted (SIGTERM): finished games are stored; resume with: tourney run" in said, said
    assert "Traceback" not in said
    assert all(processes_with(str(bot), also=str(bot), zombies=False) == [] for bot in bots)
    assert [p for p in leftovers({pid}) if p[3] == pid] == []
    stored = count_games(db)
    assert 3 <= stored < 30
    done = subprocess.run([sys.executable, "-m", "tourney", "run", str(config), "--resume", "-q"], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert count_games(db) == 30
