"""Standings of bot events, computed from the database only.

The definition lives in SQL views (built with the schema, :mod:`tourney.results.schema`), so
``tourney standings``, ``tourney report`` and datasette all read the same numbers:

``seat_outcomes``     one row per seat of a finished game: event, entrant, ``outcome`` (``win``,
                      ``draw``: no winner and shared first place, rulings.md item 14; else ``loss``),
                      points, fault
``series_outcomes``   one row per entrant per finished series: ``won``/``drawn``/``lost``
``entrant_faults``    faults by reason code, per event and entrant
``event_standings``   per event and entrant: games, wins, draws, losses, points, average, faults,
                      series played/won/drawn/lost, the ranking mode and ``rank``

Ranking (tie-breaks, in order; entrants equal on all of them share a rank):

* ``points`` (events of league series): total points (lower first), wins (more first), average
  points per game (lower first).
* ``series`` (events of best-of-N matches): series won, series drawn, legs won, games won, games
  drawn (more first), then points (lower first). Legs won equal games won unless a match's legs
  are runs of deals (docs/formats.md, "Legs").
* ``games`` (events of single games): wins, draws (more first), points (lower first), faults
  (fewer first).

* ``share`` (a gauntlet): share of series won, share of games won (a draw half; more first),
  then average points per game (lower first), faults (fewer first): its candidates play every
  pool member and each pool member only the candidates, so counts cannot rank them together.

Beside the official rank each row has the rating every event has (``fit``: the ladder's
maximum-likelihood fit, :mod:`tourney.results.rating_fit`) and its ``rank_range``. The online
rating the writer keeps game by game (:mod:`tourney.results.ratings`) is still given as the
deprecated ``rating``, as is ``elo`` against the field. docs/standings.md documents all of it
and the JSON shape.
"""

from __future__ import annotations

import json
from collections import Counter

from sqlite_utils import Database

from tourney.errors import UserError
from tourney.results import ladder as ladder_rows
from tourney.results import ratings as _ratings
from tourney.results import seat_balance as _seat_balance
from tourney.results import store
from tourney.results.comparisons import event_comparisons
from tourney.results.luck import standings_luck
from tourney.results.rating_fit import add_counted, event_rating, rate
from tourney.stats.elo import Z95
from tourney.stats.mle import ELO_PER_UNIT, Games

TIE_BREAKS = {
    "points": ["total points (lower first)", "wins (more first)", "average points per game (lower first)"],
    "series": ["series won (more first)", "series drawn (more first)", "legs won (more first)",
               "games won (more first)", "games drawn (more first)", "points (lower first)"],
    "games": ["wins (more first)", "draws (more first)", "points (lower first)", "faults (fewer first)"],
    "share": ["share of series won, a drawn series half (more first)",
              "share of games won, a drawn game half (more first)", "average points per game (lower first)",
              "faults (fewer first)"],
}

#: version of the JSON shape of ``tourney standings --json`` and ``tourney report --format json``
JSON_VERSION = 2


class StandingsError(UserError):
    """A user mistake (unknown event); the message is one clear line."""


def find_event(db: Database, name: str | None) -> dict:
    """The event named ``name``; when ``name`` is None, the latest event run from a config
    (``tourney run``) or tested by ``tourney sprt``: the throwaway events of ``tourney play`` and
    ``match`` are shown only by name."""
    if name is None:
        rows = list(db.query("SELECT * FROM events WHERE source != ? OR format = 'sprt' "
                             "ORDER BY id DESC LIMIT 1", [store.COMMAND_LINE]))
        if not rows:
            raise StandingsError("no event run from a config or by tourney sprt yet (tourney run "
                                 "CONFIG runs one; tourney events lists every event by name)")
        return rows[0]
    rows = list(db["events"].rows_where("name = ?", [name]))
    if not rows:
        known = [r["name"] for r in db.query("SELECT name FROM events ORDER BY id")]
        hint = f" (events: {', '.join(known)})" if known else ""
        raise StandingsError(f"no event named {name!r}{hint}")
    return rows[0]


