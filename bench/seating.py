"""Balanced seating at tables of four: does the schedule still decide who sits after whom, does
a bot's line in the config still move its result, and do the collusion checks accuse honest bots?

    python bench/seating.py [--twins 60] [--games 5] [--honest 40] [--honest-games 200]
                            [--workers 2] [--seed 1] [--alpha 0.05]

Three measures, each on the code the events run (nothing here re-implements a schedule):

``rr_imbalance``
    The direction imbalance I = Σ|c(A,B) - c(B,A)| / Σc (c(A,B): games in which B sat directly
    after A; :func:`tourney.seating.balance`) of the round robin's schedule
    (:mod:`tourney.formats.round_robin`) for 5 and 6 entrants at tables of four over 2 rounds,
    one game a table, for seeds 1..10: the worst of them. The fixed order it replaced gave 1.00
    and 0.75.
``twins_diff_sd``
    ``--twins`` round robins of six at tables of four (one round, each table a league of
    ``--games`` games, seeds 1..N with public seeds), played in process by the event runner with
    built-in bots listed greedy-1, twin-a, twin-b, greedy-2, greedy-3, greedy-4. The twins are the
    same random bot; twin-a is listed right after a greedy bot, twin-b right after twin-a. Per
    event, the points of twin-a less those of twin-b (lower is better); the mean over events
    divided by its standard error. Under the fixed order twin-a ended about 21 points worse
    (``--fixed-order`` replays that order as a control).
``fairplay_false_alarm``
    The share of ``--honest`` honest events of bench/collusion.py (six entrants at balanced
    tables of four, ``--honest-games`` games each: greedy bots, a random bot and the honest
    aimers by seat, by series score and at random) in which ``tourney fairplay``'s analysis flags
    any pair at ``--alpha``.

Also printed, not in the last line: the Swiss at tables of four, seated by
:mod:`tourney.seating` against the ranking order it replaced (few pairs meet twice in a Swiss, so
per-pair balance cannot reach 0 there).

``--fixed-order`` plays the twins events in the order used before (tables in the listed order,
a league's seats kept): the control that shows what the measure sees when the order is fixed.

Games run in worker processes (``--workers``); the figures do not depend on their number. Last
line: ``rr_imbalance=<float> twins_diff_sd=<float> fairplay_false_alarm=<float>``.
"""

from __future__ import annotations

import argparse
import importlib.util
import multiprocessing
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tourney import seating  # noqa: E402
from tourney.config import parse_config  # noqa: E402
from tourney.events import runner  # noqa: E402
from tourney.events.schedule import schedule  # noqa: E402
from tourney.results import store  # noqa: E402
from tourney.results.fairplay import DEFAULT_ALPHA, analyse  # noqa: E402

TWINS = ["greedy-1", "twin-a", "twin-b", "greedy-2", "greedy-3", "greedy-4"]


def rr_config(n: int, seed: int, rounds: int = 2, games: int = 1, names: list[str] | None = None) -> dict:
    names = names or [f"e{i}" for i in range(n)]
    return {"event": {"name": f"rr{n}-{seed}", "format": "round-robin", "players": 4, "games": games,
                      "rounds": rounds, "seed": seed, "public_seeds": True},
            "entrants": [{"name": x, "builtin": "greedy" if x.startswith("greedy") else "random"}
                         for x in names]}


def rr_imbalance(seeds: range) -> tuple[float, list[str]]:
    """The worst imbalance of the round robin's schedules, and a line per size."""
    worst, lines = 0.0, []
    for n in (5, 6):
        found = []
        for seed in seeds:
            plan = schedule(parse_config(rr_config(n, seed), base_dir=str(ROOT)).event)
            found.append(seating.balance([s["entrants"] for s in plan]))
        imbalance = max(b["imbalance"] for b in found)
        worst = max(worst, imbalance)
        lines.append(f"round robin of {n} at tables of 4, 2 rounds, seeds {seeds.start}..{seeds.stop - 1}: "
                     f"worst I={imbalance:.3f}, worst max|c-c'|={max(b['max_difference'] for b in found)}, "
                     f"one-way pairs {max(b['one_way_pairs'] for b in found)}, "
                     f"worst seat spread {max(b['seat_spread'] for b in found)}")
    return worst, lines


def fixed_order() -> None:
    """Seat as before balanced seating (for ``--fixed-order``): the round robin's tables in the
    listed order, a league's seats kept game after game."""
    from tourney.events.series import SeriesState

    seating.plan = lambda tables, rng, sweeps=0: [list(t) for t in tables]  # type: ignore[assignment]
    SeriesState.varies = lambda self: False  # type: ignore[method-assign]


