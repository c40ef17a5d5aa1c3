"""Re-fit the weights of the luck adjustment (tourney/luck/coefficients.json).

    python scripts/fit_luck.py [--games 1500] [--rule-set R ...] [--players 2 4] [--out PATH]

Plays self-play games between the engine's built-in bots (greedy, greedy playing a random option
30% of the time, random; each seat's bot drawn at random, the first player drawn independently)
on seeds from a range of their own (``FIT_SEEDS`` onwards) that no scored game uses: fitting on
the games being scored would let the weights know their outcomes and bias the adjustment.

For every game and seat, :func:`tourney.luck.adjust.luck_features` gives the outcome and the
luck features ``G`` (the summed feature differences of every chance event). The adjusted score
is ``outcome - w·G`` and ``E[G] = 0``, so the ``w`` that makes its variance smallest is the
least-squares regression of ``outcome - ½`` on ``G`` (MIVAT, White and Bowling 2009), here with a
small ridge penalty (λ = 1) and solved in plain Python. Entries keep their ``default`` flag,
which only a measurement with bench/luck.py should set.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tourney.luck.adjust import luck_features
from tourney.luck.selfplay import play
from tourney.luck.value import weight_names

FIT_SEEDS = 7_000_000_000
OUT = Path(__file__).resolve().parent.parent / "tourney" / "luck" / "coefficients.json"
RULE_SETS = ("crazier-eights", "crazy-eights", "super-crazy-eights")
LAMBDA = 1.0


def samples(rule_set: str, players: int, games: int) -> list[tuple[list[float], float]]:
    """(G_p, outcome_p - ½) for every seat of ``games`` self-play games."""
    rng = random.Random(f"fit {rule_set} {players}")
    out: list[tuple[list[float], float]] = []
    for g in range(games):
        seed = FIT_SEEDS + g
        names = [rng.choice(("greedy", "greedy", "greedy30", "random")) for _ in range(players)]
        start, choices, _ = play(rule_set, names, seed, rng.randrange(players), seed)
        luck = luck_features(start, choices)
        out.extend((row, r - 0.5) for row, r in zip(luck.g, luck.raw))
    return out


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """Solve ``a·x = b`` (symmetric positive definite) by Gaussian elimination with pivoting."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for i in range(n):
        pivot = max(range(i, n), key=lambda r: abs(m[r][i]))
        m[i], m[pivot] = m[pivot], m[i]
        for r in range(i + 1, n):
            f = m[r][i] / m[i][i]
            if f:
                for c in range(i, n + 1):
                    m[r][c] -= f * m[i][c]
    x = [0.0] * n
    for i in reversed(range(n)):
        x[i] = (m[i][n] - sum(m[i][c] * x[c] for c in range(i + 1, n))) / m[i][i]
    return x


def fit(data: list[tuple[list[float], float]]) -> tuple[list[float], float, float]:
    """Ridge least squares; returns (weights, variance of y, variance of y - w·G) in sample."""
    d = len(data[0][0])
    xtx = [[LAMBDA if i == j else 0.0 for j in range(d)] for i in range(d)]
    xty = [0.0] * d
    for x, y in data:
        nz = [(i, v) for i, v in enumerate(x) if v]
        for i, v in nz:
            xty[i] += v * y
            row = xtx[i]
            for j, u in nz:
                row[j] += v * u
    w = _solve(xtx, xty)
    n = len(data)
    before = sum(y * y for _, y in data) / n
    after = sum((y - sum(a * b for a, b in zip(w, x))) ** 2 for x, y in data) / n
    return w, before, after


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1500)
    parser.add_argument("--rule-set", nargs="*", default=list(RULE_SETS))
    parser.add_argument("--players", nargs="*", type=int, default=[2, 4])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    table = json.loads(args.out.read_text()) if args.out.exists() else {}
    for rule_set in args.rule_set:
        for players in args.players:
            data = samples(rule_set, players, args.games)
            weights, before, after = fit(data)
            entry = table.setdefault(rule_set, {}).setdefault(str(players), {})
            entry.update({
                "games": args.games, "rows": len(data),
                "variance_in_sample": [round(before, 5), round(after, 5)],
                "weights": {name: round(w, 6) for name, w in zip(weight_names(), weights)},
            })
            print(f"{rule_set} {players} players: {len(data)} rows, in-sample variance "
                  f"{before:.4f} -> {after:.4f}", flush=True)
            args.out.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
