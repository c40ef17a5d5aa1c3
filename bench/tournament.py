"""Benchmark: the same seeded round robin of subprocess example bots at concurrency 1 and 2.

Runs the event through the real runner (worker processes, the main process as the only
database writer) into two temporary databases, checks that both hold identical games, and
prints as its last line::

    speedup=<t1/t2> games_per_s=<games per second at concurrency 2>

Usage: python bench/tournament.py [--entrants 6] [--games 5] [--rounds 1] [--seed 1]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tourney.config import parse_config  # noqa: E402
from tourney.events import runner  # noqa: E402
from tourney.results import store  # noqa: E402

BOTS = ["examples/bots/random_bot.py", "examples/bots/smart_bot.py"]


def config(entrants: int, games: int, rounds: int, seed: int) -> dict:
    return {
        # public seeds: the two runs are two events, which must deal the same games to compare
        "event": {"name": "bench", "format": "round-robin", "seed": seed, "games": games,
                  "rounds": rounds, "public_seeds": True},
        "limits": {"decision_timeout": 10.0},
        "entrants": [
            {"name": f"bot{i}", "command": ["{python}", BOTS[i % len(BOTS)]]}
            for i in range(entrants)
        ],
    }


def run(raw: dict, concurrency: int, path: Path):
    cfg = parse_config(raw, base_dir=str(ROOT))
    db = store.open_db(path)
    event_id, _ = runner.prepare_event(db, cfg, "bench")
    tasks = runner.pending_tasks(db, event_id, cfg)
    start = time.perf_counter()
    runner.Runner(db, event_id, tasks, concurrency).run()
    seconds = time.perf_counter() - start
    games = sorted(
        (r["sidx"], r["idx"], r["seed"], r["winners"], r["choices_z"])
        for r in db.query(
            "select s.idx as sidx, g.idx, g.seed, g.winners, r.choices_z from games g "
            "join series s on s.id = g.series_id join replays r on r.game_id = g.id")
    )
    return seconds, games


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--entrants", type=int, default=6)
    ap.add_argument("--games", type=int, default=5, help="best of N per pair")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    raw = config(args.entrants, args.games, args.rounds, args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        t1, g1 = run(raw, 1, Path(tmp, "c1.db"))
        print(f"concurrency 1: {len(g1)} games in {t1:.2f} s", file=sys.stderr)
        t2, g2 = run(raw, 2, Path(tmp, "c2.db"))
        print(f"concurrency 2: {len(g2)} games in {t2:.2f} s", file=sys.stderr)
    if g1 != g2:
        print("error: the two runs played different games", file=sys.stderr)
        sys.exit(1)
    print(f"speedup={t1 / t2:.2f} games_per_s={len(g2) / t2:.1f}")


if __name__ == "__main__":
    main()
