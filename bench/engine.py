"""Engine speed: seeded random-vs-random games in process.

    python bench/engine.py --players 2 [--games 2000] [--rule-set crazier-eights] [--option k=v] [--cpu]

``--cpu`` times by this process's CPU time instead of the wall clock (steadier on a busy machine).

The last line is ``games_per_s=<float> decisions_per_s=<float> players=<n>`` (other tooling reads it).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine


def run(rule_set: str, players: int, games: int, options: dict, clock=time.perf_counter) -> tuple[float, float]:
    decisions = 0
    start = clock()
    for seed in range(games):
        game = engine.new_game(rule_set, players=players, seed=seed, options=options)
        rng = random.Random(seed)
        choice = rng.choice
        while (decision := game.pending) is not None:
            game.apply(choice(decision.options))
            decisions += 1
    elapsed = clock() - start
    return games / elapsed, decisions / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--rule-set", default="crazier-eights")
    parser.add_argument("--option", action="append", default=[], help="rule-set option as key=JSON value")
    parser.add_argument("--cpu", action="store_true", help="time by CPU time (steadier on a busy machine)")
    args = parser.parse_args()
    options = {}
    for item in args.option:
        key, _, value = item.partition("=")
        try:
            options[key] = json.loads(value)
        except json.JSONDecodeError:
            options[key] = value
    clock = time.process_time if args.cpu else time.perf_counter
    games_per_s, decisions_per_s = run(args.rule_set, args.players, args.games, options, clock)
    build = "compiled" if engine.COMPILED else "pure"  # the optional compiled build (setup.py)
    print(f"rule_set={args.rule_set} games={args.games} options={json.dumps(options)} engine={build}")
    print(f"games_per_s={games_per_s:.1f} decisions_per_s={decisions_per_s:.0f} players={args.players}")


if __name__ == "__main__":
    main()
