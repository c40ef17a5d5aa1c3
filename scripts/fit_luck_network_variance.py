"""Fine-tune the luck network on the adjusted score's variance itself (MIVAT's objective), 2 players.

    python scripts/fit_luck_network_variance.py GAMES INIT OUT [LR] [EPOCHS]

An experiment (docs/evaluation.md, "A non-linear value function"): starting from the network
of INIT (network.json format, fitted to outcomes by scripts/fit_luck_network.py), Adam on
minibatches of 400 games minimises the variance over self-play games of seat 0's
``outcome - luck``, luck the centred network adjustment of tourney.luck.adjust.network_luck
(the deal against 16 random deals, every chance draw against its candidates), exactly as
scripts/fit_luck.py does for the linear weights. Games on seeds 8,500,000,000 onwards (no scored
game uses them); one in five held out; the epoch with the lowest held-out variance is written.
"""

import json
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from tourney.luck.adjust import DEALS, _deal_rng, _first_player, _start_kwargs
from tourney.luck.chance import Stock, chance_draws
from tourney.luck.network import INPUTS, MINE, OTHERS, Snapshot, card_index, seat_inputs
from tourney.luck.selfplay import play
from tourney.luck.value import outcome

SIGN = (0.5, -0.5)


def game_rows(start, choices):
    kwargs = _start_kwargs(start)
    game = engine.new_game(**kwargs)
    if kwargs.get("first_player") is None and game.pending is not None:
        kwargs["first_player"] = _first_player(game)
    bases, rows = [], []
    snap = Snapshot.of(game)
    for p in range(2):
        bases.append(seat_inputs(snap, p))
        rows.append((len(bases) - 1, INPUTS, SIGN[p]))
    rng = _deal_rng(start)
    for _ in range(DEALS):
        kwargs["seed"] = rng.getrandbits(62)
        s2 = Snapshot.of(engine.new_game(**kwargs))
        for p in range(2):
            bases.append(seat_inputs(s2, p))
            rows.append((len(bases) - 1, INPUTS, -SIGN[p] / DEALS))
    index = card_index(game)
    for snap, draw in chance_draws(game, Stock.after_deal(game), choices, Snapshot.of):
        hands = [list(h) for h in snap.hands]
        for card, player, _ in draw.before:
            hands[player].append(index[card])
        hands[draw.player].append(None)
        after = Snapshot(hands, snap.in_play, snap.top, snap.named, snap.moving, snap.alive)
        counts = {}
        for c in draw.candidates:
            counts[index[c]] = counts.get(index[c], 0) + 1
        total = len(draw.candidates)
        actual = index[draw.card]
        for p in range(2):
            bases.append(seat_inputs(after, p))
            bid = len(bases) - 1
            block = MINE if p == draw.player else OTHERS
            for key, n in counts.items():
                coef = SIGN[p] * ((key == actual) - n / total)
                rows.append((bid, block + key if key >= 0 else INPUTS, coef))
    return bases, rows, outcome(game.result.placements)[0] - 0.5


def build(games):
    B, R, T = [], [], []
    for g, (bases, rows, t) in enumerate(games):
        off = len(B)
        B += bases
        R += [(off + b, e, c, g) for b, e, c in rows]
        T.append(t)
    L = max(len(x) for x in B)
    Bm = np.full((len(B), L), INPUTS, dtype=np.int32)
    for i, x in enumerate(B):
        Bm[i, : len(x)] = x
    R = np.array(R, dtype=np.float64)
    return (
        Bm,
        R[:, 0].astype(np.int64),
        R[:, 1].astype(np.int64),
        R[:, 2].astype(np.float32),
        R[:, 3].astype(np.int64),
        np.array(T, dtype=np.float32),
    )


def forward(p, Bm, bid, ext, coef, gid, ng):
    pb = p["w1"][Bm].sum(axis=1)
    pre = pb[bid] + p["w1"][ext] + p["b1"]
    h = np.maximum(pre, 0)
    y = 1 / (1 + np.exp(-(h @ p["w2"] + p["b2"][0])))
    luck = np.bincount(gid, weights=coef * y, minlength=ng)
    return pb, pre, h, y, luck


def subset(data, games):
    Bm, bid, ext, coef, gid, T = data
    gset = np.zeros(len(T), bool)
    gset[games] = True
    keep = gset[gid]
    bases = np.unique(bid[keep])
    remap = -np.ones(len(Bm), np.int64)
    remap[bases] = np.arange(len(bases))
    gmap = -np.ones(len(T), np.int64)
    gmap[games] = np.arange(len(games))
    return Bm[bases], remap[bid[keep]], ext[keep], coef[keep], gmap[gid[keep]], T[games]


