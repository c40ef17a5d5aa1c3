"""Fit the luck adjustment's network value function (tourney/luck/network.json) with numpy.

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

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from tourney.luck.adjust import _start_kwargs
from tourney.luck.chance import Stock, chance_draws
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
    for snap, draw in chance_draws(game, Stock.after_deal(game), choices, Snapshot.of):
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


def matrix(games) -> tuple[np.ndarray, np.ndarray]:
    """Samples as a padded matrix of input indices (``INPUTS``, a zero row, fills the gaps) and
    their targets."""
    xs = [x for g in games for x in g[0]]
    ys = [y for g in games for y in g[1]]
    idx = np.full((len(xs), max(len(x) for x in xs)), INPUTS, dtype=np.int32)
    for r, x in enumerate(xs):
        idx[r, :len(x)] = x
    return idx, np.asarray(ys, dtype=np.float32)


def train(xt, yt, xv, yv, hidden: int, epochs: int, lr: float = 1e-3, decay: float = 1e-4,
          seed: int = 0) -> tuple[dict, float]:
    """Adam on minibatches of 512; the parameters of the epoch with the lowest held-out error."""
    rng = np.random.default_rng(seed)
    params = {
        "w1": (rng.standard_normal((INPUTS + 1, hidden)) * 0.1).astype(np.float32),
        "b1": np.zeros(hidden, dtype=np.float32),
        "w2": (rng.standard_normal(hidden) * 0.1).astype(np.float32),
        "b2": np.zeros(1, dtype=np.float32),
    }
    params["w1"][INPUTS] = 0.0
    m = {k: np.zeros_like(v) for k, v in params.items()}
    v2 = {k: np.zeros_like(v) for k, v in params.items()}
    b1, b2, eps = 0.9, 0.999, 1e-8
    t = 0

    def forward(x, p):
        pre = p["w1"][x].sum(axis=1) + p["b1"]
        h = np.maximum(pre, 0)
        return pre, h, 1 / (1 + np.exp(-(h @ p["w2"] + p["b2"][0])))

    def mse(x, y, p):
        return float(sum(np.sum((forward(x[i:i + 8192], p)[2] - y[i:i + 8192]) ** 2)
                         for i in range(0, len(y), 8192)) / len(y))

    best = (mse(xv, yv, params), {k: np.array(v, copy=True) for k, v in params.items()})
    n = len(yt)
    for epoch in range(epochs):
        order = rng.permutation(n)
        for start in range(0, n, 512):
            rows = order[start:start + 512]
            x, y = xt[rows], yt[rows]
            pre, h, out = forward(x, params)
            dz = 2 * (out - y) * out * (1 - out) / len(rows)
            dh = np.outer(dz, params["w2"]) * (pre > 0)
            g1 = np.zeros_like(params["w1"])
            np.add.at(g1, x, dh[:, None, :])
            g1[INPUTS] = 0.0
            grads = {"w1": g1 + decay * params["w1"], "b1": dh.sum(axis=0),
                     "w2": h.T @ dz + decay * params["w2"], "b2": np.array([dz.sum()], dtype=np.float32)}
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
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--decay", type=float, default=1e-4, help="L2 penalty added to the gradients")
    parser.add_argument("--cache", type=Path, help="keep the samples in this .npz (and read them from it)")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    if args.cache and args.cache.exists():
        data = np.load(args.cache)
        xt, yt, xv, yv = data["xt"], data["yt"], data["xv"], data["yv"]
    else:
        games = samples(args.players, args.games)
        xt, yt = matrix([g for i, g in enumerate(games) if i % 5 != 0])
        xv, yv = matrix([g for i, g in enumerate(games) if i % 5 == 0])  # one game in five held out
        if args.cache:
            np.savez(args.cache, xt=xt, yt=yt, xv=xv, yv=yv)
    params, err = train(xt, yt, xv, yv, args.hidden, args.epochs, args.lr, args.decay)
    base = float(np.mean((yv - yt.mean()) ** 2))
    print(f"crazier-eights {args.players} players: {len(yt)} samples, held-out squared error "
          f"{base:.5f} (constant) -> {err:.5f} (network)")
    table = json.loads(args.out.read_text()) if args.out.exists() else {}
    table.setdefault("crazier-eights", {})[str(args.players)] = {
        "games": args.games, "hidden": args.hidden, "lr": args.lr, "decay": args.decay,
        "held_out_squared_error": {"constant": round(base, 5), "network": round(err, 5)},
        "w1": [[round(float(v), 5) for v in row] for row in params["w1"][:INPUTS]],
        "b1": [round(float(v), 5) for v in params["b1"]],
        "w2": [round(float(v), 5) for v in params["w2"]],
        "b2": round(float(params["b2"][0]), 5),
    }
    args.out.write_text(json.dumps(table, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