def event_standings(db: Database, event: dict, reference: str | None = None) -> dict:
    """The standings of one event: the ``event_standings`` view's rows plus faults by reason,
    ratings, Elo with its 95% interval against ``reference`` (an entrant's name, or the field),
    rank ranges and every pair's head-to-head record (:mod:`tourney.results.comparisons`).
    Shape documented in docs/standings.md."""
    rows = list(db.query("SELECT * FROM event_standings WHERE event_id = ? ORDER BY rank, position",
                         [event["id"]]))
    faults: dict[int, dict[str, int]] = {}
    forfeits: dict[int, int] = {}  # games lost to a fault; a fault after the game was decided is none
    for f in db.query("SELECT entrant_id, fault, count, forfeits FROM fault_tallies WHERE event_id = ? "
                      "ORDER BY fault", [event["id"]]):  # kept by the writer: the entrant_faults view summed
        faults.setdefault(f["entrant_id"], {})[f["fault"]] = f["count"]
        forfeits[f["entrant_id"]] = forfeits.get(f["entrant_id"], 0) + f["forfeits"]
    rated = _ratings.kept_ratings(db, event["id"])
    rranks = _ratings.rating_ranks(rated)
    names = [r["entrant"] for r in rows]
    fitted = event_rating(db, event, names, {r["entrant"]: r["rank"] for r in rows}, reference)
    compared = event_comparisons(db, event["id"], names, reference)
    games_played = _ratings.games_stored(db.conn, event["id"])  # from a checkpoint: not every game
    ranking = rows[0]["ranking"] if rows else "games"
    luck = standings_luck(db, event)  # tourney/luck: adjusted score and Elo, where switched on
    out = []
    for r in rows:
        rating = rated.get(r["entrant"])
        out.append({
            "rank": r["rank"],
            "entrant": r["entrant"],
            "games": r["games"],
            "wins": r["wins"],
            "draws": r["draws"],
            "losses": r["losses"],
            "points": r["points"],
            "average": r["average"],
            "faults": faults.get(r["entrant_id"], {}),
            "fault_count": r["faults"],
            "forfeits": forfeits.get(r["entrant_id"], 0),
            "series": {"played": r["series_played"], "won": r["series_won"], "drawn": r["series_drawn"],
                       "lost": r["series_lost"], "legs_won": r["legs_won"]},
            "series_score": r["series_score"],
            "game_score": r["game_score"],
            "rating": ({**rating.to_dict(), "rank": rranks[r["entrant"]]} if rating else
                       {"mu": _ratings.MU, "sigma": round(_ratings.SIGMA, 4),
                        "ordinal": round(_ratings.MU - 3 * _ratings.SIGMA, 4), "games": 0, "rank": None}),
            "fit": fitted["rows"][r["entrant"]],
            "rank_range": fitted["rank_range"][r["entrant"]],
            "elo": compared["elo"][r["entrant"]],
            "luck_adjusted": luck["entrants"].get(r["entrant"], {}).get("adjusted"),
        })
    add_columns(db, event, out)
    return {
        "version": JSON_VERSION,
        "kind": "event",
        "event": event["name"],
        "format": event["format"],
        "rule_set": event["rule_set"],
        "status": event["status"],
        "ranking": ranking,
        "tie_breaks": TIE_BREAKS[ranking],
        "lower_points_better": True,
        "games_played": games_played,
        "rating_model": {**fitted["model"], "reference": fitted["reference"]},
        "elo_reference": compared["reference"],
        "standings": out,
        "pairwise": compared["pairwise"],
        "luck": {k: luck[k] for k in ("on", "why", "model")},
        # who sat directly after whom (tourney.seating): one block, apart from the rating columns
        "seat_balance": _seat_balance.seat_balance(db, event["id"]),
    }


