"""Benchmark: what grows with the number of stored games, and what one writer can take.

Synthetic data written through the store API (:func:`tourney.results.store.record_game`, the
single writer's own path): real games of the built-in bots are played once and stored again
and again with new ids into one event of 8 entrants (series of 100 two-player games). Measures

(a) the writer's capacity: games committed per second, under load (``--batch`` games waiting
    at each commit, the writer's group commit) and with one game per commit;
(b) the per-series dispatch overhead of a Dask cluster against the local pool: events of N and
    2N one-game series of built-in bots on 2 local worker processes and on a 2-worker
    ``LocalCluster`` (127.0.0.1); the extra time per series and worker is
    ``((tc(2N) - tc(N)) - (tl(2N) - tl(N))) * 2 / N`` (fixed start-up costs cancel);
(c) the time of ``tourney standings``, ``tourney games --json --event E`` (first page) and
    ``tourney report`` at each size (each in a fresh process, commands timed inside it);
(d) database bytes per game (file size after a WAL checkpoint / games);
(e) peak memory (VmHWM) of the writing process and of each read process, per size.

Last line::

    writer_games_per_s=<float> dispatch_ms=<float> standings_s_1e6=<float> bytes_per_game=<int> peak_mb_1e6=<float>

(``standings_s_1e6`` and ``peak_mb_1e6`` are at the largest size measured.)

Usage: python bench/scale.py [--quick] [--sizes 10000,100000,1000000] [--dir DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tourney.results import store  # noqa: E402

ENTRANTS = 8
SERIES_GAMES = 100


def peak_mb() -> float:
    """This process's peak resident memory so far (VmHWM), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def sample_payloads(count: int) -> list[dict]:
    """``count`` real two-player games of the built-in bots, as the writer receives them."""
    from tourney.events.play import SeriesTask, run_series

    task = SeriesTask(idx=0, kind="league", rule_set="crazier-eights", options={}, event_seed=7,
                      seed=7, games_target=count, max_games=None,
                      entrants=[{"name": "g", "builtin": "greedy"}, {"name": "r", "builtin": "random"}])
    out: list[dict] = []
    run_series(task, lambda msg: out.append(msg[2]) if msg[0] == "game" else None)
    return out


