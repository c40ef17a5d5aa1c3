"""How much luck could any value function remove? A near-oracle V by playouts (issue 21).

    python bench/luck_ceiling.py [--rule-set crazier-eights] [--players 2] [--games 150]
                                 [--playouts 8] [--deals 8] [--playout-bots greedy|actual]
                                 [--pairing close|identical|unequal]

The games are those of bench/luck.py's plain arm (greedy against greedy playing a random option
30% of the time, same seeds, seats and first players). Each game is adjusted twice on the same
chance events (tourney.luck.chance): with the shipped linear value function, and with a value
function that plays the position out. V(after a draw of card c) is the mean outcome of
``--playouts`` games played to the end by built-in bots from the state before the step, the
step's earlier draws and then c placed on top of the unseen cards, the other unseen cards in a
random order, the choice applied again. Everything random in a playout (the order of the unseen
cards, the reshuffles, the bots' seeds) comes from a generator seeded by the game, the event and
the playout number, the same for every candidate card of one event: each bracket
``V(c drawn) - mean over candidates V(c')`` then has mean exactly zero, so the estimator stays
unbiased whatever the playouts say. A draw off a pile reshuffled in its own step (a chance event
since the tracker follows reshuffles) takes V from the state after the step instead, the candidate
swapped into the hand (``reshuffle_draw``); where that state cannot be built it is left
uncorrected, and the count is printed. The deal: V(first position) by playouts less the mean over
``--deals`` independent random deals of the same.

``--playout-bots greedy`` plays every seat with the greedy bot (a V the referee could use);
``actual`` with each seat's own bot (an oracle no referee has: it knows the bots).
This is far too slow to ship (every chance event costs candidates x playouts games); it only
tells what a better V could reach. Last line:
``variance_ratio=<raw/playout-adjusted> games_ratio=<raw/playout-adjusted SPRT games>
linear_variance_ratio=<raw/linear> bias_z=<|z| of playout-adjusted - raw>``.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from bench.luck import PAIRINGS, Z, sprt_games
from tourney.luck import adjust
from tourney.luck.chance import Before, Stock, draws_of_step
from tourney.luck.selfplay import bot, play
from tourney.luck.value import outcome
from tourney.stats.elo import elo_from_score


class Playouts:
    """V of one position by playouts: ``value(data, choice, order, fixed, card, tag)``."""

    def __init__(self, names: list[str], playouts: int, card_table: dict):
        self.names = names
        self.playouts = playouts
        self.card_table = card_table
        self.games = 0

    def value(self, data: dict, choice: str | None, unseen_at: list[int], fixed: list[int],
              card: int | None, rest: list[int], tag: str) -> list[list[float]]:
        """Outcome per playout and seat of the game ``data`` with the unseen positions of its draw pile
        (top first) holding ``fixed``, then ``card``, then ``rest`` (less ``card``) shuffled by a
        generator seeded by ``tag`` and the playout number, ``choice`` applied, then played out."""
        k = data["players"]
        runs = []
        for i in range(self.playouts):
            rng = random.Random(f"{tag} {i}")
            order = [c for c in rest if c != card]
            rng.shuffle(order)
            seq = fixed + ([card] if card is not None else []) + order
            pile = list(data["draw_pile"])
            for at, c in zip(unseen_at, seq):
                pile[at] = c
            game = engine.load_game({**data, "draw_pile": pile, "events": [], "choices": [], "seen": [0] * k})
            game.rng = random.Random(rng.getrandbits(64))
            if choice is not None:
                engine.apply_choice(game, choice)
            bots = [bot(n, rng.getrandbits(32)) for n in self.names]
            for b in bots:
                b.start(self.card_table)
            while (decision := game.pending) is not None:
                p = decision.player
                game.apply(bots[p].choose(decision, lambda g=game, s=p: g.view(s)))
            self.games += 1
            runs.append(outcome(game.result.placements))
        return runs


def _unseen(data: dict, unseen: set[int]) -> tuple[list[int], list[int]]:
    """Positions (top first) of the unseen cards in the saved draw pile, and those cards."""
    at = [i for i, c in enumerate(data["draw_pile"]) if c in unseen]
    return at, [data["draw_pile"][i] for i in at]


def between(scores: list[list[float]]) -> float:
    """The variance over rows (the outcomes of a chance event, each equally likely) of the rows'
    true means, estimated without the playout noise: ``scores[c][i]`` is playout i of row c,
    playout i of every row sharing its seed (a two-way layout, rows x seeds). With MS_rows and
    MS_residual the usual mean squares, ``E[MS_rows] = K·σ²_rows + σ²_residual`` and
    ``E[MS_residual] = σ²_residual``, so ``(MS_rows - MS_residual) / K`` estimates σ²_rows
    without bias (its divisor n - 1; the variance of a uniform draw of a row divides by n)."""
    n, k = len(scores), len(scores[0])
    if n < 2 or k < 2:
        return 0.0
    rows = [statistics.fmean(r) for r in scores]
    cols = [statistics.fmean(c) for c in zip(*scores)]
    grand = statistics.fmean(rows)
    ms_rows = k * sum((r - grand) ** 2 for r in rows) / (n - 1)
    ms_res = (sum((scores[c][i] - rows[c] - cols[i] + grand) ** 2 for c in range(n) for i in range(k))
              / ((n - 1) * (k - 1)))
    return (ms_rows - ms_res) / k * (n - 1) / n


def _mean(runs: list[list[float]]) -> list[float]:
    return [statistics.fmean(col) for col in zip(*runs)]


def deal_value(game, start: dict, oracle: Playouts, deals: int, tag: str, score) -> tuple[list[float], float, float]:
    """V(first position) less the mean of V over ``deals`` independent random deals, per seat;
    the playout noise of that difference in ``score`` (the variance it adds to a game); and the
    variance of V's ``score`` over deals (:func:`between`, the actual deal one of them)."""
    def v(g):
        data = g.to_dict()
        at, cards = _unseen(data, set(Stock.after_deal(g).block))
        return oracle.value(data, None, at, [], None, sorted(cards), f"{tag} deal")

    actual = v(game)
    rng = random.Random(f"{tag} deals")
    others = [v(engine.new_game(**{**start, "seed": rng.getrandbits(62)})) for _ in range(deals)]
    pooled = [r for runs in others for r in runs]
    mean = _mean(pooled)
    noise = (statistics.variance([score(r) for r in actual]) / len(actual)
             + statistics.variance([score(r) for r in pooled]) / len(pooled))
    spread = between([[score(r) for r in runs] for runs in [actual, *others]])
    return [a - m for a, m in zip(_mean(actual), mean)], noise, spread


