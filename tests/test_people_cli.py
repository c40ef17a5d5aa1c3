"""Faults seen when they happen, configs that cannot start refused, replays anyone can read, and
the progress bar of a run (issue 15)."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pexpect
from helpers import GREEDY_AND_RANDOM, gone
from typer.testing import CliRunner

import tourney.commands  # noqa: F401  (registers the commands)
from tourney.app import app

ROOT = Path(__file__).resolve().parent.parent
FAULT_BOT = ROOT / "tests" / "bots" / "fault_bot.py"


def invoke(*args, input=None):
    return CliRunner().invoke(app, [str(a) for a in args], input=input)


def crash_config(tmp_path, mode="crash", games=3, extra="") -> Path:
    path = tmp_path / "crash.toml"
    path.write_text(f"""
[event]
name = "crashy"
format = "round-robin"
games = {games}
seed = 5
concurrency = 1

[[entrants]]
name = "crasher"
command = ["{{python}}", "{FAULT_BOT}", "{mode}", "2"]
{extra}

[[entrants]]
name = "greedy"
builtin = "greedy"
""")
    return path


def test_a_fault_prints_one_line_at_once_and_the_run_ends_with_a_summary(tmp_path):
    db = tmp_path / "t.db"
    r = invoke("run", crash_config(tmp_path), "--db", db)
    assert r.exit_code == 0, r.output
    faults = [line for line in r.stderr.splitlines() if line.startswith("fault: ")]
    games = json.loads(invoke("games", "--db", db, "--json").stdout)["games"]
    assert len(faults) == len(games) >= 2  # the crasher forfeits every game it plays
    for line, game in zip(faults, games):
        # the referee notices the exit or the closed stdout first, whichever comes first
        assert line.startswith(f"fault: crasher in game {game['id']}: crash: the bot ")
        assert line.endswith("(exit status 3)") and line.count("\n") == 0
    summary = r.stderr.splitlines()[r.stderr.splitlines().index("faults in this run:") + 1]
    n = len(games)
    assert summary.startswith(f"  crasher: {n} faults (crash {n}), {n} games forfeited; see: ")
    assert "tourney games --event crashy --entrant crasher" in summary and "--stderr" in summary
    assert "fault" not in r.stdout.split("event crashy")[0]  # stdout stays data: series lines and the table


def test_a_command_that_is_not_executable_is_refused_at_check_time(tmp_path):
    script = tmp_path / "bot.js"
    script.write_text("// not marked executable\n")
    config = tmp_path / "js.toml"
    config.write_text(f"""
[event]
name = "js"
format = "round-robin"
games = 1

[[entrants]]
name = "js"
command = ["{script}"]

