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
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import engine  # noqa: E402
from engine.bots import make_bot  # noqa: E402
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


def measure(path: Path, sample: dict) -> tuple[float, float, float, float]:
    proc = subprocess.Popen([sys.executable, "-m", "tourney", "serve", "--db", str(path), "--port", "0"],
                            stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        match = re.search(r"http://127\.0\.0\.1:\d+", proc.stderr.readline())
        assert match, "tourney serve did not start"
        base = match[0]
        db = store.open_db(path, readonly=True)
        game_id = db.execute("select max(id) from games").fetchone()[0]
        fetch_ms(base + "/static/web.css")  # the server is up and warm
        cold = fetch_ms(base + "/event/1")
        warm = statistics.median(fetch_ms(base + "/event/1") for _ in range(5))
        game = statistics.median(fetch_ms(f"{base}/game/{game_id}") for _ in range(5))
        store_one_more(path, sample)
        live = fetch_ms(base + "/event/1")  # drawn from the previous standings while new ones are computed
        return cold, warm, game, live
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10000,100000", help="Games per synthetic event, comma-separated.")
    ap.add_argument("--keep", help="Keep the databases in this folder.")
    args = ap.parse_args()
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
