"""A sandbox never outlives its referee: the referee's process group is SIGKILLed the moment a
new sandbox appears, again and again, and nothing of any sandbox is left (issue 22, point 9)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import reap_adopted

from tourney.bots import keeper, sandbox

ROOT = Path(__file__).resolve().parent.parent

#: a referee that plays game after game, each with a freshly started sandboxed bot (as in a
#: duplicate-deals event, where every game starts new processes)
RUNNER = """
import sys
from tourney.bots.entrants import EntrantSpec, Limits, open_entrant
from tourney.bots.referee import play_game
from tourney.bots.sandbox import Policy

spec = EntrantSpec("b", command=("{python}", sys.argv[1]), sandbox=Policy("on"), limits=Limits(grace=0.2))
while True:
    with open_entrant(spec, 1) as bot, open_entrant(EntrantSpec("r", builtin="random"), 2) as other:
        play_game([bot, other], seed=1)
"""


#: how long after a new sandbox's bwrap appears the referee is killed, in turn (seconds)
DELAYS = (0.0, 0.001, 0.002, 0.003, 0.005, 0.008)
ROUNDS = int(os.environ.get("TOURNEY_KEEPER_ROUNDS", "18"))


def processes() -> dict[int, tuple[int, str, bytes]]:
    """pid -> (parent pid, command name, command line) of every process we can see."""
    found = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                continue
            name = stat[stat.index("(") + 1: stat.rindex(")")]
            ppid = int(stat[stat.rindex(")") + 2:].split()[1])
            found[int(entry)] = (ppid, name, cmdline)
    return found


def stat_of(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][:40]
    except OSError:
        return "gone"


def marked(marker: bytes) -> list[int]:
    return [pid for pid, (_, _, cmdline) in processes().items() if marker in cmdline]


@pytest.mark.skipif(sandbox.problem() is not None, reason="no working sandbox here")
def test_killing_the_referee_as_a_sandbox_starts_leaves_nothing(tmp_path):
    bot_dir = tmp_path / "keeper-marker-bot"
    bot_dir.mkdir()
    bot = bot_dir / "bot.py"
    shutil.copy(ROOT / "examples" / "bots" / "random_bot.py", bot)
    marker = str(bot_dir).encode()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    kills = 0
    try:
        for round_ in range(ROUNDS):
            referee = subprocess.Popen([sys.executable, "-c", RUNNER, str(bot)], env=env,
                                       start_new_session=True, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL)
            seen: set[int] = set()
            wanted = 1 + round_ % 3  # kill as the first, second or third sandbox appears
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and referee.poll() is None:
                new = {pid for pid, (ppid, name, _) in processes().items()
                       if ppid == referee.pid and name == "bwrap"} - seen
                seen |= new
                if len(seen) >= wanted:
                    break
            assert referee.poll() is None, "the referee stopped on its own"
            time.sleep(DELAYS[round_ % len(DELAYS)])  # bwrap's set-up takes a few milliseconds
            os.killpg(referee.pid, signal.SIGKILL)
            referee.wait()
            kills += 1
            end = time.monotonic() + 10
            while marked(marker) and time.monotonic() < end:
                time.sleep(0.05)
            left = {pid: (processes().get(pid), stat_of(pid)) for pid in marked(marker)}
            assert left == {}, f"round {round_}: left behind {left}"
            reap_adopted()
    finally:
        for pid in marked(marker):  # only processes of this test's bot
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        reap_adopted(wait=1.0)
    assert kills == ROUNDS


def test_the_keeper_kills_the_groups_it_watches_when_its_referee_dies(tmp_path):
    """Without any sandbox: a process that registers a sleeping group and dies leaves nothing."""
    script = (
        "import subprocess, os, sys\n"
        "from tourney.bots import keeper\n"
        "p = subprocess.Popen(['sleep', '300'], start_new_session=True)\n"
        "keeper.watch(p.pid)\n"
        "print(p.pid, flush=True)\n"
        "os.kill(os.getpid(), 9)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], env={**os.environ, "PYTHONPATH": str(ROOT)},
                         capture_output=True, text=True, timeout=60).stdout
    pid = int(out.split()[0])
    end = time.monotonic() + 10
    while time.monotonic() < end:
        state = processes().get(pid)
        if state is None or Path(f"/proc/{pid}/stat").read_text().split(") ")[1].startswith("Z"):
            break
        time.sleep(0.05)
    else:
        os.kill(pid, signal.SIGKILL)
        pytest.fail("the watched group outlived the process that started it")
    reap_adopted(wait=1.0)
    assert keeper.SCRIPT.count("kill -KILL") == 1
