"""Time to a verdict: wall time and games until ``tourney sprt`` answers, with and without each
speed-up of the bot protocol.

Two example subprocess bots of known, close strength: ``examples/bots/smart_bot.py`` against the
same bot playing a random legal option 30% of the time (``--noise 0.3``). ``tourney sprt`` plays
them with ``-j 2`` until the SPRT accepts H0 or H1 (or ``--max-games``). Arms, each a fresh
database, interleaved over ``--repeat`` rounds so that drifts in the machine's load hit all alike:

- ``lean+orjson``: protocol 1.1 lean requests, orjson in the bots where installed (the default);
- ``lean+json``: 1.1 lean requests, the standard library's json in the bots;
- ``1.0+json``: whole views and labelled options (protocol 1.0), stdlib json: no speed-up.

Each arm plays the same seeded event with ``--public-seeds`` (else each new event draws its own
secret, so its own deals), and the bots play the same moves on either protocol path, so the verdict
and the number of games are the same in every arm; only the time differs. Arguments after
``--`` are passed on to ``tourney sprt`` (for example ``-- --luck-adjusted`` once that option
exists, or ``-- --games-per-series 1`` for series of one game: ``tourney sprt`` plays 2 games per
start of the bots by default, so a verdict's games differ from those of series of one game).
The last line is the chosen ``--arm``'s median: ``seconds=<float> games=<int> decisions_per_s=<float>``.

Usage: python bench/verdict.py [--repeat 1] [--arm lean+orjson] [--elo1 50] [--max-games 2000] [-- ARGS]
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
ARMS = {  # name: extra arguments of both bots
    "lean+orjson": [],
    "lean+json": ["--json", "json"],
    "1.0+json": ["--features", "none", "--json", "json"],
}


def config(path: Path, bot_args: list[str]) -> None:
    """A config that defines the two entrants (command lines with arguments need one)."""
    def entrant(name: str, extra: list[str]) -> str:
        command = ", ".join(json.dumps(a) for a in ["{python}", SMART, *extra])
        return f'[[entrants]]\nname = "{name}"\ncommand = [{command}]\n'

    path.write_text(
        "[event]\nname = \"verdict\"\nformat = \"sprt\"\nentrants = [\"smart\", \"noisy\"]\n\n"
        + entrant("smart", bot_args) + "\n" + entrant("noisy", [*bot_args, "--noise", "0.3"])
    )


def tally(db: Path) -> tuple[int, int]:
    """Decisions played in every game of the database, and the faults recorded."""
    con = sqlite3.connect(db)
    try:
        moves = con.execute("SELECT COALESCE(SUM(decisions), 0) FROM games").fetchone()[0]
        faults = con.execute("SELECT COUNT(*) FROM seats WHERE fault IS NOT NULL").fetchone()[0]
        return int(moves), int(faults)
    finally:
        con.close()


def run_arm(name: str, args, passed: list[str], work: Path) -> tuple[float, int, int, str, int]:
    """One ``tourney sprt`` run of arm ``name``: seconds, games, decisions, verdict, faults."""
    conf = work / f"{name}.toml"
    config(conf, ARMS[name])
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
    moves, faults = tally(db)
    return seconds, result["games"], moves, result["verdict"], faults


def main() -> None:
    argv = sys.argv[1:]
    passed = argv[argv.index("--") + 1:] if "--" in argv else []
    own = argv[: argv.index("--")] if "--" in argv else argv
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1, help="rounds of every arm (median kept)")
    parser.add_argument("--arm", choices=list(ARMS), default="lean+orjson", help="the arm of the last line")
    parser.add_argument("--jobs", "-j", type=int, default=2, help="tourney sprt -j")
    parser.add_argument("--elo0", type=float, default=0.0)
    parser.add_argument("--elo1", type=float, default=50.0)
    parser.add_argument("--max-games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(own)
    runs: dict[str, list[tuple[float, int, int, str, int]]] = {name: [] for name in ARMS}
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
