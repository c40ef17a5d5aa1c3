"""Time to a verdict: wall time and games until ``tourney sprt`` answers, with and without each
speed-up of the bot protocol.

Two example subprocess bots of known, close strength: ``examples/bots/smart_bot.py`` against the
same bot playing a random legal option 30% of the time (``--noise 0.3``). ``tourney sprt`` plays
them with ``-j 2`` until the SPRT accepts H0 or H1 (or ``--max-games``). The protocol arms
(``--set protocol``), each a fresh database, interleaved over ``--repeat`` rounds so that drifts
in the machine's load hit all alike:

- ``lean+orjson``: protocol 1.1 lean requests, orjson in the bots where installed (the default);
- ``lean+json``: 1.1 lean requests, the standard library's json in the bots;
- ``1.0+json``: whole views and labelled options (protocol 1.0), stdlib json: no speed-up.

Each arm plays the same seeded event with ``--public-seeds`` (else each new event draws its own
secret, so its own deals), and the bots play the same moves on either protocol path, so the verdict
and the number of games are the same in every arm; only the time differs. Arguments after
``--`` are passed on to ``tourney sprt`` (for example ``-- --luck-adjusted`` once that option
exists, or ``-- --games-per-series 1`` for series of one game: ``tourney sprt`` plays 2 games per
start of the bots by default, so a verdict's games differ from those of series of one game).
With ``--set protocol`` the last line is the chosen ``--arm``'s median:
``seconds=<float> games=<int> decisions_per_s=<float>``.

Warm bots (``--set warm``, the default): the same two bots, ``tourney sprt`` with the bots'
processes restarted per series (``cold``: ``--restart series``, the life cycle before protocol
1.2) and kept warm (``warm``: the default ``--restart never``), then the warm arm again with both
bots started through bench/slow_start.py, which waits 1.5 s before the hello (``warm-heavy``: a
bot that loads a network). Every arm plays the same deals and the same moves (the bots seed each
game from its game_start), so the verdict and the games are the same; only the time differs.
``--cold-heavy`` adds the cold arm with the slow starters (what a verdict cost before). The last
line: ``cold_s_per_game=<float> warm_s_per_game=<float> games_s_per_game=<float>
heavy_extra_s=<float>``:

- ``cold_s_per_game``, ``warm_s_per_game``: wall time to the verdict over the games played;
- ``games_s_per_game``: the time the games alone take: the sum of the warm arm's game times (the
  referee's and the bots' time from a game's start to its end, with the bots already running),
  over the workers (``-j``), per game;
- ``heavy_extra_s``: the warm arm's wall time with the slow starters less that with the plain bots.

Bytecode: the tree's modules are compiled ahead (:func:`compile_tree`), as an installed tool has
them. A checkout run with ``PYTHONDONTWRITEBYTECODE=1`` (as on the project's machine) otherwise
compiles every module of ``tourney`` again at each start, about 0.2 s that no installed copy pays;
``--source`` measures that case (the tree's bytecode removed, and none written).

The floor (``--set warm``): before the last line the bench prints what any verdict of these bots
pays outside its games however little ``tourney``'s own code did (:func:`floor`): a Python
interpreter's start, the imports of the given stack (Typer and sqlite-utils), the ``2 × -j``
sandboxed bots launched at once until their last hello, and their goodbyes; added in turn, and
as if the imports and the bots' start shared every core perfectly (their CPU over the cores);
next to what ``warm_s_per_game <= 1.5 * games_s_per_game`` leaves for all of it.

Usage: python bench/verdict.py [--set warm|protocol] [--repeat 1] [--arm lean+orjson] [--elo1 50]
       [--max-games 2000] [--cold-heavy] [--source] [-- ARGS]
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SMART = str(ROOT / "examples" / "bots" / "smart_bot.py")
SLOW = str(ROOT / "bench" / "slow_start.py")
#: how long the heavy bots wait before their hello (seconds)
HEAVY_START_S = 1.5
ARMS = {  # name: extra arguments of both bots
    "lean+orjson": [],
    "lean+json": ["--json", "json"],
    "1.0+json": ["--features", "none", "--json", "json"],
}
#: the warm set's arms: name -> (restart setting, slow-starting bots)
WARM_ARMS = {"cold": ("series", False), "warm": ("never", False), "warm-heavy": ("never", True),
             "cold-heavy": ("series", True)}


def tree_folders(root: Path) -> list[Path]:
    return [root / folder for folder in ("tourney", "engine", "examples", "bench")]


def remove_bytecode(root: Path = ROOT) -> None:
    """Remove the bytecode of the checkout's own modules (the standard library's and the
    installed packages' stay, as on any machine)."""
    for folder in tree_folders(root):
        for cache in folder.rglob("__pycache__"):
            shutil.rmtree(cache)


