"""What duplicate deals buy: how many games each method needs to tell greedy from its opponent.

    python bench/duplicate.py [--deals 2000] [--rule-set crazier-eights] [--opponent random|greedy30]

The opponent is the random bot, or ``greedy30`` (greedy playing a uniformly random option 30% of
the time: a pairing of close strength, where a verdict is hard). Plain: every deal is one game,
greedy in seat ``deal mod 2`` and the first player drawn independently of that seat (seating
greedy first in every game would hand it the first move's edge and make plain games look more
informative than they are). Duplicate: every deal is played twice with the same cards and the
same first seat, greedy holding each hand once (the mirror pair of docs/formats.md, "Duplicate
deals"); fresh bots for every game. A game scores 1 for a greedy win, 0 for a loss, ½ without a
winner; a pair scores the mean of its two games.

From the measured per-game variance σ²_game (plain) and per-pair variance σ²_pair (duplicate):
``variance_ratio = σ²_game / (2·σ²_pair)`` (docs/evaluation.md: how many plain games one pair is
worth, per game), and the games each method needs before the 95% interval of the score clears
½: ``n = (1.96·σ / (s - ½))²`` games plain, twice that many pairs' worth of games duplicate.
The last line is ``variance_ratio=<float> games_needed_plain=<int> games_needed_duplicate=<int>``.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from tourney.luck.selfplay import bot as make_bot

Z = 1.959964


def play(rule_set: str, seed: int, greedy_seat: int, first_player: int, bot_seed: int,
         opponent: str = "random") -> float:
    """Greedy's score in one two-player game dealt from ``seed``."""
    game = engine.new_game(rule_set, players=2, seed=seed, first_player=first_player)
    bots = [make_bot("greedy" if p == greedy_seat else opponent, bot_seed * 31 + p) for p in range(2)]
    for bot in bots:
        bot.start(game.card_table())
    while (decision := game.pending) is not None:
        p = decision.player
        game.apply(bots[p].choose(decision, lambda g=game, s=p: g.view(s)))
    winners = game.result.winners
    if not winners:
        return 0.5
    return 1.0 if greedy_seat in winners else 0.0


def needed(mean: float, sd: float) -> int:
    """Units until ``z·sd/√n < mean - ½`` (infinite when the mean does not lean either way)."""
    edge = abs(mean - 0.5)
    return math.ceil((Z * sd / edge) ** 2) if edge > 0 else sys.maxsize


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--rule-set", default="crazier-eights")
    parser.add_argument("--opponent", choices=("random", "greedy30"), default="random")
    args = parser.parse_args()
    # the first player of each deal, drawn independently of where greedy sits
    first = random.Random(f"bench duplicate {args.rule_set}")
    firsts = [first.randrange(2) for _ in range(args.deals)]
    plain = [play(args.rule_set, seed, seed % 2, firsts[seed], seed, args.opponent) for seed in range(args.deals)]
    # the same deals again, as mirror pairs (other bot seeds: the bots never saw these deals)
    pairs = [(play(args.rule_set, seed, 0, firsts[seed], 10**6 + 2 * seed, args.opponent),
              play(args.rule_set, seed, 1, firsts[seed], 10**6 + 2 * seed + 1, args.opponent))
             for seed in range(args.deals)]
    pair_scores = [(a + b) / 2 for a, b in pairs]
    var_game = statistics.pvariance(plain)
    var_pair = statistics.pvariance(pair_scores)
    ratio = var_game / (2 * var_pair) if var_pair > 0 else math.inf
    plain_games = needed(statistics.fmean(plain), math.sqrt(var_game))
    duplicate_games = 2 * needed(statistics.fmean(pair_scores), math.sqrt(var_pair))
    print(f"greedy against {args.opponent}, {args.rule_set}")
    print(f"plain: {len(plain)} games, greedy scores {statistics.fmean(plain):.4f}, variance {var_game:.4f}")
    print(f"duplicate: {len(pairs)} pairs, greedy scores {statistics.fmean(pair_scores):.4f}, "
          f"pair variance {var_pair:.4f}")
    print(f"variance_ratio={ratio:.3f} games_needed_plain={plain_games} games_needed_duplicate={duplicate_games}")


if __name__ == "__main__":
    main()