def add_columns(db: Database, event: dict, rows: list[dict]) -> None:
    """The place for further per-entrant columns of the standings (luck-adjusted scores, ...):
    each adds its keys to ``rows`` here, so that every reader (pages, JSON twins, ``standings
    --json``, ``run --json``, every report) shows them. Nothing is added yet."""


def head_to_head(data: dict) -> dict:
    """The head-to-head matrix of :func:`event_standings`'s ``pairwise`` records, from each row
    entrant's side: ``{"entrants": [...], "cells": {a: {b: {"wins", "draws", "losses", "games",
    "score", "elo", "elo_low", "elo_high", "elo_pm", "los", "model"}}}}``. A pair that never met
    has no cell.

    >>> m = head_to_head({"standings": [{"entrant": "A"}, {"entrant": "B"}], "pairwise": [
    ...     {"first": "A", "second": "B", "wins": 3, "draws": 1, "losses": 0, "score": 0.875,
    ...      "elo": 338.0, "elo_low": 100.0, "elo_high": None, "elo_pm": None, "los": 0.99,
    ...      "model": "trinomial"}]})
    >>> m["cells"]["B"]["A"]["wins"], m["cells"]["B"]["A"]["score"], m["cells"]["B"]["A"]["elo_high"]
    (0, 0.125, -100.0)
    """
    order = [r["entrant"] for r in data["standings"]]
    cells: dict[str, dict[str, dict]] = {name: {} for name in order}

    def neg(v):
        return None if v is None else round(-v, 4) + 0.0

    for p in data.get("pairwise", []):
        a, b = p["first"], p["second"]
        games = p["wins"] + p["draws"] + p["losses"]
        cells.setdefault(a, {})[b] = {
            "wins": p["wins"], "draws": p["draws"], "losses": p["losses"], "games": games,
            "score": p.get("score"), "elo": p.get("elo"), "elo_low": p.get("elo_low"),
            "elo_high": p.get("elo_high"), "elo_pm": p.get("elo_pm"), "los": p.get("los"),
            "model": p.get("model")}
        cells.setdefault(b, {})[a] = {
            "wins": p["losses"], "draws": p["draws"], "losses": p["wins"], "games": games,
            "score": None if p.get("score") is None else round(1 - p["score"], 4),
            "elo": neg(p.get("elo")), "elo_low": neg(p.get("elo_high")), "elo_high": neg(p.get("elo_low")),
            "elo_pm": p.get("elo_pm"), "los": None if p.get("los") is None else round(1 - p["los"], 4),
            "model": p.get("model")}
    return {"entrants": order, "cells": cells}


#: the most checkpoints of a chart of ratings over time
MAX_CHECKPOINTS = 60


