"""Fit the linear luck weights to playout values instead of game outcomes (distillation; issue 21).

    python scripts/fit_luck_playouts.py generate OUT.jsonl [--minutes 13] [--worker 0] [--playouts 8]
                                                 [--candidates 4] [--rate 0.5]
    python scripts/fit_luck_playouts.py fit OUT.jsonl [MORE.jsonl ...] --weights OUT.json [--prior]

The shipped weights (scripts/fit_luck.py) regress each game's outcome on its summed feature
differences: a target that carries the whole game's luck, a coin flip per game. Here each chance
draw is labelled by playouts instead. ``generate`` plays Crazier Eights self-play games at two
players (each seat greedy or greedy playing a random option 30% of the time, drawn at random; the
first player drawn independently) on seeds of their own (``PLAYOUT_SEEDS`` onwards: no bench, fit
or ceiling game uses them), and at a share ``--rate`` of the chance draws (tourney.luck.chance;
draws off a pile reshuffled in their own step are skipped) takes ``--candidates`` of the cards
the draw could have been, drawn at random. For each it computes the drawer's feature vector
(tourney.luck.adjust.draw_luck: the state before the step with that card in hand) and the mean
outcome of ``--playouts`` games played to the end by the greedy bot in every seat, from the state
before the step with that card on top of the unseen cards, the other unseen cards in a random
order (bench/luck_ceiling.py's ``Playouts``). Playout i of every candidate of one draw shares its
generator (common random numbers), so their differences carry less noise than the values do.
One JSON line per draw. It stops after ``--minutes``.

``fit`` regresses, within each draw, the drawer's playout value less its mean over the draw's
sampled candidates on the feature vector less its mean (exactly what the adjustment's bracket
``w·(x(card) - mean x)`` estimates), with the draw's block (hand of at most three cards or larger)
choosing the weights; ridge (towards zero, or with ``--prior`` towards the shipped draw weights),
the penalty chosen by 5-fold cross-validation over draws. The
deal's weights are kept from the shipped entry. It prints the held-out squared error of the
brackets for zero weights, the shipped weights and the fitted ones, and writes a weights file in
the format of tourney/luck/coefficients.json (crazier-eights, 2 players) for ``bench/luck.py
--weights``. numpy is needed here only.

"Shipped" means tourney/luck/coefficients.json as it is when the script runs. The even average of
the outcome fit (coefficients.json at commit 51a5e8d) and this script's fit
(bench/luck_playout_weights.json), weight by weight, is bench/luck_playout_blend_weights.json: measured,
not shipped, because it was chosen after looking at the bench games (docs/evaluation.md, "Fitting to
playout values").
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from bench.luck_ceiling import Playouts, _unseen
from tourney.luck.adjust import Position, draw_luck
from tourney.luck.chance import Before, Stock, draws_of_step
from tourney.luck.selfplay import play
from tourney.luck.value import BLOCKS, FEATURES, fitted, weight_names

PLAYOUT_SEEDS = 9_000_000_000
RULE_SET = "crazier-eights"
PLAYERS = 2
LAMBDAS = (0.1, 1.0, 3.0, 10.0, 30.0, 100.0, 300.0, 1000.0, 3000.0, 10000.0)


def generate(out: Path, minutes: float, worker: int, playouts: int, candidates: int, rate: float) -> None:
    rng = random.Random(f"fit playouts {worker}")
    t0 = time.time()
    events = playout_games = 0
    with out.open("a") as f:
        for g in range(10**9):
            if time.time() - t0 > minutes * 60:
                break
            seed = PLAYOUT_SEEDS + worker * 10_000_000 + g
            names = [rng.choice(("greedy", "greedy30")) for _ in range(PLAYERS)]
            start, choices, finished = play(RULE_SET, names, seed, rng.randrange(PLAYERS), seed)
            oracle = Playouts(["greedy"] * PLAYERS, playouts, finished.card_table())
            game = engine.new_game(RULE_SET, players=PLAYERS, seed=seed, first_player=start["first_player"])
            stock = Stock.after_deal(game)
            for step, choice in enumerate(choices):
                before = Before.of(game)
                position = Position.of(game)
                unseen = set(stock.block)
                data = game.to_dict() if unseen else None
                engine.apply_choice(game, choice)
                draws = draws_of_step(stock, before, game)
                if not draws or data is None:
                    continue
                at, cards = _unseen(data, unseen)
                for n, draw in enumerate(draws):
                    if draw.card not in unseen or len(draw.candidates) < 2 or rng.random() >= rate:
                        continue
                    fixed = [c for c, _, _ in draw.before]
                    rest = sorted(c for c in cards if c not in fixed)
                    picked = rng.sample(sorted(draw.candidates), min(candidates, len(draw.candidates)))
                    tag = f"fit playouts {seed} step {step} draw {n}"
                    xs, vs = [], []
                    block = 0
                    for c in picked:
                        block, x = draw_luck(position, replace(draw, card=c))
                        runs = oracle.value(data, choice, at, fixed, c, rest, tag)
                        xs.append([round(v, 6) for v in x])
                        vs.append(sum(r[draw.player] for r in runs) / len(runs))
                    f.write(json.dumps({"seed": seed, "step": step, "block": block, "x": xs, "v": vs}) + "\n")
                    events += 1
            playout_games += oracle.games
            f.flush()
            if g % 20 == 0:
                print(f"{g + 1} games, {events} draws, {playout_games} playouts, {time.time() - t0:.0f} s, "
                      f"{(time.time() - t0) / max(playout_games, 1) * 1000:.2f} ms a playout", flush=True)
    print(f"done: {events} draws, {playout_games} playouts in {time.time() - t0:.0f} s", flush=True)


def design(paths: list[Path]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows (one per sampled candidate, centred within its draw) over the draw weights, targets,
    and each row's draw number (for the folds)."""
    d = len(FEATURES)
    rows, ys, groups = [], [], []
    event = 0
    for path in paths:
        for line in path.read_text().splitlines():
            rec = json.loads(line)
            x = np.array(rec["x"])
            v = np.array(rec["v"])
            x = x - x.mean(axis=0)
            v = v - v.mean()
            full = np.zeros((len(v), d * (len(BLOCKS) - 1)))
            b = rec["block"] - 1
            full[:, b * d:(b + 1) * d] = x
            rows.append(full)
            ys.append(v)
            groups.append(np.full(len(v), event))
            event += 1
    return np.vstack(rows), np.concatenate(ys), np.concatenate(groups)