def compile_tree(root: Path = ROOT) -> None:
    """Write the bytecode of the modules and example bots of the checkout ``root``
    (``__pycache__``, ignored by git), as ``pip install`` does for an installed copy; Python then
    reads it at every start."""
    for folder in tree_folders(root):
        compileall.compile_dir(folder, quiet=1)


#: the given stack's imports, as ``tourney sprt`` makes them (sqlite-utils without numpy)
STACK = ("import importlib.abc, sys\n"
         "class No(importlib.abc.MetaPathFinder):\n"
         "    def find_spec(self, name, path=None, target=None):\n"
         "        if name.partition('.')[0] in ('numpy', 'pandas'): raise ImportError(name)\n"
         "sys.meta_path.insert(0, No()); import sqlite_utils; sys.meta_path.pop(0); import typer\n")


def children_cpu() -> float:
    """CPU seconds of this process's ended children (the bots, once said goodbye and reaped)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def floor(conf: Path, jobs: int, rounds: int = 5) -> dict[str, float]:
    """What a verdict of ``conf``'s two bots at ``-j jobs`` pays outside its games at the least,
    however little ``tourney``'s own code did, median of ``rounds``: the wall seconds of an
    interpreter's start (``python -c pass``, and ``python_cpu`` its CPU), of the given stack's
    imports (Typer and sqlite-utils, beyond the start; ``stack_cpu``), of ``bots = 2 * jobs``
    sandboxed bots launched at once until the last hello (each worker holds one process of each
    bot) and of their goodbyes; ``bots_cpu`` is the bots' CPU from launch to exit."""
    sys.path.insert(0, str(ROOT))
    from tourney import config as tourney_config
    from tourney.bots.factory import open_entrant
    from tourney.bots.pool import close_together

    specs = [tourney_config.entrant_spec(e) for e in tourney_config.load_config(conf).entrants]
    bots = 2 * jobs
    rows: dict[str, list[float]] = {k: [] for k in ("python", "python_cpu", "stack", "stack_cpu",
                                                     "hello", "goodbye", "bots_cpu")}

    def timed(argv: list[str]) -> tuple[float, float]:
        cpu, start = children_cpu(), time.perf_counter()
        subprocess.run(argv, check=True)
        return time.perf_counter() - start, children_cpu() - cpu

    for k in range(rounds):
        python, python_cpu = timed([sys.executable, "-c", "pass"])
        stack, stack_cpu = timed([sys.executable, "-c", STACK])
        rows["python"].append(python)
        rows["python_cpu"].append(python_cpu)
        rows["stack"].append(stack - python)
        rows["stack_cpu"].append(stack_cpu - python_cpu)
        entrants = [open_entrant(specs[i % len(specs)], seed=k * bots + i) for i in range(bots)]
        cpu, start = children_cpu(), time.perf_counter()
        for e in entrants:
            e.launch()
        for e in entrants:
            e.start()
        rows["hello"].append(time.perf_counter() - start)
        start = time.perf_counter()
        close_together(entrants)
        rows["goodbye"].append(time.perf_counter() - start)
        rows["bots_cpu"].append(children_cpu() - cpu)
    return {**{k: statistics.median(v) for k, v in rows.items()}, "bots": bots}


def config(path: Path, bot_args: list[str], heavy: bool = False) -> None:
    """A config that defines the two entrants (command lines with arguments need one)."""
    def entrant(name: str, extra: list[str]) -> str:
        start = ["{python}", SLOW, str(HEAVY_START_S), SMART] if heavy else ["{python}", SMART]
        command = ", ".join(json.dumps(a) for a in [*start, *extra])
        return f'[[entrants]]\nname = "{name}"\ncommand = [{command}]\n'

    path.write_text(
        "[event]\nname = \"verdict\"\nformat = \"sprt\"\nentrants = [\"smart\", \"noisy\"]\n\n"
        + entrant("smart", bot_args) + "\n" + entrant("noisy", [*bot_args, "--noise", "0.3"])
    )