SKIPPED = [0]  # reshuffle draws left uncorrected (see reshuffle_draw), over the whole run


def reshuffle_draw(game, stock: Stock, draw, oracle: Playouts, tag: str,
                   score) -> tuple[list[float], float, float] | None:
    """A draw off a pile reshuffled in its own step: V(card c drawn) by playouts from the state
    after the step with c in the hand in place of the card drawn and that card among the unseen
    cards of the new pile, whose order the playout shuffles (the same seed for every candidate).
    Taken only when it is the step's last draw and every other candidate is still unseen in the
    pile after the step (else None: no correction, which is unbiased); the step's later events
    are then those that happened, a small approximation of V (its brackets keep mean zero)."""
    data = game.to_dict()
    unseen_after = set(stock.block)
    if draw.player >= len(data["hands"]) or draw.card not in data["hands"][draw.player]:
        return None
    if any(c != draw.card and c not in unseen_after for c in draw.candidates):
        return None
    if any(c in data["draw_pile"] and c not in unseen_after for c in draw.candidates):
        return None
    pool = sorted(unseen_after | {draw.card})  # the candidates and the new pile's other unseen cards
    at = [i for i, c in enumerate(data["draw_pile"]) if c in unseen_after]
    runs = {}
    for c in draw.candidates:
        hands = [list(h) for h in data["hands"]]
        hands[draw.player][hands[draw.player].index(draw.card)] = c
        rest = [x for x in pool if x != c]
        runs[c] = oracle.value({**data, "hands": hands}, None, at, [], None, rest, tag)
    brackets = []
    for i in range(oracle.playouts):
        mean_i = _mean([r[i] for r in runs.values()])
        brackets.append([a - m for a, m in zip(runs[draw.card][i], mean_i)])
    noise = statistics.variance([score(b) for b in brackets]) / len(brackets)
    return _mean(brackets), noise, between([[score(r) for r in runs[c]] for c in draw.candidates])


