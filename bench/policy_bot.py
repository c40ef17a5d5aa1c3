"""What an exported policy bot (tourney export-bot) spends on a decision, protocol aside.

    python bench/policy_bot.py [--hidden 64,64] [--games 5] [--rule-set crazier-eights] [--players 2]

The bot's own work per request: encode the view (tourney/rl/encoding.py), run the MLP's forward
pass (tourney/rl/mlp.py: float64, tanh between layers, random weights of the given hidden sizes)
and map the best offered action back to its option id, over every decision of seeded random
games. CPU time, best of 5 rounds. The last line is
``us_per_decision=<float> positions=<n> hidden=<sizes>``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np

import engine
from tourney.rl.encoding import Encoding
from tourney.rl.mlp import MLP


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hidden", default="64,64", help="hidden layer sizes, comma-separated ('' for none)")
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--rule-set", default="crazier-eights")
    parser.add_argument("--players", type=int, default=2)
    args = parser.parse_args()
    hidden = [int(h) for h in args.hidden.split(",") if h]
    probe = engine.new_game(args.rule_set, players=args.players, seed=0)
    encoding = Encoding.for_game(probe)
    rng = np.random.default_rng(0)
    sizes = [encoding.size, *hidden, encoding.actions]
    mlp = MLP([(rng.normal(size=(a, b)), rng.normal(size=b)) for a, b in zip(sizes, sizes[1:])], activation="tanh",
              rule_set=args.rule_set, players=args.players, cards=encoding.cards)
    positions = []
    for g in range(args.games):
        game = engine.new_game(args.rule_set, players=args.players, seed=g)
        choice = random.Random(g).choice
        while (pending := game.pending) is not None:
            positions.append((game.view(pending.player), pending.kind, list(pending.options)))
            game.apply(choice(pending.options))
    best = float("inf")
    for _ in range(5):
        start = time.process_time()
        for view, kind, options in positions:
            encoding.option(mlp.act(encoding.encode(view, kind), encoding.mask(options)), options)
        best = min(best, (time.process_time() - start) / len(positions))
    print(f"us_per_decision={best * 1e6:.1f} positions={len(positions)} hidden={args.hidden or 'none'}")


if __name__ == "__main__":
    main()
