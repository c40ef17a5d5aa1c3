"""``tourney games``: list stored games."""

from __future__ import annotations

import typer
from tabulate import tabulate

from tourney.app import app
from tourney.commands.common import DB_HELP, EXIT_CODES, err, open_store, out_json
from tourney.results import store

#: games per page unless --limit says otherwise
PAGE = 100


@app.command(epilog="Examples: tourney games --event demo\n\ntourney games --entrant greedy "
             "--json\n\ntourney games --event demo --limit 50 --offset 100   (the third page "
             "of 50)\n\n" + EXIT_CODES)
def games(
    event: str = typer.Option(None, "--event", help="Only games of this event (name)."),
    entrant: str = typer.Option(None, "--entrant", help="Only games this entrant played in."),
    limit: int = typer.Option(
        PAGE, "--limit", min=0, help=f"Games per page (default {PAGE}; 0: all of them)."),
    offset: int = typer.Option(
        0, "--offset", min=0, help="Skip this many games first (the next page: --offset "
        "plus --limit; JSON gives it as next_offset)."),
    db: str = typer.Option(None, "--db", help=DB_HELP),
    json_out: bool = typer.Option(False, "--json", help="Print the games as JSON."),
) -> None:
    """List stored games (oldest first) with their seats, winners and points, a page at a time.

    JSON shape: docs/schemas/games.schema.json (next_offset is the --offset of the next page,
    or null after the last one).
    """
    database = open_store(db, readonly=True)
    rows = store.list_games(database, event=event, entrant=entrant, limit=limit + 1 if limit else None,
                            offset=offset)
    more = bool(limit) and len(rows) > limit
    rows = rows[:limit] if limit else rows
    next_offset = offset + len(rows) if more else None
    for g in rows:
        g["winners"] = [g["seats"][w]["entrant"] for w in g["winners"]]
    if json_out:
        out_json({"games": rows, "offset": offset, "next_offset": next_offset})
        return
    legs = any(g["leg"] != g["game"] for g in rows)  # a leg column only where legs are runs of deals
    sets = any(g["duplicate_set"] is not None for g in rows)  # and a set column for duplicate deals
    table = [
        [g["id"], g["event"], g["series"], *([g["leg"]] if legs else []),
         *([_set_cell(g)] if sets else []), g["game"],
         " ".join(f"{s['entrant']}:{s['points']}" + (f"!{s['fault']}" if s["fault"] else "")
                  for s in g["seats"]),
         ", ".join(g["winners"]) or "-", g["reason"]]
        for g in rows
    ]
    headers = ["id", "event", "series", *(["leg"] if legs else []),
               *(["set/rotation"] if sets else []), "game", "seats:points",
               "winners", "reason"]
    typer.echo(tabulate(table, headers=headers, tablefmt="simple"))
    if next_offset is not None:
        err(f"more games: add --offset {next_offset} for the next page")


def _set_cell(game: dict) -> str:
    if game["duplicate_set"] is None:
        return "-"
    return f"{game['duplicate_set']}/{game['rotation']}"
