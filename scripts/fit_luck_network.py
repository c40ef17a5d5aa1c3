"""Fit the luck adjustment's network value function (tourney/luck/network.json), numpy and scipy.

    python scripts/fit_luck_network.py [--games 6000] [--players 2] [--hidden 24] [--out PATH]

Plays self-play Crazier Eights games between the engine's built-in bots (each seat's bot drawn
from greedy, greedy, greedy playing a random option 30% of the time, random; the first player
drawn independently) on seeds from ``NETWORK_SEEDS`` onwards, a range no scored game and no
linear fit uses. Every game gives one sample per seat for its first position and one per seat for
every chance draw (the position the correction evaluates: before the step, with the card drawn
and the step's earlier draws in hand); the target is the seat's outcome (1, ½, 0 at two players).
A network fitted to outcomes estimates each position's expected outcome, the value that makes the
adjusted score's variance smallest; fitting on games that are never scored keeps it unbiased.

The network (tourney/luck/network.py): sparse inputs, one hidden layer of ReLU units, a
sigmoid output, squared error, Adam on minibatches. One game in five is held out; the epoch
with the lowest held-out error is kept. Printed: the held-out mean squared error of the network
against that of the constant mean.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

import numpy as np
from scipy import sparse

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from tourney.luck.adjust import _start_kwargs
from tourney.luck.chance import Before, Stock, draws_of_step
from tourney.luck.network import INPUTS, Snapshot, card_index, seat_inputs
from tourney.luck.selfplay import play
from tourney.luck.value import outcome

NETWORK_SEEDS = 8_000_000_000
OUT = Path(__file__).resolve().parent.parent / "tourney" / "luck" / "network.json"


def game_samples(start: dict, choices: list[str]) -> tuple[list[list[int]], list[float]]:
    """The inputs (per seat, per chance position) and targets of one finished game."""
    game = engine.new_game(**_start_kwargs(start))
    k = game.players
    snaps = [Snapshot.of(game)]
    index = card_index(game)
    stock = Stock.after_deal(game)
    for choice in choices:
        before = Before.of(game)
        snap = Snapshot.of(game)
        engine.apply_choice(game, choice)
        for draw in draws_of_step(stock, before, game):
            hands = [list(h) for h in snap.hands]
            for card, player, _ in draw.before:
                hands[player].append(index[card])
            hands[draw.player].append(index[draw.card])
            snaps.append(Snapshot(hands, snap.in_play, snap.top, snap.named, snap.moving, snap.alive))
    result = outcome(game.result.placements)
    xs, ys = [], []
    for s in snaps:
        for p in range(k):
            xs.append(seat_inputs(s, p))
            ys.append(result[p])
    return xs, ys


def samples(players: int, games: int) -> list[tuple[list[list[int]], list[float]]]:
    rng = random.Random(f"fit network crazier-eights {players}")
    out = []
    for g in range(games):
        seed = NETWORK_SEEDS + g
        names = [rng.choice(("greedy", "greedy", "greedy30", "random")) for _ in range(players)]
        start, choices, _ = play("crazier-eights", names, seed, rng.randrange(players), seed)
        out.append(game_samples(start, choices))
        if (g + 1) % 1000 == 0:
            print(f"  {g + 1} games", flush=True)
    return out


def matrix(games) -> tuple[sparse.csr_matrix, np.ndarray]:
    rows, cols, ys = [], [], []
    n = 0
    for xs, targets in games:
        for x, y in zip(xs, targets):
            rows += [n] * len(x)
            cols += x
            ys.append(y)
            n += 1
    data = np.ones(len(rows), dtype=np.float32)
    return sparse.csr_matrix((data, (rows, cols)), shape=(n, INPUTS)), np.asarray(ys, dtype=np.float32)


def train(xt, yt, xv, yv, hidden: int, epochs: int, seed: int = 0) -> tuple[dict, float]:
    rng = np.random.default_rng(seed)
    params = {
        "w1": (rng.standard_normal((INPUTS, hidden)) * 0.1).astype(np.float32),
        "b1": np.zeros(hidden, dtype=np.float32),
        "w2": (rng.standard_normal(hidden) * 0.1).astype(np.float32),
        "b2": np.float32(0.0),
    }
    m = {k: np.zeros_like(v) for k, v in params.items()}
    v2 = {k: np.zeros_like(v) for k, v in params.items()}
    lr, b1, b2, eps, decay = 2e-3, 0.9, 0.999, 1e-8, 1e-5
    t = 0

    def forward(x, p):
        pre = x @ p["w1"] + p["b1"]
        h = np.maximum(pre, 0)
        z = h @ p["w2"] + p["b2"]
        return pre, h, 1 / (1 + np.exp(-z))

    def mse(x, y, p):
        return float(np.mean((forward(x, p)[2] - y) ** 2))

    best = (mse(xv, yv, params), {k: np.array(v, copy=True) for k, v in params.items()})
    n = xt.shape[0]
    for epoch in range(epochs):
        order = rng.permutation(n)
        for start in range(0, n, 512):
            idx = order[start:start + 512]
            x, y = xt[idx], yt[idx]
            pre, h, out = forward(x, params)
            dz = 2 * (out - y) * out * (1 - out) / len(idx)
            grads = {"w2": h.T @ dz + decay * params["w2"], "b2": np.float32(dz.sum())}
            dh = np.outer(dz, params["w2"]) * (pre > 0)
            grads["w1"] = np.asarray(x.T @ dh) + decay * params["w1"]
            grads["b1"] = dh.sum(axis=0)
            t += 1
            for k, g in grads.items():
                m[k] = b1 * m[k] + (1 - b1) * g
                v2[k] = b2 * v2[k] + (1 - b2) * g * g
                params[k] = params[k] - lr * (m[k] / (1 - b1 ** t)) / (np.sqrt(v2[k] / (1 - b2 ** t)) + eps)
        held = mse(xv, yv, params)
        print(f"  epoch {epoch + 1}: train {mse(xt, yt, params):.5f} held out {held:.5f}", flush=True)
        if held < best[0]:
            best = (held, {k: np.array(v, copy=True) for k, v in params.items()})
    return best[1], best[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6000)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--hidden", type=int, default=24)
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    games = samples(args.players, args.games)
    held = [g for i, g in enumerate(games) if i % 5 == 0]
    fit = [g for i, g in enumerate(games) if i % 5 != 0]
    xt, yt = matrix(fit)
    xv, yv = matrix(held)
    params, err = train(xt, yt, xv, yv, args.hidden, args.epochs)
    base = float(np.mean((yv - yt.mean()) ** 2))
    print(f"crazier-eights {args.players} players: {xt.shape[0]} samples, held-out squared error "
          f"{base:.5f} (constant) -> {err:.5f} (network)")
    table = json.loads(args.out.read_text()) if args.out.exists() else {}
    table.setdefault("crazier-eights", {})[str(args.players)] = {
        "games": args.games, "hidden": args.hidden,
        "held_out_squared_error": {"constant": round(base, 5), "network": round(err, 5)},
        "w1": [[round(float(v), 5) for v in row] for row in params["w1"]],
        "b1": [round(float(v), 5) for v in params["b1"]],
        "w2": [round(float(v), 5) for v in params["w2"]],
        "b2": round(float(params["b2"]), 5),
    }
    args.out.write_text(json.dumps(table, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
