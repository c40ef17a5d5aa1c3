"""Playing an event's series on a Dask distributed cluster (``tourney run --cluster ADDRESS``).

The main process is the Dask client and stays the database's only writer. Each series is one
Dask task; the worker playing it sends every finished game back at once on a
:class:`distributed.Queue` (one put per game, awaited by the worker, so a game is in the
scheduler before the worker starts the next one) and the main process commits each game as it
arrives, exactly as for the local pool (:meth:`tourney.events.runner.Runner.handle`).

Nothing is counted twice. A game is accepted only if it is the next game of its series
(``idx`` equal to the number of games stored) and comes from the series' current *attempt*.
When a worker dies the scheduler reports the task as failed (or, if its ``allowed-failures``
is above 0, runs it again from the start: the games already stored are then sent again and
dropped); the main process then submits the series again as a new attempt, from its stored
games, with the same seeds, so it resumes on another worker where it stopped. Messages of an
earlier attempt that arrive late are dropped.

Short series can be grouped (``Runner(cluster_group=N)``: N series per Dask task, played one
after another on one worker), so that the scheduler's cost per task (about 13 ms, bench/scale.py)
is spread over N series; a ladder's one-game tables are grouped this way. A group whose worker
dies is submitted again series by series, each from its stored games.

Before any work, every worker checks that it can start every entrant (:func:`bot_problems`):
the run refuses to start, naming the worker and the entrant, when one cannot. A worker that
joins later checks again before it plays a series.

Every worker keeps the event's bots warm for the whole run (:class:`tourney.bots.pool.WarmPool`,
one per run on each worker): started on all workers at once before the first series, said
goodbye to on all workers at once after the last, and a series is sent, where possible, to a
worker that holds warm processes of its entrants. A pool nobody has used for
:data:`WARM_IDLE_S` seconds is closed by the worker itself: so the bots of a run whose main
process was killed outright do not outlive it for long.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import sys
import threading
import time
import uuid

from tourney.bots.pool import WarmPool
from tourney.config import entrant_spec
from tourney.errors import UserError
from tourney.events.play import SeriesTask, run_series
from tourney.events.tasks import stored_games
from tourney.results import store

#: how often a series may lose its worker before the run gives up on it
MAX_ATTEMPTS = 4
#: how long to try to reach the scheduler
CONNECT_TIMEOUT = "10s"
#: how often (seconds) a worker looks whether the main process has stopped the run
STOP_CHECK_S = 1.0
#: a worker playing a group of short series sends their games in one queue put at most this
#: often (seconds): a put is a round trip to the scheduler, about as long as a game of built-in
#: bots; a series alone sends each game as it ends
SEND_EVERY_S = 0.05
#: a worker closes a run's warm bots when no series of that run has used them for this long
WARM_IDLE_S = 60.0

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


def warm_start(run_id: str, wanted: list[tuple[dict, int]], seed: int) -> int:
    """On a worker: start the run's warm bots (all at once); how many are idle and ready."""
    pool = _pool(run_id)
    pool.seed = seed
    pool.prestart([(entrant_spec(spec), count) for spec, count in wanted])
    return sum(len(group) for group in pool.idle.values())


def warm_close(run_id: str) -> None:
    """On a worker: goodbye to the run's warm bots (all at once)."""
    with _POOLS_LOCK:
        pool = _POOLS.pop(run_id, None)
    if pool is not None:
        pool.close()


class ClusterError(UserError):
    """The cluster cannot run the event (unreachable, no workers, a bot missing on a worker)."""


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


class _Sender:
    """A worker's way to the main process: messages go on the queue ``channel`` as lists of
    ``(attempt, message)``, one put per ``every`` seconds (and at the end of a task), and
    :class:`Stopped` is raised once the event ``stop`` is set. A message not yet sent when the
    worker dies is played again, as a game not yet stored is."""

    def __init__(self, channel: str, stop: str, every: float = 0.0) -> None:
        from distributed import Event, Queue  # the optional [cluster] extra: only on a worker

        self.queue, self.stopped = Queue(channel), Event(stop)
        self.every = every
        self.waiting: list = []
        self.sent = self.checked = time.monotonic()

    def emit(self, attempt: int, msg) -> None:
        self.waiting.append((attempt, msg))
        if time.monotonic() - self.sent >= self.every:
            self.flush()
        if self.stop_set():
            raise Stopped()

    def stop_set(self) -> bool:
        """Whether the run was stopped, as last seen: the flag costs a round trip to the
        scheduler, so it is looked at most once per :data:`STOP_CHECK_S`."""
        now = time.monotonic()
        if now - self.checked < STOP_CHECK_S:
            return False
        self.checked = now
        return bool(self.stopped.is_set())

    def flush(self) -> None:
        if self.waiting:
            self.queue.put(self.waiting)
            self.waiting = []
        self.sent = time.monotonic()


