"""``tourney standings [EVENT]``: standings computed from the database."""

from __future__ import annotations

import typer

from tourney.app import app
from tourney.commands.common import DB_HELP, EXIT_CODES, open_store


@app.command(epilog="Examples: tourney standings  |  tourney standings spring-league --json\n\n" + EXIT_CODES)
def standings(
    event: str = typer.Argument(None, help=(
        "Event name (default: the latest event run from a config or by tourney sprt), or a club "
        "league's name.")),
    club: bool = typer.Option(False, "--club", help="EVENT names a club league."),
    reference: str = typer.Option(None, "--reference", help=(
        "Measure ratings against this entrant (default: the field's mean).")),
    db: str = typer.Option(None, "--db", help=DB_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print JSON (shape in docs/standings.md)."),
    wide: bool = typer.Option(False, "--wide", help=(
        "Add games played, legs, average points and faults by reason to the table (wider than 100 columns).")),
) -> None:
    """Show an event's standings: W-D-L, points, rating with its 95% interval, rank range and
    faults, ranked by the format's documented tie-breaks (entrants equal on all of them share a
    rank)."""
    from tourney.report import render_table, resolve  # heavy at CLI start: loads when shown
    from tourney.results.standings import dumps  # heavy at CLI start: loads when shown

    data = resolve(open_store(db, readonly=True), event, club=club, reference=reference)
    if as_json:
        typer.echo(dumps(data))
        return
    typer.echo(render_table(data, wide=wide), nl=False)
