"""Benchmark: games a ladder needs to settle its top 10, by matchmaker; and its cost at scale.

**Synthetic ladders.** 50 submissions of known strength, spread evenly on the Elo scale (25 Elo
apart, best first), all present from the start. Each game's placements are drawn from the model
the ratings assume: Plackett–Luce, by adding Gumbel noise to the log-strengths and sorting (at two
seats this is Bradley–Terry). Three matchmakers choose the tables:

- ``uniform``: K distinct submissions at random;
- ``trueskill``: the kind Kaggle's simulation competitions use: openskill's Plackett–Luce ratings
  (μ, σ) updated after every game; the submission with the fewest games is seated with the
  opponents drawn by match quality, ``exp(-(μa - μb)² / (2(2β² + σa² + σb²)))``;
- ``ours``: tourney.ladder.matchmaking in its settle phase (top 10).

All three are judged by the same rule: after each batch (25 tables, or 1/40 of the games so far
when more) the maximum-likelihood fit of tourney.stats.mle is refitted, and the ladder is settled
when every pair of neighbours in the fitted top 10 is separated at 95%. ``order_errors`` counts,
at that moment, the neighbour pairs of the top 10 whose true order is the other way, per ladder
(the 95% level promises at most 9 × 2.5% = 0.225 per ladder for one look; the ladder looks
after every batch, which can only raise it). A ladder not settled by ``--cap`` games counts the
cap (its line says so).

**A ladder of real bots.** The built-in greedy and random bots and the example programs
(examples/bots/smart_bot.py, random_bot.py), as four versions of a real ladder (tourney.ladder
.service, a temporary database): ``settle --top 4`` with a budget; it prints the games played
and the pairs that stayed tied.

Last line::

    games_uniform=<int> games_trueskill=<int> games_ours=<int> settle_ratio=<uniform/ours> order_errors=<float>

(means per ladder over the ladders run: 2-player and 4-player tables).

``--scale``: 1,000 submissions and 10^6 stored two-player games. Prints
``tables_per_s=<float> refit_s=<float>``: the matchmaker's tables per second (a batch of 1,000
tables from the fit), and one incremental refit (1,000 new games, warm start from the last fit).

``--cluster``: the share of a table's time that the Dask cluster adds over the local pool,
with tables grouped (``CLUSTER_GROUP`` per Dask task, the ladder's default) and not (1 per
task), measured as in bench/scale.py: runs of N and 2N one-game tables of built-in bots on 2
local worker processes and on a 2-worker ``LocalCluster``, so that fixed start-up costs cancel.
Each time is the least of ``--repeat`` runs (2), the runs of the three arms interleaved round
after round; a comment line also gives the median over rounds of each round's share. On the
cluster the ladder plans one batch ahead, so its refits overlap the games; the local pool waits
for each refit, and the comment lines say how much of its time per table that is, and the share
against the local pool's time without it. CPU time a table (main process and workers) is
printed too: on a shared machine it moves less than the wall clock. So does the time a table
within one run (from its N/2-th game stored to its 3N/2-th, in the 2N runs): it leaves out the
start and the end and sees one run's load only.
Prints ``dispatch_share_grouped=<float> dispatch_share_single=<float>`` (aim: grouped below 0.10).

Usage: python bench/ladder.py [--ladders 2] [--cap 400000] [--no-real] | --scale | --cluster [--tables 256] [--repeat 2]
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from openskill.models import PlackettLuce  # noqa: E402

from tourney.ladder.matchmaking import Matchmaker, Pool  # noqa: E402
from tourney.stats.elo import Z95  # noqa: E402
from tourney.stats.mle import ELO_PER_UNIT, Fit, Games, fit  # noqa: E402

SUBMISSIONS = 50
TOP = 10
SPACING_ELO = 25.0


def strengths(n: int = SUBMISSIONS) -> np.ndarray:
    return -np.arange(n) * SPACING_ELO / ELO_PER_UNIT


def placements(rng: np.random.Generator, truth: np.ndarray, table: list[int]) -> list[tuple[int, float]]:
    keys = truth[table] + rng.gumbel(size=len(table))
    order = np.argsort(-keys)
    return [(table[int(s)], float(place)) for place, s in enumerate(order, 1)]


def settled(f: Fit, top: int = TOP) -> tuple[bool, list[int]]:
    order = [int(i) for i in np.argsort(-f.theta)[:top]]
    return all(f.separated(a, b, Z95) for a, b in zip(order, order[1:])), order


# -- the matchmakers ------------------------------------------------------------------------------


class Uniform:
    def __init__(self, n: int, k: int, seed: int):
        self.n, self.k, self.rng = n, k, random.Random(seed)

    def tables(self, count: int, f: Fit | None, games: np.ndarray) -> list[list[int]]:
        return [self.rng.sample(range(self.n), self.k) for _ in range(count)]

    def update(self, seats: list[tuple[int, float]]) -> None:
        pass


class TrueSkillStyle:
    def __init__(self, n: int, k: int, seed: int):
        self.n, self.k, self.rng = n, k, random.Random(seed)
        self.model = PlackettLuce()
        self.ratings = [self.model.rating() for _ in range(n)]
        self.beta = self.model.beta

    def tables(self, count: int, f: Fit | None, games: np.ndarray) -> list[list[int]]:
        out = []
        played = games.astype(float).copy()
        for _ in range(count):
            low = played.min()
            focus = self.rng.choice([i for i in range(self.n) if played[i] == low])
            mf, sf = self.ratings[focus].mu, self.ratings[focus].sigma
            weights = {i: math.exp(-(self.ratings[i].mu - mf) ** 2
                                   / (2 * (2 * self.beta**2 + sf**2 + self.ratings[i].sigma**2)))
                       for i in range(self.n) if i != focus}
            table = [focus]
            while len(table) < self.k:
                names = [i for i in weights if i not in table]
                table.append(self.rng.choices(names, [weights[i] for i in names])[0])
            for i in table:
                played[i] += 1
            out.append(table)
        return out

    def update(self, seats: list[tuple[int, float]]) -> None:
        teams = [[self.ratings[i]] for i, _ in seats]
        new = self.model.rate(teams, ranks=[p for _, p in seats])
        for (i, _), team in zip(seats, new):
            self.ratings[i] = team[0]


class Ours:
    def __init__(self, n: int, k: int, seed: int):
        self.n, self.k, self.rng = n, k, random.Random(seed)

    def tables(self, count: int, f: Fit | None, games: np.ndarray) -> list[list[int]]:
        theta = f.theta if f is not None else np.zeros(self.n)
        cov = f.cov if f is not None else np.eye(self.n) * 20.0
        pool = Pool(theta, cov, list(range(self.n)), [str(i) for i in range(self.n)], list(games), self.k,
                    top=TOP)
        return Matchmaker(pool, self.rng).tables(count)

    def update(self, seats: list[tuple[int, float]]) -> None:
        pass


METHODS = {"uniform": Uniform, "trueskill": TrueSkillStyle, "ours": Ours}


def simulate(method: str, k: int, seed: int, cap: int) -> dict:
    truth = strengths()
    n = len(truth)
    rng = np.random.default_rng(seed)
    maker = METHODS[method](n, k, seed)
    kept = Games(width=k)
    games = np.zeros(n, dtype=int)
    played = 0
    f: Fit | None = None
    while True:
        batch = max(25, played // 40)
        for table in maker.tables(batch, f, games):
            seats = placements(rng, truth, table)
            kept.add(seats)
            maker.update(seats)
            games[table] += 1
        played += batch
        f = fit(n, kept, start=f)
        done, order = settled(f)
        if done or played >= cap:
            errors = sum(truth[a] < truth[b] for a, b in zip(order, order[1:]))
            return {"games": played, "settled": done, "order_errors": int(errors)}


def real_ladder(games: int) -> str:
    from tourney.ladder import service
    from tourney.results import store

    with tempfile.TemporaryDirectory() as tmp:
        db = store.open_db(Path(tmp) / "ladder.db")
        service.new_ladder(db, "bench", "crazier-eights", 2, seed=1)
        service.submit(db, "bench", "house", builtin="greedy")
        service.submit(db, "bench", "rand", builtin="random")
        for author, bot in (("smart", "smart_bot.py"), ("script", "random_bot.py")):
            service.submit(db, "bench", author, [sys.executable, str(ROOT / "examples" / "bots" / bot)])
        start = time.perf_counter()
        done = service.settle(db, "bench", top=4, games=games, concurrency=2, rng=random.Random(1))
        seconds = time.perf_counter() - start
    tied = [f"{p['upper']}~{p['lower']}" for p in done["neighbours"] if not p["separated"]]
    return (f"real ladder (greedy, random, smart_bot.py, random_bot.py; settle --top 4, budget {games}): "
            f"games={done['games']} settled={done['settled']} tied={','.join(tied) or '-'} seconds={seconds:.1f}")


def scale() -> None:
    n, total, new = 1000, 1_000_000, 1000
    rng = np.random.default_rng(1)
    truth = np.sort(rng.normal(size=n))[::-1]

    def pairs(count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        a = rng.integers(0, n, size=count)
        b = np.clip(a + rng.integers(1, 20, size=count) * rng.choice([-1, 1], size=count), 0, n - 1)
        b = np.where(b == a, (a + 1) % n, b)
        p = 1 / (1 + np.exp(-(truth[a] - truth[b])))
        winner = np.where(rng.random(count) < p, a, b)
        return np.stack([np.minimum(a, b), np.maximum(a, b)], axis=1), winner, np.ones(count)

    kept = Games(width=2)
    kept.add_arrays(*pairs(total), games=total)
    first = fit(n, kept)
    kept.add_arrays(*pairs(new), games=new)
    start = time.perf_counter()
    again = fit(n, kept, start=first)
    refit_s = time.perf_counter() - start
    pool = Pool(again.theta, again.cov, list(range(n)), [str(i) for i in range(n)], [2000] * n, 2)
    maker = Matchmaker(pool, random.Random(1))
    start = time.perf_counter()
    count = len(maker.tables(1000))
    tables_per_s = count / (time.perf_counter() - start)
    print(f"# {n} submissions, {total + new} games; refit: {again.iterations} steps; "
          f"load {os.getloadavg()[0]:.1f}", flush=True)
    print(f"tables_per_s={tables_per_s:.1f} refit_s={refit_s:.3f}")


def _timed_run(tables: int, cluster: str | None, group: int, planning: list[float] | None = None,
               stored: list[float] | None = None) -> float:
    """Seconds to play ``tables`` tables; ``planning`` gets the seconds spent refitting and
    choosing tables (the main process's part of a batch), ``stored`` the moment each game was
    stored."""
    from tourney.ladder import service
    from tourney.results import store

    with tempfile.TemporaryDirectory() as tmp:
        db = store.open_db(Path(tmp) / "ladder.db")
        service.new_ladder(db, "c", "crazier-eights", 2, seed=1)
        for author, bot in (("a", "greedy"), ("b", "random"), ("c", "greedy"), ("d", "random")):
            service.submit(db, "c", author, builtin=bot)
        run = service.LadderRun(db, "c", concurrency=2, cluster=cluster, batch=128, cluster_group=group,
                                rng=random.Random(1),
                                on_game=None if stored is None else lambda *_: stored.append(time.perf_counter()))
        plan = run.next_tasks

        def timed(count: int, top: int | None = None):
            begun = time.perf_counter()
            try:
                return plan(count, top)
            finally:
                if planning is not None:
                    planning.append(time.perf_counter() - begun)

        run.next_tasks = timed  # type: ignore[method-assign]
        start = time.perf_counter()
        run.play(games=tables)
        return time.perf_counter() - start


def cluster_share(tables: int, repeat: int = 2) -> None:
    import dask
    import distributed

    from tourney.ladder.service import CLUSTER_GROUP

    with (dask.config.set({"distributed.scheduler.allowed-failures": 0}),
          distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                   dashboard_address=None) as c):
        address = c.scheduler_address
        _timed_run(32, address, CLUSTER_GROUP)  # the workers' first imports and bot starts: not dispatch
        _timed_run(32, None, 1)
        planning: list[float] = []  # each refit-and-choose of the local runs
        cpu: dict[int, list[tuple[float, float]]] = {}  # group (0: local) -> (main, workers) CPU s a table
        steady: dict[tuple, list[list[float]]] = {}  # arm -> when each game of each 2N run was stored
        spy = distributed.Client(address, set_as_default=False)

        def run_once(n: int, cluster: str | None, group: int) -> float:
            # CPU time, steadier than the wall clock on a shared machine: the main process (the
            # writer, the matchmaker, and here the cluster's scheduler) and the workers
            before = _cpu_seconds(spy, cluster)
            stored = steady.setdefault((cluster, group), []) if n == 2 * tables else None
            if stored is not None:
                stored.append([])
            seconds = _timed_run(n, cluster, group, planning if cluster is None else None,
                                 stored[-1] if stored is not None else None)
            after = _cpu_seconds(spy, cluster)
            cpu.setdefault(group if cluster else 0, []).append(
                ((after[0] - before[0]) / n, (after[1] - before[1]) / n))
            return seconds

        # the runs interleaved, round after round, so that each arm sees the same swings of load
        arms = [(None, 1), (address, CLUSTER_GROUP), (address, 1)]
        runs: dict[tuple, list[float]] = {}
        for _ in range(repeat):
            for cluster, group in arms:
                for n in (tables, 2 * tables):
                    runs.setdefault((cluster, group, n), []).append(run_once(n, cluster, group))

        def best(n: int, cluster: str | None, group: int) -> float:  # the least of a few: load spikes
            return min(runs[(cluster, group, n)])

        def in_run(group: int) -> tuple[float, float]:
            """Within each 2N run, the time a table from its N/2-th game stored to its 3N/2-th
            (the middle half: neither the start nor the end, and one run's load only); the median
            over rounds of the cluster's share, and the cluster's time a table."""
            def per_table(stamps: list[float]) -> float:
                return (stamps[3 * tables // 2] - stamps[tables // 2]) / tables

            lo = [per_table(st) for st in steady[(None, 1)]]
            hi = [per_table(st) for st in steady[(address, group)]]
            return float(np.median([(c - b) / b for b, c in zip(lo, hi)])), float(np.median(hi))

        def paired(group: int) -> float:
            """The median over rounds of the share, each round's arms measured side by side."""
            slope = {arm: [(b - a) / tables for a, b in zip(runs[(*arm, tables)], runs[(*arm, 2 * tables)])]
                     for arm in ((None, 1), (address, group))}
            return float(np.median([(c - lo) / lo for lo, c in zip(slope[(None, 1)], slope[(address, group)])]))

        local = [best(n, None, 1) for n in (tables, 2 * tables)]
        per_local = (local[1] - local[0]) / tables
        per_plan = float(np.median(planning)) / 128  # one refit-and-choose per batch of 128
        print(f"# local pool: {1000 * per_local:.2f} ms a table, of which {1000 * per_plan:.2f} ms refitting and "
              f"choosing tables while the workers wait; load {os.getloadavg()[0]:.1f}", flush=True)
        shares = {}
        for group in (CLUSTER_GROUP, 1):
            times = [best(n, address, group) for n in (tables, 2 * tables)]
            per_cluster = (times[1] - times[0]) / tables
            shares[group] = (per_cluster - per_local) / per_local
            games_only = per_local - per_plan  # what is left of a local table without the refit it waits for
            print(f"# group {group}: cluster {times[0]:.2f}s / {times[1]:.2f}s, local {local[0]:.2f}s / "
                  f"{local[1]:.2f}s for {tables} / {2 * tables} tables ({1000 * per_cluster:.2f} ms a table; "
                  f"over the local pool's time without its refits: {(per_cluster - games_only) / games_only:+.3f}; "
                  f"median of the {repeat} rounds' shares: {paired(group):+.3f}); load {os.getloadavg()[0]:.1f}",
                  flush=True)
            middle, per_middle = in_run(group)
            print(f"# group {group}, the middle half of each {2 * tables}-table run: cluster {1000 * per_middle:.2f} "
                  f"ms a table, share (median of the rounds) {middle:+.3f}", flush=True)
        spy.close()
    names = {0: "local pool", CLUSTER_GROUP: f"cluster, {CLUSTER_GROUP} a task", 1: "cluster, 1 a task"}
    for group, name in names.items():
        main_ms, workers_ms = (1000 * float(np.median([c[i] for c in cpu[group]])) for i in (0, 1))
        print(f"# CPU a table, {name}: {main_ms + workers_ms:.2f} ms (main process {main_ms:.2f}, "
              f"workers {workers_ms:.2f})", flush=True)
    print(f"dispatch_share_grouped={shares[CLUSTER_GROUP]:.3f} dispatch_share_single={shares[1]:.3f}")


def _cpu_seconds(spy, cluster: str | None) -> tuple[float, float]:
    """CPU seconds so far of this process and of the workers: the cluster's (asked), or the
    local pool's (its processes, once ended and reaped, count as this process's children)."""
    import resource

    own = os.times()
    if cluster is None:
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.user + own.system, children.ru_utime + children.ru_stime
    return own.user + own.system, sum(spy.run(_own_cpu_seconds).values())


def _own_cpu_seconds() -> float:
    times = os.times()
    return times.user + times.system


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ladders", type=int, default=2, help="Ladders per table size (seeds 1..N).")
    parser.add_argument("--cap", type=int, default=400_000, help="Give up on a ladder after this many games.")
    parser.add_argument("--real-games", type=int, default=120, help="Budget of the real ladder.")
    parser.add_argument("--no-real", action="store_true", help="Skip the ladder of real bots.")
    parser.add_argument("--scale", action="store_true", help="1,000 submissions and 10^6 games instead.")
    parser.add_argument("--cluster", action="store_true", help="The Dask cluster's share of a table's time.")
    parser.add_argument("--tables", type=int, default=256, help="Tables of the --cluster runs (N).")
    parser.add_argument("--repeat", type=int, default=2, help="Runs of each --cluster size; the least counts.")
    args = parser.parse_args()
    if args.scale:
        scale()
        return
    if args.cluster:
        cluster_share(args.tables, args.repeat)
        return
    print(f"# load {os.getloadavg()[0]:.1f}; {SUBMISSIONS} submissions {SPACING_ELO:g} Elo apart; "
          f"settle the top {TOP}", flush=True)
    totals: dict[str, list[dict]] = {m: [] for m in METHODS}
    for k in (2, 4):
        for seed in range(1, args.ladders + 1):
            parts = []
            for method in METHODS:
                start = time.perf_counter()
                r = simulate(method, k, seed, args.cap)
                totals[method].append(r)
                parts.append(f"{method}={r['games']}{'' if r['settled'] else '(cap, not settled)'}"
                             f" errors={r['order_errors']} ({time.perf_counter() - start:.0f}s)")
            print(f"tables of {k}, ladder {seed}: " + "  ".join(parts), flush=True)
    if not args.no_real:
        print(real_ladder(args.real_games), flush=True)
    mean = {m: sum(r["games"] for r in rs) / len(rs) for m, rs in totals.items()}
    errors = sum(r["order_errors"] for r in totals["ours"]) / len(totals["ours"])
    print(f"games_uniform={round(mean['uniform'])} games_trueskill={round(mean['trueskill'])} "
          f"games_ours={round(mean['ours'])} settle_ratio={mean['uniform'] / mean['ours']:.2f} "
          f"order_errors={errors:.2f}")


if __name__ == "__main__":
    main()
