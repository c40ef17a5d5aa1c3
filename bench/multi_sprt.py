"""Verdicts at tables of many: error rates and games to a verdict of the substitution-set SPRT
(``tourney sprt A B --players K``; docs/evaluation.md, "Verdicts at tables of many").

Three parts:

1. **Simulation with known truth** (tourney/stats/table_model.py, the design note's §6 model): at a
   table of K = ``--players`` against copies of the baseline, ``--runs`` SPRTs with the truth at
   elo0 and as many at elo1 (the candidate's worth calibrated so that E[D] = L(elo1) - ½), looking
   every 8 sets as the event does. Prints the share accepting H1 at each truth (false positives,
   power) with Wilson 95% intervals, and the mean games; then the same for the naive design (the
   baseline's games on deals of their own), ``--runs // 4`` tests a side.
2. **The real pairing**: greedy against a greedy that plays a uniformly random legal option with
   probability ``--noise`` (tourney.luck.selfplay.NoisyBot), the field K-1 copies of the noisy
   one, in-process through the engine. ``--units`` substitution sets are played once, each with
   its deal, first seat and bot seeds shared by the candidate's and the baseline's K games, as
   the event plays them. From that pool: the unit spread paired and unpaired, the luck-adjusted
   sets (tourney.luck.adjust on each game's replay) with their bias measured as the mean raw-minus-
   adjusted D and its z, and the games to a verdict of ``--tests`` SPRTs (elo0, ``--real-elo1``)
   drawn from the pool with replacement: substitution; naive (the candidate's K games and the
   baseline's K games, one in each seat, every game on a deal of its own: 2K different sets of
   the pool); rotated-only (the candidate's K rotations of one deal against the baseline's of
   another: duplicate deals without substitution, to show where the gain comes from);
   raw-normal (the raw sets through the luck-adjusted test's normal-model LLR, to tell the gain of
   the adjustment from that of the LLR's form); and substitution on the luck-adjusted scores.
   Drawing from a pool of measured sets stands in for playing afresh; the pool is several times
   longer than a test. ``--pool FILE`` keeps the played sets in a JSON file for the next run.
3. **Error rates on real bots** at tables of each of ``--tables``: a pool of real sets per table
   size, tilted (exponentially, which keeps the real lattice shape) to mean δ0 and to mean δ1,
   and ``--runs`` SPRTs drawn from each (the bootstrap truth of the design note, §6).

The last line: ``fp_rate=<float> power=<float> games_substitution=<int> games_naive=<int>
games_luck=<int>``: fp_rate and power from part 1 at the chosen K; games_* the mean games to a
verdict on the real pairing (part 2). ``--quick`` shrinks every count for a smoke run.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # before bench/, whose engine.py is a benchmark

import engine
from engine.bots import make_bot
from tourney.luck.adjust import adjust
from tourney.luck.selfplay import NoisyBot
from tourney.luck.value import outcome
from tourney.stats.elo import elo_from_score, score_from_elo
from tourney.stats.sprt import ScoreSprt, Sprt, decide, set_index
from tourney.stats.table_model import TableModel, error_rates, wilson

RULE_SET = "crazier-eights"
LOOK = 8  # sets between looks, as tourney.formats.sequential.BATCH


def _bot(name: str, seed: int, noise: float):
    return NoisyBot(seed, noise) if name == "noisy" else make_bot(name, seed)


def _game(names: list[str], seed: int, first: int, bot_seeds: list[int], noise: float):
    game = engine.new_game(RULE_SET, players=len(names), seed=seed, first_player=first)
    bots = [_bot(n, s, noise) for n, s in zip(names, bot_seeds)]
    for b in bots:
        b.start(game.card_table())
    while (decision := game.pending) is not None:
        p = decision.player
        game.apply(bots[p].choose(decision, lambda g=game, s=p: g.view(s)))
    return game


def real_sets(players: int, units: int, noise: float, seed: int, luck: bool) -> dict[str, list]:
    """``units`` substitution sets of greedy (candidate) against noisy greedy (baseline and field):
    per set the candidate's and the baseline's raw (and adjusted) placement scores per rotation."""
    rng = random.Random(seed)
    out: dict[str, list] = {"a": [], "b": [], "a_adj": [], "b_adj": []}
    for _ in range(units):
        deal, first = rng.getrandbits(63), rng.randrange(players)
        seeds = [rng.getrandbits(31) for _ in range(players)]
        halves: dict[str, list[float]] = {"a": [], "b": [], "a_adj": [], "b_adj": []}
        for r in range(players):  # the tested seat; the field keeps its seats
            for key, who in (("a", "greedy"), ("b", "noisy")):
                names = ["noisy"] * players
                names[r] = who
                game = _game(names, deal, first, seeds, noise)
                halves[key].append(outcome(game.result.placements)[r])
                if luck:
                    start = {"rule_set": RULE_SET, "players": players, "seed": deal, "first_player": first}
                    halves[key + "_adj"].append(adjust(start, list(game.choices)).adjusted[r])
        for key, values in halves.items():
            out[key].append(values)
    return out


def differences(a: list[list[float]], b: list[list[float]]) -> list[float]:
    return [sum(x) / len(x) - sum(y) / len(y) for x, y in zip(a, b)]


def _sprt_games(draw, players: int, elo0: float, elo1: float, rng: random.Random, adjusted: bool,
                max_units: int) -> tuple[str | None, int]:
    """One SPRT on sets drawn by ``draw(rng)``, looking every LOOK sets; (verdict, games)."""
    test: Sprt | ScoreSprt
    if adjusted:
        test = ScoreSprt(elo0, elo1, unit="set", players=players)
    else:
        test = Sprt(elo0, elo1, unit="set", players=players)
    limits = test.bounds
    units = 0
    while units < max_units:
        for _ in range(LOOK):
            test.add_set(draw(rng))
        units += LOOK
        verdict = decide(test.llr, limits)
        if verdict is not None:
            return verdict, units * 2 * players
    return None, units * 2 * players


def tilted(values: list[float], mean: float) -> tuple[list[float], list[float]]:
    """The distribution ``q ∝ p̂·e^(λ·D)`` on the observed values with the given mean (the
    closest to the observed in Kullback-Leibler terms): the real lattice shape, a chosen truth."""
    support = sorted(set(values))
    counts = [values.count(v) for v in support]
    lo, hi = -200.0, 200.0
    for _ in range(200):
        lam = (lo + hi) / 2
        w = [c * math.exp(lam * v) for c, v in zip(counts, support)]
        m = sum(x * v for x, v in zip(w, support)) / sum(w)
        lo, hi = (lam, hi) if m < mean else (lo, lam)
    total = sum(w)
    return support, [x / total for x in w]


def _rates_line(label: str, hits: int, runs: int) -> str:
    low, high = wilson(hits, runs)
    return f"{label} {hits / runs:.3f} [{low:.3f}, {high:.3f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4, help="K of parts 1 and 2")
    parser.add_argument("--runs", type=int, default=500, help="simulated SPRTs a side (part 1) and per truth (part 3)")
    parser.add_argument("--elo1", type=float, default=10.0, help="simulation: elo1 (elo0 is 0)")
    parser.add_argument("--units", type=int, default=600, help="real sets in the K pool of part 2")
    parser.add_argument("--noise", type=float, default=0.1, help="the baseline's share of random moves")
    parser.add_argument("--real-elo1", type=float, default=20.0, help="parts 2 and 3: elo1 (elo0 is 0)")
    parser.add_argument("--tests", type=int, default=400, help="part 2: SPRTs drawn from the pool per design")
    parser.add_argument("--tables", default="3,4,6", help="part 3: table sizes")
    parser.add_argument("--table-units", type=int, default=200, help="part 3: real sets per table size")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="small counts: a smoke run")
    parser.add_argument("--pool", help="a JSON file keeping part 2's played sets between runs")
    args = parser.parse_args()
    if args.quick:
        args.runs, args.units, args.tests, args.table_units = 60, 120, 60, 60
    k = args.players
    print(f"multi_sprt: K = {k}, alpha = beta = 0.05, a look every {LOOK} sets; {time.strftime('%Y-%m-%d %H:%M')}")

    # 1. simulation with known truth
    t0 = time.monotonic()
    sim = error_rates(TableModel(k), 0, args.elo1, args.runs, seed=args.seed)
    print(f"simulation, copies of B, elo0 = 0, elo1 = {args.elo1:g}, {args.runs} tests a side: "
          f"{_rates_line('false positives', sim.false_positives, args.runs)}; "
          f"{_rates_line('power', sim.power_hits, args.runs)}; inconclusive {sim.inconclusive}; "
          f"mean games {sim.games_h0:.0f} / {sim.games_h1:.0f}")
    naive = error_rates(TableModel(k), 0, args.elo1, max(args.runs // 4, 1), seed=args.seed + 100, paired=False,
                        max_units=10_000)
    print(f"simulation, naive design, {naive.runs} tests a side: "
          f"{_rates_line('false positives', naive.false_positives, naive.runs)}; "
          f"{_rates_line('power', naive.power_hits, naive.runs)}; mean games {naive.games_h0:.0f} / "
          f"{naive.games_h1:.0f} (substitution saves {naive.games_h0 / sim.games_h0:.2f}x / "
          f"{naive.games_h1 / sim.games_h1:.2f}x); {time.monotonic() - t0:.0f} s")

    # 2. the real pairing at K
    t0 = time.monotonic()
    cached = Path(args.pool) if args.pool else None
    key = f"{k}:{args.units}:{args.noise}:{args.seed}"
    if cached is not None and cached.exists() and json.loads(cached.read_text()).get("key") == key:
        pool = json.loads(cached.read_text())["pool"]
        print(f"(the {args.units} sets of {cached} are reused)")
    else:
        pool = real_sets(k, args.units, args.noise, args.seed, luck=True)
        if cached is not None:
            cached.write_text(json.dumps({"key": key, "pool": pool}))
    raw = differences(pool["a"], pool["b"])
    adj = differences(pool["a_adj"], pool["b_adj"])
    n = len(raw)
    mean, sd = statistics.fmean(raw), statistics.pstdev(raw)
    per_game_a = statistics.pvariance([x for s in pool["a"] for x in s])
    per_game_b = statistics.pvariance([x for s in pool["b"] for x in s])
    unpaired = (per_game_a + per_game_b) / k  # the design note's Var_unpaired, ignoring the pairing
    bias = [r - a for r, a in zip(raw, adj)]
    rng0 = random.Random(args.seed + 7)
    bias_se = statistics.pstdev(bias) / math.sqrt(n)
    bias_z = statistics.fmean(bias) / bias_se
    naive_sd = statistics.pstdev(_naive(pool, rng0, n) for _ in range(20_000))
    print(f"real pairing: greedy vs greedy noise {args.noise:g}, field {k - 1} x noisy, {n} sets "
          f"({n * 2 * k} games, {time.monotonic() - t0:.0f} s): D = {mean:+.4f} +- {1.96 * sd / math.sqrt(n):.4f}, "
          f"field Elo {elo_from_score(0.5 + mean):+.1f}; set sd paired {sd:.4f}, unpaired "
          f"{math.sqrt(unpaired):.4f} (variance ratio {unpaired / sd ** 2:.2f}), naive units {naive_sd:.4f} "
          f"(ratio {naive_sd ** 2 / sd ** 2:.2f}); luck-adjusted sd "
          f"{statistics.pstdev(adj):.4f}, mean raw - adjusted {statistics.fmean(bias):+.6f} +- {bias_se:.6f} "
          f"(z {bias_z:+.3f})")
    rng = random.Random(args.seed)
    max_units = 20_000 // (2 * k)
    designs = {
        "substitution": (lambda r: raw[r.randrange(n)], False),
        "naive": (lambda r: _naive(pool, r, n), False),
        "rotated-only": (lambda r: _rotated(pool, r, n), False),
        "raw-normal": (lambda r: raw[r.randrange(n)], True),
        "luck": (lambda r: (adj[r.randrange(n)]), True),
    }
    games: dict[str, float] = {}
    for name, (draw, adjusted) in designs.items():
        runs = [_sprt_games(draw, k, 0, args.real_elo1, rng, adjusted, max_units) for _ in range(args.tests)]
        games[name] = statistics.fmean(g for _, g in runs)
        h1 = sum(v == "H1" for v, _ in runs)
        print(f"  {name:12s} elo0 = 0, elo1 = {args.real_elo1:g}: {args.tests} tests, mean games {games[name]:.0f}, "
              f"H1 {h1}, H0 {sum(v == 'H0' for v, _ in runs)}, inconclusive {sum(v is None for v, _ in runs)}")
    print(f"  games ratio naive / substitution {games['naive'] / games['substitution']:.2f}, rotated-only / "
          f"substitution {games['rotated-only'] / games['substitution']:.2f}, "
          f"luck / substitution {games['luck'] / games['substitution']:.2f}, luck / raw-normal "
          f"{games['luck'] / games['raw-normal']:.2f}")

    # 3. error rates on real bots, bootstrap truth
    delta1 = score_from_elo(args.real_elo1) - 0.5
    for table in [int(x) for x in args.tables.split(",") if x]:
        t0 = time.monotonic()
        values = raw if table == k else differences(*_halves(real_sets(table, args.table_units, args.noise,
                                                                       args.seed + table, luck=False)))
        hits = []
        for delta in (0.0, delta1):
            support, weights = tilted(values, delta)
            for v in support:  # every value must sit on the table's lattice
                set_index(v, table)
            runs = [_sprt_games(lambda r, s=support, w=weights: r.choices(s, w)[0], table, 0, args.real_elo1,
                                rng, False, 20_000 // (2 * table)) for _ in range(args.runs)]
            hits.append((sum(v == "H1" for v, _ in runs), statistics.fmean(g for _, g in runs)))
        print(f"real bots at tables of {table} ({len(values)} sets, D = {statistics.fmean(values):+.4f}), "
              f"truth tilted to elo 0 and {args.real_elo1:g}, {args.runs} tests each: "
              f"{_rates_line('false positives', hits[0][0], args.runs)}; "
              f"{_rates_line('power', hits[1][0], args.runs)}; "
              f"mean games {hits[0][1]:.0f} / {hits[1][1]:.0f}; {time.monotonic() - t0:.0f} s")

    print(f"fp_rate={sim.fp_rate:.4f} power={sim.power:.4f} games_substitution={round(games['substitution'])} "
          f"games_naive={round(games['naive'])} games_luck={round(games['luck'])}")


def _halves(pool: dict[str, list]) -> tuple[list, list]:
    return pool["a"], pool["b"]


def _naive(pool: dict[str, list], rng: random.Random, n: int) -> float:
    """A naive unit: the candidate's game in each seat and the baseline's in each seat, every one of
    the 2K games on a deal of its own (drawn from 2K different sets of the pool)."""
    k = len(pool["a"][0])
    picks = rng.sample(range(n), 2 * k)
    return sum(pool["a"][i][r] - pool["b"][j][r] for r, (i, j) in enumerate(zip(picks[:k], picks[k:]))) / k


def _rotated(pool: dict[str, list], rng: random.Random, n: int) -> float:
    """Duplicate without substitution: the candidate's K rotations of one deal against the
    baseline's K rotations of another."""
    i, j = rng.sample(range(n), 2)
    a, b = pool["a"][i], pool["b"][j]
    return sum(a) / len(a) - sum(b) / len(b)


if __name__ == "__main__":
    np.seterr(all="raise")
    main()
