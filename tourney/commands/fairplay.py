"""``tourney fairplay [EVENT] [--alpha 0.05] [--json]``: collusion checks of a multi-player event."""

from __future__ import annotations

import typer

from tourney.app import app
from tourney.commands.common import DB_HELP, EXIT_CODES, open_store, out_json


@app.command(epilog="Examples: tourney fairplay spring  |  tourney fairplay spring --json  |  "
                    "tourney fairplay spring --alpha 0.01\n\n" + EXIT_CODES)
def fairplay(
    event: str = typer.Argument(None, help="Event name (default: the latest event run from a config)."),
    alpha: float = typer.Option(0.05, "--alpha", help="Flag a pair when a Holm-adjusted p-value is below this."),
    db: str = typer.Option(None, "--db", help=DB_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print JSON (shape in docs/schemas/fairplay.schema.json)."),
) -> None:
    """Test every pair of entrants that shared tables for collusion: soft play (hostile effects
    aimed at the partner less often than its standing allows), trades fed to the partner, and
    head-to-head results that improve when the partner sits in. Each p-value is one-sided and
    Holm-adjusted over every test of the event (docs/evaluation.md, "Collusion detection").
    Games are replayed from their seeds and choices, so a large event takes a while."""
    from tourney.results.fairplay import event_fairplay, render_table  # heavy at CLI start: the replays

    data = event_fairplay(open_store(db, readonly=True), event, alpha)
    if as_json:
        out_json(data)
        return
    typer.echo(render_table(data), nl=False)