def checkpoints(rounds: list[int], limit: int = MAX_CHECKPOINTS) -> list[int]:
    """Game numbers (1-based, in schedule order) after which to draw a chart of ratings over
    time: the last game of each round (or batch) when the games' ``rounds`` run over more than
    one, else evenly spaced; at most ``limit``, the last game always included.

    >>> checkpoints([0, 0, 1, 1, 2])
    [2, 4, 5]
    >>> checkpoints([0] * 10, limit=4)
    [3, 6, 9, 10]
    """
    n = len(rounds)
    if n == 0:
        return []
    ends = [i + 1 for i in range(n) if i + 1 == n or rounds[i + 1] != rounds[i]]
    if len(ends) < 2:
        step = -(-n // limit)
        ends = list(range(step, n + 1, step))
    if len(ends) > limit:
        step = -(-len(ends) // limit)
        ends = ends[step - 1::step]
    if not ends or ends[-1] != n:
        ends.append(n)
    return ends


def rating_course(db: Database, event: dict) -> dict:
    """Each entrant's rating (the standings' fit, :mod:`tourney.results.rating_fit`) with its 95%
    interval after each round (or batch, or evenly spaced group of games), fitted on the games
    played by then: ``{"games": [game numbers], "rounds": [round after it], "series": {entrant:
    [[rating, low, high] or None]}}`` (None before its first game). At most
    :data:`MAX_CHECKPOINTS` fits; the last point is fitted on every game, as the standings are
    (their duplicate sets' dispersion aside). A ladder's event shows the fits its runner kept
    instead (:func:`ladder_course`)."""
    ladder = db.execute("SELECT id FROM ladders WHERE event_id = ?", [event["id"]]).fetchone()
    if ladder is not None:
        return ladder_course(db, ladder[0], event["id"])
    games = _ratings.event_games(db, event["id"])
    rounds = [r["round"] for r in db.query(
        "SELECT s.round FROM games g JOIN series s ON s.id = g.series_id WHERE g.event_id = ? "
        "ORDER BY s.idx, g.idx", [event["id"]])][:len(games)]
    marks = checkpoints(rounds)
    names = sorted({name for seats in games for name, _ in seats})
    index = {name: i for i, name in enumerate(names)}
    kept = Games(width=max([2, *(len(seats) for seats in games)]))
    series: dict[str, list] = {name: [] for name in names}
    done = 0
    for mark in marks:
        counted = Counter(tuple((index[name], place) for name, place in seats)
                          for seats in games[done:mark] if len(seats) >= 2)
        add_counted(kept, counted.items())
        done = mark
        fitted = rate(names, kept, dict.fromkeys(names, 1))["rows"]
        for name in names:
            f = fitted[name]
            series[name].append(None if f is None else [f["rating"], f["rating_low"], f["rating_high"]])
    return {"games": marks, "rounds": [rounds[m - 1] + 1 for m in marks], "series": series}


def ladder_course(db: Database, ladder_id: int, event_id: int) -> dict:
    """:func:`rating_course` of a ladder's event, from the fits its runner kept (one each time its
    games grew by a twentieth, at most :data:`MAX_CHECKPOINTS` of them shown): a ladder runs for
    weeks, and refitting on the games played by each point would read every game on every page.
    Each point is ``[rating, low, high]`` on the Elo scale against the field's mean, as the
    ladder's page draws them; ``rounds`` are the games, a ladder's table being one game."""
    history = ladder_rows.fit_history(db, ladder_id, points=MAX_CHECKPOINTS)
    names = dict(db.execute("SELECT e.id, e.name FROM event_entrants ee JOIN entrants e ON e.id = ee.entrant_id "
                            "WHERE ee.event_id = ?", [event_id]).fetchall())
    series: dict[str, list] = {name: [] for name in sorted(names.values())}
    for _, _, fit in history:
        for entrant_id, name in names.items():
            if entrant_id not in fit:  # submitted after this fit
                series[name].append(None)
                continue
            theta, se = fit[entrant_id]
            series[name].append([round(x * ELO_PER_UNIT, 2) for x in (theta, theta - Z95 * se, theta + Z95 * se)])
    games = [g for g, _, _ in history]
    return {"games": games, "rounds": games, "series": series}


def elo_point(estimate: dict) -> list | None:
    """``[elo, low, high]`` of an estimate's JSON-safe dict (bounds None where infinite), or None
    while the Elo itself is infinite (every game won or lost) or unknown."""
    if estimate["elo"] is None:
        return None
    return [round(estimate[k], 2) if estimate[k] is not None else None for k in ("elo", "elo_low", "elo_high")]


def resolve(db: Database, name: str | None, reference: str | None = None) -> dict:
    """Standings of the event ``name`` (the latest when None); ``reference`` names the entrant
    ratings are measured against (default: the field's mean). A club league's are
    :func:`tourney.club.standings.club_standings`; :func:`tourney.report.resolve` finds
    either."""
    return event_standings(db, find_event(db, name), reference)


def dumps(data) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False)
