"""Benchmark: where a ladder's time goes on a Dask cluster, task by task.

Plays N one-game tables of built-in bots (the ladder of ``bench/ladder.py --cluster``) on a
2-worker ``LocalCluster`` with timestamps: on each worker, when each task (a group of tables)
starts and ends and how long its queue puts wait; in the main process, each refit-and-choose of
a batch, each commit and each empty look at the queue. Then one local run of the same tables on
2 worker processes, for comparison. Prints, per table: the workers' time inside tasks (and in
puts), before the first task, between two tasks, waiting for the next batch, after the last
task; the main process's refits, commits and empty looks.

The timestamps come from wrapping the functions involved (this script only), so the figures
carry the wrappers' small cost; on a shared machine they move with the load (printed).

Usage: python bench/cluster_trace.py [--tables 512]

Last line: ``worker_ms_per_table=<float> in_tasks=<float> puts=<float> between_tasks=<float>
waiting_for_batch=<float> wall_ms_per_table=<float> local_wall_ms_per_table=<float>``
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

EVENTS: list[tuple[str, float, float, int]] = []  # (kind, start, end, count) in the main process
WORKER_LOG = Path(tempfile.gettempdir()) / f"tourney-cluster-trace-{os.getpid()}.jsonl"


def traced_group(tasks, channel, stop, attempt, run_id=None, log=None):
    """A group's Dask task, timed on the worker (this function travels by value)."""
    import json
    import time

    from tourney.events import cluster_worker

    begun = time.time()
    flush, puts = cluster_worker._Sender.flush, []

    def timed_flush(sender):
        if sender.waiting:
            start = time.time()
            flush(sender)
            puts.append(time.time() - start)
        else:
            flush(sender)

    cluster_worker._Sender.flush = timed_flush
    try:
        out = cluster_worker.play_group_on_worker(tasks, channel, stop, attempt, run_id)
    finally:
        cluster_worker._Sender.flush = flush
    with open(log, "a") as f:
        f.write(json.dumps({"worker": out[1], "first": tasks[0].idx, "tables": len(tasks), "start": begun,
                            "end": time.time(), "puts": puts}) + "\n")
    return out


def instrument() -> None:
    from tourney.events import cluster, runner
    from tourney.ladder import service

    def timed(owner, name, kind, count=lambda out, args: 1):
        inner = getattr(owner, name)

        def wrapper(*args, **kwargs):
            start = time.time()
            out = inner(*args, **kwargs)
            EVENTS.append((kind, start, time.time(), count(out, args)))
            return out

        setattr(owner, name, wrapper)

    def submit_group(self, idxs):
        key = f"{self.channel}-group-{idxs[0]}-{idxs[-1]}"
        self.series_of[key] = list(idxs)
        return self.client.submit(traced_group, [self.tasks[i] for i in idxs], self.channel, self.stop_name, 0,
                                  self.run_id, str(WORKER_LOG), key=key, pure=False)

    cluster.ClusterRun._submit_group = submit_group  # type: ignore[method-assign]
    timed(service.LadderRun, "next_tasks", "plan")
    timed(runner.Runner, "handle_many", "commit", lambda out, args: len(args[1]))
    timed(cluster.ClusterRun, "_drain", "drain", lambda out, args: out)


def play(tables: int, cluster: str | None) -> tuple[float, float, float]:
    import random

    from tourney.ladder import service
    from tourney.results import store

    with tempfile.TemporaryDirectory() as tmp:
        db = store.open_db(Path(tmp) / "ladder.db")
        service.new_ladder(db, "c", "crazier-eights", 2, seed=1)
        for author, bot in (("a", "greedy"), ("b", "random"), ("c", "greedy"), ("d", "random")):
            service.submit(db, "c", author, builtin=bot)
        start = time.time()
        service.LadderRun(db, "c", concurrency=2, cluster=cluster, batch=128, rng=random.Random(1)).play(games=tables)
        end = time.time()
        return start, end, end - start


