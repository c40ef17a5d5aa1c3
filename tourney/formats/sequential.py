"""The SPRT event: play a candidate against a baseline until the test can answer "is it better?".

An SPRT event (``format = "sprt"``) has two entrants: the candidate (first) and the baseline. It
plays in batches of :data:`BATCH` games (seats alternating), or with ``duplicate = true``
:data:`BATCH` mirror pairs; the last batch is cut so that the event plays up to ``max_games``.
After every finished batch the generalised SPRT of :mod:`tourney.stats.sprt` is updated from every
stored result, trinomial for games, pentanomial for pairs, in logistic Elo (docs/evaluation.md,
"SPRT"). The event ends when the log-likelihood ratio crosses a bound (H1 accepted: the candidate
is at least ``elo1`` better; H0 accepted: at most ``elo0``), or when ``max_games`` is reached
(inconclusive). The test is evaluated only between batches, from the results in schedule order, so
the verdict and the games played are the same at any concurrency and after a resume (fishtest's
lesson: results that arrive first must not decide).

With ``luck_adjusted = true`` (``tourney sprt --luck-adjusted``; the default only for a rule set
and player count where bench/luck.py showed it pays, tourney.luck.value.on_by_default) the test
runs on each game's (or pair's) luck-adjusted score of the candidate instead, computed from the
stored replays (tourney/luck): the GSPRT of :class:`tourney.stats.sprt.ScoreSprt`, a normal model
with the variance estimated from the data (docs/evaluation.md, "Luck-adjusted scores").

**Tables of K = 3..8** (``players = K``; entrants: the candidate, the baseline, then the K-1 of
the field). The unit is a *substitution set*: one deal played K times with the candidate (series
2u, its slot first) and K times with the baseline (series 2u+1) in the same place, the field in
the same seats behind it (a duplicate series rotates the slots round the seats: rotation r seats
the tested slot r seats back). Both series of a set share the series seed (so the first seat),
the deal seed and the bots' seeds (:func:`seed_index`). The test counts a set once both its
series are finished, by ``D``, the candidate's mean placement score over the rotations less the
baseline's (:class:`tourney.stats.sprt.Sprt`, unit ``set``; docs/evaluation.md, "Verdicts at
tables of many"). An interrupted set is completed on resume with the same seeds, and the test
counts only whole sets.
"""

from __future__ import annotations

from tourney import seeding
from tourney.luck.value import outcome
from tourney.results import luck, reads
from tourney.stats.sprt import ScoreSprt, Sprt

#: series per batch: fixed, so that where the test stops never depends on the number of workers
BATCH = 8

#: the SPRT settings of an event and their defaults (config keys, also ``tourney sprt`` options)
DEFAULTS = {"elo0": 0.0, "elo1": 5.0, "alpha": 0.05, "beta": 0.05, "max_games": 20000,
            "games_per_series": 1}

#: the choices of ``games_per_series``: a batch stays BATCH games (or pairs) in every case
SERIES_GAMES = (1, 2, 4, 8)


def settings(event: dict) -> dict:
    return {**DEFAULTS, **(event.get("sprt") or {})}


def players(event: dict) -> int:
    return int(event.get("players") or 2)


def at_table(event: dict) -> bool:
    """Whether the event tests at a table of more than two (substitution sets)."""
    return players(event) > 2


def unit_games(event: dict) -> int:
    """Games in one unit of the test: a game, a mirror pair, or a set's 2K games."""
    if at_table(event):
        return 2 * players(event)
    return 2 if event.get("duplicate") else 1


def seed_index(event: dict, idx: int) -> int:
    """The series whose seeds series ``idx`` plays with: its own, but at a table both series of a
    substitution set play with the first's (same deal, first seat and bot seeds)."""
    return idx - idx % 2 if at_table(event) else idx


def series_games(event: dict) -> int:
    """Single games per series: the bots are started once for them (each game still has its own
    seed and its own first player drawn). An event stored before the setting existed has 1;
    mirror pairs always 1 (each game of a pair has bots of its own)."""
    if event.get("duplicate"):
        return 1
    return int((event.get("sprt") or {}).get("games_per_series", 1))


