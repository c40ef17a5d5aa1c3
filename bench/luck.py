"""What luck-adjusted scores buy: raw against luck-adjusted scores (and duplicate, and both).

    python bench/luck.py [--rule-set crazier-eights] [--players 2] [--games 2000]
                         [--pairing close|identical|unequal] [--no-duplicate] [--weights FILE]
                         [--value shipped|linear|network] [--network FILE]

Entrant A is the greedy bot; B is greedy playing a random option 30% of the time (``close``, the
default), greedy too (``identical``) or random (``unequal``). A holds ``players // 2`` seats, B the
rest, the seats drawn at random and the first player drawn independently of them. A game scores A
the mean of its seats' scores (docs/evaluation.md: 1, ½, 0 at two players; the share of the
others placed below at more). Plain: ``--games`` games on seeds 0, 1, ... Duplicate: each of
``--games / 2`` further deals played twice with A and B exchanging seats (same first player);
fresh bots every game. The luck-adjusted score of a game is computed from its replay by
tourney.luck (no bot involved), with the shipped weights or those of ``--weights`` (a file in the
format of tourney/luck/coefficients.json; bench/luck_weights_first_fit.json holds the first fit,
in-sample ridge λ = 1, which the 10,000-game bias runs of docs/evaluation.md used). ``--value``
picks the value function: as shipped (tourney/luck/network.json's network where it has one for
the rule set and player count, else the linear weights), the linear one, or a network (that of
``--network FILE``, else the shipped one).

Printed per method: the mean score of A, its per-game variance (duplicate: twice the per-pair
variance), the games the 95% interval needs to exclude 50% (``(1.96·σ/edge)²``, edge the
adjusted plain mean less ½), and the games a simulated SPRT needs on average (elo0 = 0, elo1 =
the measured edge in logistic Elo, alpha = beta = 0.05, the normal-approximation GSPRT of
tourney.stats.sprt.llr_scores on both, 200 runs resampling the measured games). The bias line
is the z of the mean of (adjusted - raw) for A and for every seat. Last line:
``variance_ratio=<raw/adjusted> games_ratio=<raw/adjusted SPRT games> bias_z=<max |z|>``.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tourney.luck import adjust
from tourney.luck.network import Network, network_for
from tourney.luck.selfplay import play
from tourney.luck.value import outcome, weight_names
from tourney.stats.elo import elo_from_score, score_from_elo
from tourney.stats.sprt import bounds

Z = 1.959964
PAIRINGS = {"close": "greedy30", "identical": "greedy", "unequal": "random"}


def one_game(rule_set, players, seed, a_seats, first_player, b_bot, bot_seed, weights=None, network=None):
    names = ["greedy" if p in a_seats else b_bot for p in range(players)]
    start, choices, game = play(rule_set, names, seed, first_player, bot_seed)
    raw = outcome(game.result.placements)
    adj = adjust(start, choices, weights=weights, network=network)
    assert max(abs(a - b) for a, b in zip(raw, adj.raw)) < 1e-12
    score = lambda v: sum(v[p] for p in a_seats) / len(a_seats)  # noqa: E731
    return score(raw), score(adj.adjusted), raw, adj.adjusted


def needed(edge: float, sd: float) -> float:
    return (Z * sd / edge) ** 2 if edge else math.inf


def sprt_games(scores: list[float], elo1: float, runs: int, seed: int, unit: int = 1, cap: int = 200_000) -> float:
    """Mean games to a verdict of the normal-approximation GSPRT, resampling ``scores``."""
    lower, upper = bounds(0.05, 0.05)
    s0, s1 = 0.5, score_from_elo(elo1)
    rng = random.Random(seed)
    total = 0
    for _ in range(runs):
        n = 0
        acc = acc2 = 0.0
        while n < cap:
            x = scores[rng.randrange(len(scores))]
            n += 1
            acc += x
            acc2 += x * x
            if n < 10:
                continue
            mean = acc / n
            var = max(acc2 / n - mean * mean, 1e-9)
            llr = n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)
            if llr <= lower or llr >= upper:
                break
        total += n * unit
    return total / runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rule-set", default="crazier-eights")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--pairing", choices=sorted(PAIRINGS), default="close")
    parser.add_argument("--no-duplicate", action="store_true", help="plain games only (the bias runs)")
    parser.add_argument("--progress", type=int, default=0, help="print the bias every N games")
    parser.add_argument("--weights", type=Path, help="weights file (coefficients.json format)")
    parser.add_argument("--value", choices=("shipped", "linear", "network"), default="shipped",
                        help="the value function: as shipped (the network where network.json has one), "
                             "the linear one, or the network of --network")
    parser.add_argument("--network", type=Path, help="network file (network.json format)")
    args = parser.parse_args()
    network: Network | bool | None = False if args.value == "linear" else None
    if args.value == "network":
        entry = json.loads(args.network.read_text())[args.rule_set][str(args.players)] if args.network else None
        network = Network.from_dict(entry) if entry else network_for(args.rule_set, args.players)
        if network is None:
            parser.error(f"no network for {args.rule_set} at {args.players} players")
    weights = None
    if args.weights:
        table = json.loads(args.weights.read_text())[args.rule_set]
        entry = table[min(table, key=lambda n: abs(int(n) - args.players))]
        weights = [float(entry["weights"].get(name, 0.0)) for name in weight_names()]
    k, b_bot = args.players, PAIRINGS[args.pairing]
    rng = random.Random(f"bench luck {args.rule_set} {k} {args.pairing}")
    a_count = max(1, k // 2)
    raw, adj, diffs = [], [], [[] for _ in range(k + 1)]

    def bias_z() -> float:
        zs = []
        for d in diffs:
            if len(d) > 1 and statistics.pvariance(d) > 0:
                zs.append(abs(statistics.fmean(d)) / math.sqrt(statistics.variance(d) / len(d)))
        return max(zs, default=0.0)

    for seed in range(args.games):
        seats = rng.sample(range(k), a_count)
        r, a, raw_seats, adj_seats = one_game(args.rule_set, k, seed, seats, rng.randrange(k), b_bot, seed, weights,
                                                     network)
        raw.append(r)
        adj.append(a)
        diffs[k].append(a - r)
        for p in range(k):
            diffs[p].append(adj_seats[p] - raw_seats[p])
        if args.progress and (seed + 1) % args.progress == 0:
            print(f"  {seed + 1} games: raw {statistics.fmean(raw):.4f} adjusted {statistics.fmean(adj):.4f} "
                  f"bias_z {bias_z():.2f}", flush=True)
    pairs_raw, pairs_adj = [], []
    if not args.no_duplicate:
        for deal in range(args.games, args.games + args.games // 2):
            seats = rng.sample(range(k), a_count)
            other = [p for p in range(k) if p not in seats][:a_count]
            first = rng.randrange(k)
            g1 = one_game(args.rule_set, k, deal, seats, first, b_bot, 2 * deal, weights, network)
            g2 = one_game(args.rule_set, k, deal, other, first, b_bot, 2 * deal + 1, weights, network)
            pairs_raw.append((g1[0] + g2[0]) / 2)
            pairs_adj.append((g1[1] + g2[1]) / 2)
            for g in (g1, g2):
                diffs[k].append(g[1] - g[0])
                for p in range(k):
                    diffs[p].append(g[3][p] - g[2][p])

    edge = statistics.fmean(adj) - 0.5
    elo1 = elo_from_score(min(max(0.5 + abs(edge), 0.5005), 0.999))
    arms = [("raw", raw, 1), ("adjusted", adj, 1)]
    if pairs_raw:
        arms += [("duplicate", pairs_raw, 2), ("duplicate+adjusted", pairs_adj, 2)]
    print(f"{args.rule_set}, {k} players, greedy against {b_bot}: {len(raw)} games"
          + (f" and {len(pairs_raw)} duplicate pairs" if pairs_raw else "")
          + f"; edge {edge:+.4f} (elo1 = {elo1:.1f} for the simulated SPRT)")
    print(f"{'method':<20} {'mean':>8} {'var/game (lower better)':>24} {'games for CI (lower better)':>28} "
          f"{'SPRT games (lower better)':>26}")
    results = {}
    for name, scores, unit in arms:
        mean = statistics.fmean(scores)
        var = statistics.pvariance(scores) * unit  # a pair's variance, as a per-game figure
        ci = needed(edge, math.sqrt(var))
        sprt = sprt_games(scores, elo1, 200, 1, unit=unit)
        results[name] = (var, sprt)
        print(f"{name:<20} {mean:>8.4f} {var:>24.5f} {ci:>28.0f} {sprt:>26.0f}")
    z = bias_z()
    print(f"bias: mean adjusted - raw = {statistics.fmean(diffs[k]):+.5f} for A, max |z| over A and seats {z:.2f}")
    variance_ratio = results["raw"][0] / results["adjusted"][0]
    games_ratio = results["raw"][1] / results["adjusted"][1]
    holds = games_ratio >= 2 and z <= 3
    print(f"luck-adjusted scores {'hold' if holds else 'do not hold'} the aim here (games_ratio >= 2, bias_z <= 3)")
    print(f"variance_ratio={variance_ratio:.3f} games_ratio={games_ratio:.3f} bias_z={z:.2f}")


if __name__ == "__main__":
    main()
