"""What a Dask worker runs for a run on a cluster (:mod:`tourney.events.cluster` is the main
process's side): the Dask tasks that play a series or a group of series and send their games
back, the check that a worker can start every entrant, and each worker's warm bots.

Every worker keeps the event's bots warm for the whole run (:class:`tourney.bots.pool.WarmPool`,
one per run on each worker): started on all workers at once before the first series, said
goodbye to on all workers at once after the last. A pool nobody has used for
:data:`WARM_IDLE_S` seconds is closed by the worker itself: so the bots of a run whose main
process was killed outright do not outlive it for long.
"""

from __future__ import annotations

import os
import shutil
import sys
import threading
import time

from tourney.bots.pool import WarmPool
from tourney.config import entrant_spec
from tourney.events.play import SeriesTask, run_series

#: how often (seconds) a worker looks whether the main process has stopped the run
STOP_CHECK_S = 1.0
#: a worker playing a group of short series sends their games in one queue put at most this
#: often (seconds), and the last of them with the group's result: a put is a round trip to the
#: scheduler that the worker waits for (1-2 ms on an idle machine, 7 ms on a busy one: longer
#: than a game of built-in bots); a series alone sends each game as it ends
SEND_EVERY_S = 0.25
#: a worker closes a run's warm bots when no series of that run has used them for this long
WARM_IDLE_S = 60.0

#: on a worker: each run's queue, stop flag and when the flag was last looked at, by channel
#: (making the queue is a round trip to the scheduler: done once per run, not once per task)
_CHANNELS: dict[str, list] = {}

#: on a worker: the warm pools of the runs it plays for, by run id
_POOLS: dict[str, WarmPool] = {}
_POOLS_LOCK = threading.Lock()


def _pool(run_id: str) -> WarmPool:
    """This worker's warm pool of run ``run_id`` (made the first time: a worker that joined late)."""
    with _POOLS_LOCK:
        pool = _POOLS.get(run_id)
        if pool is None:
            pool = _POOLS[run_id] = WarmPool()
            if len(_POOLS) == 1:
                threading.Thread(target=_reap_idle, daemon=True, name="tourney-warm-reaper").start()
        return pool


def _reap_idle() -> None:
    """Close the pools of runs gone quiet (their main process may have been killed)."""
    while True:
        time.sleep(WARM_IDLE_S / 4)
        now = time.monotonic()
        with _POOLS_LOCK:
            quiet = [r for r, p in _POOLS.items() if not p.out and now - p.last_used > WARM_IDLE_S]
            pools = [_POOLS.pop(r) for r in quiet]
            done = not _POOLS
        for pool in pools:
            pool.close()
        if done:
            return


def warm_start(run_id: str, wanted: list[tuple[dict, int]]) -> int:
    """On a worker: start the run's warm bots (all at once); how many are started or idle."""
    pool = _pool(run_id)
    pool.prestart([(entrant_spec(spec), count) for spec, count in wanted])
    return sum(len(group) for groups in (pool.idle, pool.launched) for group in groups.values())


def warm_retire(run_id: str, specs: list[dict]) -> int:
    """On a worker: goodbye to the run's warm processes of entrants that left play (idle ones
    now, those in a series when it ends); how many went now."""
    with _POOLS_LOCK:
        pool = _POOLS.get(run_id)
    return pool.retire([entrant_spec(spec) for spec in specs]) if pool is not None else 0


def warm_close(run_id: str) -> None:
    """On a worker: goodbye to the run's warm bots (all at once)."""
    with _POOLS_LOCK:
        pool = _POOLS.pop(run_id, None)
        _CHANNELS.pop(channel_name(run_id), None)
    if pool is not None:
        pool.close()


def channel_name(run_id: str) -> str:
    """The name of the queue a run's games come back on."""
    return f"tourney-games-{run_id}"


class BotMissing(Exception):
    """Raised on a worker that cannot start an entrant (picklable: plain text)."""


class Stopped(Exception):
    """Raised on a worker when the main process has stopped the run (Ctrl-C)."""


def portable(spec: dict) -> dict:
    """An entrant spec for another machine: this interpreter's path back to ``{python}``, which
    each worker replaces with its own."""
    if not spec.get("command"):
        return spec
    python = sys.executable
    return {**spec, "command": [a.replace(python, "{python}") for a in spec["command"]]}


def bot_problem(spec: dict) -> str | None:
    """Why this machine cannot start a command entrant (None: it can): its folder, its program
    (on PATH, or a path that exists and is executable) and a Python script argument."""
    if not spec.get("command"):
        return None
    cwd = spec.get("cwd") or "."
    if not os.path.isdir(cwd):
        return f"no such directory {cwd}"
    argv = [a.replace("{python}", sys.executable) for a in spec["command"]]
    program = argv[0]
    if os.sep in program:
        path = program if os.path.isabs(program) else os.path.join(cwd, program)
        if not os.path.isfile(path):
            return f"program not found: {path}"
        if not os.access(path, os.X_OK):
            return f"program not executable: {path}"
    elif shutil.which(program) is None:
        return f"program not found on PATH: {program}"
    if len(argv) > 1 and argv[1].endswith(".py") and "python" in os.path.basename(program):
        script = argv[1] if os.path.isabs(argv[1]) else os.path.join(cwd, argv[1])
        if not os.path.isfile(script):
            return f"script not found: {script}"
    return None


