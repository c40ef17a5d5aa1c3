"""Running an event in the main process, the database's only writer.

:func:`prepare_event` creates the event (or finds it to resume), :func:`pending_tasks` lists the
series left to play, and :class:`Runner` plays them (in process, or on a pool of worker
processes) and commits every game the moment it arrives.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import queue as _queue
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor

from tourney import formats, seeding
from tourney.bots.pool import WarmPool
from tourney.config import entrant_spec
from tourney.events import workers
from tourney.events.cluster import run_on_cluster
from tourney.events.play import SeriesTask, run_series
from tourney.events.schedule import schedule
from tourney.events.tasks import item_tasks, pending_tasks, stored_games
from tourney.results import reads, store

__all__ = ["EventConflict", "Runner", "ahead_tasks", "db_name", "default_concurrency",
           "next_round_tasks", "pending_tasks", "prepare_event", "stored_games"]

#: the most games committed together when several are waiting (Runner.handle_many)
GROUP_COMMIT = 256
#: an event with more command entrants than this starts none ahead: each worker starts a bot's
#: process when a series first needs it, and keeps it warm from then on
WARM_PRESTART_MAX = 8
#: slots of the shared array of dropped rounds (tickets wrap around; two rounds are ever in play)
TICKETS = 4096
#: series of a routed round offered together to each free worker (each job carries them all)
ROUTE_CHUNK = 64
#: a round of more series than this is not routed (the shared array of claims holds this many)
ROUTE_MAX = 1 << 16


class EventConflict(store.StoreError):
    """The database holds an event of this name with a different config."""


def prepare_event(db, cfg, source: str, restart: bool = False) -> tuple[int, bool]:
    """The event's id, creating it (and its schedule) if new; returns (id, resumed)."""
    canonical = cfg.canonical()
    row = store.find_event(db, cfg.event["name"])
    kept = None
    if row is not None and restart:
        kept = row.get("deal_secret")  # a restart deals again exactly what a first run dealt
        store.delete_event(db, row["id"])
        row = None
    if row is not None:
        if row["config_hash"] != store.config_hash(canonical):
            raise EventConflict(
                f"event {cfg.event['name']!r} is already in {db_name(db)} with a different "
                "config; use --restart to discard its results, or give the event a new name"
            )
        return row["id"], True
    event = dict(cfg.event)
    secret = None if event.get("public_seeds") else kept or seeding.new_secret()
    seeded = formats.get(event["format"]).prepare(db, event)  # e.g. a bracket seeded by rating
    event_id = store.create_event(db, event, cfg.entrants, schedule(seeded, secret), canonical,
                                  source, secret=secret)
    return event_id, False


def db_name(db) -> str:
    try:
        return (reads.database_files(db) or [":memory:"])[0]
    except Exception:
        return "the database"


def next_round_tasks(db, event_id: int, cfg) -> list[SeriesTask]:
    """The next round (of a Swiss or knockout, the next batch of an SPRT: the event's format
    plans it), created if every series so far has finished, as tasks; [] when there is none
    (a format planned up front, a round still running, the event complete)."""
    rows = store.series_rows(db, event_id)
    if not rows or any(s["status"] != "finished" for s in rows):
        return []
    items = formats.get(cfg.event["format"]).next_series(db, event_id, cfg.event, rows,
                                                         store.event_secret(db, event_id))
    if not items:
        return []
    store.add_series(db, event_id, items)
    return pending_tasks(db, event_id, cfg)


def ahead_tasks(db, event_id: int, cfg) -> list[SeriesTask]:
    """The round after the stored series, should the event go on once they have finished, when
    the format can tell it before their results (an SPRT's next batch), as tasks; nothing is
    stored (the round is played ahead, and kept only if :func:`next_round_tasks` then gives the
    same series)."""
    items = formats.get(cfg.event["format"]).next_series_ahead(
        cfg.event, store.series_rows(db, event_id), store.event_secret(db, event_id))
    return item_tasks(cfg, items, store.event_secret(db, event_id)) if items else []


def default_concurrency() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover
        return max(1, os.cpu_count() or 1)


