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

Usage: python bench/verdict.py [--set warm|protocol] [--repeat 1] [--arm lean+orjson] [--elo1 50]
       [--max-games 2000] [--cold-heavy] [-- ARGS]
"""

from __future__ import annotations

import argparse
import json
import os
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
    args = parser.parse_args(own)
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