def create(db, total: int) -> tuple[int, list[dict]]:
    """An event big enough for ``total`` games; returns its id and series rows."""
    names = [f"bot{i}" for i in range(ENTRANTS)]
    pairs = [(a, b) for a in names for b in names if a != b]
    series = -(-total // SERIES_GAMES)
    schedule = [{"idx": i, "round": 0, "kind": "league", "seed": i, "games_target": SERIES_GAMES,
                 "entrants": list(pairs[i % len(pairs)])} for i in range(series)]
    event = {"name": "scale", "format": "round-robin", "rule_set": "crazier-eights", "seed": 1,
             "players": 2, "games": SERIES_GAMES, "options": {}}
    event_id = store.create_event(db, event, [{"name": n, "builtin": "random"} for n in names],
                                  schedule, {"bench": "scale"}, "bench")
    return event_id, store.series_rows(db, event_id)


def write(db, event_id: int, series: list[dict], samples: list[dict], start: int, stop: int,
          batch: int = 1) -> float:
    """Store games ``start``..``stop - 1`` of the event, ``batch`` games per commit (as the
    writer does when that many are waiting); returns the seconds it took."""
    began = time.perf_counter()
    waiting: list = []
    for n in range(start, stop):
        s = series[n // SERIES_GAMES]
        idx = n % SERIES_GAMES
        game = dict(samples[n % len(samples)])
        ids = [e["entrant_id"] for e in s["entrants"]]
        game["idx"] = game["leg"] = idx
        game["seats"] = [{**seat, "entrant_id": ids[seat["seat"]]} for seat in game["seats"]]
        result = None
        if idx == SERIES_GAMES - 1:
            result = {"outcome": "win", "winner_id": ids[0], "games_played": SERIES_GAMES,
                      "entrants": {i: {"wins": 0, "points": 0, "placement": 1 + k}
                                   for k, i in enumerate(ids)}}
        waiting.append((s["id"], game, result))
        if len(waiting) >= batch or n == stop - 1:
            store.record_games(db, event_id, waiting)
            waiting = []
    return time.perf_counter() - began


def read_times(path: Path) -> dict:
    """Time the read commands in a fresh process (``--read``) and return its figures."""
    out = subprocess.run([sys.executable, __file__, "--read", str(path)], check=True,
                         capture_output=True, text=True, cwd=ROOT)
    return json.loads(out.stdout.strip().splitlines()[-1])


def read_main(path: str) -> None:
    """In a fresh process: time standings, the first page of games and the report."""
    from typer.testing import CliRunner

    import tourney.commands  # noqa: F401
    from tourney.app import app

    runner = CliRunner()

    def timed(args: list[str], repeat: int) -> float:
        times = []
        for _ in range(repeat):
            began = time.perf_counter()
            result = runner.invoke(app, [*args, "--db", path])
            times.append(time.perf_counter() - began)
            assert result.exit_code == 0, result.output
        return statistics.median(times)

    figures = {
        "standings_s": timed(["standings", "scale"], 3),
        "games_s": timed(["games", "--json", "--event", "scale"], 3),
    }
    figures["report_s"] = timed(["report", "scale"], 1)
    figures["peak_mb"] = peak_mb()
    print(json.dumps(figures))


def dispatch_ms(series: int) -> float:
    """Extra wall time per series and worker on a 2-worker Dask cluster against 2 local
    processes: the slope between ``series`` and ``2 * series`` one-game series, so that the
    fixed costs (connecting, checking the workers' bots, closing) cancel out."""
    import dask
    from distributed import LocalCluster

    from tourney.config import parse_config
    from tourney.events import runner

    def timed(cluster: str | None, count: int) -> float:
        raw = {"event": {"name": "d", "format": "round-robin", "unit": "league", "seed": 3,
                         "games": 1, "rounds": count},
               "entrants": [{"name": f"b{i}", "builtin": "random"} for i in range(2)]}
        best = float("inf")
        for _ in range(2):
            with tempfile.TemporaryDirectory() as tmp:
                cfg = parse_config(raw, base_dir=str(ROOT))
                db = store.open_db(Path(tmp) / "d.db")
                event_id, _ = runner.prepare_event(db, cfg, "bench")
                tasks = runner.pending_tasks(db, event_id, cfg)
                assert len(tasks) == count
                began = time.perf_counter()
                runner.Runner(db, event_id, tasks, 2, cluster=cluster).run()
                best = min(best, time.perf_counter() - began)
                db.conn.close()
        return best

    local = [timed(None, n) for n in (series, 2 * series)]
    with (dask.config.set({"distributed.scheduler.allowed-failures": 0}),
          LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                       dashboard_address=None) as cluster):
        remote = [timed(cluster.scheduler_address, n) for n in (series, 2 * series)]
    print(f"dispatch: {series} and {2 * series} one-game series on 2 workers: local pool "
          f"{local[0]:.2f} s and {local[1]:.2f} s, Dask {remote[0]:.2f} s and {remote[1]:.2f} s",
          flush=True)
    slope = (remote[1] - remote[0]) - (local[1] - local[0])
    return slope * 2 / series * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="sizes 1,000 and 10,000; fewer series")
    ap.add_argument("--sizes", default="10000,100000,1000000")
    ap.add_argument("--dir", default=None, help="where the database goes (default: a temp folder)")
    ap.add_argument("--batch", type=int, default=32,
                    help="games waiting at each commit under load (default 32)")
    ap.add_argument("--read", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.read:
        read_main(args.read)
        return
    sizes = [1000, 10000] if args.quick else [int(float(s)) for s in args.sizes.split(",")]
    samples = sample_payloads(64)
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        path = Path(tmp) / "scale.db"
        db = store.open_db(path)
        event_id, series = create(db, sizes[-1])
        single = min(5000, sizes[0])
        one_by_one = single / write(db, event_id, series, samples, 0, single)
        print(f"one game per commit: {one_by_one:.0f} games/s over {single} games", flush=True)
        written, seconds = single, 0.0
        rows = []
        for size in sizes:
            segment = write(db, event_id, series, samples, written, size, args.batch)
            seconds += segment
            print(f"games {written}..{size}: {(size - written) / segment:.0f} games/s, "
                  f"{args.batch} per commit", flush=True)
            written = size
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            size_bytes = path.stat().st_size
            reads = read_times(path)
            row = {"games": size, "writer_games_per_s": (written - single) / seconds,
                   "bytes_per_game": size_bytes / size, "writer_peak_mb": peak_mb(), **reads}
            rows.append(row)
            print(f"games={size} writer_games_per_s={row['writer_games_per_s']:.0f} "
                  f"bytes_per_game={row['bytes_per_game']:.0f} standings_s={reads['standings_s']:.3f} "
                  f"games_page_s={reads['games_s']:.3f} report_s={reads['report_s']:.2f} "
                  f"read_peak_mb={reads['peak_mb']:.1f} writer_peak_mb={row['writer_peak_mb']:.1f}",
                  flush=True)
        db.conn.close()
    dispatch = dispatch_ms(40 if args.quick else 200)
    last = rows[-1]
    print(f"writer_games_per_s={last['writer_games_per_s']:.1f} dispatch_ms={dispatch:.2f} "
          f"standings_s_1e6={last['standings_s']:.3f} bytes_per_game={round(last['bytes_per_game'])} "
          f"peak_mb_1e6={max(last['peak_mb'], last['writer_peak_mb']):.1f}")


if __name__ == "__main__":
    os.environ.setdefault("TOURNEY_DB", os.devnull)  # nothing here may touch results/
    main()