def swiss_imbalance(n: int, rounds_played: int, events: int = 20) -> tuple[float, float]:
    """The mean direction imbalance of Swiss events of ``n`` at tables of four (one game a table,
    random placements), seated by :mod:`tourney.seating` and, for comparison, in ranking order as
    before: (balanced, ranking order)."""
    import random

    from tourney.formats import rounds
    from tourney.formats.swiss import Swiss

    names = [f"e{i}" for i in range(n)]
    found: dict[str, list[float]] = {"balanced": [], "ranking": []}
    for seed in range(events):
        for how in found:
            rng = random.Random(seed)
            event = {"entrants": names, "players": 4, "seed": seed}
            history: list[rounds.Played] = []
            for r in range(rounds_played):
                tables = (Swiss()._round(event, history) if how == "balanced"
                          else rounds.swiss_tables(names, history, 4))
                for t in tables:
                    places = list(range(1, len(t) + 1))
                    rng.shuffle(places)
                    history.append(rounds.Played(r, t, rounds.placement_scores(places)))
            found[how].append(seating.balance([p.entrants for p in history])["imbalance"])
    return statistics.fmean(found["balanced"]), statistics.fmean(found["ranking"])


def twins_event(job: tuple[int, int, bool]) -> tuple[int, float, float]:
    """One twins event: (seed, twin-a's points less twin-b's, seat-balance I of its games)."""
    seed, games, fixed = job
    if fixed:
        fixed_order()
    cfg = parse_config(rr_config(6, seed, rounds=1, games=games, names=TWINS), base_dir=str(ROOT))
    db = store.open_db(":memory:")
    event_id, _ = runner.prepare_event(db, cfg, "bench")
    runner.Runner(db, event_id, runner.pending_tasks(db, event_id, cfg), 1).run()
    points = dict.fromkeys(TWINS, 0)
    for s in store.series_rows(db, event_id):
        for e in s["entrants"]:
            points[e["name"]] += e["points"] or 0
    from tourney.results.seat_balance import seat_balance

    return seed, points["twin-a"] - points["twin-b"], seat_balance(db, event_id)["imbalance"]


def _collusion_bench():
    spec = importlib.util.spec_from_file_location("bench_collusion", ROOT / "bench" / "collusion.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def honest_event(job: tuple[int, int, float]) -> tuple[int, list[list[str]]]:
    """One honest event of bench/collusion.py: (seed, the pairs flagged)."""
    seed, games, alpha = job
    bench = _collusion_bench()
    return seed, analyse(bench.play_event(games, seed, planted=False), alpha)["flagged"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--twins", type=int, default=60, help="twins events")
    parser.add_argument("--games", type=int, default=5, help="games of each table's league in a twins event")
    parser.add_argument("--honest", type=int, default=40, help="honest fair-play events")
    parser.add_argument("--honest-games", type=int, default=200, help="games per honest event")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1, help="first seed of the twins and honest events")
    parser.add_argument("--alpha", type=float, default=DEFAULT_ALPHA)
    parser.add_argument("--fixed-order", action="store_true", help=(
        "play the twins events in the order used before balanced seating (a control: the effect "
        "the benchmark should see when the order is fixed); the fair-play part is skipped"))
    args = parser.parse_args()
    start = time.perf_counter()

    imbalance, lines = rr_imbalance(range(1, 11))
    for line in lines:
        print(line, flush=True)
    for n, r in ((8, 3), (8, 7), (16, 4)):
        balanced, ranked = swiss_imbalance(n, r)
        print(f"swiss of {n} at tables of 4, {r} rounds, one game a table, 20 events: mean I={balanced:.3f} "
              f"(seated in ranking order as before: {ranked:.3f})", flush=True)

    twins_jobs = [(args.seed + i, args.games, args.fixed_order) for i in range(args.twins)]
    honest_jobs = [(10_000 * args.seed + i, args.honest_games, args.alpha)
                   for i in range(0 if args.fixed_order else args.honest)]
    with multiprocessing.Pool(args.workers) as pool:
        twins = pool.map(twins_event, twins_jobs, chunksize=1)
        honest = pool.map(honest_event, honest_jobs, chunksize=1)

    diffs = [d for _, d, _ in twins]
    mean = statistics.fmean(diffs)
    se = statistics.stdev(diffs) / len(diffs) ** 0.5 if len(diffs) > 1 else float("nan")
    diff_sd = mean / se if se else 0.0
    print(f"twins: {len(diffs)} events of {args.games}-game leagues at 6 tables of 4; twin-a (after greedy) "
          f"less twin-b: {mean:+.2f} ± {se:.2f} points (lower is better), twin-a ahead in "
          f"{sum(d < 0 for d in diffs)}, behind in {sum(d > 0 for d in diffs)}; the events' seat "
          f"imbalance {statistics.fmean(i for _, _, i in twins):.3f} on average", flush=True)
    flagged = [(seed, pairs) for seed, pairs in honest if pairs]
    for seed, pairs in flagged:
        print(f"honest event {seed}: flagged {pairs}")
    alarm = len(flagged) / len(honest) if honest else 0.0
    print(f"fair play: {len(flagged)} of {len(honest)} honest events ({args.honest_games} games each) flag a "
          f"pair at alpha {args.alpha:g}; {time.perf_counter() - start:.0f} s in all", flush=True)
    print(f"rr_imbalance={imbalance:.4f} twins_diff_sd={diff_sd:.3f} fairplay_false_alarm={alarm:.3f}")


if __name__ == "__main__":
    main()
