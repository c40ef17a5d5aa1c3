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
ridge penalty chosen by 5-fold cross-validation over games, solved in plain Python. When no
penalty lowers the held-out variance the weights are zero (no adjustment). Entries keep their ``default`` flag,
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
#: the ridge penalties tried by cross-validation
LAMBDAS = (10.0, 100.0, 300.0, 1000.0, 3000.0, 10000.0, 30000.0)


def samples(rule_set: str, players: int, games: int) -> list[list[tuple[list[float], float]]]:
    """Per self-play game, its seats' (G_p, outcome_p - ½)."""
    rng = random.Random(f"fit {rule_set} {players}")
    out: list[list[tuple[list[float], float]]] = []
    for g in range(games):
        seed = FIT_SEEDS + g
        names = [rng.choice(("greedy", "greedy", "greedy30", "random")) for _ in range(players)]
        start, choices, _ = play(rule_set, names, seed, rng.randrange(players), seed)
        luck = luck_features(start, choices)
        out.append([(row, r - 0.5) for row, r in zip(luck.g, luck.raw)])
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


def _normal_equations(rows: list[tuple[list[float], float]]) -> tuple[list[list[float]], list[float]]:
    d = len(rows[0][0])
    xtx = [[0.0] * d for _ in range(d)]
    xty = [0.0] * d
    for x, y in rows:
        nz = [(i, v) for i, v in enumerate(x) if v]
        for i, v in nz:
            xty[i] += v * y
            row = xtx[i]
            for j, u in nz:
                row[j] += v * u
    return xtx, xty


def _ridge(xtx: list[list[float]], xty: list[float], lam: float) -> list[float]:
    return _solve([[v + (lam if i == j else 0.0) for j, v in enumerate(row)] for i, row in enumerate(xtx)], xty)


def _variance(rows, w) -> float:
    return sum((y - sum(a * b for a, b in zip(w, x))) ** 2 for x, y in rows) / len(rows)


def fit(games: list[list[tuple[list[float], float]]]) -> tuple[list[float], float, dict]:
    """Ridge least squares with the penalty chosen by 5-fold cross-validation over games (a game's
    seats stay in one fold). Returns (weights, penalty, held-out variances before and after). When
    no penalty lowers the held-out variance, the weights are zero: an adjustment that would add
    variance on fresh games is not shipped."""
    folds = 5
    parts = [[r for i, g in enumerate(games) if i % folds == k for r in g] for k in range(folds)]
    equations = [_normal_equations(part) for part in parts]  # each fold's, summed for the rest
    totals = dict.fromkeys(LAMBDAS, 0.0)
    before = 0.0
    n = 0
    for k, test in enumerate(parts):
        rest = [e for j, e in enumerate(equations) if j != k]
        xtx = [[sum(e[0][i][j] for e in rest) for j in range(len(rest[0][1]))] for i in range(len(rest[0][1]))]
        xty = [sum(e[1][i] for e in rest) for i in range(len(rest[0][1]))]
        before += sum(y * y for _, y in test)
        n += len(test)
        for lam in LAMBDAS:
            totals[lam] += _variance(test, _ridge(xtx, xty, lam)) * len(test)
    best = min(LAMBDAS, key=lambda lam: totals[lam])
    held_out = {"raw": before / n, "adjusted": totals[best] / n}
    d = len(equations[0][1])
    if held_out["adjusted"] >= held_out["raw"]:
        return [0.0] * d, best, held_out
    xtx = [[sum(e[0][i][j] for e in equations) for j in range(d)] for i in range(d)]
    xty = [sum(e[1][i] for e in equations) for i in range(d)]
    return _ridge(xtx, xty, best), best, held_out


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
            games = samples(rule_set, players, args.games)
            weights, lam, held_out = fit(games)
            entry = table.setdefault(rule_set, {}).setdefault(str(players), {})
            entry.pop("variance_in_sample", None)
            entry.update({
                "games": args.games, "ridge": lam,
                "variance_held_out": {k: round(v, 5) for k, v in held_out.items()},
                "weights": {name: round(w, 6) for name, w in zip(weight_names(), weights)},
            })
            print(f"{rule_set} {players} players: ridge {lam:g}, held-out variance "
                  f"{held_out['raw']:.4f} -> {held_out['adjusted']:.4f}", flush=True)
            args.out.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