def play_on_worker(task: SeriesTask, channel: str, stop: str, attempt: int,
                   run_id: str | None = None, sender: _Sender | None = None) -> tuple[int, str, list[str]]:
    """The Dask task: play one series on this worker, putting every game on the queue
    ``channel`` (:class:`_Sender`; ``sender``: a group's, else one of its own, emptied before
    this returns); stops early once the event ``stop`` is set. Its bots come from the worker's
    warm pool of ``run_id`` and go back to it. Returns the series, this worker's address and the
    entrants it now holds warm processes of."""
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
    return task.idx, get_worker().address, sorted(pool.holds()) if pool is not None else []


def play_group_on_worker(tasks: list[SeriesTask], channel: str, stop: str, attempt: int,
                         run_id: str | None = None) -> tuple[list[int], str, list[str]]:
    """The Dask task of a group: its series one after another (:func:`play_on_worker`, with the
    same warm pool and one sender, so that the games of short series share a put), none started
    once the run is stopped. Returns the series played, this worker's address and the entrants it
    now holds warm processes of."""
    from distributed import get_worker  # the optional [cluster] extra: only on a worker

    sender = _Sender(channel, stop, every=SEND_EVERY_S)
    played = []
    try:
        for task in tasks:
            if sender.stop_set():
                break
            played.append(play_on_worker(task, channel, stop, attempt, run_id, sender)[0])
    finally:
        sender.flush()
    pool = _pool(run_id) if run_id is not None else None
    return played, get_worker().address, sorted(pool.holds()) if pool is not None else []


def connect(address: str):
    """A Dask client of the scheduler at ``address``, or a :class:`ClusterError`."""
    try:
        from distributed import Client  # the optional [cluster] extra, checked here
    except ImportError:
        raise ClusterError("running on a cluster needs Dask's distributed: "
                           "pip install -e '.[cluster]'") from None
    try:
        return Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
    except (OSError, TimeoutError) as exc:
        raise ClusterError(f"cannot reach the Dask scheduler at {address} ({exc})") from None


def check_workers(client, specs: list[dict]) -> None:
    """Refuse to start unless the cluster has workers and each can start every entrant."""
    found = client.run(bot_problems, specs)
    if not found:
        raise ClusterError(f"the Dask scheduler at {client.scheduler.address} has no workers")
    for worker, problems in sorted(found.items()):
        for name, problem in problems:
            raise ClusterError(f"worker {worker}: entrant {name!r}: {problem}")


