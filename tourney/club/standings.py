"""A club league's standings in the envelope of an event's (docs/standings.md): the club's part of
``tourney standings``, ``tourney report`` and the league's page.

The league's own ranking (its ``club_standings`` view and withdrawal rule) decides the rank; beside
it each member gets the rating every event has (:mod:`tourney.results.rating_fit`: Plackett-Luce
on the games entered, a winner placed first and the others by their points, fewer first), with
its 95% interval and rank range. The club uses the results layer; nothing in it imports the club.
"""

from __future__ import annotations

from sqlite_utils import Database

from tourney.club.league import League
from tourney.club.ledger import Game
from tourney.results.rating_fit import model_of, rate
from tourney.results.standings import JSON_VERSION, TIE_BREAKS
from tourney.stats.mle import Games

#: a club league's ranking, by its withdrawal rule (docs/standings.md, "Withdrawing and joining")
CLUB_TIE_BREAKS = {
    "penalty": TIE_BREAKS["points"],
    "total": TIE_BREAKS["points"],
    "prorate": ["total points, pro-rated for withdrawn players (lower first)", "wins (more first)",
                "average points per game (lower first)"],
    "average": ["average points per game (lower first)", "wins (more first)"],
}


def club_standings(db: Database, name: str) -> dict:
    """A club league's standings in the same envelope as an event's (``kind`` = ``club``)."""
    league = League(db, name)
    return club_envelope(league.summary(), league.games())


def placements(game: Game) -> list[tuple[str, float]]:
    """A club game as ``(member, place)`` per entry: winners first (place 1), then the others by
    points, fewer first; equal places tie.

    >>> placements(Game(1, 1, [{"name": "a", "points": 5, "winner": 0}, {"name": "b", "points": 0, "winner": 1},
    ...                        {"name": "c", "points": 5, "winner": 0}], None, None))
    [('a', 2), ('b', 1), ('c', 2)]
    """
    keys = sorted({(0 if e["winner"] else 1, e["points"] or 0) for e in game.entries})
    return [(e["name"], 1 + keys.index((0 if e["winner"] else 1, e["points"] or 0))) for e in game.entries]


def club_rating(rows: list[dict], games: list[Game]) -> tuple[dict, dict]:
    """Each member's rating and rank range (rows: the league's standings, best first), and the
    envelope's ``rating_model``."""
    names = [r["entrant"] for r in rows]
    index = {name: i for i, name in enumerate(names)}
    played = [placements(g) for g in games if not g.void and len(g.entries) >= 2]
    kept = Games(width=max([2, *(len(p) for p in played)]))
    for seats in played:
        kept.add([(index[n], place) for n, place in seats if n in index])
    fitted = rate(names, kept, {r["entrant"]: r["rank"] for r in rows})
    widest = max([2, *(len(p) for p in played)])
    return fitted, {**model_of(widest, False), "dispersion": 1.0, "reference": fitted["reference"]}


def club_envelope(summary: dict, games: list[Game] | None = None) -> dict:
    """The standings envelope of a club league from its :meth:`League.summary` (and its games,
    for the rating: without them the rows have none)."""
    rows = [{k: r[k] for k in ("rank", "entrant", "games", "wins", "points", "average", "start_points",
                                "withdrawn", "absences", "missed", "prorated")} for r in summary["standings"]]
    model = None
    if games is not None and rows:
        fitted, model = club_rating(rows, games)
        for r in rows:
            r["fit"] = fitted["rows"][r["entrant"]]
            r["rank_range"] = fitted["rank_range"][r["entrant"]]
    return {
        "version": JSON_VERSION,
        "kind": "club",
        "event": summary["league"],
        "format": "club-league",
        "rule_set": summary["rule_set"],
        "status": "finished" if summary["finished"] else "running",
        "ranking": "points",
        "tie_breaks": CLUB_TIE_BREAKS[summary["withdrawal"]],
        "lower_points_better": True,
        "games_played": summary["games_played"],
        "absence": summary["absence"],
        "withdrawal": summary["withdrawal"],
        "target": summary["target"],
        "finished": summary["finished"],
        "next_first": summary["next_first"],
        "night": summary["night"],
        **({"rating_model": model} if model else {}),
        "standings": rows,
    }


def club_course(db: Database, name: str) -> dict:
    """A club league's totals after each round (a club night's tables make one round; a game
    entered on its own is a round of its own), from the start (round 0): ``{"games": [games
    entered by then], "rounds": [round numbers], "series": {member: [total or None]}}`` (None
    before the member joined)."""
    league = League(db, name)
    games = league.games()
    cumulative = league.cumulative()
    rounds = [g.round if g.round is not None else g.number for g in games]
    ends = [0] + [i + 1 for i in range(len(games)) if i + 1 == len(games) or rounds[i + 1] != rounds[i]]
    return {"games": ends, "rounds": [rounds[k - 1] if k else 0 for k in ends],
            "series": {member: [values[k] for k in ends] for member, values in cumulative.items()}}


def club_progress(db: Database, name: str, games_played: int) -> dict:
    """A report's progress chart of a club league: each member's total after each game."""
    return {"metric": "points", "games": list(range(games_played + 1)), "series": League(db, name).cumulative()}
