"""The mcts built-in bot's strength and cost: seeded games in process against another built-in bot.

    python bench/mcts.py [--rule-set crazier-eights] [--players 2] [--opponent greedy]
                         [--iterations 200] [--budget-ms MS] [--depth 60] [--deals 50] [--first-deal 0]

Two players: every deal is played twice, the mcts bot in each seat (a duplicate pair), and the
score is its share of wins (a shared win counts half) with a 95% interval by the normal
approximation over the deal pairs, turned into logistic Elo. More players: one mcts bot and
``players - 1`` opponents, the bot's seat going round the table, and the share of each placement.
Time is this process's CPU time per decision the bot was asked (one core), mean and 95th centile.

The last line is ``score=<float> elo=<float> elo_low=<float> elo_high=<float> games=<int>
ms_mean=<float> ms_p95=<float> mean_place=<float> rule_set=<name> players=<n> iterations=<n>``.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from engine import search
from engine.bots import MctsBot, make_bot


def elo(score: float) -> float:
    score = min(max(score, 1e-6), 1 - 1e-6)
    return -400 * math.log10(1 / score - 1)


def play(rule_set: str, players: int, seed: int, mcts_seat: int, opponent: str, settings: dict,
         times: list[float]) -> engine.Result:
    game = engine.new_game(rule_set, players=players, seed=seed)
    bots = [MctsBot(seed * 10 + p, **settings) if p == mcts_seat else make_bot(opponent, seed * 10 + p)
            for p in range(players)]
    for bot in bots:
        bot.start(game.card_table())
    while (decision := game.pending) is not None:
        p = decision.player
        bot = bots[p]
        if p == mcts_seat:
            start = time.process_time()
            option = bot.choose_in(game, p)
            times.append(time.process_time() - start)
        else:
            option = bot.choose(decision, lambda p=p: game.view(p))
        game.apply(option)
    assert game.result is not None
    return game.result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rule-set", default="crazier-eights", choices=sorted(engine.RULE_SETS))
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--opponent", default="greedy", choices=["random", "greedy"])
    parser.add_argument("--iterations", type=int, default=MctsBot.ITERATIONS)
    parser.add_argument("--budget-ms", type=float, default=None)
    parser.add_argument("--depth", type=int, default=None, help="rollout depth (default: the bot's)")
    parser.add_argument("--deals", type=int, default=50)
    parser.add_argument("--first-deal", type=int, default=0)
    args = parser.parse_args()
    if args.depth is not None:
        search.DEPTH = args.depth
    settings = {"iterations": args.iterations, "budget_ms": args.budget_ms}
    times: list[float] = []
    n = args.players
    pair_scores = []
    places = []
    for deal in range(args.first_deal, args.first_deal + args.deals):
        seats = range(n) if n == 2 else [deal % n]
        scores = []
        for seat in seats:
            result = play(args.rule_set, n, 1000 + deal, seat, args.opponent, settings, times)
            win = seat in result.winners
            scores.append((1 / len(result.winners)) if win else 0.0)
            places.append(result.placements[seat])
        pair_scores.append(statistics.fmean(scores))
    score = statistics.fmean(pair_scores)
    half = 1.96 * statistics.stdev(pair_scores) / math.sqrt(len(pair_scores)) if len(pair_scores) > 1 else 0.0
    ms = sorted(t * 1000 for t in times)
    p95 = ms[min(len(ms) - 1, int(0.95 * len(ms)))] if ms else 0.0
    if n > 2:
        shares = {k: places.count(k) / len(places) for k in range(1, n + 1)}
        print("placements " + " ".join(f"{k}:{v:.3f}" for k, v in shares.items()))
    print(
        f"score={score:.3f} elo={elo(score):.0f} elo_low={elo(score - half):.0f} elo_high={elo(score + half):.0f} "
        f"games={len(places)} ms_mean={statistics.fmean(ms) if ms else 0:.1f} ms_p95={p95:.1f} "
        f"mean_place={statistics.fmean(places):.2f} rule_set={args.rule_set} players={n} "
        f"iterations={args.iterations}"
    )


if __name__ == "__main__":
    main()