def batch(event: dict, start: int, secret: str | None, games_left: int | None = None) -> list[dict]:
    """Schedule items of the batch whose first series is ``start``: BATCH games (or pairs) in
    BATCH // games_per_series series; the candidate sits in seat 0 in even series, the baseline
    in odd ones (a mirror pair rotates seats by itself). With ``games_left`` (what ``max_games``
    still allows) the last batch is cut to fit: fewer series, or a shorter last series; a pair
    is never cut, so with mirror pairs an odd limit leaves one game unplayed."""
    if at_table(event):
        return _table_batch(event, start, secret, games_left)
    a, b = event["entrants"]
    per = series_games(event)
    size = BATCH // per
    if event.get("duplicate"):
        pairs = size if games_left is None else min(size, games_left // 2)
        targets = [event["games"]] * pairs
    else:
        games = BATCH if games_left is None else min(BATCH, games_left)
        targets = [min(per, games - first) for first in range(0, games, per)]
    return [
        {"idx": idx, "round": start // size, "kind": event["unit"],
         "seed": seeding.series_seed(event["seed"], idx, secret),
         "games_target": target,
         "max_games": None, "entrants": [a, b] if idx % 2 == 0 or event.get("duplicate") else [b, a]}
        for idx, target in enumerate(targets, start)
    ]


def _table_batch(event: dict, start: int, secret: str | None, games_left: int | None) -> list[dict]:
    """BATCH substitution sets from series ``start`` (even): each set a series of the candidate
    and one of the baseline, both with the field behind them and the set's seed."""
    a, b, *field = event["entrants"]
    sets = BATCH if games_left is None else min(BATCH, games_left // unit_games(event))
    first = start // 2
    return [
        {"idx": 2 * u + half, "round": u // BATCH, "kind": event["unit"],
         "seed": seeding.series_seed(event["seed"], 2 * u, secret), "games_target": event["games"],
         "max_games": None, "entrants": [tested, *field]}
        for u in range(first, first + sets) for half, tested in enumerate((a, b))
    ]


def games_left(event: dict, test: Sprt | ScoreSprt) -> int:
    """Games ``max_games`` still allows after the test's units (0 once the test has answered, or
    when not even one more unit fits)."""
    per_unit = unit_games(event)
    left = settings(event)["max_games"] - test.units * per_unit
    return 0 if test.verdict is not None or left < per_unit else left


def batch_ahead(event: dict, rows: list[dict], secret: str | None) -> list[dict]:
    """The batch after the series of ``rows``, should the test not answer when they have
    finished: the items :func:`batch` gives then, with every scheduled game counted by the test
    (one less unit in the test, as when a luck-adjusted score is missing, gives other items: the
    runner then plays what the test schedules instead). [] when ``max_games`` leaves no batch."""
    per_unit = unit_games(event)
    if at_table(event):
        units = len(rows) // 2
    else:
        units = len(rows) if event.get("duplicate") else sum(r["games_target"] for r in rows)
    left = settings(event)["max_games"] - units * per_unit
    return batch(event, len(rows), secret, left) if left >= per_unit else []


def candidate_scores(db, event_id: int, event: dict) -> list[list[float]]:
    """The candidate's score in each game of each finished series, in schedule order (1 a win,
    ½ no winner, 0 a loss); one query, however long the test has run."""
    candidate = reads.entrant_id(db, event["entrants"][0])
    out: dict[int, list[float]] = {}
    for series_idx, had_winner, won in reads.entrant_game_results(db, event_id, candidate):
        out.setdefault(series_idx, []).append(1.0 if won else 0.0 if had_winner else 0.5)
    return list(out.values())


def luck_adjusted(event: dict, source: str | None = None) -> tuple[bool, str]:
    """Whether the event's test runs on luck-adjusted scores, and why (``source``: where the
    event came from, the ``events`` row's, for the why)."""
    return luck.enabled(event, players(event), source)


def candidate_games(db, event_id: int, event: dict) -> list[list[tuple[int, int]]]:
    """The candidate's (game id, seat) in each game of each finished series, in schedule order."""
    candidate = reads.entrant_id(db, event["entrants"][0])
    out: dict[int, list[tuple[int, int]]] = {}
    for series_idx, game_id, seat in reads.entrant_games(db, event_id, candidate):
        out.setdefault(series_idx, []).append((game_id, seat))
    return list(out.values())


def set_differences(db, event_id: int, event: dict, adjusted: bool = False) -> list[float]:
    """``D`` of every whole substitution set, in schedule order: the candidate's mean placement
    score over the K rotations less the baseline's in the same seats (``adjusted``: their
    luck-adjusted scores, a set missing one being left out)."""
    tested = {0: reads.entrant_id(db, event["entrants"][0]), 1: reads.entrant_id(db, event["entrants"][1])}
    games: dict[int, dict[int, dict]] = {}  # series idx -> game id -> {"seat", "placements"}
    for idx, gid, seat, entrant, placement in reads.finished_game_seats(db, event_id):
        game = games.setdefault(idx, {}).setdefault(gid, {"seat": None, "placements": []})
        game["placements"].append(placement)
        if entrant == tested[idx % 2]:
            game["seat"] = seat
    k = players(event)
    scores: dict[int, list[float]] = {}  # series idx -> the tested entrant's score per rotation
    if adjusted:
        found = luck.adjusted_by_game(db, [gid for by_id in games.values() for gid in by_id])
        for idx, by_id in games.items():
            scores[idx] = [found[gid][g["seat"]][1] for gid, g in by_id.items() if gid in found]
    else:
        for idx, by_id in games.items():
            scores[idx] = [outcome(g["placements"])[g["seat"]] for g in by_id.values()]
    out = []
    for u in sorted({idx // 2 for idx in scores}):
        a, b = scores.get(2 * u), scores.get(2 * u + 1)
        if a is not None and b is not None and len(a) == len(b) == k:
            out.append(round(sum(a) / k - sum(b) / k, 12))
    return out


def test_of(db, event_id: int, event: dict) -> Sprt | ScoreSprt:
    """The SPRT fed with every finished series of the event."""
    cfg = settings(event)
    if at_table(event):
        kind = ScoreSprt if luck_adjusted(event)[0] else Sprt
        table = kind(cfg["elo0"], cfg["elo1"], cfg["alpha"], cfg["beta"], unit="set", players=players(event))
        for d in set_differences(db, event_id, event, adjusted=isinstance(table, ScoreSprt)):
            table.add_set(d)
        return table
    unit = "pair" if event.get("duplicate") else "game"
    if luck_adjusted(event)[0]:
        series = candidate_games(db, event_id, event)
        adjusted = luck.adjusted_by_game(db, [gid for games in series for gid, _ in games])
        test = ScoreSprt(cfg["elo0"], cfg["elo1"], cfg["alpha"], cfg["beta"], unit=unit)
        for games in series:
            values = [adjusted[gid][seat][1] for gid, seat in games if gid in adjusted]
            if event.get("duplicate"):
                test.add(sum(values[:2]) / 2)
            else:
                for v in values:
                    test.add(v)
        return test
    sprt = Sprt(cfg["elo0"], cfg["elo1"], cfg["alpha"], cfg["beta"], unit=unit)
    for scores in candidate_scores(db, event_id, event):
        if event.get("duplicate"):
            sprt.add_pair(scores[0], scores[1])
        else:
            for score in scores:
                sprt.add_game(score)
    return sprt


def report(db, event_id: int, event: dict) -> dict:
    """The ``sprt`` part of the event summary: settings, LLR, bounds, counts, verdict and the Elo
    estimate so far (an estimate after a sequential test is biased; docs/evaluation.md)."""
    cfg = settings(event)
    sprt = test_of(db, event_id, event)
    finished = reads.event_status(db, event_id) == "finished"
    on, why = luck_adjusted(event, reads.event_row(db, event_id)["source"])
    verdict = {"H1": "H1 accepted", "H0": "H0 accepted"}.get(sprt.verdict or "")
    if verdict is None:
        verdict = "inconclusive" if finished else "running"
    lower, upper = sprt.bounds
    table = at_table(event)
    raw = "substitution" if table else "pentanomial" if event.get("duplicate") else "trinomial"
    return {"elo0": cfg["elo0"], "elo1": cfg["elo1"], "alpha": cfg["alpha"], "beta": cfg["beta"],
            "max_games": cfg["max_games"],
            "model": "luck-adjusted" if on else raw,
            "luck_adjusted": on, "luck_adjusted_why": why,
            "llr": round(sprt.llr, 4), "lower_bound": round(lower, 4), "upper_bound": round(upper, 4),
            "games": sprt.units * unit_games(event),
            "pairs": sprt.units if event.get("duplicate") and not table else None,
            "players": players(event), "field": list(event["entrants"][2:] if table else event["entrants"][1:]),
            "sets": sprt.units if table else None,
            "verdict": verdict, "estimate": sprt.estimate().to_dict(),
            "restart": restart_setting(db, event_id)}


def restart_setting(db, event_id: int) -> str:
    """The ``restart`` setting the test ran with (docs/protocol.md, "Warm bots"): the setting of
    the command entrants (``never`` by default), or each entrant's as ``name=setting`` when they
    differ. ``game`` is the strict one: fresh processes for every game."""
    specs = [s for s in reads.event_entrant_specs(db, event_id) if s.get("command")]
    found = {s["name"]: (s.get("limits") or {}).get("restart", "never") for s in specs}
    if len(set(found.values())) <= 1:
        return next(iter(found.values()), "never")
    return " ".join(f"{name}={value}" for name, value in found.items())


def line(r: dict) -> str:
    """One line for people: where the test stands."""
    est = r["estimate"]
    elo = "" if est["elo"] is None else f"; Elo {est['elo']:+.1f}" + (
        f" ± {est['elo_pm']:.1f}" if est["elo_pm"] is not None else "")
    units = f"{r['games']} games" + (f" ({r['pairs']} pairs)" if r["pairs"] is not None else "")
    if r.get("sets") is not None:
        units += f" ({r['sets']} deal sets at tables of {r['players']})"
    if est["score"] is not None:
        units += f", score {est['score']:.3f}"
    restart = f"; restart {r['restart']}" if "restart" in r else ""
    if r.get("sets") is not None:
        elo = elo.replace("; Elo", "; field Elo")
    return (f"sprt [{r['elo0']:g}, {r['elo1']:g}] {r['model']}: {r['verdict']}; LLR {r['llr']:.2f} "
            f"(bounds {r['lower_bound']:.2f}, {r['upper_bound']:.2f}); {units}{elo}{restart}")