def tally(db: Path) -> tuple[int, int, float]:
    """Decisions played in every game of the database, the faults recorded, and the games' time."""
    con = sqlite3.connect(db)
    try:
        moves, seconds = con.execute("SELECT COALESCE(SUM(decisions), 0), COALESCE(SUM(seconds), 0) "
                                     "FROM games").fetchone()
        faults = con.execute("SELECT COUNT(*) FROM seats WHERE fault IS NOT NULL").fetchone()[0]
        return int(moves), int(faults), float(seconds)
    finally:
        con.close()


def run_sprt(name: str, conf: Path, args, passed: list[str], work: Path
             ) -> tuple[float, int, int, str, int, float]:
    """One ``tourney sprt`` run: seconds, games, decisions, verdict, faults, the games' time."""
    db = work / f"{name}-{time.monotonic_ns()}.db"
    argv = [sys.executable, "-m", "tourney", "sprt", "smart", "noisy", "--config", str(conf),
            "-j", str(args.jobs), "--elo0", str(args.elo0), "--elo1", str(args.elo1),
            "--max-games", str(args.max_games), "--seed", str(args.seed), "--db", str(db),
            "--public-seeds", "--json", *passed]  # public seeds: every arm plays the same deals
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if args.source:  # the tree's modules compiled at every start (the tree's bytecode was removed)
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ROOT)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{name}: tourney sprt failed ({done.returncode}):\n{done.stderr[-2000:]}")
    result = json.loads(done.stdout)["sprt"]
    moves, faults, game_seconds = tally(db)
    return seconds, result["games"], moves, result["verdict"], faults, game_seconds


def run_arm(name: str, args, passed: list[str], work: Path) -> tuple[float, int, int, str, int, float]:
    """One ``tourney sprt`` run of protocol arm ``name``."""
    conf = work / f"{name}.toml"
    config(conf, ARMS[name])
    return run_sprt(name, conf, args, passed, work)


def run_warm_arm(name: str, args, passed: list[str], work: Path) -> tuple[float, int, int, str, int, float]:
    """One ``tourney sprt`` run of warm-set arm ``name``."""
    restart, heavy = WARM_ARMS[name]
    conf = work / f"{name}.toml"
    config(conf, [], heavy=heavy)
    return run_sprt(name, conf, args, [*passed, "--restart", restart], work)


def load() -> str:
    """The machine's load averages (1, 5, 15 min) and cores, for the record."""
    one, five, fifteen = os.getloadavg()
    return f"load {one:.1f} {five:.1f} {fifteen:.1f} on {os.cpu_count()} cores"


