"""Summaries of an event read back from the database: the ``tourney run --json`` document and
the one-line account of a finished series."""

from __future__ import annotations

import json

from tourney.results import store


def event_summary(db, event_id: int) -> dict:
    """The ``tourney run --json`` document (see docs/formats.md)."""
    from tourney.events import rounds

    ev = dict(db["events"].get(event_id))
    config_event = _loads(ev["config"])["event"]
    unit = config_event.get("unit", "match")
    series_out = []
    per: dict[str, dict] = {}
    for row in db.query(
            "select e.name from event_entrants ee join entrants e on e.id = ee.entrant_id "
            "where ee.event_id = ? order by ee.position", [event_id]):
        per[row["name"]] = {"entrant": row["name"], "series_played": 0, "series_won": 0,
                            "series_drawn": 0, "series_lost": 0, "legs_won": 0,
                            "games_played": 0, "games_won": 0, "points": 0, "faults": 0}
    legs = {r["series_id"]: r["legs"] for r in db.query(
        "select series_id, count(distinct leg) as legs from games where event_id = ? "
        "group by series_id", [event_id])}
    # duplicate sets with every rotation stored (a set cut short by an interruption is not one)
    sets = {r["series_id"]: r["sets"] for r in db.query(
        "select series_id, count(*) as sets from (select series_id, duplicate_set from games "
        "where event_id = ? and duplicate_set is not null group by series_id, duplicate_set "
        "having count(distinct rotation) = max(players)) group by series_id", [event_id])}
    rows_of_series = store.series_rows(db, event_id)
    for s in rows_of_series:
        winner = None
        for e in s["entrants"]:
            if e["entrant_id"] == s["winner_id"]:
                winner = e["name"]
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
        if s["status"] != "finished":
            continue
        for e in s["entrants"]:
            p = per[e["name"]]
            p["series_played"] += 1
            if s["kind"] == "match":
                p["legs_won"] += e["wins"]
            if s["outcome"] == "draw" and e["placement"] == 1:
                p["series_drawn"] += 1
            elif winner == e["name"]:
                p["series_won"] += 1
            else:
                p["series_lost"] += 1
    for r in db.query(
            "select e.name, count(*) as games, sum(st.winner) as won, sum(st.points) as points, "
            "sum(st.fault is not null) as faults from seats st join games g on g.id = st.game_id "
            "join entrants e on e.id = st.entrant_id where g.event_id = ? group by e.name",
            [event_id]):
        p = per[r["name"]]
        p.update(games_played=r["games"], games_won=r["won"] or 0, points=r["points"] or 0,
                 faults=r["faults"] or 0)
    rows = list(per.values())
    if unit == "league":
        def key(p):
            return (p["points"], -p["games_won"])
    else:
        def key(p):
            return (-(p["series_won"] + 0.5 * p["series_drawn"]), -p["legs_won"],
                    -p["games_won"], p["points"])
    keys = [key(p) for p in rows]
    for p, k in zip(rows, keys):
        p["rank"] = 1 + sum(1 for o in keys if o < k)
    rows.sort(key=lambda p: (p["rank"], p["entrant"]))
    games = db.execute("select count(*) from games where event_id = ?", [event_id]).fetchone()[0]
    return {
        "event": ev["name"],
        "format": ev["format"],
        "rule_set": ev["rule_set"],
        "seed": ev["seed"],
        "status": ev["status"],
        "duplicate": bool(config_event.get("duplicate")),
        "games": games,
        "series": series_out,
        "standings": [{"rank": p.pop("rank"), **p} for p in rows],
        **rounds.format_extra(config_event, rows_of_series),
    }


def _loads(text):
    return json.loads(text) if text else {}


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
    played = f"{result['games_played']} games"
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
