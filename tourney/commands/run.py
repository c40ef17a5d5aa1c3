"""``tourney run CONFIG``: run (or resume) the event a config defines."""

from __future__ import annotations

from pathlib import Path

import typer

from tourney import formats
from tourney.app import app
from tourney.commands.common import DB_HELP, EXIT_CODES, open_store, out_json
from tourney.commands.running import execute
from tourney.config import load_config
from tourney.errors import UserError


@app.command(epilog="Examples: tourney run configs/demo.toml --concurrency 2\n\n"
             "tourney run configs/demo.toml --cluster tcp://10.0.0.5:8786\n\n" + EXIT_CODES)
def run(
    config: Path = typer.Argument(..., help="Event config (TOML), e.g. configs/demo.toml."),
    db: str = typer.Option(None, "--db", help=DB_HELP),
    resume: bool = typer.Option(
        False, "--resume", help="Resume an interrupted run (re-running the same config does too)."
    ),
    restart: bool = typer.Option(
        False, "--restart", help="Discard the event's stored results and run it again."
    ),
    concurrency: int = typer.Option(
        0, "--concurrency", "-j", min=0, help="Series played at once (0: config, else cores)."
    ),
    cluster: str = typer.Option(
        None, "--cluster", envvar="TOURNEY_CLUSTER",
        help="Play the series on the Dask cluster whose scheduler is at this address "
             "(e.g. tcp://10.0.0.5:8786; default: $TOURNEY_CLUSTER, else the config's "
             "event.cluster, else local processes). Needs the cluster extra; docs/scale.md.",
    ),
    json_out: bool = typer.Option(False, "--json", help="Print the results as JSON."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress and no series lines."),
) -> None:
    """Run the event defined in CONFIG and print every series' result and a results table.

    Games run in parallel (one series per worker process, or per Dask worker with --cluster;
    only this process writes the database). Every finished game is stored at once; an
    interrupted run resumes where it stopped when run again, with the same seeds, and gives the
    same results.
    """
    from tourney.report import render_table  # heavy at CLI start: loads when shown
    from tourney.results.standings import event_standings, find_event  # heavy at CLI start: loads when shown

    if resume and restart:
        raise UserError("use just one of --resume and --restart")
    cfg = load_config(config)
    database = open_store(db)
    summary = execute(database, cfg, str(config), restart=restart, concurrency=concurrency,
                      json_out=json_out, quiet=quiet, expect_resume=resume,
                      cluster=cluster or cfg.cluster)
    if json_out:
        out_json(summary)
    else:
        typer.echo("")
        typer.echo(f"event {summary['event']} (seed {summary['seed']})")
        typer.echo(render_table(event_standings(database, find_event(database, summary["event"]))), nl=False)
        lines = formats.get(summary["format"]).report_lines(summary)
        if lines:
            typer.echo("")
            typer.echo("\n".join(lines))
