"""Where a warm verdict's wall time goes beyond its games: one ``tourney sprt`` run of
bench/verdict.py's warm arm (the example smart bot against its noisy self, ``-j 2``, warm bots),
timed phase by phase.

The run happens in this process (its workers are forked from it), with a few functions of the
runner wrapped to write a time stamp each; the phases:

- ``start``: the interpreter's start, to the first line of this script (measured from the parent);
- ``imports``: importing the console script and the command's modules;
- ``setup``: the command line read, the config checked, the database opened, the event created;
- ``prestart``: the workers forked and their warm bots started, to the last worker's first series;
- ``play``: from there to the last series' end; ``busy`` is the workers' mean time in series,
  ``idle`` the rest (a worker with nothing to play: the end of each SPRT batch, before the
  next batch was played ahead);
- ``goodbye``: the workers' goodbyes to their bots and the pool's shutdown;
- ``after``: the event finished and its summary; ``exit``: the interpreter's teardown.

Each tree's modules are compiled to bytecode first, as bench/verdict.py does (its docstring says why).

Usage: python bench/warm_profile.py [--repeat 3] [--elo1 50] [--max-games 2000] [--root TREE] [--against TREE]
Last line: ``wall_s=<float> start_s=<float> imports_s=<float> setup_s=<float> prestart_s=<float>
play_s=<float> busy_s=<float> idle_s=<float> goodbye_s=<float> after_s=<float> exit_s=<float>``
(the median of each over the runs; with ``--against``, the other tree's line comes first).
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
sys.path.insert(0, str(ROOT / "bench"))

CHILD = r'''
import os, sys, time
T = [("begin", os.getpid(), time.time())]
LOG = os.environ["WARM_PROFILE_LOG"]
def mark(what):
    with open(LOG, "a") as f:
        f.write(f"{what} {os.getpid()} {time.time():.6f}\n")
mark("begin")
sys.argv = ["tourney", *sys.argv[1:]]
import importlib
import tourney.cli
from tourney import app as _app
if hasattr(tourney.cli, "command_module"):  # a tree whose console script loads one command
    _app.load_only = tourney.cli.command_module(sys.argv[1:])
    importlib.import_module(f"tourney.commands.{_app.load_only}")
mark("imported")
from tourney.bots import pool as poolmod
from tourney.events import runner, workers
from tourney.results import store

def wrap(owner, name, before=None, after=None):
    f = getattr(owner, name)
    def w(*a, **k):
        if before: mark(before)
        try:
            return f(*a, **k)
        finally:
            if after: mark(after)
    setattr(owner, name, w)

wrap(runner.Runner, "run", "run", "pool_end")
wrap(poolmod.WarmPool, "close", "close", "closed")
wrap(workers, "run_series", "series", "series_end")
wrap(store, "finish_event", "finish")
entry = tourney.cli.main if hasattr(tourney.cli, "command_module") else _app.app  # as the console script
try:
    entry()
finally:
    mark("returned")
'''


def phases(log: Path, began: float, ended: float) -> dict[str, float]:
    rows = [line.split() for line in log.read_text().splitlines()]
    main = int(next(r[1] for r in rows if r[0] == "begin"))
    at = {}
    for what, pid, t in rows:
        if int(pid) == main:
            at.setdefault(what, float(t))
    series = [(r[0], int(r[1]), float(r[2])) for r in rows if r[0] in ("series", "series_end")]
    workers = sorted({pid for _, pid, _ in series})
    first = {w: min(t for what, pid, t in series if pid == w and what == "series") for w in workers}
    last = {w: max(t for what, pid, t in series if pid == w and what == "series_end") for w in workers}
    busy = dict.fromkeys(workers, 0.0)
    open_at: dict[int, float] = {}
    for what, pid, t in sorted(series, key=lambda r: r[2]):
        if what == "series":
            open_at[pid] = t
        else:
            busy[pid] += t - open_at.pop(pid)
    play_start, play_end = max(first.values()), max(last.values())
    mean_busy = statistics.mean(busy[w] - max(0.0, play_start - first[w]) for w in workers)
    return {
        "wall": ended - began,
        "start": at["begin"] - began,
        "imports": at["imported"] - at["begin"],
        "setup": at["run"] - at["imported"],
        "prestart": play_start - at["run"],
        "play": play_end - play_start,
        "busy": mean_busy,
        "idle": play_end - play_start - mean_busy,
        "goodbye": at["pool_end"] - play_end,
        "after": at["returned"] - at["pool_end"],
        "exit": ended - at["returned"],
    }


def main() -> None:
    import verdict  # bench/verdict.py: its config of the two bots

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--elo0", type=float, default=0.0)
    parser.add_argument("--elo1", type=float, default=50.0)
    parser.add_argument("--max-games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--root", default=str(ROOT), help="the tree to profile (default: this one)")
    parser.add_argument("--against", help="another checkout, run in turn with this one (its line first)")
    args = parser.parse_args()
    trees = [args.root, *([args.against] if args.against else [])]
    for tree in trees:  # as bench/verdict.py: bytecode as an installed copy has it
        verdict.compile_tree(Path(tree))
    runs: dict[str, list[dict[str, float]]] = {tree: [] for tree in trees}
    with tempfile.TemporaryDirectory(prefix="warm-profile-") as tmp:
        conf = Path(tmp) / "warm.toml"
        verdict.config(conf, [])
        for k in range(args.repeat):
            for tree in trees:  # interleaved: a drift in the machine's load hits both alike
                name = f"{k}-{trees.index(tree)}"
                log, db = Path(tmp) / f"log{name}", Path(tmp) / f"run{name}.db"
                argv = [sys.executable, "-c", CHILD, "sprt", "smart", "noisy", "--config", str(conf), "-j", "2",
                        "--elo0", str(args.elo0), "--elo1", str(args.elo1), "--max-games", str(args.max_games),
                        "--seed", str(args.seed), "--db", str(db), "--public-seeds", "--json", "--restart", "never"]
                env = {**os.environ, "PYTHONPATH": tree, "WARM_PROFILE_LOG": str(log)}
                began = time.time()
                done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=tree)
                ended = time.time()
                if done.returncode != 0:
                    sys.exit(f"tourney sprt failed ({done.returncode}):\n{done.stderr[-2000:]}")
                games = json.loads(done.stdout)["sprt"]["games"]
                runs[tree].append(phases(log, began, ended))
                load = " ".join(f"{x:.1f}" for x in os.getloadavg())
                print(f"{tree} run {k + 1}: {games} games, load {load}: "
                      + " ".join(f"{key} {value:.3f}" for key, value in runs[tree][-1].items()))
    for tree in reversed(trees):  # this tree's last
        median = {key: statistics.median(r[key] for r in runs[tree]) for key in runs[tree][0]}
        print(" ".join(f"{key}_s={value:.3f}" for key, value in median.items()))


if __name__ == "__main__":
    main()
