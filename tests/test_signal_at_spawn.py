"""A signal that ends the referee while a bot is being started never leaves that bot running.

Between ``Popen`` returning and the referee holding the new process (and telling the keeper its
group), a SIGTERM to a pool worker or a Ctrl-C to a serial run used to end the referee with the
bot unknown to anyone: it ran on for good. Here the signal is sent at exactly that moment, from
inside ``Popen``, in a referee of its own (a child Python process). Unsandboxed is the case
that failed; a sandboxed bot was already ended by bubblewrap's ``--die-with-parent``."""

from __future__ import annotations

import os
import signal
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


def gone_soon(pid: int, seconds: float = 30.0) -> bool:
    """The bot ends within ``seconds`` (a ceiling, not a measure: its ending is asynchronous, by a
    keeper or a grace period, and the loop returns as soon as it has ended)."""
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


# ---- held signals are never lost, and a handler's path takes no lock

def test_signals_that_come_while_the_handlers_are_swapped_leave_no_handler_swapped(monkeypatch):
    """SIGTERM and Ctrl-C come just after SIGTERM's handler was swapped, before SIGINT's: the
    Ctrl-C ends the block (it came before the bot), the SIGTERM reaches its own handler once,
    and both handlers are as they were (a Ctrl-C raised half-way used to leave SIGTERM's
    swapped for good, every later SIGTERM noted and dropped)."""
    from tourney.bots.process import ending_signals_held

    terms: list[int] = []

    def mine(number, _frame):
        terms.append(number)

    previous = signal.signal(signal.SIGTERM, mine)
    real_signal = signal.signal
    sent = []

    def swap_then_signals(sig, handler):
        old = real_signal(sig, handler)
        if sig == signal.SIGTERM and not sent:
            sent.append(sig)
            os.kill(os.getpid(), signal.SIGTERM)
            os.kill(os.getpid(), signal.SIGINT)
        return old

    try:
        monkeypatch.setattr(signal, "signal", swap_then_signals)
        with pytest.raises(KeyboardInterrupt), ending_signals_held():
            time.sleep(0.01)
        monkeypatch.undo()
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        assert signal.getsignal(signal.SIGTERM) is mine
        assert terms == [signal.SIGTERM]
        os.kill(os.getpid(), signal.SIGTERM)
        assert terms == [signal.SIGTERM, signal.SIGTERM]
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_no_signal_sent_while_bots_start_again_and_again_is_lost():
    """A thread sends SIGTERM and SIGINT in turn, each once the one before was handled, while the
    main thread goes in and out of held blocks: every one reaches its handler, in any phase of a
    block, and the handlers are the same at the end."""
    import threading

    from tourney.bots.process import ending_signals_held

    handled = threading.Event()
    counts = {signal.SIGTERM: 0, signal.SIGINT: 0}

    def note(number, _frame):
        counts[number] += 1
        handled.set()

    kept = {s: signal.signal(s, note) for s in counts}
    lost: list[int] = []
    done = threading.Event()

    def sender():
        for k in range(200):
            handled.clear()
            os.kill(os.getpid(), signal.SIGTERM if k % 2 else signal.SIGINT)
            if not handled.wait(30):  # a ceiling: a held signal is handled when its block ends
                lost.append(k)
                break
        done.set()

    try:
        thread = threading.Thread(target=sender)
        thread.start()
        while not done.is_set():
            with ending_signals_held():
                time.sleep(0.0005)
        thread.join()
        assert lost == [] and counts == {signal.SIGTERM: 100, signal.SIGINT: 100}
        assert {s: signal.getsignal(s) for s in counts} == dict.fromkeys(counts, note)
    finally:
        for s, handler in kept.items():
            signal.signal(s, handler)


#: a pool worker with a started bot whose main thread holds the locks closing a bot takes
HELD_WORKER = """
import sys, time
from tourney.bots import keeper
from tourney.bots.entrants import EntrantSpec, Limits, open_entrant
from tourney.bots.sandbox import Policy
from tourney.events import workers

workers.init_signals()
spec = EntrantSpec("b", command=("{python}", "-c", "import time; time.sleep(120)"),
                   limits=Limits(grace=0.1), sandbox=Policy(sys.argv[1]))
bot = open_entrant(spec, 1)
bot.launch()
workers._OPEN.append(bot)
keeper._lock.acquire()  # as if SIGTERM came while the keeper was being told of a bot
bot._stderr.lock.acquire()  # or while a game's stderr was being taken
print(bot.pid, flush=True)
time.sleep(120)
"""


@pytest.mark.parametrize("sandbox", ["off", "on"])
def test_a_worker_told_to_stop_ends_at_once_whatever_lock_its_main_thread_holds(sandbox):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    worker = subprocess.Popen([sys.executable, "-c", HELD_WORKER, sandbox], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    pid = None
    try:
        line = worker.stdout.readline()
        assert line.strip().isdigit(), worker.stderr.read()
        pid = int(line)
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(timeout=60) == 143  # a ceiling: closing the usual way never ended
        assert gone_soon(pid), f"the bot (pid {pid}) outlived its worker"
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
        if pid is not None and alive(pid):
            os.kill(pid, 9)
        reap_adopted(wait=0.5)


def test_ctrl_c_ends_a_command_that_waits_on_a_bot_with_exit_130_and_no_bot_left(tmp_path):
    """``tourney check`` of a bot that never says hello, Ctrl-C pressed once the bot runs: the
    command ends at once (not at the start-up timeout), says so in one line, exits 130, and the
    bot is gone."""
    import pexpect

    marker = tmp_path / "bot.pid"
    bot = f"import os, time; open({str(marker)!r}, 'w').write(str(os.getpid())); time.sleep(120)"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    child = pexpect.spawn(sys.executable, ["-m", "tourney", "check", "--sandbox", "off", "--", "{python}", "-c",
                                           bot], env=env, encoding="utf-8", timeout=60, cwd=str(tmp_path))
    try:
        while not marker.exists() or not marker.read_text():
            assert child.expect([pexpect.TIMEOUT, pexpect.EOF], timeout=0.05) == 0, child.before
        pid = int(marker.read_text())
        child.sendintr()
        child.expect(pexpect.EOF)
        child.close()
        assert child.exitstatus == 130, child.before
        assert "Traceback" not in child.before and "no hello" not in child.before
        assert child.before.strip().splitlines()[-1].endswith("interrupted")  # after the echoed ^C
        assert gone_soon(pid), f"the bot (pid {pid}) outlived tourney check"
    finally:
        if child.isalive():
            child.kill(9)