def report(tables: int, start: float, end: float, local_s: float) -> None:
    tasks = [json.loads(line) for line in WORKER_LOG.read_text().splitlines()]
    per = lambda seconds: 1000 * seconds / tables  # noqa: E731
    by_worker = collections.defaultdict(list)
    for t in tasks:
        by_worker[t["worker"]].append(t)
    plans = [(s, e) for kind, s, e, _ in EVENTS if kind == "plan" and start <= s <= end]
    inside = sum(t["end"] - t["start"] for t in tasks)
    puts = sum(sum(t["puts"]) for t in tasks)
    before = sum(min(t["start"] for t in ts) - start for ts in by_worker.values())
    after = sum(end - max(t["end"] for t in ts) for ts in by_worker.values())
    between = waiting = 0.0
    for ts in by_worker.values():
        ts.sort(key=lambda t: t["start"])
        for a, b in zip(ts, ts[1:]):
            gap = b["start"] - a["end"]
            # the next task is of a batch planned during the gap: the worker waited for it
            if any(a["end"] <= e <= b["start"] for s, e in plans) and b["first"] // 128 != a["first"] // 128:
                waiting += gap
            else:
                between += gap
    commits = [(e - s, n) for kind, s, e, n in EVENTS if kind == "commit" and start <= s <= end]
    empty = [e - s for kind, s, e, n in EVENTS if kind == "drain" and n == 0 and start <= s <= end]
    wall = end - start
    print(f"# {tables} tables in {len(tasks)} tasks on {len(by_worker)} workers: {wall:.2f} s "
          f"({per(wall):.2f} ms a table); the local pool {local_s:.2f} s ({per(local_s):.2f} ms a table); "
          f"load {os.getloadavg()[0]:.1f}")
    print(f"# workers' ms a table (of {per(len(by_worker) * wall):.2f}): in tasks {per(inside):.3f} "
          f"(of which queue puts {per(puts):.3f}, {sum(len(t['puts']) for t in tasks)} puts), before the first "
          f"task {per(before):.3f}, between tasks {per(between):.3f}, waiting for the next batch {per(waiting):.3f}, "
          f"after the last task {per(after):.3f}")
    planning = sum(e - s for s, e in plans)
    print(f"# main process, ms a table: refit and choose {per(planning):.3f} ({len(plans)} batches), "
          f"commits {per(sum(c for c, _ in commits)):.3f} ({len(commits)}), empty looks at the queue "
          f"{per(sum(empty)):.3f} ({len(empty)})")
    print(f"worker_ms_per_table={per(len(by_worker) * wall):.3f} in_tasks={per(inside):.3f} puts={per(puts):.3f} "
          f"between_tasks={per(between):.3f} waiting_for_batch={per(waiting):.3f} wall_ms_per_table={per(wall):.3f} "
          f"local_wall_ms_per_table={per(local_s):.3f}")


def _idle_group(tasks, result):
    """A group's task that plays nothing: what the cluster costs to carry a group there and back."""
    return [t.idx for t in tasks], "", [], result


def floor(address: str, group: int = 32) -> None:
    """What the cluster costs with no game at all: a no-op task, and a group's task that takes a
    group's tables and hands back a group's games (one at a time, and many queued at once)."""
    import statistics

    import distributed

    from tourney.events.play import SeriesTask, run_series

    games: list = []
    tasks = [SeriesTask(idx=i, kind="league", rule_set="crazier-eights", options={}, event_seed=1, seed=i,
                        games_target=1, max_games=None, secret="0" * 32,
                        entrants=[{"name": "c/a/v1", "builtin": "greedy"}, {"name": "c/b/v1", "builtin": "random"}])
             for i in range(group)]
    for t in tasks:
        run_series(t, games.append)
    result = [(0, msg) for msg in games]
    client = distributed.Client(address, set_as_default=False)
    try:
        figures = []
        for fn, args in ((_idle_group, (tasks[:0], [])), (_idle_group, (tasks, result))):
            client.submit(fn, *args, pure=False).result()
            one = []
            for _ in range(30):
                start = time.perf_counter()
                client.submit(fn, *args, pure=False).result()
                one.append(time.perf_counter() - start)
            start = time.perf_counter()
            client.gather([client.submit(fn, *args, pure=False) for _ in range(200)])
            figures.append((1000 * statistics.median(one), 1000 * (time.perf_counter() - start) / 200))
    finally:
        client.close()
    (alone, queued), (group_alone, group_queued) = figures
    print(f"# no game at all: an empty task {alone:.2f} ms alone, {queued:.2f} ms each when 200 are queued; "
          f"a task carrying {group} tables and their {group} games {group_alone:.2f} ms alone, {group_queued:.2f} ms "
          f"each when queued ({group_queued / group:.3f} ms a table); load {os.getloadavg()[0]:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=512)
    args = parser.parse_args()
    import dask
    import distributed

    instrument()
    try:
        with (dask.config.set({"distributed.scheduler.allowed-failures": 0}),
              distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                       dashboard_address=None) as c):
            play(64, c.scheduler_address)  # the workers' first imports and bot starts
            play(64, None)
            WORKER_LOG.unlink(missing_ok=True)
            EVENTS.clear()
            start, end, _ = play(args.tables, c.scheduler_address)
            local_s = play(args.tables, None)[2]
            floor(c.scheduler_address)
            report(args.tables, start, end, local_s)
    finally:
        WORKER_LOG.unlink(missing_ok=True)


if __name__ == "__main__":
    main()