[[entrants]]
name = "greedy"
builtin = "greedy"
""")
    db = tmp_path / "t.db"
    r = invoke("run", config, "--db", db)
    assert r.exit_code == 2 and r.stderr.count("\n") == 1
    assert r.stderr == (f"error: {config}: entrants[0] (js).command: {script} is not executable: make it so "
                        f'(chmod +x {script}), or run it with its interpreter: ["node", "{script}"]\n')
    assert not db.exists()
    r = invoke("play", "greedy", script, "--db", db)
    assert r.exit_code == 2 and "is not executable" in r.stderr and not db.exists()
    script.chmod(0o755)
    assert "is not executable" not in invoke("run", config, "--db", db).stderr


def played(tmp_path):
    db = tmp_path / "t.db"
    assert invoke("run", crash_config(tmp_path), "--db", db).exit_code == 0
    return db


def test_replay_json_lists_the_forfeits_faults_and_stderr(tmp_path):
    db = played(tmp_path)
    doc = json.loads(invoke("replay", "1", "--db", db, "--json").stdout)
    marker = next(i for i, c in enumerate(doc["choices"]) if c.startswith("forfeit:"))
    seat = doc["seats"].index("crasher")
    assert doc["choices"][marker] == f"forfeit:{seat}:crash"
    assert doc["forfeits"] == [[marker, seat, "crash"]]
    (fault,) = doc["faults"]  # the referee notices the exit or the closed stdout, whichever comes first
    assert {k: fault[k] for k in ("seat", "entrant", "code")} == {"seat": seat, "entrant": "crasher", "code": "crash"}
    assert fault["detail"].startswith("the bot ") and fault["detail"].endswith("(exit status 3)")
    assert doc["stderr"] == {"crasher": "fault_bot: crashing on purpose\n"}
    assert doc["matches_stored"] is True
    assert not any("{" in line or "player 0" in line for line in doc["log"])


def test_replay_shows_the_deal_every_decision_its_options_and_the_stderr(tmp_path):
    db = played(tmp_path)
    doc = json.loads(invoke("replay", "1", "--db", db, "--json").stdout)
    text = invoke("replay", "1", "--db", db, "--options", "--stderr").stdout
    lines = text.splitlines()
    assert lines[1] == "starting hands:"
    assert lines[2].startswith(f"  {doc['seats'][0]}: ") and lines[3].startswith(f"  {doc['seats'][1]}: ")
    chosen = [line for line in lines if line.startswith("> ")]
    assert len(chosen) == sum(1 for c in doc["choices"] if not c.startswith("forfeit:"))
    first = lines.index(chosen[0])
    marked = [line for line in lines[first + 1:] if re.match(r"    [* ] \d+\. ", line)]
    assert sum(1 for line in marked if line.startswith("    * ")) == len(chosen)
    assert "! fault: crasher crash: the bot " in text  # exited, or closed its stdout: whichever is seen first
    assert "stderr of crasher:\n  | fault_bot: crashing on purpose" in text


def test_replay_as_a_seat_shows_only_what_it_saw(tmp_path):
    db = played(tmp_path)
    doc = json.loads(invoke("replay", "1", "--db", db, "--json").stdout)
    me = doc["seats"].index("greedy")
    other = doc["seats"][1 - me]
    full = invoke("replay", "1", "--db", db).stdout
    mine = invoke("replay", "1", "--db", db, "--as", me).stdout
    other_hand = next(line for line in full.splitlines() if line.startswith(f"  {other}: "))
    assert other_hand not in mine
    assert f"  {other} drew " in full and f"  {other} drew " not in mine
    assert not any(line.startswith(f"> {other} chooses") for line in mine.splitlines())
    r = invoke("replay", "1", "--db", db, "--as", 5)
    assert r.exit_code == 2 and r.stderr == "error: --as 5: the game has seats 0 to 1\n"


def test_replay_step_walks_forward_back_and_quits(tmp_path):
    db = played(tmp_path)
    r = invoke("replay", "1", "--db", db, "--step", input="\n\nb\nq\n")
    assert r.exit_code == 0
    steps = re.findall(r"-- step (\d+) of (\d+) --", r.stdout)
    assert [int(s) for s, _ in steps] == [0, 1, 2, 1]
    assert r.stdout.count("[enter] next, b back, q quit: ") == 4


SLEEPER = """
import json, os, sys, time
marker = sys.argv[1]
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "hello", "protocol": "tourney-bot", "version": "1.0", "name": "sleeper"}),
              flush=True)
    elif message["type"] == "request":  # tell the test it is stuck, then never answer
        with open(marker + ".tmp", "w") as f:
            f.write(str(os.getpid()))
        os.replace(marker + ".tmp", marker)
        while True:
            time.sleep(3600)
"""


def wait_for(child: pexpect.spawn, marker: Path) -> int:
    """The pid the sleeper wrote once it is stuck in a game (the run is then safe to interrupt)."""
    while not marker.exists():
        ended = child.expect([pexpect.TIMEOUT, pexpect.EOF], timeout=0.05)
        assert not ended, f"the run ended before the sleeper was stuck: {child.before}"
    return int(marker.read_text())


def test_the_progress_bar_shows_time_and_a_resumed_run_counts_stored_games(tmp_path):
    (tmp_path / "sleeper.py").write_text(SLEEPER)
    marker = tmp_path / "stuck"
    config = tmp_path / "slow.toml"
    config.write_text(f"""
[event]
name = "slow"
format = "round-robin"
games = 3
seed = 2
concurrency = 1

[limits]
decision_timeout = 3600.0
sandbox = "off"  # the sleeper leaves its marker in the test's folder, outside its own
{GREEDY_AND_RANDOM}
[[entrants]]
name = "sleeper"
command = ["{{python}}", "{tmp_path / 'sleeper.py'}", "{marker}"]
""")
    env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="160", NO_COLOR="1")
    args = ["-m", "tourney", "run", str(config), "--db", str(tmp_path / "t.db")]
    child = pexpect.spawn(sys.executable, args, env=env, encoding="utf-8", timeout=60, dimensions=(40, 160))
    child.expect(r"series, \d+ games .*elapsed, .* left")
    child.expect(r"\x1b\[2Kseries 0: greedy \d - random \d")  # the bar's line is cleared first
    pid = wait_for(child, marker)  # series 1 waits on the sleeper forever
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130 and gone(pid)
    marker.unlink()
    child = pexpect.spawn(sys.executable, args, env=env, encoding="utf-8", timeout=60, dimensions=(40, 160))
    child.expect(r"resuming event 'slow': 1 of 3 series and (\d+) games already stored")
    stored = int(child.match.group(1))
    assert stored >= 2
    child.expect(rf"1/3 series, {stored} games")
    pid = wait_for(child, marker)
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130 and gone(pid)


def test_a_config_may_seat_a_human(tmp_path):
    from tourney.commands.running import has_human
    from tourney.config import load_config

    config = tmp_path / "club.toml"
    config.write_text("""
[event]
name = "club night"
format = "round-robin"
games = 1
concurrency = 4

[[entrants]]
name = "me"
builtin = "human"

[[entrants]]
name = "greedy"
builtin = "greedy"
""")
    cfg = load_config(config)
    assert [e.get("builtin") for e in cfg.entrants] == ["human", "greedy"] and has_human(cfg)
