"""``tourney report [EVENT] --format table|csv|json|markdown|html [-o FILE]``."""

from __future__ import annotations

from enum import Enum
from pathlib import Path

import typer

from tourney.app import app


class Format(str, Enum):
    table = "table"
    csv = "csv"
    json = "json"
    markdown = "markdown"
    html = "html"


@app.command(epilog="Examples: tourney report spring --format html -o spring.html  |  "
                    "tourney report thursday --club --format markdown")
def report(
    event: str = typer.Argument(None, help="Event name (default: the latest event), or a club league's name."),
    fmt: Format = typer.Option(Format.table, "--format", "-f", help="Output format."),
    output: Path = typer.Option(None, "--output", "-o", help="Write to this file instead of stdout."),
    club: bool = typer.Option(False, "--club", help="EVENT names a club league."),
    db: str = typer.Option(None, "--db", help="SQLite database file (default: $TOURNEY_DB, else results/tourney.db)."),
) -> None:
    """Report an event's (or club league's) standings: table, csv and json for programs, markdown
    for a forum post, html as one self-contained page with a chart of the entrants' progress."""
    from tourney import store
    from tourney.club import ClubError
    from tourney.report import build, render
    from tourney.standings import StandingsError, open_db

    try:
        database = open_db(db, create=False)
        data = build(database, event, club=club)
    except (StandingsError, ClubError, store.StoreError) as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(1) from None
    text = render(data, fmt.value)
    if output is None:
        typer.echo(text, nl=False)
        return
    try:
        output.write_text(text, encoding="utf-8", newline="")
    except OSError as e:
        typer.echo(f"error: cannot write {output}: {e.strerror}", err=True)
        raise typer.Exit(1) from None
    typer.echo(f"wrote {output} ({fmt.value})", err=True)
