"""Running an event in the main process, the database's only writer.

:func:`prepare_event` creates the event (or finds it to resume), :func:`pending_tasks` lists the
series left to play, and :class:`Runner` plays them (in process, or on a pool of worker
processes) and commits every game the moment it arrives.
"""

from __future__ import annotations

import os
import queue as _queue
import sys

from tourney.events import workers
from tourney.events.play import SeriesTask, run_series
from tourney.events.schedule import schedule
from tourney.results import store


class EventConflict(store.StoreError):
    """The database holds an event of this name with a different config."""


def prepare_event(db, cfg, source: str, restart: bool = False) -> tuple[int, bool]:
    """The event's id, creating it (and its schedule) if new; returns (id, resumed)."""
    canonical = cfg.canonical()
    row = store.find_event(db, cfg.event["name"])
    if row is not None and restart:
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
    event_id = store.create_event(db, event, cfg.entrants, schedule(event), canonical, source)
    return event_id, False


def db_name(db) -> str:
    try:
        return db.execute("pragma database_list").fetchone()[2] or ":memory:"
    except Exception:
        return "the database"


def pending_tasks(db, event_id: int, cfg) -> list[SeriesTask]:
    """The unfinished series of an event as tasks (with their stored games)."""
    specs = {s["name"]: s for s in cfg.resolved_entrants()}
    ev = cfg.event
    tasks = []
    for s in store.series_rows(db, event_id):
        if s["status"] == "finished":
            continue
        done = []
        for g in store.series_games(db, s["id"]):
            done.append({
                "idx": g["idx"],
                "first_player": g["first_player"],
                "winners": g["winners"],
                "points": [st["points"] for st in g["seats"]],
                "placements": [st["placement"] for st in g["seats"]],
                "reason": g["reason"],
            })
        tasks.append(SeriesTask(
            idx=s["idx"], kind=s["kind"], rule_set=ev["rule_set"], options=ev["options"],
            event_seed=ev["seed"], seed=s["seed"], games_target=s["games_target"],
            max_games=ev.get("max_games"),
            entrants=[specs[e["name"]] for e in s["entrants"]], done=done,
        ))
    return tasks


def default_concurrency() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover
        return max(1, os.cpu_count() or 1)


class Runner:
    """Runs the pending series of an event and stores every finished game as it arrives.

    Callbacks: ``on_game(series_row, payload)``, ``on_series(series_row, result)``,
    ``on_warn(text)``; ``on_line`` (in-process runs only) gets every log line as it is made.
    """

    def __init__(self, db, event_id: int, tasks: list[SeriesTask], concurrency: int,
                 on_game=None, on_series=None, on_warn=None, on_line=None):
        self.db = db
        self.event_id = event_id
        self.tasks = tasks
        self.concurrency = concurrency or default_concurrency()
        self.on_game = on_game
        self.on_series = on_series
        self.on_warn = on_warn
        self.on_line = on_line
        self.series = {s["idx"]: s for s in store.series_rows(db, event_id)}
        self.finished = 0

    def handle(self, msg) -> None:
        if msg[0] == "warn":
            if self.on_warn:
                self.on_warn(f"series {msg[1]}: {msg[2]}")
            return
        _, idx, payload, result = msg
        s = self.series[idx]
        ids = [e["entrant_id"] for e in s["entrants"]]
        for seat in payload["seats"]:
            seat["entrant_id"] = ids[seat["seat"]]
        stored_result = None
        if result is not None:
            stored_result = {
                "outcome": result["outcome"],
                "winner_id": None if result["winner"] is None else ids[result["winner"]],
                "games_played": result["games_played"],
                "entrants": {ids[r["seat"]]: r for r in result["seats"]},
            }
        payload["game_id"] = store.record_game(self.db, self.event_id, s["id"], payload, stored_result)
        if self.on_game:
            self.on_game(s, payload)
        if result is not None:
            self.finished += 1
            if self.on_series:
                self.on_series(s, result)

    def run(self) -> None:
        if not self.tasks:
            return
        size = min(self.concurrency, len(self.tasks))
        if size <= 1:
            for task in self.tasks:
                run_series(task, self.handle, on_line=self.on_line)
            return
        self._run_pool(size)

    def _run_pool(self, size: int) -> None:
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor

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
        q = ctx.Queue()
        expected = len(self.tasks)
        pool = ProcessPoolExecutor(size, mp_context=ctx, initializer=workers.init,
                                   initargs=(q, os.getpid()))
        try:
            futures = [pool.submit(workers.run_task, t) for t in self.tasks]
            target = self.finished + expected
            returned = 0
            while self.finished < target:
                try:
                    msg = q.get(timeout=0.2)
                except _queue.Empty:
                    for f in futures:
                        if f.done() and f.exception() is not None:
                            raise f.exception()
                    done = sum(1 for f in futures if f.done())
                    if done == len(futures) and returned == done:
                        break  # every worker returned and nothing more arrived
                    returned = done
                    continue
                self.handle(msg)
        except BaseException:
            procs = list((getattr(pool, "_processes", None) or {}).values())
            pool.shutdown(wait=False, cancel_futures=True)
            for p in procs:
                try:
                    p.terminate()
                except Exception:
                    pass
            raise
        pool.shutdown(wait=True)