class ClusterRun:
    """Plays ``runner``'s tasks on the cluster of ``client``, committing through ``runner``."""

    def __init__(self, runner, client, run_id: str | None = None, held: dict | None = None):
        self.runner = runner
        self.client = client
        run_id = run_id or uuid.uuid4().hex[:12]
        self.run_id = run_id
        #: worker address -> the entrants it holds warm processes of (where to send a series)
        self.held: dict[str, set[str]] = held if held is not None else {}
        self.channel = f"tourney-games-{run_id}"
        self.stop_name = f"tourney-stop-{run_id}"
        self.tasks = {t.idx: dataclasses.replace(
            t, entrants=[portable(e) for e in t.entrants]) for t in runner.tasks}
        self.attempt = dict.fromkeys(self.tasks, 0)
        #: games of each series stored so far: the ``idx`` the next accepted game must have
        self.stored = {idx: len(t.done) for idx, t in self.tasks.items()}
        self.series_of: dict[str, list[int]] = {}  # task key -> the series idx it plays
        self.group = max(1, int(getattr(runner, "cluster_group", 1) or 1))

    def run(self) -> None:
        from distributed import Event, Queue, as_completed  # the optional [cluster] extra: only on a cluster run

        queue = Queue(self.channel, client=self.client)
        stop = Event(self.stop_name, client=self.client)
        order = list(self.tasks)
        # at most the asked size, and small enough that each worker thread gets about four
        # groups: a batch's last group is not left running alone on one worker
        threads = sum(self.client.nthreads().values()) or 1
        size = max(1, min(self.group, len(order) // (4 * threads)))
        groups = [order[i:i + size] for i in range(0, len(order), size)]
        futures = as_completed([self._submit(g[0]) if len(g) == 1 else self._submit_group(g) for g in groups],
                               loop=self.client.loop)
        try:
            while not futures.is_empty():
                done = futures.next_batch(block=False)
                # drained after the batch is taken: a finished task's games are all on the queue
                drained = self._drain(queue)
                for future in done:
                    for retry in self._settle(future):
                        futures.add(retry)
                if not done and not drained:
                    time.sleep(0.005)
            self._drain(queue)
        except BaseException:
            stop.set()  # workers stop within about a second; nothing more is stored
            raise
        finally:
            queue.close()

    def _submit(self, idx: int):
        key = f"{self.channel}-series-{idx}-{self.attempt[idx]}"
        self.series_of[key] = [idx]
        names = {e["name"] for e in self.tasks[idx].entrants}
        warm = [w for w, held in sorted(self.held.items()) if names <= held]
        where = {"workers": warm, "allow_other_workers": True} if warm and len(warm) < len(self.held) else {}
        return self.client.submit(play_on_worker, self.tasks[idx], self.channel, self.stop_name,
                                  self.attempt[idx], self.run_id, key=key, pure=False, **where)

    def _submit_group(self, idxs: list[int]):
        """One task for the series ``idxs`` (all at their first attempt)."""
        key = f"{self.channel}-group-{idxs[0]}-{idxs[-1]}"
        self.series_of[key] = list(idxs)
        return self.client.submit(play_group_on_worker, [self.tasks[i] for i in idxs], self.channel,
                                  self.stop_name, 0, self.run_id, key=key, pure=False)

    def _drain(self, queue) -> int:
        """Store every game waiting on the queue (one commit) that is the next of its series;
        returns how many messages were waiting."""
        waiting = [item for sent in queue.get(batch=True) for item in sent]
        accepted = []
        for attempt, msg in waiting:
            idx = msg[1]
            if attempt != self.attempt[idx]:
                continue  # a late message of a series since given to another worker
            if msg[0] == "game":
                if msg[2]["idx"] != self.stored[idx]:
                    continue  # already stored (the scheduler re-ran the task from the start)
                self.stored[idx] += 1
            accepted.append(msg)
        if accepted:
            self.runner.handle_many(accepted)
        return len(waiting)

    def _settle(self, future) -> list:
        """Account for a task that ended: the new futures of the next attempts of its series
        that are not done (none when all are)."""
        idxs = self.series_of.pop(future.key)
        error = future.exception() if future.status == "error" else None
        if error is None and future.status == "finished":
            _, worker, held = future.result()
            self.held[worker] = set(held)
        if isinstance(error, BotMissing):
            raise ClusterError(str(error))
        if error is not None and not _lost_worker(error):
            raise error
        return [retry for idx in idxs if (retry := self._retry(idx, error)) is not None]

    def _retry(self, idx: int, error):
        """None if the series is done, else the future of its next attempt."""
        if self._series_done(idx):
            return None
        self.attempt[idx] += 1
        if self.attempt[idx] >= MAX_ATTEMPTS:
            raise ClusterError(f"series {idx}: lost its worker {MAX_ATTEMPTS} times; stored games "
                               "are kept, run again with --resume")
        series = self.runner.series[idx]
        self.tasks[idx] = dataclasses.replace(self.tasks[idx],
                                              done=stored_games(self.runner.db, series["id"]))
        self.stored[idx] = len(self.tasks[idx].done)
        if self.runner.on_warn:
            why = "its worker died" if error is not None else "it stopped early"
            self.runner.on_warn(f"series {idx}: {why}; playing on from game {self.stored[idx]} "
                                "on another worker")
        return self._submit(idx)

    def _series_done(self, idx: int) -> bool:
        return store.series_status(self.runner.db, self.runner.series[idx]["id"]) == "finished"


def _lost_worker(error: BaseException) -> bool:
    """Whether a task failed because its worker went away (not because of the series)."""
    from distributed import KilledWorker  # the optional [cluster] extra
    from distributed.comm.core import CommClosedError  # (as above)

    return isinstance(error, KilledWorker | CommClosedError | OSError)


def run_on_cluster(runner, address: str) -> None:
    """Play the runner's pending series, round after round, on the Dask cluster at
    ``address``, with the event's bots warm on every worker from the first series to the last."""
    client = connect(address)
    run_id = uuid.uuid4().hex[:12]
    warmed = False
    try:
        specs = {e["name"]: portable(e) for t in runner.tasks for e in t.entrants}
        check_workers(client, list(specs.values()))
        wanted = [(portable(spec), count) for spec, count in runner.warm_wanted()]
        client.run(warm_start, run_id, wanted, runner.warm_seed())  # every worker at once
        warmed = True
        held = {w: {spec["name"] for spec, _ in wanted} for w in client.scheduler_info()["workers"]}
        while runner.tasks:
            ClusterRun(runner, client, run_id, held).run()
            runner.next_round()
    finally:
        if warmed:
            try:
                client.run(warm_close, run_id)  # goodbye on every worker at once
            except Exception:  # the cluster may be gone; each worker closes quiet pools itself
                pass
        client.close()
