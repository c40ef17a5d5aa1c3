"""Benchmark: the web view's event page and game page on large events.

Fills a database with a synthetic event of 10,000 and then of 100,000 games through the store
API (``store.create_event`` and ``store.record_game``, as ``tourney run`` writes them). The games
are real: a few dozen games of Crazier Eights between the engine's greedy and random bots are
played once and stored over and over, so every stored replay replays. Then ``tourney serve``
runs on the file and the pages are fetched over HTTP from 127.0.0.1:

* the event page: standings with ratings, the cross-table, the first page of series. The first
  request computes the standings (``cold``); later ones reuse them until a game is stored
  (``warm``: the median of 5, what a reader and the live page's refreshes get). Then one more
  game is stored and the page asked again: it is drawn from the previous standings while the
  new ones are computed in the background (``just after a new game``);
* a game page: the whole replay, step by step, computed on every request (median of 5).

Prints one line per size; the last line is for the larger size::

    event_page_ms=<warm median> game_page_ms=<median> games=<int>

Usage: python bench/serve.py [--sizes 10000,100000] [--keep DIR]

With ``--ladder`` it measures a ladder's page instead (docs/ladder.md, "The ladder's page"): a
ladder of 24 versions with 10^3, 10^5 and 10^6 stored games (rows written directly, as the
runner stores them: series, games, seats, compressed replays of real games, the kept totals,
stage sums folded by the ladder's own code and fits saved as the runner saves them, with the
last 50 games not yet folded, as between two batches), then ``tourney serve`` on each file and
this script's own client asks for the page and its JSON in turn (a warm-up, then 100 of each).
Before them it asks for the ladder's event page (``/event/ID``): once with its standings computed
on the spot, then five times more (printed on each size's line, not in the last). The last line::

    ladder_p99_ms_1e3=<float> ladder_p99_ms_1e5=<float> ladder_p99_ms_1e6=<float>

``--ladder-sizes`` and ``--requests`` change the sizes and the number of requests.
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import engine  # noqa: E402
from engine.bots import make_bot  # noqa: E402
from tourney.ladder import service as ladders  # noqa: E402
from tourney.ladder.ratings import Ratings  # noqa: E402
from tourney.results import ladder as ladder_rows  # noqa: E402
from tourney.results import ratings as kept_ratings  # noqa: E402
from tourney.results import store  # noqa: E402

ENTRANTS = 8
GAMES_PER_SERIES = 10
SAMPLE_GAMES = 40


def sample_games(n: int) -> list[dict]:
    """``n`` real two-player games (greedy against random, first player alternating): seed,
    first player, choices and result."""
    out = []
    for seed in range(n):
        first = seed % 2
        game = engine.new_game("crazier-eights", players=2, seed=seed, first_player=first)
        bots = [make_bot("greedy", seed), make_bot("random", seed)]
        while (d := game.pending) is not None:
            seat = d.player
            game.apply(bots[seat].choose(d, lambda g=game, s=seat: g.view(s)))
        r = game.result
        out.append({"seed": seed, "first_player": first, "choices": list(game.choices), "winners": r.winners,
                    "reason": r.reason, "points": r.points, "placements": r.placements})
    return out


def payload(g: dict, idx: int, entrant_ids: list[int]) -> dict:
    """A sample game as ``store.record_game`` takes it, seated as ``entrant_ids``."""
    first = g["first_player"]
    return {
        "idx": idx, "rule_set": "crazier-eights", "options": {}, "seed": g["seed"], "players": 2,
        "first_player": first, "turn_order": [first, 1 - first], "teams": None,
        "winners": g["winners"], "reason": g["reason"], "detail": "", "decisions": len(g["choices"]),
        "seconds": 0.0, "choices": g["choices"], "log": [], "stderr": {}, "faults": {},
        "seats": [{"seat": seat, "entrant_id": entrant_ids[seat], "points": g["points"][seat],
                   "placement": g["placements"][seat], "eliminated": 0, "fault": None}
                  for seat in range(2)],
    }


def fill(path: Path, games: int, samples: list[dict]) -> None:
    db = store.open_db(path)
    names = [f"bot-{i}" for i in range(ENTRANTS)]
    pairs = [(a, b) for a in names for b in names if a < b]
    n_series = games // GAMES_PER_SERIES
    schedule = [{"idx": i, "round": i // len(pairs), "kind": "league", "seed": i, "games_target": GAMES_PER_SERIES,
                 "entrants": list(pairs[i % len(pairs)])} for i in range(n_series)]
    event = {"name": f"bench-{games}", "format": "league", "rule_set": "crazier-eights", "seed": 1, "players": 2,
             "games": GAMES_PER_SERIES}
    event_id = store.create_event(db, event, [{"name": n, "builtin": "random"} for n in names], schedule,
                                  {"bench": games}, "bench")
    ids = {r["name"]: r["id"] for r in db["entrants"].rows}
    rng = random.Random(games)
    with db.conn:  # one transaction around all of them: record_game's own become savepoints
        for s in store.series_rows(db, event_id):
            table = [e["name"] for e in s["entrants"]]
            for idx in range(GAMES_PER_SERIES):
                g = samples[rng.randrange(len(samples))]
                store.record_game(db, event_id, s["id"], payload(g, idx, [ids[n] for n in table]))
    store.finish_event(db, event_id)
    db.conn.close()


def fetch_ms(url: str) -> float:
    start = time.perf_counter()
    with urllib.request.urlopen(url) as r:
        r.read()
        assert r.status == 200, url
    return (time.perf_counter() - start) * 1000


def store_one_more(path: Path, sample: dict) -> None:
    """One more game in a new series of the event, as a running ``tourney run`` would store it."""
    db = store.open_db(path)
    event_id = 1
    ids = [r["id"] for r in db.query("select id from entrants order by id limit 2")]
    idx = db.execute("select max(idx) + 1 from series where event_id = ?", [event_id]).fetchone()[0]
    with db.conn:
        series_id = db.table("series").insert({"event_id": event_id, "idx": idx, "round": 0, "kind": "league",
                                               "seed": idx, "games_target": 1, "status": "pending",
                                               "games_played": 0}).last_pk
        db.table("series_entrants").insert_all({"series_id": series_id, "entrant_id": e, "seat": seat, "wins": 0,
                                                "points": 0} for seat, e in enumerate(ids))
    store.record_game(db, event_id, int(series_id), payload(sample, 0, ids))  # type: ignore[arg-type]
    db.conn.close()


@contextmanager
def serving(path: Path) -> Iterator[str]:
    """``tourney serve`` on ``path`` for the block: its base URL."""
    proc = subprocess.Popen([sys.executable, "-m", "tourney", "serve", "--db", str(path), "--port", "0"],
                            stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        match = re.search(r"http://127\.0\.0\.1:\d+", proc.stderr.readline())
        assert match, "tourney serve did not start"
        yield match[0]
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def measure(path: Path, sample: dict) -> tuple[float, float, float, float]:
    with serving(path) as base:
        db = store.open_db(path, readonly=True)
        game_id = db.execute("select max(id) from games").fetchone()[0]
        fetch_ms(base + "/static/web.css")  # the server is up and warm
        cold = fetch_ms(base + "/event/1")
        warm = statistics.median(fetch_ms(base + "/event/1") for _ in range(5))
        game = statistics.median(fetch_ms(f"{base}/game/{game_id}") for _ in range(5))
        store_one_more(path, sample)
        live = fetch_ms(base + "/event/1")  # drawn from the previous standings while new ones are computed
        return cold, warm, game, live


VERSIONS = 24
UNFOLDED = 50
STAMP = "2026-11-29T00:00:00"


def fill_ladder(path: Path, games: int, samples: list[dict]) -> tuple[int, int]:
    """A ladder of :data:`VERSIONS` versions and ``games`` stored games, written as rows; returns its
    id and its event's."""
    db = store.open_db(path)
    ladder = ladders.new_ladder(db, "bench", "crazier-eights", 2, seed=1)
    for k in range(VERSIONS):
        v = ladder_rows.add_version(db, ladder, f"a{k}", {"builtin": "random"})
        ladder_rows.set_version_status(db, v["id"], "active")
    ids = [v["entrant_id"] for v in ladder_rows.versions(db, ladder["id"])]
    strength = {e: k / VERSIONS for k, e in enumerate(ids)}  # later versions win more often
    event_id = ladder["event_id"]
    options_id = store._option_set_id(db.conn, store._canonical({}))
    packed = [store.pack_choices(g["choices"]) for g in samples]
    rng = random.Random(games)
    conn = db.conn

    def write(lo: int, hi: int) -> None:
        series, seated, game_rows, seat_rows, replays = [], [], [], [], []
        for n in range(lo, hi):
            sid = gid = n + 1
            a, b = rng.sample(ids, 2)
            first_wins = rng.random() < 0.5 + 0.4 * (strength[a] - strength[b])
            k = rng.randrange(len(samples))
            g = samples[k]
            first = g["first_player"]
            won = 0 if g["winners"] == [0] else 1  # the seat that won the sample game
            table = [a, b] if (won == 0) == first_wins else [b, a]
            series.append((sid, event_id, n, 0, "league", n, 1, "finished", "win", table[won], 1, STAMP))
            for seat in range(2):
                seated.append((sid, table[seat], seat, int(seat == won), g["points"][seat], g["placements"][seat]))
                seat_rows.append((gid, seat, table[seat], int(seat == first), int(seat == won), g["points"][seat],
                                  g["placements"][seat], 0, None))
            game_rows.append((gid, event_id, sid, 0, 0, "crazier-eights", g["seed"], 2, first,
                              f"[{first},{1 - first}]", store.dumps(g["winners"]), g["reason"], "",
                              len(g["choices"]), 0.0, STAMP))
            replays.append((gid, "crazier-eights", 2, g["seed"], options_id, first, None, packed[k], "[]"))
        with conn:
            conn.executemany("insert into series (id, event_id, idx, round, kind, seed, games_target, status, "
                             "outcome, winner_id, games_played, finished_at) values (?,?,?,?,?,?,?,?,?,?,?,?)", series)
            conn.executemany("insert into series_entrants (series_id, entrant_id, seat, wins, points, placement) "
                             "values (?,?,?,?,?,?)", seated)
            conn.executemany("insert into games (id, event_id, series_id, idx, leg, rule_set, seed, players, "
                             "first_player, turn_order, winners, reason, detail, decisions, seconds, finished_at) "
                             "values (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", game_rows)
            conn.executemany("insert into seats (game_id, seat, entrant_id, first, winner, points, placement, "
                             "eliminated, fault) values (?,?,?,?,?,?,?,?,?)", seat_rows)
            conn.executemany("insert into replays (game_id, rule_set, players, seed, options_id, first_player, "
                             "teams, choices_z, forfeits) values (?,?,?,?,?,?,?,?,?)", replays)

    # the stage sums as the runner keeps them: every game folded but the last few, as between two batches
    last = max(0, games - UNFOLDED)
    for lo in range(0, last, 50_000):
        write(lo, min(last, lo + 50_000))
    ladder_rows.fold_stages(db, ladder["id"])
    write(last, games)
    with conn:
        conn.execute("insert into entrant_totals (event_id, entrant_id, games, wins, draws, losses, points, faults, "
                     "series_played, series_won, series_drawn, series_lost) "
                     "select ?1, entrant_id, count(*), sum(winner), 0, count(*) - sum(winner), sum(points), 0, "
                     "count(*), sum(winner), 0, count(*) - sum(winner) from seats group by entrant_id", [event_id])
        # the head-to-head tallies the writer keeps with each game (a table of two is one series)
        conn.execute("insert into pair_tallies (event_id, entrant_id, opponent_id, wins, draws, losses, "
                     "pair0, pair1, pair2, pair3, pair4) "
                     "select ?1, a.entrant_id, b.entrant_id, sum(a.winner), 0, sum(b.winner), 0, 0, 0, 0, 0 "
                     "from seats a join seats b on b.game_id = a.game_id and b.seat != a.seat "
                     "group by a.entrant_id, b.entrant_id", [event_id])
        conn.execute("insert into field_tallies (event_id, entrant_id, share, games) "
                     "select ?1, entrant_id, 1.0 * winner, count(*) from seats group by entrant_id, winner",
                     [event_id])
        mark = games // kept_ratings.CHECKPOINT * kept_ratings.CHECKPOINT
        if mark:  # the writer's last progress checkpoint (game number k has id k here)
            kept_ratings.save_checkpoint(conn, event_id, mark, mark, {}, {})
    # the fits the runner keeps (one each time the games grew by 5%, at least 20)
    ratings = Ratings(db, ladders.get(db, "bench"))
    ratings.refit()
    assert ratings.fit is not None
    saved = {e: [round(float(ratings.fit.theta[i]), 6), round(ratings.fit.se(i), 6)] for e, i in ratings.index.items()}
    at = 0
    while at < games:
        at += max(20, at // 20)
        ladder_rows.save_fit(db, ladder["id"], min(at, games), saved)
    db.conn.close()
    return ladder["id"], event_id


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


def measure_ladder(path: Path, ladder_id: int, event_id: int,
                   requests: int) -> tuple[float, float, float, float, float]:
    """(p99 of every request, median of the page, median of its JSON, the ladder's event page
    asked first (its standings computed on the spot), the median of later asks) in ms."""
    with serving(path) as base:
        page, twin = f"{base}/ladder/{ladder_id}", f"{base}/ladder/{ladder_id}.json"
        event = f"{base}/event/{event_id}"
        event_first = fetch_ms(event)
        event_later = statistics.median(fetch_ms(event) for _ in range(5))
        for _ in range(3):
            fetch_ms(page)
            fetch_ms(twin)
        html, data = [], []
        for _ in range(requests):
            html.append(fetch_ms(page))
            data.append(fetch_ms(twin))
        return p99(html + data), statistics.median(html), statistics.median(data), event_first, event_later


def ladder_main(args) -> None:
    samples = sample_games(SAMPLE_GAMES)
    folder = Path(args.keep or tempfile.mkdtemp(prefix="tourney-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    figures = []
    for size in (int(s) for s in args.ladder_sizes.split(",")):
        path = folder / f"ladder-{size}.db"
        for leftover in folder.glob(f"ladder-{size}.db*"):
            leftover.unlink()
        start = time.perf_counter()
        ladder_id, event_id = fill_ladder(path, size, samples)
        filled = time.perf_counter() - start
        worst, html, data, event_first, event_later = measure_ladder(path, ladder_id, event_id, args.requests)
        print(f"games={size}: filled in {filled:.0f} s ({path.stat().st_size / size:.0f} bytes a game); "
              f"ladder page median {html:.1f} ms, JSON median {data:.1f} ms, p99 of both {worst:.1f} ms; "
              f"its event page {event_first:.1f} ms computed, {event_later:.1f} ms after", file=sys.stderr)
        figures.append(f"ladder_p99_ms_{_exponent(size)}={worst:.1f}")
    print(" ".join(figures))


def _exponent(size: int) -> str:
    exp = len(str(size)) - 1
    return f"1e{exp}" if size == 10 ** exp else str(size)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10000,100000", help="Games per synthetic event, comma-separated.")
    ap.add_argument("--keep", help="Keep the databases in this folder.")
    ap.add_argument("--ladder", action="store_true", help="Measure a ladder's page instead (see above).")
    ap.add_argument("--ladder-sizes", default="1000,100000,1000000", help="Games per ladder, comma-separated.")
    ap.add_argument("--requests", type=int, default=100, help="Requests of the page and of its JSON, each.")
    args = ap.parse_args()
    if args.ladder:
        ladder_main(args)
        return
    samples = sample_games(SAMPLE_GAMES)
    folder = Path(args.keep or tempfile.mkdtemp(prefix="tourney-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    line = ""
    for size in (int(s) for s in args.sizes.split(",")):
        path = folder / f"serve-{size}.db"
        path.unlink(missing_ok=True)
        start = time.perf_counter()
        fill(path, size, samples)
        filled = time.perf_counter() - start
        cold, warm, game, live = measure(path, samples[0])
        print(f"games={size}: filled in {filled:.0f} s; event page {cold:.0f} ms cold (standings computed), "
              f"{warm:.1f} ms warm, {live:.1f} ms just after a new game; game page {game:.1f} ms", file=sys.stderr)
        line = f"event_page_ms={warm:.1f} game_page_ms={game:.1f} games={size}"
    print(line)


if __name__ == "__main__":
    main()
