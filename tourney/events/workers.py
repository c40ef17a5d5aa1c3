"""Worker processes of the local pool: each plays series and sends games back on a queue.

A worker never writes the database. Every message it sends carries the ticket of the round it
belongs to, and a series ends with a ``("done", idx)`` message: a round played ahead of its
confirmation (an SPRT's next batch) may be dropped, and a worker then skips its series, or stops
one between two games (:class:`tourney.events.runner.Runner`). It keeps its bots warm for the life of the event (a
:class:`~tourney.bots.pool.WarmPool`: started together when the worker starts, said goodbye to
together when it ends). It dies with the main process (a watcher thread notices the parent is
gone) and closes its bots on SIGTERM, so no bot outlives a run.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from collections.abc import Callable
from multiprocessing import util

from tourney.bots.pool import WarmPool
from tourney.config import entrant_spec
from tourney.events.play import SeriesTask, run_series

_QUEUE = None
#: entrants open in this worker process (closed if the main process dies or terminates us)
_OPEN: list = []
#: this worker's warm bots, kept from series to series for the life of the event
_POOL: WarmPool | None = None
#: the rounds the main process dropped: ``_DROPPED[ticket % len(_DROPPED)]`` is set (shared memory)
_DROPPED = None
#: the series taken from routed rounds: ``_CLAIMS[pos] == ticket`` once a worker took the series at
#: position ``pos`` of round ``ticket`` (shared memory, with its lock)
_CLAIMS = None


class Dropped(Exception):
    """The round of the series being played was dropped: stop between two games."""


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
    if _POOL is not None:
        _POOL.kill()
    os._exit(code)


def _watch_main(main_pid: int) -> None:
    """Abandon the work when the main process is gone. Its death is seen in our parent
    changing: a dead process's children are handed on at once, while the dead process itself
    may stay a zombie, still answering ``kill(pid, 0)``, for as long as its own parent does not
    reap it (a worker that asked only that played on after ``kill -9`` of its runner). Under
    forkserver our parent is the server, which ends when the main process does."""
    parent = os.getppid()
    while True:
        time.sleep(0.2)
        if os.getppid() != parent:
            _abandon(137)
        try:
            os.kill(main_pid, 0)
        except ProcessLookupError:
            _abandon(137)
        except PermissionError:  # pragma: no cover - pid reused by another user
            _abandon(137)


def init(q, main_pid: int, warm: list[tuple[dict, int]] | None = None,
         dropped=None, claims=None, leaving: Leaving | None = None) -> None:
    """Set up a worker: its queue, its watch on the main process, its signals, and its warm
    pool, which starts ``count`` processes of each ``(entrant spec, count)`` of ``warm`` now.
    ``dropped`` is the shared array of dropped rounds (by ticket), ``claims`` that of the series
    taken from routed rounds; ``leaving`` tells it the entrants that left play."""
    global _QUEUE, _POOL, _DROPPED, _CLAIMS
    _QUEUE = q
    _DROPPED, _CLAIMS = dropped, claims
    # the main process may be killed (kill -9): do not play on, do not leave bots behind
    threading.Thread(target=_watch_main, args=(main_pid,), daemon=True).start()
    init_signals()
    _POOL = WarmPool()
    # goodbye to the warm bots when the pool shuts this worker down (all at once)
    util.Finalize(None, _POOL.close, exitpriority=100)
    if leaving is not None:
        leaving.listen(_POOL)
    if warm:
        _POOL.prestart([(entrant_spec(spec), count) for spec, count in warm])


class Leaving:
    """How the main process tells every worker of its pool that entrants left play (a ladder's
    retired or disabled versions), and waits until each has said goodbye to its idle processes
    of them and those started ahead (:meth:`WarmPool.retire`; those out in a series go when it
    ends).

    Shared memory only, nothing on the pool's queues (a free worker may take any job, so a job
    cannot be addressed to a worker): each worker takes a slot when it starts, a thread of its
    own waits on its slot's event, and it answers a message by writing the message's number in
    its slot. The main process writes the next message only once every live worker answered."""

    #: bytes of one message (the entrants' specs as JSON); more is sent as several messages
    SIZE = 1 << 16

    def __init__(self, ctx, workers: int):
        self.text = ctx.Array("c", self.SIZE, lock=False)
        self.number = ctx.Value("i", 0, lock=False)
        self.pids = ctx.Array("i", workers, lock=False)  # the worker in each slot
        self.answered = ctx.Array("i", workers, lock=False)
        self.taken = ctx.Value("i", 0)
        self.wake = [ctx.Event() for _ in range(workers)]
        self.done = ctx.Semaphore(0)

    def listen(self, pool: WarmPool) -> None:
        """In a worker: take a slot and answer messages for ``pool`` from now on."""
        with self.taken.get_lock():
            slot = self.taken.value
            self.taken.value += 1
        if slot < len(self.wake):  # a pool starts at most as many workers as it has slots
            self.pids[slot] = os.getpid()
            threading.Thread(target=self._serve, args=(slot, pool), daemon=True,
                             name="tourney-leaving").start()

    def _serve(self, slot: int, pool: WarmPool) -> None:
        while True:
            self.wake[slot].wait()
            self.wake[slot].clear()
            number = self.number.value
            specs = json.loads(self.text.value.decode() or "[]")
            try:
                pool.retire([entrant_spec(spec) for spec in specs])
            except Exception:  # pragma: no cover - answered all the same: the main process waits
                pass
            self.answered[slot] = number
            self.done.release()

    def tell(self, specs: list[dict], alive: Callable[[], set[int]], wait: float = 60.0) -> None:
        """In the main process: every worker says goodbye to its idle processes of ``specs``;
        returns when each live worker (``alive()``: their pids) has, or after ``wait`` seconds."""
        chunks: list[list[dict]] = [[]]
        for spec in specs:
            if chunks[-1] and len(json.dumps(chunks[-1] + [spec])) >= self.SIZE:
                chunks.append([])
            chunks[-1].append(spec)
        for chunk in chunks:
            self.text.value = json.dumps(chunk).encode()
            self.number.value += 1
            for event in self.wake:
                event.set()
            deadline = time.monotonic() + wait
            while time.monotonic() < deadline:
                pids = alive()
                if all(self.answered[k] == self.number.value for k in range(len(self.wake))
                       if self.pids[k] in pids):
                    break
                self.done.acquire(timeout=0.5)  # a worker that dies meanwhile is not waited for


def init_signals() -> None:
    """SIGTERM closes this worker's bots and ends it; Ctrl-C is the main process's to handle
    (it terminates the workers)."""
    signal.signal(signal.SIGTERM, lambda *_: _abandon(143))
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def dropped(ticket: int) -> bool:
    """Whether the main process dropped the round of ``ticket``."""
    return _DROPPED is not None and bool(_DROPPED[ticket % len(_DROPPED)])


def run_task(task: SeriesTask, ticket: int = 0) -> int:
    """Play a series of the round ``ticket``: each message goes out as ``(ticket, message)``,
    and ``(ticket, ("done", idx))`` last. A dropped round's series is not begun, or is left
    after the game being played (its bots go back to the pool between two games, as ever)."""
    q = _QUEUE
    assert q is not None, "init() runs first in every worker"

    def emit(msg) -> None:
        q.put((ticket, msg))
        if dropped(ticket):
            raise Dropped

    try:
        if not dropped(ticket):
            run_series(task, emit, opened=_OPEN, pool=_POOL)
    except Dropped:
        pass
    q.put((ticket, ("done", task.idx)))
    return task.idx


def fit(task: SeriesTask, held: set[str]) -> int:
    """How many of a series' entrants this worker holds idle warm processes of."""
    return sum(1 for spec in task.entrants if spec.get("command") and spec["name"] in held)


def run_claim(tasks: list[SeriesTask], base: int, ticket: int) -> int:
    """Play one series of ``tasks`` (positions ``base`` on of the round ``ticket``) that no
    worker has taken yet: the one with the most entrants whose warm processes this worker holds,
    the earliest of those. The round sends one such job per series, so every series is played
    once, and each goes, where it can, to a worker that need not start its bots."""
    assert _CLAIMS is not None, "init() runs first in every worker"
    held = _POOL.holds() if _POOL is not None else set()
    with _CLAIMS.get_lock():
        free = [i for i in range(len(tasks)) if _CLAIMS[base + i] != ticket]
        best = max(free, key=lambda i: (fit(tasks[i], held), -i))
        _CLAIMS[base + best] = ticket
    return run_task(tasks[best], ticket)