def warm_set(args, passed: list[str]) -> None:
    arms = ["cold", "warm", "warm-heavy", *(["cold-heavy"] if args.cold_heavy else [])]
    runs: dict[str, list] = {name: [] for name in arms}
    loads = [load()]
    with tempfile.TemporaryDirectory(prefix="verdict-") as tmp:
        for _ in range(args.repeat):
            for name in arms:
                runs[name].append(run_warm_arm(name, args, passed, Path(tmp)))
                loads.append(load())
    print(f"tourney sprt smart noisy(--noise 0.3) -j {args.jobs} --elo0 {args.elo0:g} --elo1 {args.elo1:g} "
          f"--max-games {args.max_games} {' '.join(passed)}".rstrip())
    print("bytecode: " + ("none (every module compiled at each start)" if args.source else "compiled ahead"))
    print("machine: " + "; ".join(loads))
    median = {}
    for name, rows in runs.items():
        seconds = statistics.median(r[0] for r in rows)
        median[name] = seconds
        games, verdict, faults = rows[0][1], rows[0][3], rows[0][4]
        print(f"{name:10s} {seconds:7.2f} s  games {games:5d}  verdict {verdict:8s}  faults {faults:3d}  "
              f"{seconds / games:.4f} s/game (runs: {', '.join(f'{r[0]:.2f}' for r in rows)})")
    same = {(rows[0][1], rows[0][2], rows[0][3]) for rows in runs.values()}
    print("same games, moves and verdict in every arm: " + ("yes" if len(same) == 1 else f"NO {same}"))
    games = runs["warm"][0][1]
    game_seconds = statistics.median(r[5] for r in runs["warm"])
    with tempfile.TemporaryDirectory(prefix="verdict-floor-") as tmp:
        conf = Path(tmp) / "floor.toml"
        config(conf, [])
        f = floor(conf, args.jobs)
    budget = 0.5 * game_seconds / args.jobs
    in_turn = f["python"] + f["stack"] + f["hello"] + f["goodbye"]
    overlapped = f["python"] + (f["stack_cpu"] + f["bots_cpu"]) / (os.cpu_count() or 1)
    print(f"floor outside the games: interpreter {f['python']:.3f} s, Typer and sqlite-utils imported "
          f"{f['stack']:.3f} s, {f['bots']} sandboxed bots to their hellos {f['hello']:.3f} s, their "
          f"goodbyes {f['goodbye']:.3f} s: {in_turn:.3f} s in turn, {overlapped:.3f} s if the imports and "
          f"the bots shared every core perfectly (CPU {f['stack_cpu']:.3f} + {f['bots_cpu']:.3f} s); "
          f"1.5 x the games leaves {budget:.3f} s")
    print(f"cold_s_per_game={median['cold'] / runs['cold'][0][1]:.4f} "
          f"warm_s_per_game={median['warm'] / games:.4f} "
          f"games_s_per_game={game_seconds / args.jobs / games:.4f} "
          f"heavy_extra_s={median['warm-heavy'] - median['warm']:.3f}")


def main() -> None:
    argv = sys.argv[1:]
    passed = argv[argv.index("--") + 1:] if "--" in argv else []
    own = argv[: argv.index("--")] if "--" in argv else argv
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=["warm", "protocol"], default="warm",
                        help="warm: cold, warm and slow-starting bots; protocol: the protocol's speed-ups")
    parser.add_argument("--repeat", type=int, default=1, help="rounds of every arm (median kept)")
    parser.add_argument("--arm", choices=list(ARMS), default="lean+orjson",
                        help="--set protocol: the arm of the last line")
    parser.add_argument("--cold-heavy", action="store_true", help="--set warm: also the cold arm with slow starters")
    parser.add_argument("--jobs", "-j", type=int, default=2, help="tourney sprt -j")
    parser.add_argument("--elo0", type=float, default=0.0)
    parser.add_argument("--elo1", type=float, default=50.0)
    parser.add_argument("--max-games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--source", action="store_true",
                        help="no bytecode of the tree's modules (a checkout run with PYTHONDONTWRITEBYTECODE=1)")
    args = parser.parse_args(own)
    if args.source:
        remove_bytecode()
    else:
        compile_tree()
    if args.set == "warm":
        warm_set(args, passed)
        return
    runs: dict[str, list[tuple[float, int, int, str, int, float]]] = {name: [] for name in ARMS}
    with tempfile.TemporaryDirectory(prefix="verdict-") as tmp:
        for _ in range(args.repeat):
            for name in ARMS:
                runs[name].append(run_arm(name, args, passed, Path(tmp)))
    print(f"tourney sprt smart noisy(--noise 0.3) -j {args.jobs} --elo0 {args.elo0:g} --elo1 {args.elo1:g} "
          f"--max-games {args.max_games} {' '.join(passed)}".rstrip())
    for name, rows in runs.items():
        seconds = statistics.median(r[0] for r in rows)
        games, moves, verdict, faults = rows[0][1], rows[0][2], rows[0][3], rows[0][4]
        print(f"{name:12s} {seconds:7.2f} s  games {games:5d}  verdict {verdict:8s}  faults {faults:3d}  "
              f"{moves / seconds:8.0f} decisions/s (runs: {', '.join(f'{r[0]:.2f}' for r in rows)})")
    rows = runs[args.arm]
    seconds = statistics.median(r[0] for r in rows)
    print(f"seconds={seconds:.3f} games={rows[0][1]} decisions_per_s={rows[0][2] / seconds:.1f}")


if __name__ == "__main__":
    main()
