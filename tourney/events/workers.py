"""Worker processes of the local pool: each plays series and sends games back on a queue.

A worker never writes the database. It dies with the main process (a watcher thread notices
the parent is gone) and closes its bots on SIGTERM, so no bot outlives a run.
"""

from __future__ import annotations

import os
import signal
import threading
import time

from tourney.events.play import SeriesTask, run_series

_QUEUE = None
#: entrants open in this worker process (closed if the main process dies or terminates us)
_OPEN: list = []


def _abandon(code: int) -> None:
    """Kill this worker's bots (their process groups) and exit at once.

    This runs in a signal handler, between any two steps of the worker's main thread, so it
    only makes system calls: closing a bot the usual way takes locks (the keeper's pipe, the
    stderr buffer) that the interrupted thread may hold, and would wait for them forever. What a
    sandbox leaves, and any group started too late to be listed here, the keeper kills when this
    process is gone."""
    for entrant in list(_OPEN):
        pid = getattr(entrant, "pid", None)
        if pid is not None:
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass
    os._exit(code)


def _watch_main(main_pid: int) -> None:
    while True:
        time.sleep(0.2)
        try:
            os.kill(main_pid, 0)
        except ProcessLookupError:
            _abandon(137)
        except PermissionError:  # pragma: no cover - pid reused by another user
            _abandon(137)


def init(q, main_pid: int) -> None:
    global _QUEUE
    _QUEUE = q
    # the main process may be killed (kill -9): do not play on, do not leave bots behind
    threading.Thread(target=_watch_main, args=(main_pid,), daemon=True).start()
    init_signals()


def init_signals() -> None:
    """SIGTERM closes this worker's bots and ends it; Ctrl-C is the main process's to handle
    (it terminates the workers)."""
    signal.signal(signal.SIGTERM, lambda *_: _abandon(143))
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def run_task(task: SeriesTask) -> int:
    assert _QUEUE is not None, "init() runs first in every worker"
    run_series(task, _QUEUE.put, opened=_OPEN)
    return task.idx