class Runner:
    """Runs the pending series of an event and stores every finished game as it arrives.

    Callbacks: ``on_game(series_row, payload)``, ``on_series(series_row, result)``,
    ``on_warn(text)``; ``on_line`` (in-process runs only) gets every log line as it is made.
    ``more()``, if given, is asked for further tasks when the given ones are done (the next
    round of a Swiss or knockout), until it returns none; then ``keep()``, if given, for the
    command entrants that may keep their warm processes (:meth:`keep_only`). With ``cluster``
    (a Dask scheduler's address) the series are played on that cluster's workers instead of
    local processes (:mod:`tourney.events.cluster`), ``cluster_group`` series per Dask task.

    ``ahead()``, if given, is asked, each time a round starts on the local pool, for the round
    that ``more()`` will give after it should the event go on (:func:`ahead_tasks`). Those
    series are queued behind the round, so no worker waits while the round's last series ends
    and the next is planned; their games are held, not stored, until ``more()`` gives the same
    series, and dropped (those not begun are never begun, those begun stop after their game)
    when it gives others or none. So what is stored, and where an SPRT stops, is exactly what
    round after round gives (docs/scale.md, "Playing the next batch ahead").
    """

    def __init__(self, db, event_id: int, tasks: list[SeriesTask], concurrency: int,
                 on_game=None, on_series=None, on_warn=None, on_line=None, more=None,
                 cluster: str | None = None, cluster_group: int = 1, ahead=None, keep=None):
        self.more = more
        self.keep = keep
        self.ahead = ahead
        #: rounds played ahead: asked for, kept, dropped; games of dropped rounds thrown away
        self.ahead_counts = {"rounds": 0, "kept": 0, "dropped": 0, "games_dropped": 0}
        self.cluster_group = cluster_group
        self.db = db
        self.event_id = event_id
        self.tasks = tasks
        self.concurrency = concurrency or default_concurrency()
        self.on_game = on_game
        self.on_series = on_series
        self.on_warn = on_warn
        self.on_line = on_line
        self.cluster = cluster
        self.series = self._series_of(tasks)
        self.finished = 0
        #: how the warm processes of entrants that left play are said goodbye to, where the
        #: series are played (set by each way of playing while it plays: see :meth:`leave`)
        self.leaving: Callable[[list[dict]], object] | None = None
        #: the command entrants handed out to play so far, by name (see :meth:`keep_only`)
        self.handed: dict[str, dict] = {}
        self._hand(tasks)

    def _series_of(self, tasks: list[SeriesTask]) -> dict[int, dict]:
        """The stored rows of the series about to be played (only those: a ladder's event holds
        thousands of finished ones)."""
        return {s["idx"]: s for s in reads.series_rows_for(self.db, self.event_id, [t.idx for t in tasks])}

    def handle(self, msg) -> None:
        """Store one message from a series (a game, or a warning)."""
        self.handle_many([msg])

    def handle_many(self, msgs: list) -> None:
        """Store the games of messages that arrived together in one commit (a group commit:
        under load the commit, not the rows, is the writer's cost; bench/scale.py), then report
        them and the warnings in arrival order."""
        games = []
        for msg in msgs:
            if msg[0] != "game":
                continue
            _, idx, payload, result = msg
            s = self.series[idx]
            ids = [e["entrant_id"] for e in s["entrants"]]
            slots = payload.get("slots") or list(range(len(ids)))  # who sat where (duplicate)
            for seat in payload["seats"]:
                seat["entrant_id"] = ids[slots[seat["seat"]]]
            stored_result = None
            if result is not None:
                stored_result = {
                    "outcome": result["outcome"],
                    "winner_id": None if result["winner"] is None else ids[result["winner"]],
                    "games_played": result["games_played"],
                    "entrants": {ids[r["seat"]]: r for r in result["seats"]},
                }
            games.append((s["id"], payload, stored_result))
        if games:
            for (_, payload, _), game_id in zip(games, store.record_games(self.db, self.event_id, games)):
                payload["game_id"] = game_id  # for fault lines that name the game
        for msg in msgs:
            if msg[0] == "warn":
                if self.on_warn:
                    self.on_warn(f"series {msg[1]}: {msg[2]}")
                continue
            _, idx, payload, result = msg
            s = self.series[idx]
            if self.on_game:
                self.on_game(s, payload)
            if result is not None:
                self.finished += 1
                if self.on_series:
                    self.on_series(s, result)

    def leave(self, specs: list[dict]) -> None:
        """Entrants that left play (a ladder's retired or disabled versions; ``specs`` as the
        tasks carried them): every worker says goodbye to its warm processes of them, the idle
        ones and those started ahead before this returns, those playing a series when that
        series ends."""
        if specs and self.leaving is not None:
            self.leaving(specs)

    def keep_only(self, specs: list[dict]) -> None:
        """The command entrants that may keep their warm processes (a ladder's active versions,
        with their limits as they are now): every other entrant handed out so far, or handed out
        with another spec, leaves the workers (:meth:`leave`)."""
        keep = {spec["name"]: spec for spec in specs}
        leaving = [spec for name, spec in self.handed.items() if keep.get(name) != spec]
        for spec in leaving:
            del self.handed[spec["name"]]
        self.leave(leaving)

    def _hand(self, tasks: list[SeriesTask]) -> None:
        self.handed.update((spec["name"], spec) for t in tasks for spec in t.entrants if spec.get("command"))

    def run(self) -> None:
        """Play every pending series, round after round, with the event's bots kept warm from
        the first series to the last (docs/protocol.md, "Warm bots")."""
        if not self.tasks:
            return
        if self.cluster:
            run_on_cluster(self, self.cluster)  # its own rounds: one client for the whole event
            return
        size = min(self.concurrency, len(self.tasks))
        if size <= 1:
            pool = WarmPool()
            self.leaving = lambda specs: pool.retire([entrant_spec(spec) for spec in specs])
            try:
                pool.prestart([(entrant_spec(spec), n) for spec, n in self.warm_wanted()])
                while self.tasks:
                    for task in self.tasks:
                        run_series(task, self.handle, on_line=self.on_line, pool=pool)
                    self.next_round()
            finally:
                self.leaving = None
                pool.close()
            return
        self._run_pool(size)

    def next_round(self) -> bool:
        """Take the next round's tasks (``more``); whether there are any."""
        self.tasks = self.more() if self.more is not None else []
        if self.keep is not None:  # before the new tasks are counted as handed: their specs are kept
            self.keep_only(self.keep())
        self._hand(self.tasks)
        self.series = self._series_of(self.tasks)
        return bool(self.tasks)

    def warm_wanted(self) -> list[tuple[dict, int]]:
        """The warm processes a worker starts at the event's start: one of every command entrant
        (one per seat of a duplicate deal, since a process never meets a deal twice), unless the
        event has more than :data:`WARM_PRESTART_MAX` of them; those start when first needed."""
        specs: dict[str, dict] = {}
        count = 1
        for task in self.tasks:
            if task.duplicate:
                count = max(count, len(task.entrants))
            for spec in task.entrants:
                if spec.get("command"):
                    specs.setdefault(spec["name"], spec)
        if len(specs) > WARM_PRESTART_MAX:
            return []
        return [(spec, count) for spec in specs.values()]

    def _abort(self, pool: ProcessPoolExecutor) -> None:
        procs = list((getattr(pool, "_processes", None) or {}).values())
        # the pool's manager thread, taken now: shutdown(wait=False) forgets it, and a later
        # shutdown(wait=True) would then join nothing
        manager = getattr(pool, "_executor_manager_thread", None)
        pool.shutdown(wait=False, cancel_futures=True)
        for p in procs:
            try:
                p.terminate()
            except Exception:
                pass
        # wait for that thread: left running, it closes its wake-up pipe while the interpreter's
        # exit writes to it ("Exception ignored ... Bad file descriptor" after Ctrl-C, under load)
        if manager is not None:
            manager.join(timeout=30)

    def _context(self):
        if sys.platform.startswith("linux"):
            # fork (measured: speed-up 1.8 on two cores against 1.6 for forkserver, whose start
            # and imports cost ~0.3 s); the main process has no threads when the pool forks
            # (workers are forked at the first submit, the progress bar does not use a thread)
            ctx = mp.get_context(os.environ.get("TOURNEY_MP", "fork"))
            if ctx.get_start_method() == "forkserver":
                # workers fork from a server that has imported the engine and the referee
                ctx.set_forkserver_preload(["tourney.events.workers", "tourney.bots.referee",
                                            "tourney.bots.entrants", "tourney.config",
                                            "engine.crazier", "engine.bots"])
        else:  # pragma: no cover
            ctx = mp.get_context("spawn")
        return ctx

    def _run_pool(self, size: int) -> None:
        """Play on ``size`` worker processes, kept (with their warm bots) for every round of
        the event; their bots are said goodbye when the pool shuts down, worker by worker at once."""
        ctx = self._context()
        q = ctx.Queue()
        dropped = ctx.Array("b", TICKETS, lock=False)
        warm = self.warm_wanted()
        # no warm process started ahead, yet command entrants: send each series to a worker
        # that holds its entrants' warm processes where one can
        route = not warm and any(spec.get("command") for t in self.tasks for spec in t.entrants)
        claims = ctx.Array("i", ROUTE_MAX) if route else None
        leaving = workers.Leaving(ctx, size)
        pool = ProcessPoolExecutor(size, mp_context=ctx, initializer=workers.init,
                                   initargs=(q, os.getpid(), warm, dropped, claims, leaving))

        def alive() -> set[int]:
            return {p.pid for p in list((getattr(pool, "_processes", None) or {}).values()) if p.is_alive()}

        self.leaving = lambda specs: leaving.tell(specs, alive)
        try:
            _Rounds(self, pool, q, dropped, routed=route).play()
        except BaseException:
            self._abort(pool)
            raise
        finally:
            self.leaving = None
        pool.shutdown(wait=True)


