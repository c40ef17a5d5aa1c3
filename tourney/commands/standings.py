"""``tourney standings [EVENT]``: standings computed from the database."""

from __future__ import annotations

import typer
from tabulate import tabulate

from tourney.app import app


def _fmt_faults(faults: dict) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(faults.items()))


def table_rows(data: dict) -> tuple[list[str], list[list]]:
    """Headers and rows of a standings table (shared with ``tourney report --format table``)."""
    if data["kind"] == "club":
        headers = ["rank", "entrant", "points", "games", "wins", "avg"]
        rows = [[r["rank"], r["entrant"] + (" (withdrawn)" if r["withdrawn"] else ""), r["points"], r["games"],
                 r["wins"], "" if r["average"] is None else f"{r['average']:.2f}"] for r in data["standings"]]
        return headers, rows
    series = data["ranking"] == "series"
    headers = ["rank", "entrant"]
    if series:
        headers += ["series W-D-L"]
    headers += ["games", "wins", "draws", "losses", "points", "avg", "faults", "rating (mu ± sigma)", "ordinal"]
    rows = []
    for r in data["standings"]:
        row = [r["rank"], r["entrant"]]
        if series:
            s = r["series"]
            row.append(f"{s['won']}-{s['drawn']}-{s['lost']}")
        rt = r["rating"]
        row += [r["games"], r["wins"], r["draws"], r["losses"], r["points"],
                "" if r["average"] is None else f"{r['average']:.2f}", _fmt_faults(r["faults"]),
                f"{rt['mu']:.2f} ± {rt['sigma']:.2f}", f"{rt['ordinal']:.2f}"]
        rows.append(row)
    return headers, rows


def title(data: dict) -> str:
    if data["kind"] == "club":
        target = f", play to {data['target']}" if data.get("target") else ""
        return f"{data['event']} (club league, {data['rule_set']}{target}; lowest total wins; {data['games_played']} games)"
    return (f"{data['event']} ({data['format']}, {data['rule_set']}, {data['status']}; {data['games_played']} games; "
            f"ranked by {', then '.join(data['tie_breaks'])})")


@app.command(epilog="Examples: tourney standings  |  tourney standings spring-league --json")
def standings(
    event: str = typer.Argument(None, help="Event name (default: the latest event), or a club league's name."),
    club: bool = typer.Option(False, "--club", help="EVENT names a club league."),
    db: str = typer.Option(None, "--db", help="SQLite database file (default: $TOURNEY_DB, else results/tourney.db)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON (shape in docs/standings.md)."),
) -> None:
    """Show an event's standings: games, wins, draws, losses, points, faults and rating, ranked by
    the documented tie-breaks (entrants equal on all of them share a rank)."""
    from tourney import store
    from tourney.club import ClubError
    from tourney.standings import StandingsError, dumps, open_db, resolve

    try:
        database = open_db(db, create=False)
        data = resolve(database, event, club=club)
    except (StandingsError, ClubError, store.StoreError) as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(1) from None
    if as_json:
        typer.echo(dumps(data))
        return
    typer.echo(title(data))
    headers, rows = table_rows(data)
    typer.echo(tabulate(rows, headers=headers, disable_numparse=True))
    if data["kind"] == "club" and data.get("next_first"):
        nf = data["next_first"]
        how = (f"tie on {nf['points']} between {', '.join(nf['tied'])}, settled at random from the league's seed"
               if nf["random"] else f"most points: {nf['points']}")
        typer.echo(f"first in game {nf['game']}: {nf['name']} ({how})")
