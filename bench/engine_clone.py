"""How fast a game under way is copied: ``game.clone()`` against a pickle round trip,
``copy.deepcopy`` and ``to_dict()`` -> ``load_game``, timed by CPU time on states taken at random
moments of seeded random games (the copies are checked equal to the original first).

    python bench/engine_clone.py [--rule-set crazier-eights] [--players 2] [--states 50]

The last line is ``clone_us=<float> pickle_us=<float> deepcopy_us=<float> saved_form_us=<float> rule_set=<name>``
(microseconds per copy, the median state's).
"""

from __future__ import annotations

import argparse
import copy
import pickle
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine

WAYS = {
    "clone": lambda g: g.clone(),
    "pickle": lambda g: pickle.loads(pickle.dumps(g, pickle.HIGHEST_PROTOCOL)),
    "deepcopy": copy.deepcopy,
    "saved_form": lambda g: engine.load_game(g.to_dict()),
}


def states(rule_set: str, players: int, count: int) -> list:
    out = []
    for seed in range(count):
        game = engine.new_game(rule_set, players=players, seed=seed)
        rng = random.Random(seed)
        for _ in range(rng.randrange(1, 120)):
            if game.pending is None:
                break
            game.apply(rng.choice(game.pending.options))
        out.append(game)
    return out


def per_copy_us(way, game, repeat: int = 20) -> float:
    start = time.process_time()
    for _ in range(repeat):
        way(game)
    return (time.process_time() - start) / repeat * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rule-set", default="crazier-eights", choices=sorted(engine.RULE_SETS))
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--states", type=int, default=50)
    args = parser.parse_args()
    games = states(args.rule_set, args.players, args.states)
    for game in games:
        for way in WAYS.values():
            assert way(game).to_dict() == game.to_dict()
    medians = {name: statistics.median(per_copy_us(way, g) for g in games) for name, way in WAYS.items()}
    print(" ".join(f"{name}_us={us:.1f}" for name, us in medians.items()) + f" rule_set={args.rule_set}")


if __name__ == "__main__":
    main()
