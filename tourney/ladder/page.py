"""What a ladder's web page shows: the leaderboard, the ratings over time, the recent games and
the versions, read from the stored fit and a window of games (never every game)."""

from __future__ import annotations

from tourney.ladder import vetting
from tourney.ladder.service import standings
from tourney.results import ladder as rows
from tourney.stats.mle import ELO_PER_UNIT


def page(db, ladder_id: int, recent: int = 20) -> dict | None:
    """What the ladder's web page shows (None: no such ladder): the leaderboard with rank
    ranges, each version's rating over time and its history, recent games (with replays), and
    the neighbour pairs still undecided (in the settle phase: those of the top N)."""
    found = rows.find_by_id(db, ladder_id)
    if found is None:
        return None
    name = found["name"]
    top = found["settings"].get("settle_top")
    board = standings(db, name, top)
    versions = rows.versions(db, ladder_id)
    by_entrant = {v["entrant_id"]: v["entrant"] for v in versions}
    ids = {v["entrant"]: v["entrant_id"] for v in versions}
    shown = [r["entrant"] for r in board["standings"] if r["status"] == "active"][:10]  # a readable chart
    history = rows.fit_history(db, ladder_id, points=100)  # a chart's worth, whatever the fits kept
    course = {"games": [g for g, _, _ in history],
              "series": {n: [round(fit[ids[n]][0] * ELO_PER_UNIT, 1) if ids[n] in fit else None
                             for _, _, fit in history] for n in shown}}
    games = [{"game_id": g["game_id"], "finished_at": g["finished_at"],
              "seats": [{"entrant": by_entrant.get(s["entrant_id"], "?"), "placement": s["placement"],
                         "fault": s["fault"]} for s in sorted(g["seats"], key=lambda s: s["placement"] or 0)]}
             for g in rows.recent_games(db, found["event_id"], recent)]
    for v in board["unrated"] + board["standings"]:
        if "reason" in v:
            v["reason"] = vetting.public_reason(v["reason"])
    return {"page": "ladder", "id": ladder_id, "ladder": board, "settle_top": top,
            "deciding": [p for p in board["neighbours"] if not p["separated"]],
            "course": course, "recent": games,
            "versions": [{"entrant": v["entrant"], "author": v["author"], "version": v["version"],
                          "status": v["status"], "reason": vetting.public_reason(v["reason"]),
                          "submitted_at": v["submitted_at"],
                          "changed_at": v["changed_at"]} for v in versions]}