def main():
    n_games = int(sys.argv[1])
    init = sys.argv[2]
    out = sys.argv[3]
    rng = random.Random("fit network variance crazier-eights 2")
    games = []
    t0 = time.time()
    for g in range(n_games):
        seed = 8_500_000_000 + g
        names = [rng.choice(("greedy", "greedy", "greedy30", "random")) for _ in range(2)]
        start, choices, _ = play("crazier-eights", names, seed, rng.randrange(2), seed)
        games.append(game_rows(start, choices))
    print("data", time.time() - t0, flush=True)
    data = build(games)
    e = json.loads(Path(init).read_text())["crazier-eights"]["2"]
    H = len(e["b1"])
    p = {
        "w1": np.vstack([np.array(e["w1"], np.float32), np.zeros((1, H), np.float32)]),
        "b1": np.array(e["b1"], np.float32),
        "w2": np.array(e["w2"], np.float32),
        "b2": np.array([e["b2"]], np.float32),
    }
    idx = np.arange(n_games)
    held = subset(data, idx[idx % 5 == 0])
    fit = subset(data, idx[idx % 5 != 0])

    def loss(p, d):
        Bm, bid, ext, coef, gid, T = d
        luck = forward(p, Bm, bid, ext, coef, gid, len(T))[4]
        return float(np.var(T - luck)), float(np.var(T))

    print("init held", loss(p, held), "fit", loss(p, fit), flush=True)
    best = (loss(p, held)[0], {k: v.copy() for k, v in p.items()})
    m = {k: np.zeros_like(v) for k, v in p.items()}
    v2 = {k: np.zeros_like(v) for k, v in p.items()}
    lr = float(sys.argv[4]) if len(sys.argv) > 4 else 3e-4
    t = 0
    fit_games = np.arange(len(fit[5]))
    nr = np.random.default_rng(0)
    for epoch in range(int(sys.argv[5]) if len(sys.argv) > 5 else 15):
        nr.shuffle(fit_games)
        for s in range(0, len(fit_games), 400):
            d = subset(fit, fit_games[s : s + 400])
            Bm, bid, ext, coef, gid, T = d
            pb, pre, h, y, luck = forward(p, Bm, bid, ext, coef, gid, len(T))
            r = T - luck
            dluck = -2 * (r - r.mean()) / len(T)
            dy = dluck[gid] * coef
            dz = (dy * y * (1 - y)).astype(np.float32)
            dh = np.outer(dz, p["w2"]) * (pre > 0)
            g1 = np.zeros_like(p["w1"])
            for j in range(H):
                g1[:, j] += np.bincount(ext, weights=dh[:, j], minlength=INPUTS + 1)
                dpb = np.bincount(bid, weights=dh[:, j], minlength=len(Bm))
                g1[:, j] += np.bincount(Bm.ravel(), weights=np.repeat(dpb, Bm.shape[1]), minlength=INPUTS + 1)
            g1[INPUTS] = 0
            grads = {"w1": g1, "b1": dh.sum(0), "w2": h.T @ dz, "b2": np.array([dz.sum()], np.float32)}
            t += 1
            for k, g in grads.items():
                m[k] = 0.9 * m[k] + 0.1 * g
                v2[k] = 0.999 * v2[k] + 0.001 * g * g
                p[k] = (p[k] - lr * (m[k] / (1 - 0.9**t)) / (np.sqrt(v2[k] / (1 - 0.999**t)) + 1e-8)).astype(
                    np.float32
                )
        lh = loss(p, held)
        print(f"epoch {epoch + 1}: fit {loss(p, fit)[0]:.5f} held {lh[0]:.5f} (raw {lh[1]:.5f})", flush=True)
        if lh[0] < best[0]:
            best = (lh[0], {k: v.copy() for k, v in p.items()})
    q = best[1]
    Path(out).write_text(json.dumps(
        {
            "crazier-eights": {
                "2": {
                    "hidden": H,
                    "w1": [[round(float(v), 5) for v in r] for r in q["w1"][:INPUTS]],
                    "b1": [round(float(v), 5) for v in q["b1"]],
                    "w2": [round(float(v), 5) for v in q["w2"]],
                    "b2": round(float(q["b2"][0]), 5),
                }
            }
        }
    ))
    print("best held", best[0])


if __name__ == "__main__":
    main()