def playout_adjusted(start: dict, choices: list[str], oracle: Playouts, deals: int,
                     score) -> tuple[list[float], float, float, int]:
    """Per seat: outcome less the playout luck of the deal and of every chance draw; the
    playout noise this adds to ``score`` (a sum of per-event variances: the events' playouts are
    independent); the variance of ``score`` an exact V would remove (the sum over the deal and
    every chance draw of V's variance over its outcomes, :func:`between`); the chance draws."""
    game = engine.new_game(**start)
    tag = f"ceiling {start['rule_set']} {start['seed']}"
    luck, noise, removable = deal_value(game, start, oracle, deals, tag, score)
    stock = Stock.after_deal(game)
    events = 0
    skipped = SKIPPED
    for step, choice in enumerate(choices):
        before = Before.of(game)
        unseen = set(stock.block)
        data = game.to_dict() if unseen else None
        engine.apply_choice(game, choice)
        draws = draws_of_step(stock, before, game)
        if not draws:
            continue
        at, cards = _unseen(data, unseen) if data is not None else ([], [])
        for n, draw in enumerate(draws):
            events += 1
            if draw.card not in unseen:
                # the top card of a pile reshuffled in this very step (tourney.luck.chance): its
                # candidates were in the discard pile before the step, so V comes from the state
                # after it instead (:func:`reshuffle_draw`)
                got = reshuffle_draw(game, stock, draw, oracle, f"{tag} step {step} draw {n}", score)
                if got is None:
                    skipped[0] += 1
                    continue
                bracket, event_noise, event_removable = got
                luck = [x + b for x, b in zip(luck, bracket)]
                noise += event_noise
                removable += event_removable
                continue
            fixed = [c for c, _, _ in draw.before]
            rest = sorted(c for c in cards if c not in fixed)
            event_tag = f"{tag} step {step} draw {n}"
            runs = {c: oracle.value(data, choice, at, fixed, c, rest, event_tag) for c in draw.candidates}
            # playout i of every candidate shares its seed: the bracket is the mean over i of
            # (outcome_i(card drawn) - mean over candidates of outcome_i(candidate))
            brackets = []
            for i in range(oracle.playouts):
                mean_i = _mean([r[i] for r in runs.values()])
                brackets.append([a - m for a, m in zip(runs[draw.card][i], mean_i)])
            bracket = _mean(brackets)
            noise += statistics.variance([score(b) for b in brackets]) / len(brackets)
            luck = [x + b for x, b in zip(luck, bracket)]
            removable += between([[score(r) for r in runs[c]] for c in draw.candidates])
    raw = outcome(game.result.placements)
    return [r - x for r, x in zip(raw, luck)], noise, removable, events


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rule-set", default="crazier-eights")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=150)
    parser.add_argument("--playouts", type=int, default=8)
    parser.add_argument("--deals", type=int, default=8)
    parser.add_argument("--playout-bots", choices=("greedy", "actual"), default="greedy")
    parser.add_argument("--pairing", choices=sorted(PAIRINGS), default="close")
    parser.add_argument("--progress", type=int, default=10)
    args = parser.parse_args()
    k, b_bot = args.players, PAIRINGS[args.pairing]
    rng = random.Random(f"bench luck {args.rule_set} {k} {args.pairing}")  # bench/luck.py's plain games
    a_count = max(1, k // 2)
    raw, lin, pla, diffs, noises, removables, n_events = [], [], [], [], [], [], []
    t0 = time.time()
    play_time = 0.0
    playouts = 0
    for seed in range(args.games):
        seats = rng.sample(range(k), a_count)
        first = rng.randrange(k)
        names = ["greedy" if p in seats else b_bot for p in range(k)]
        t = time.time()
        start, choices, game = play(args.rule_set, names, seed, first, seed)
        play_time += time.time() - t
        oracle = Playouts(names if args.playout_bots == "actual" else ["greedy"] * k, args.playouts,
                          game.card_table())
        def score(v, seats=seats):
            return sum(v[p] for p in seats) / len(seats)

        adjusted, game_noise, game_removable, events = playout_adjusted(start, choices, oracle, args.deals, score)
        noises.append(game_noise)
        removables.append(game_removable)
        n_events.append(events)
        playouts += oracle.games
        raw.append(score(outcome(game.result.placements)))
        lin.append(score(adjust(start, choices).adjusted))
        pla.append(score(adjusted))
        diffs.append(pla[-1] - raw[-1])
        if args.progress and (seed + 1) % args.progress == 0:
            raw_var, left = statistics.pvariance(raw), statistics.pvariance(raw) - statistics.fmean(removables)
            print(f"  {seed + 1} games ({time.time() - t0:.0f} s): var raw {statistics.pvariance(raw):.4f} "
                  f"linear {statistics.pvariance(lin):.4f} playout {statistics.pvariance(pla):.4f} "
                  f"of which playout noise {statistics.fmean(noises):.4f}; "
                  f"removable {statistics.fmean(removables):.4f}"
                  + (f" ± {Z * statistics.stdev(removables) / math.sqrt(len(removables)):.4f} (ceiling ratio "
                     f"{raw_var / max(left, 1e-9):.3f})"
                     if len(removables) > 1 else ""),
                  flush=True)
    elapsed = time.time() - t0
    edge = statistics.fmean(pla) - 0.5
    elo1 = elo_from_score(min(max(0.5 + abs(edge), 0.5005), 0.999))
    print(f"{args.rule_set}, {k} players, greedy against {b_bot}: {args.games} games, playouts by "
          f"{args.playout_bots} bots, {args.playouts} per candidate, {args.deals} random deals; "
          f"{playouts / args.games:.0f} playouts per game; adjusting a game took "
          f"{(elapsed - play_time) / max(play_time, 1e-9):.0f} times playing it")
    print(f"{'method':<18} {'mean':>8} {'var/game (lower better)':>24} {'SPRT games (lower better)':>26}")
    sprt = {}
    for name, scores in (("raw", raw), ("linear V", lin), ("playout V", pla)):
        sprt[name] = sprt_games(scores, elo1, 200, 1)
        print(f"{name:<18} {statistics.fmean(scores):>8.4f} {statistics.pvariance(scores):>24.5f} {sprt[name]:>26.1f}")
    noise = statistics.fmean(noises)
    exact = statistics.pvariance(pla) - noise
    print(f"chance draws per game {statistics.fmean(n_events):.1f} ({SKIPPED[0]} draws off a pile reshuffled in "
          f"their step left uncorrected in all); playout noise in the playout-adjusted "
          f"variance {noise:.5f}; an exact playout V (K -> infinity) would leave {exact:.5f} "
          f"(variance ratio {statistics.pvariance(raw) / exact if exact > 0 else math.inf:.3f})")
    removable = statistics.fmean(removables)
    se = statistics.stdev(removables) / math.sqrt(len(removables))
    left = statistics.pvariance(raw) - removable
    print(f"variance an exact V would remove (deal and chance draws, playouts by {args.playout_bots} bots): "
          f"{removable:.5f} ± {Z * se:.5f} (95%) of the raw {statistics.pvariance(raw):.5f}; "
          f"ceiling variance ratio {statistics.pvariance(raw) / left if left > 0 else math.inf:.3f}")
    sd = statistics.stdev(diffs) if len(diffs) > 1 else 0.0
    z = abs(statistics.fmean(diffs)) / (sd / math.sqrt(len(diffs))) if sd else 0.0
    print(f"variance_ratio={statistics.pvariance(raw) / statistics.pvariance(pla):.3f} "
          f"games_ratio={sprt['raw'] / sprt['playout V']:.3f} "
          f"linear_variance_ratio={statistics.pvariance(raw) / statistics.pvariance(lin):.3f} bias_z={z:.2f}")


if __name__ == "__main__":
    main()