def bot_problems(specs: list[dict]) -> list[tuple[str, str]]:
    """``(entrant, problem)`` for every entrant this machine cannot start."""
    out = []
    for spec in specs:
        problem = bot_problem(spec)
        if problem is not None:
            out.append((spec["name"], problem))
    return out


def _channel(channel: str, stop: str) -> list:
    """This worker's ``[queue, stop event, last look at the flag, what it said]`` of a run."""
    with _POOLS_LOCK:
        found = _CHANNELS.get(channel)
    if found is None:
        from distributed import Event, Queue  # the optional [cluster] extra: only on a worker

        found = [Queue(channel), Event(stop), time.monotonic(), False]
        with _POOLS_LOCK:
            found = _CHANNELS.setdefault(channel, found)
            while len(_CHANNELS) > 8:  # runs long over (their main process may have been killed)
                del _CHANNELS[next(iter(_CHANNELS))]
    return found


class _Sender:
    """A worker's way to the main process: messages go on the queue ``channel`` as lists of
    ``(attempt, message)``, one put per ``every`` seconds (and at the end of a task, or with a
    group's result: :meth:`take`), and :class:`Stopped` is raised once the event ``stop`` is set.
    A message not yet sent when the worker dies is played again, as a game not yet stored is."""

    def __init__(self, channel: str, stop: str, every: float = 0.0) -> None:
        self.channel = _channel(channel, stop)
        self.queue = self.channel[0]
        self.every = every
        self.waiting: list = []
        self.sent = time.monotonic()

    def emit(self, attempt: int, msg) -> None:
        self.waiting.append((attempt, msg))
        if time.monotonic() - self.sent >= self.every:
            self.flush()
        if self.stop_set():
            raise Stopped()

    def stop_set(self) -> bool:
        """Whether the run was stopped, as last seen: the flag costs a round trip to the
        scheduler, so each worker looks at it at most once per :data:`STOP_CHECK_S`."""
        now = time.monotonic()
        channel = self.channel
        if now - channel[2] >= STOP_CHECK_S:
            channel[2] = now
            channel[3] = bool(channel[1].is_set())
        return bool(channel[3])

    def flush(self) -> None:
        if self.waiting:
            self.queue.put(self.waiting)
            self.waiting = []
        self.sent = time.monotonic()

    def take(self) -> list:
        """The messages not sent yet (the caller hands them back another way)."""
        waiting, self.waiting = self.waiting, []
        return waiting


def play_on_worker(task: SeriesTask, channel: str, stop: str, attempt: int,
                   run_id: str | None = None, sender: _Sender | None = None
                   ) -> tuple[list[int], str, list[str], list]:
    """The Dask task: play one series on this worker, putting every game on the queue
    ``channel`` (:class:`_Sender`; ``sender``: a group's, else one of its own, emptied before
    this returns); stops early once the event ``stop`` is set. Its bots come from the worker's
    warm pool of ``run_id`` and go back to it. Returns the series (as a list of one), this
    worker's address, the entrants it now holds warm processes of, and no messages (all sent)."""
    from distributed import get_worker  # the optional [cluster] extra: only on a worker

    problems = bot_problems(task.entrants)
    if problems:
        name, problem = problems[0]
        raise BotMissing(f"worker {get_worker().address}: entrant {name!r}: {problem}")
    own = sender is None
    out = _Sender(channel, stop) if sender is None else sender
    pool = _pool(run_id) if run_id is not None else None
    try:
        run_series(task, lambda msg: out.emit(attempt, msg), pool=pool)
    except Stopped:
        pass
    finally:
        if own:
            out.flush()
    return [task.idx], get_worker().address, sorted(pool.holds()) if pool is not None else [], []


def play_group_on_worker(tasks: list[SeriesTask], channel: str, stop: str, attempt: int,
                         run_id: str | None = None) -> tuple[list[int], str, list[str], list]:
    """The Dask task of a group: its series one after another (:func:`play_on_worker`, with the
    same warm pool and one sender, so that the games of short series share a put), none started
    once the run is stopped. Returns the series played, this worker's address, the entrants it
    now holds warm processes of, and the messages not yet sent (the main process takes them
    with the result, after everything the group put on the queue)."""
    from distributed import get_worker  # the optional [cluster] extra: only on a worker

    sender = _Sender(channel, stop, every=SEND_EVERY_S)
    played = []
    try:
        for task in tasks:
            if sender.stop_set():
                break
            played.append(play_on_worker(task, channel, stop, attempt, run_id, sender)[0][0])
    except BaseException:
        sender.flush()  # what was played is kept; the rest is played again
        raise
    pool = _pool(run_id) if run_id is not None else None
    return played, get_worker().address, sorted(pool.holds()) if pool is not None else [], sender.take()
