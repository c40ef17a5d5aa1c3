"""``tourney games``: list stored games."""

from __future__ import annotations

import typer

from tourney.app import app
from tourney.commands.common import DB_HELP, EXIT_CODES, open_store, out_json


@app.command(epilog="Examples: tourney games --event demo\n\ntourney games --entrant greedy "
             "--json\n\n" + EXIT_CODES)
def games(
    event: str = typer.Option(None, "--event", help="Only games of this event (name)."),
    entrant: str = typer.Option(None, "--entrant", help="Only games this entrant played in."),
    limit: int = typer.Option(None, "--limit", min=1, help="At most this many games."),
    db: str = typer.Option(None, "--db", help=DB_HELP),
    json_out: bool = typer.Option(False, "--json", help="Print the games as JSON."),
) -> None:
    """List stored games (oldest first) with their seats, winners and points.

    JSON shape: {"games": [{"id", "event", "series", "leg", "game", "rule_set", "seed",
    "first_player", "winners": [entrant names], "reason", "decisions", "finished_at", "seats":
    [{"seat", "entrant", "points", "placement", "fault"}]}]}.
    """
    from tabulate import tabulate

    from tourney.results import store

    database = open_store(db, readonly=True)
    rows = store.list_games(database, event=event, entrant=entrant, limit=limit)
    for g in rows:
        g["winners"] = [g["seats"][w]["entrant"] for w in g["winners"]]
    if json_out:
        out_json({"games": rows})
        return
    legs = any(g["leg"] != g["game"] for g in rows)  # a leg column only where legs are runs of deals
    table = [
        [g["id"], g["event"], g["series"], *([g["leg"]] if legs else []), g["game"],
         " ".join(f"{s['entrant']}:{s['points']}" + (f"!{s['fault']}" if s["fault"] else "")
                  for s in g["seats"]),
         ", ".join(g["winners"]) or "-", g["reason"]]
        for g in rows
    ]
    headers = ["id", "event", "series", *(["leg"] if legs else []), "game", "seats:points",
               "winners", "reason"]
    typer.echo(tabulate(table, headers=headers, tablefmt="simple"))
