"""``tourney compact`` and ``tourney backup``: a long-lived results file kept small and safe
(logic: :mod:`tourney.results.maintenance`)."""

from __future__ import annotations

import typer

from tourney.app import app
from tourney.commands.common import DB_HELP, EXIT_CODES, err, open_store
from tourney.errors import UserError
from tourney.results import ladder as ladder_rows
from tourney.results import logs, maintenance, store


@app.command(epilog="Example: tourney compact --ladder spring --vacuum\n\n" + EXIT_CODES)
def compact(
    event: str = typer.Option(None, "--event", help="The event to compact (its name)."),
    ladder: str = typer.Option(None, "--ladder", help="The ladder to compact (its name)."),
    keep_logs: str = typer.Option(None, "--keep-logs", help="Each entrant's last N games keep their stderr "
                                  "in full ('all': every game). Default: the ladder's setting; for an event 20."),
    vacuum: bool = typer.Option(False, "--vacuum", help="Then give the freed space back to the file system "
                                "(rewrites the file; other writers wait meanwhile)."),
    db: str = typer.Option(None, "--db", help=DB_HELP),
) -> None:
    """Bring an old event's or ladder's stored games to what their record needs: the stderr
    the keep-logs policy does not keep is dropped (faults and the end of a faulted bot's stderr
    stay), rows of older files take the compact form. Ratings, standings and replays stay exact."""
    if (event is None) == (ladder is None):
        raise UserError("name one of --event NAME or --ladder NAME")
    database = open_store(db)
    try:
        keep = logs.parse_keep(keep_logs) if keep_logs is not None else None
    except ValueError as exc:
        raise UserError(f"--{exc}") from None
    ladder_id = None
    if ladder is not None:
        found = ladder_rows.find(database, ladder)
        if found is None:
            raise UserError(f"no ladder called {ladder!r}")
        event_id, ladder_id = found["event_id"], found["id"]
        if keep_logs is None:
            keep = ladder_rows.keep_logs(found)
        name = f"ladder {ladder}"
    else:
        row = store.find_event(database, event)
        if row is None:
            raise UserError(f"no event called {event!r}")
        event_id = row["id"]
        if keep_logs is None:
            keep = logs.LADDER_KEEP
        name = f"event {event}"
    before = maintenance.size(database)
    done = maintenance.compact(database, event_id, keep, ladder_id)
    if vacuum:
        maintenance.vacuum(database)
    after = maintenance.size(database)
    err(f"{name}: {done['games']} games; {done['stderr_dropped']:,} characters of stderr dropped, "
        f"{done['rows_rewritten']} older rows rewritten; database {before / 1e6:.1f} MB -> {after / 1e6:.1f} MB"
        + ("" if vacuum else " (--vacuum gives the freed space back)"))


@app.command(epilog="Example: tourney backup results/tourney.db backups/tourney-monday.db\n\n" + EXIT_CODES)
def backup(
    source: str = typer.Argument(..., help="The database to copy (it may be in use: a running ladder or serve)."),
    dest: str = typer.Argument(..., help="The copy: a new file."),
) -> None:
    """Copy a database with SQLite's online backup, safe beside a running writer: the copy is the
    file as of one commit, written beside DEST and renamed into place once checked."""
    size = maintenance.backup(source, dest)
    err(f"{dest}: backup of {source} ({size / 1e6:.1f} MB)")