def ridge(x: np.ndarray, y: np.ndarray, lam: float) -> np.ndarray:
    return np.linalg.solve(x.T @ x + lam * np.eye(x.shape[1]), x.T @ y)


def fit(paths: list[Path], weights_out: Path, prior: bool) -> None:
    """Ridge on the brackets, the penalty by 5-fold cross-validation over draws. ``prior``
    shrinks towards the shipped draw weights instead of towards zero (the playouts then only
    correct the outcome fit)."""
    x, y, groups = design(paths)
    d = len(FEATURES)
    entry = fitted(RULE_SET, PLAYERS)
    assert entry is not None
    names = weight_names()
    shipped = np.array([float(entry["weights"].get(n, 0.0)) for n in names])
    w0 = shipped[d:] if prior else np.zeros(x.shape[1])

    def solve(rows: np.ndarray, targets: np.ndarray, lam: float) -> np.ndarray:
        return w0 + ridge(rows, targets - rows @ w0, lam)

    folds = groups % 5
    errors = dict.fromkeys(LAMBDAS, 0.0)
    for k in range(5):
        train, test = folds != k, folds == k
        for lam in LAMBDAS:
            w = solve(x[train], y[train], lam)
            errors[lam] += float(((y[test] - x[test] @ w) ** 2).sum())
    n = len(y)
    best = min(LAMBDAS, key=lambda lam: errors[lam])
    w = solve(x, y, best)
    print(f"{int(groups.max()) + 1} draws, {n} candidates; mean squared error of the brackets: "
          f"zero weights {float((y ** 2).mean()):.6f}, shipped weights "
          f"{float(((y - x @ shipped[d:]) ** 2).mean()):.6f}, fitted (ridge {best:g}"
          f"{' towards the shipped weights' if prior else ''}, held out) {errors[best] / n:.6f}; "
          f"by ridge: " + ", ".join(f"{lam:g} {errors[lam] / n:.6f}" for lam in LAMBDAS))
    weights = np.concatenate([shipped[:d], w])
    table = {RULE_SET: {str(PLAYERS): {
        "source": "scripts/fit_luck_playouts.py: draw weights fitted to playout values"
                  + (" (ridge towards the shipped ones)" if prior else "") + ", deal weights shipped",
        "draws": int(groups.max()) + 1, "ridge": best,
        "weights": {name: round(float(v), 6) for name, v in zip(names, weights)},
    }}}
    weights_out.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    gen = sub.add_parser("generate")
    gen.add_argument("out", type=Path)
    gen.add_argument("--minutes", type=float, default=13.0)
    gen.add_argument("--worker", type=int, default=0)
    gen.add_argument("--playouts", type=int, default=8)
    gen.add_argument("--candidates", type=int, default=4)
    gen.add_argument("--rate", type=float, default=0.5)
    fit_parser = sub.add_parser("fit")
    fit_parser.add_argument("data", type=Path, nargs="+")
    fit_parser.add_argument("--weights", type=Path, required=True)
    fit_parser.add_argument("--prior", action="store_true", help="shrink towards the shipped draw weights")
    args = parser.parse_args()
    if args.command == "generate":
        generate(args.out, args.minutes, args.worker, args.playouts, args.candidates, args.rate)
    else:
        fit(args.data, args.weights, args.prior)


if __name__ == "__main__":
    main()
