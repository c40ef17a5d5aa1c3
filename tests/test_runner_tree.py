"""Everything goes with the runner (docs/formats.md, "Running, parallelism, resume"; issue 39,
point 6): after ``kill -9`` of ``tourney ladder run -j 2`` (its pid alone, not its group), every
process of its tree ends (its workers, their keepers, the bots they started, those started
ahead included), even while the killed runner stays a zombie that its parent has not reaped."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import RANDOM_BOT, ROOT, count_games, processes

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

TOURNEY = [sys.executable, "-m", "tourney"]


def tree(root: int) -> set[int]:
    """``root``'s living descendants now."""
    table = [(pid, ppid) for pid, state, ppid, _ in processes() if state != "Z"]
    found, todo = set(), [root]
    while todo:
        parent = todo.pop()
        for pid, ppid in table:
            if ppid == parent and pid not in found:
                found.add(pid)
                todo.append(pid)
    return found


def alive(pids: set[int], runner: int) -> set[int]:
    """Which of ``pids`` still live, and any process still in the runner's process group."""
    return {pid for pid, state, _, pgrp in processes()
            if state != "Z" and (pid in pids or (pgrp == runner and pid != runner))}


def test_kill_9_of_the_runner_ends_its_whole_tree(tmp_path):
    db = str(tmp_path / "l.db")
    env = {**os.environ, "TOURNEY_DB": db, "PYTHONPATH": str(ROOT)}
    subprocess.run([*TOURNEY, "ladder", "new", "spring", "--seed", "9"], env=env, check=True, capture_output=True)
    for author, bot in (("ann", ["--builtin", "greedy"]), ("bo", ["--builtin", "random"]),
                        ("cy", ["--", "{python}", RANDOM_BOT])):
        subprocess.run([*TOURNEY, "ladder", "submit", "spring", author, *bot], env=env, check=True,
                       capture_output=True)
    for trial in range(3):
        stored = count_games(Path(db))
        runner = subprocess.Popen([*TOURNEY, "ladder", "run", "spring", "-q", "-j", "2"], env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            deadline = time.monotonic() + 120
            while count_games(Path(db)) < stored + 4 + 2 * trial:  # a different moment each time
                assert runner.poll() is None and time.monotonic() < deadline
                time.sleep(0.02)
            family = tree(runner.pid)
            assert family  # its workers at least
            os.kill(runner.pid, signal.SIGKILL)  # the runner alone; left a zombie, not reaped yet
            deadline = time.monotonic() + 30  # generous: a loaded machine; the usual is well under 1 s
            while (left := alive(family, runner.pid)) and time.monotonic() < deadline:
                time.sleep(0.05)
            assert not left, f"trial {trial}: still alive 30 s after kill -9 of the runner: {sorted(left)}"
        finally:
            if runner.poll() is None:
                os.killpg(runner.pid, signal.SIGKILL)
            runner.wait()
