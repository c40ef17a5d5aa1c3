"""A signal that ends the referee while a bot is being started never leaves that bot running.

Between ``Popen`` returning and the referee holding the new process (and telling the keeper its
group), a SIGTERM to a pool worker or a Ctrl-C to a serial run used to end the referee with the
bot unknown to anyone: it ran on for good. Here the signal is sent at exactly that moment, from
inside ``Popen``, in a referee of its own (a child Python process). Unsandboxed is the case
that failed; a sandboxed bot was already ended by bubblewrap's ``--die-with-parent``."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import reap_adopted

ROOT = Path(__file__).resolve().parent.parent

#: a referee process: ``SIGNAL HANDLER PIDFILE SANDBOX``; its bot sleeps and never says hello
REFEREE = """
import os, signal, subprocess, sys
from tourney.bots import subprocess_entrant
from tourney.bots.entrants import EntrantSpec, Limits, open_entrant
from tourney.bots.sandbox import Policy
from tourney.events import workers

sig, handler, pidfile = getattr(signal, sys.argv[1]), sys.argv[2], sys.argv[3]
if handler == "worker":  # as a pool worker: SIGTERM closes the worker's bots, then it exits
    workers.init_signals()

real_popen = subprocess.Popen

def popen_then_signal(argv, *args, **kwargs):
    proc = real_popen(argv, *args, **kwargs)
    if not any("time.sleep(120)" in str(a) for a in argv):  # not the bot (a sandbox probe)
        return proc
    with open(pidfile, "w") as f:
        f.write(str(proc.pid))
    os.kill(os.getpid(), sig)  # the signal comes the moment the bot exists
    return proc

subprocess_entrant.subprocess.Popen = popen_then_signal
spec = EntrantSpec("b", command=("{python}", "-c", "import time; time.sleep(120)"),
                   limits=Limits(grace=0.1), sandbox=Policy(sys.argv[4]))
with open_entrant(spec, 1) as bot:
    workers._OPEN.append(bot)  # as run_series does before it starts the bots
    bot.start()
"""


def alive(pid: int) -> bool:
    """Running, and not a zombie waiting to be reaped."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1][0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def gone_soon(pid: int, seconds: float = 10.0) -> bool:
    """The bot ends within ``seconds``: its ending is asynchronous (a keeper, a grace period)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if not alive(pid):
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("sandbox", ["off", "on"])
@pytest.mark.parametrize(("sig", "handler", "code"), [
    ("SIGTERM", "worker", 143),  # a pool worker told to stop
    ("SIGINT", "default", -2),  # Ctrl-C in a serial run: an uncaught KeyboardInterrupt
])
def test_a_signal_as_a_bot_starts_leaves_no_bot_behind(tmp_path, sig, handler, code, sandbox):
    pidfile = tmp_path / "bot.pid"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", REFEREE, sig, handler, str(pidfile), sandbox], env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == code, done.stderr
    pid = int(pidfile.read_text())
    try:
        assert gone_soon(pid), f"the bot (pid {pid}) outlived its referee"
    finally:
        if alive(pid):
            os.kill(pid, 9)
        reap_adopted(wait=0.5)  # the referee's keeper and bot may have fallen to us
