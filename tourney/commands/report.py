"""``tourney report [EVENT] --format table|csv|json|markdown|html [-o FILE]``."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

import typer

from tourney.app import app
from tourney.commands.common import DB_HELP, EXIT_CODES, open_store
from tourney.errors import UserError


class Format(StrEnum):
    table = "table"
    csv = "csv"
    json = "json"
    markdown = "markdown"
    html = "html"
    site = "site"


@app.command(epilog="Examples: tourney report spring --format html -o spring.html  |  "
                    "tourney report thursday --club --format markdown  |  tourney report --format site -o public\n\n"
                    + EXIT_CODES)
def report(
    event: str = typer.Argument(None, help=(
        "Event name (default: the latest event run from a config or by tourney sprt), or a club "
        "league's name.")),
    fmt: Format = typer.Option(Format.table, "--format", "-f", help="Output format."),
    output: Path = typer.Option(None, "--output", "-o",
                                help="Write to this file instead of stdout (--format site: this folder)."),
    club: bool = typer.Option(False, "--club", help="EVENT names a club league."),
    reference: str = typer.Option(None, "--reference", help=(
        "Measure ratings against this entrant (default: the field's mean).")),
    db: str = typer.Option(None, "--db", help=DB_HELP),
    wide: bool = typer.Option(False, "--wide", help=(
        "table, markdown, html: add games played, legs, average points and faults by reason.")),
) -> None:
    """Report an event's (or club league's) standings: table, csv and json for programs, markdown
    for a forum post, html as one self-contained page with a chart of the entrants' progress; site
    writes the pages of tourney serve, for every event and league, as static files to a folder."""
    if fmt is Format.site:
        from tourney.web.site import write_site  # heavy: the web stack (Jinja2) loads for --format site only

        if event is not None or club:
            raise UserError("--format site writes every event and club league; leave out EVENT and --club")
        if output is None:
            raise UserError("--format site needs a folder: -o DIR")
        count = write_site(open_store(db, readonly=True), output)
        typer.echo(f"wrote {output}/ ({count} pages, each with its JSON twin; open {output}/index.html)", err=True)
        return
    from tourney.report import build, render  # heavy at CLI start: loads when a report is shown

    data = build(open_store(db, readonly=True), event, club=club, reference=reference)
    text = render(data, fmt.value, wide=wide)
    if output is None:
        typer.echo(text, nl=False)
        return
    try:
        output.write_text(text, encoding="utf-8", newline="")
    except OSError as e:
        raise UserError(f"cannot write {output}: {e.strerror}") from None
    typer.echo(f"wrote {output} ({fmt.value})", err=True)
