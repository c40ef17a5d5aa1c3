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
is spread over N series; a ladder's one-game tables are grouped this way. A group sends its games
together, at most every :data:`SEND_EVERY_S`, and hands the last of them back with its result
(one round trip fewer per group). A group whose worker dies is submitted again series by series,
each from its stored games.

Rounds follow each other without a pause when the runner allows it (``runner.plans_ahead``, a ladder
that plans one batch ahead): the next round is asked for, and submitted, as soon as every round
before the last one given is stored, so the workers play one round while the main process plans
the next. Otherwise (a Swiss round needs the standings of the last) a round is asked for once
every series before it is stored.

Before any work, every worker checks that it can start every entrant (:func:`bot_problems`):
the run refuses to start, naming the worker and the entrant, when one cannot. A worker that
joins later checks again before it plays a series.

Every worker keeps the event's bots warm for the whole run, and a series is sent, where
possible, to a worker that holds warm processes of its entrants. What runs on a worker (the
tasks, the checks, the warm pools) is in :mod:`tourney.events.cluster_worker`.
"""

from __future__ import annotations

import dataclasses
import time
import uuid

from tourney.errors import UserError
from tourney.events.cluster_worker import (
    BotMissing,
    bot_problems,
    channel_name,
    play_group_on_worker,
    play_on_worker,
    portable,
    warm_close,
    warm_retire,
    warm_start,
)
from tourney.events.play import SeriesTask
from tourney.events.tasks import stored_games
from tourney.results import store

#: how often a series may lose its worker before the run gives up on it
MAX_ATTEMPTS = 4
#: how long to try to reach the scheduler
CONNECT_TIMEOUT = "10s"
#: how long (seconds) the main process waits for a task to end before it looks at the queue again
POLL_S = 0.05


class ClusterError(UserError):
    """The cluster cannot run the event (unreachable, no workers, a bot missing on a worker)."""


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
    """Plays ``runner``'s tasks, round after round, on the cluster of ``client``, committing
    through ``runner`` (the module docstring says when the next round is asked for)."""

    def __init__(self, runner, client, run_id: str | None = None, held: dict | None = None):
        self.runner = runner
        self.client = client
        run_id = run_id or uuid.uuid4().hex[:12]
        self.run_id = run_id
        #: worker address -> the entrants it holds warm processes of (where to send a series)
        self.held: dict[str, set[str]] = held if held is not None else {}
        self.channel = channel_name(run_id)
        self.stop_name = f"tourney-stop-{run_id}"
        #: the series of the rounds in play, by idx: their tasks, attempts and games stored so
        #: far (the ``idx`` the next accepted game must have)
        self.tasks: dict[int, SeriesTask] = {}
        self.attempt: dict[int, int] = {}
        self.stored: dict[int, int] = {}
        #: the series of each round in play not finished yet, oldest round first
        self.rounds: list[set[int]] = []
        self.series_of: dict[str, list[int]] = {}  # task key -> the series idx it plays
        self.group = max(1, int(getattr(runner, "cluster_group", 1) or 1))
        #: rounds in play at once: two when the runner plans one ahead
        self.depth = 2 if getattr(runner, "plans_ahead", False) else 1

    def run(self) -> None:
        from distributed import Event, Queue, as_completed  # the optional [cluster] extra: only on a cluster run

        queue = Queue(self.channel, client=self.client)
        stop = Event(self.stop_name, client=self.client)
        futures = as_completed([], loop=self.client.loop)
        futures.update(self._add_round(self.runner.tasks))
        more = True
        try:
            while True:
                while more and len(self.rounds) < self.depth:
                    more = self._next_round(futures)
                if futures.is_empty() and not self.rounds:
                    break
                done = futures.next_batch(block=False)
                # drained after the batch is taken: a finished task's puts are all on the queue
                if not self._drain(queue) and not done:
                    _wait_for_a_task(futures, POLL_S)
                finished = [f for f in done if f.status == "finished"]
                results = dict(zip([f.key for f in finished], self.client.gather(finished))) if finished else {}
                for future in done:
                    for retry in self._settle(future, results.get(future.key)):
                        futures.add(retry)
                self._close_rounds()
            self._drain(queue)
        except BaseException:
            stop.set()  # workers stop within about a second; nothing more is stored
            raise
        finally:
            queue.close()

    def _add_round(self, tasks: list[SeriesTask]) -> list:
        """Submit a round's series (grouped when the runner asks for it); their futures."""
        for t in tasks:
            self.tasks[t.idx] = dataclasses.replace(t, entrants=[portable(e) for e in t.entrants])
            self.attempt[t.idx] = 0
            self.stored[t.idx] = len(t.done)
        if tasks:
            self.rounds.append({t.idx for t in tasks})
        order = [t.idx for t in tasks]
        # at most the asked size; when the next round waits for this one, small enough that
        # each worker thread gets about four groups: its last group is not left running alone
        threads = sum(self.client.nthreads().values()) or 1
        size = max(1, min(self.group, len(order) // ((4 if self.depth == 1 else 1) * threads)))
        groups = [order[i:i + size] for i in range(0, len(order), size)]
        return [self._submit(g[0]) if len(g) == 1 else self._submit_group(g) for g in groups]

    def _next_round(self, futures) -> bool:
        """Ask the runner for its next round and submit it; whether there was one. The rows of
        the series still in play are kept beside the new round's."""
        kept = self.runner.series
        more = self.runner.next_round()
        self.runner.series = {**kept, **self.runner.series}
        if more:
            futures.update(self._add_round(self.runner.tasks))
        return more

    def _close_rounds(self) -> None:
        """Forget the rounds whose series are all stored (oldest first: a round is only done
        once every round before it is)."""
        while self.rounds and not self.rounds[0]:
            self.rounds.pop(0)
            live = set().union(*self.rounds)
            for idx in [i for i in self.tasks if i not in live]:
                del self.tasks[idx], self.attempt[idx], self.stored[idx]
                self.runner.series.pop(idx, None)

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
        """Store every game waiting on the queue (one commit); returns how many messages
        there were."""
        return self._accept([item for items in queue.get(batch=True) for item in items])

    def _accept(self, waiting: list) -> int:
        """Store the messages that are the next of their series' current attempt (one commit);
        returns how many there were."""
        accepted = []
        for attempt, msg in waiting:
            idx = msg[1]
            if attempt != self.attempt.get(idx):
                continue  # a late message of a series since given to another worker, or done
            if msg[0] == "game":
                if msg[2]["idx"] != self.stored[idx]:
                    continue  # already stored (the scheduler re-ran the task from the start)
                self.stored[idx] += 1
                if msg[3] is not None:  # the series' result: it is finished
                    self._finished(idx)
            accepted.append(msg)
        if accepted:
            self.runner.handle_many(accepted)
        return len(waiting)

    def _finished(self, idx: int) -> None:
        for left in self.rounds:
            left.discard(idx)

    def _settle(self, future, result) -> list:
        """Account for a task that ended (``result``: what it returned, or its error): store
        the messages it handed back, and return the new futures of the next attempts of its
        series that are not done (none when all are)."""
        idxs = self.series_of.pop(future.key)
        error = future.exception() if future.status == "error" else None
        if result is not None:
            _, worker, held, waiting = result
            self.held[worker] = set(held)
            self._accept(waiting)
        if isinstance(error, BotMissing):
            raise ClusterError(str(error))
        if error is not None and not _lost_worker(error):
            raise error
        # neither a result nor an error: the task ended, then its result was lost with its
        # worker before it was gathered (the future went from finished to lost)
        died = error is not None or result is None
        return [retry for idx in idxs if (retry := self._retry(idx, died)) is not None]

    def _retry(self, idx: int, died: bool):
        """None if the series is done, else the future of its next attempt (``died``: its last
        task's worker died, rather than the task ending before the series did)."""
        if not any(idx in left for left in self.rounds):
            return None  # finished
        if self._series_done(idx):
            self._finished(idx)
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
            why = "its worker died" if died else "it stopped early"
            self.runner.on_warn(f"series {idx}: {why}; playing on from game {self.stored[idx]} "
                                "on another worker")
        return self._submit(idx)

    def _series_done(self, idx: int) -> bool:
        return store.series_status(self.runner.db, self.runner.series[idx]["id"]) == "finished"


def _wait_for_a_task(futures, seconds: float) -> None:
    """Wait until a task of ``futures`` (an ``as_completed``) ends, or ``seconds`` pass (the
    queue's own timed wait would log an error on the scheduler each time it times out)."""
    condition = getattr(futures, "thread_condition", None)
    if condition is None:  # pragma: no cover (another version of distributed)
        time.sleep(seconds)
        return
    with condition:
        if not futures.has_ready():
            condition.wait(timeout=seconds)


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
        client.run(warm_start, run_id, wanted)  # every worker at once
        warmed = True
        held = {w: {spec["name"] for spec, _ in wanted} for w in client.scheduler_info()["workers"]}
        # entrants that left play: goodbye on every worker at once (a worker that cannot answer,
        # dying, takes its processes with it: its death is the run's to handle, not this call's)
        runner.leaving = lambda specs: client.run(warm_retire, run_id, [portable(spec) for spec in specs],
                                                  on_error="ignore")
        ClusterRun(runner, client, run_id, held).run()  # round after round
    finally:
        runner.leaving = None
        if warmed:
            try:
                client.run(warm_close, run_id)  # goodbye on every worker at once
            except Exception:  # the cluster may be gone; each worker closes quiet pools itself
                pass
        client.close()
