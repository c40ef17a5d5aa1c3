"""Summaries of an event read back from the database: the ``tourney run --json`` document and
the one-line account of a finished series."""

from __future__ import annotations

import json

from tourney import formats
from tourney.results import reads, store

#: version of the ``tourney run --json`` shape: 2 took the standings rows of ``tourney standings``
SUMMARY_VERSION = 2


def event_summary(db, event_id: int, standings: bool = True) -> dict:
    """The ``tourney run --json`` document (docs/formats.md): the event, its series, and its
    standings exactly as ``tourney standings`` computes them (one definition, one vocabulary):
    the rows, the Elo reference, every pair's record and whether luck-adjusted scores are on.
    ``standings=False`` leaves the standings out (``tourney sprt`` shows its verdict alone, and
    so spares the rating fit and its numpy at the end of a short test)."""
    ev = reads.event_row(db, event_id)
    config_event = json.loads(ev["config"])["event"] if ev["config"] else {}
    legs = reads.series_legs(db, event_id)
    sets = reads.complete_duplicate_sets(db, event_id)
    series_out = []
    rows_of_series = store.series_rows(db, event_id)
    for s in rows_of_series:
        winner = next((e["name"] for e in s["entrants"] if e["entrant_id"] == s["winner_id"]), None)
        series_out.append({
            "series": s["idx"],
            "round": s["round"],
            "kind": s["kind"],
            "status": s["status"],
            "outcome": s["outcome"],
            "winner": winner,
            "games": s["games_played"],
            "legs": legs.get(s["id"], 0),
            "sets": sets.get(s["id"], 0),
            "entrants": [
                {"entrant": e["name"], "seat": e["seat"], "wins": e["wins"],
                 "points": e["points"], "placement": e["placement"]}
                for e in s["entrants"]
            ],
        })
    games = reads.event_game_count(db, event_id)
    table = None
    if standings:
        from tourney.results.standings import event_standings  # the rating fit's numpy: heavy, loaded when asked
        table = event_standings(db, ev)
    return {
        "version": SUMMARY_VERSION,
        "event": ev["name"],
        "format": ev["format"],
        "rule_set": ev["rule_set"],
        "seed": ev["seed"],
        "status": ev["status"],
        "duplicate": bool(config_event.get("duplicate")),
        "games": games,
        "series": series_out,
        **({key: table[key] for key in ("ranking", "tie_breaks", "rating_model", "elo_reference", "standings",
                                        "pairwise", "luck")} if table else {}),
        **(formats.get(ev["format"]).report(db, event_id, config_event, rows_of_series)
           if config_event else {}),
    }


def series_line(s: dict, result: dict) -> str:
    """One readable line for a finished series (row from store.series_rows + SeriesState.result)."""
    names = [e["name"] for e in s["entrants"]]
    seats = result["seats"]
    if s["kind"] == "bye":
        return f"series {s['idx']}: {names[0]}: bye"
    if s["kind"] == "league":
        body = ", ".join(f"{names[r['seat']]} {r['points']}" for r in
                         sorted(seats, key=lambda r: (r["placement"], r["seat"])))
        body = f"points {body}"
    elif s["kind"] == "match":
        body = " - ".join(f"{names[r['seat']]} {r['wins']}" for r in seats)
    else:
        body = " vs ".join(names)
    if result["winner"] is None:
        tail = "drawn"
    else:
        tail = f"winner {names[result['winner']]}"
    played = f"{result['games_played']} game{'s' if result['games_played'] != 1 else ''}"
    legs = result.get("legs_played", result["games_played"])
    if legs != result["games_played"]:
        played = f"{legs} leg{'s' if legs != 1 else ''}, {result['games_played']} deals"
    if result.get("sets_played"):
        played = f"{result['sets_played']} duplicate set{'s' if result['sets_played'] != 1 else ''}, {played}"
    return f"series {s['idx']}: {body} ({played}): {tail}"


def stored_series_line(item: dict) -> str:
    """The line of a series from the summary (same wording as :func:`series_line`)."""
    row = {"idx": item["series"], "kind": item["kind"],
           "entrants": [{"name": e["entrant"]} for e in item["entrants"]]}
    winner = next((e["seat"] for e in item["entrants"] if e["entrant"] == item["winner"]), None)
    result = {"winner": winner, "games_played": item["games"], "legs_played": item["legs"],
              "sets_played": item.get("sets", 0),
              "seats": [{"seat": e["seat"], "wins": e["wins"], "points": e["points"],
                         "placement": e["placement"]} for e in item["entrants"]]}
    return series_line(row, result)