class _Round:
    """The series of one round on the pool: its ticket, futures, and jobs not done yet."""

    def __init__(self, ticket: int, tasks: list[SeriesTask], futures: list):
        self.ticket, self.tasks, self.futures = ticket, tasks, futures
        self.open = len(futures)  # jobs whose ("done", idx) has not come yet: one per series
        self.held: list = []  # messages of a round played ahead, until it is confirmed


class _Rounds:
    """The local pool's rounds, one confirmed round at a time and the next played ahead."""

    def __init__(self, runner: Runner, pool: ProcessPoolExecutor, q, dropped, routed: bool = False):
        self.runner, self.pool, self.q, self.dropped = runner, pool, q, dropped
        self.routed = routed
        self.ticket = 0
        self.rounds: dict[int, _Round] = {}  # every round with series not done, dropped ones too

    def submit(self, tasks: list[SeriesTask]) -> _Round:
        self.ticket += 1
        self.dropped[self.ticket % TICKETS] = 0
        if self.routed and len(tasks) <= ROUTE_MAX:
            # one job per series, each offered its chunk: a free worker takes the one that fits it
            futures = [self.pool.submit(workers.run_claim, tasks[base:base + ROUTE_CHUNK], base, self.ticket)
                       for base in range(0, len(tasks), ROUTE_CHUNK)
                       for _ in tasks[base:base + ROUTE_CHUNK]]
        else:
            futures = [self.pool.submit(workers.run_task, t, self.ticket) for t in tasks]
        r = _Round(self.ticket, tasks, futures)
        self.rounds[r.ticket] = r
        return r

    def drop(self, r: _Round | None) -> None:
        if r is None:
            return
        self.dropped[r.ticket % TICKETS] = 1  # before the cancels: a series not cancelled skips
        for future in r.futures:
            if future.cancel():
                r.open -= 1
        self.runner.ahead_counts["dropped"] += 1
        self.runner.ahead_counts["games_dropped"] += sum(1 for m in r.held if m[0] == "game")
        r.held = []

    def play(self) -> None:
        runner = self.runner
        current = self.submit(runner.tasks)
        ahead = self.submit_ahead()
        while True:
            self.wait(current, ahead)
            del self.rounds[current.ticket]
            if not runner.next_round():
                self.drop(ahead)
                break
            if ahead is not None and ahead.tasks == runner.tasks:
                runner.ahead_counts["kept"] += 1
                current, held, ahead.held = ahead, ahead.held, []
                ahead = self.submit_ahead()  # queued first: the workers are still on ``current``
                self.take(held)
            else:
                self.drop(ahead)
                current = self.submit(runner.tasks)
                ahead = self.submit_ahead()
        self.settle()

    def submit_ahead(self) -> _Round | None:
        """The round after the stored ones, should the event go on, queued behind them."""
        tasks = self.runner.ahead() if self.runner.ahead is not None else []
        self.runner.ahead_counts["rounds"] += bool(tasks)
        return self.submit(tasks) if tasks else None

    def wait(self, current: _Round, ahead: _Round | None) -> None:
        """Store the games of ``current`` as they come until its every series is done, holding
        those of ``ahead``."""
        while current.open:
            self.receive(current, ahead)

    def settle(self) -> None:
        """Wait for the dropped series still being played (each stops after its game): their
        messages are read, so no worker is left writing to a full queue."""
        while any(r.open for r in self.rounds.values()):
            self.receive(None, None)

    def receive(self, current: _Round | None, ahead: _Round | None) -> None:
        try:
            msgs = [self.q.get(timeout=0.2)]
        except _queue.Empty:
            _raise_worker_failure([f for r in self.rounds.values() for f in r.futures])
            return
        while len(msgs) < GROUP_COMMIT:  # everything else already waiting
            try:
                msgs.append(self.q.get_nowait())
            except _queue.Empty:
                break
        mine = []
        for ticket, msg in msgs:
            r = self.rounds.get(ticket)
            if r is None:
                continue
            if msg[0] == "done":
                r.open -= 1
                if not r.open and r is not current and r is not ahead:
                    del self.rounds[ticket]
                continue
            if r is current:
                mine.append(msg)
            elif r is ahead:
                r.held.append(msg)
            elif msg[0] == "game":  # a dropped round's game: never stored
                self.runner.ahead_counts["games_dropped"] += 1
        if mine:
            self.runner.handle_many(mine)

    def take(self, held: list) -> None:
        """Store what a round played ahead had sent before it was confirmed, in arrival order."""
        mine = [m for m in held if m[0] != "done"]
        for start in range(0, len(mine), GROUP_COMMIT):
            self.runner.handle_many(mine[start:start + GROUP_COMMIT])


def _raise_worker_failure(futures) -> None:
    """Raise the error of the first worker that failed: a quiet queue may mean a crashed worker."""
    for f in futures:
        failure = f.exception() if f.done() and not f.cancelled() else None
        if failure is not None:
            raise failure from None
