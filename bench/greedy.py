"""Win rate of the built-in greedy bot against random bots, over seeded games.

    python bench/greedy.py [--games 2000] [--players 2] [--rule-set crazier-eights]

Greedy sits in every seat in turn (seat = game number mod players), so seat advantage cancels out.
The last line is ``win_rate=<float> games=<n> players=<n>``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from engine.bots import make_bot


def win_rate(games: int, players: int, rule_set: str = "crazier-eights") -> float:
    """Greedy's share of wins (a shared win counts as 1/number of winners)."""
    score = 0.0
    for seed in range(games):
        game = engine.new_game(rule_set, players=players, seed=seed)
        greedy_seat = seed % players
        bots = [make_bot("greedy" if p == greedy_seat else "random", seed * 31 + p) for p in range(players)]
        for bot in bots:
            bot.start(game.card_table())
        while (decision := game.pending) is not None:
            p = decision.player
            game.apply(bots[p].choose(decision, lambda g=game, s=p: g.view(s)))
        winners = game.result.winners
        if greedy_seat in winners:
            score += 1 / len(winners)
    return score / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--rule-set", default="crazier-eights")
    args = parser.parse_args()
    rate = win_rate(args.games, args.players, args.rule_set)
    print(f"rule_set={args.rule_set}")
    print(f"win_rate={rate:.3f} games={args.games} players={args.players}")


if __name__ == "__main__":
    main()
